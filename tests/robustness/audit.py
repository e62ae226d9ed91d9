"""The fail-closed audit of one tree: every mutation of every policy field,
each checked against the unmutated outcome.

A *flip* is a decision that refused (a union refusal, a named comparison
that does not match, an ingress refusal) and passes after the mutation. A
flip after a ``type-change`` is a *fail-open*: the API server would refuse
that object, and the check read it as harmless. The exceptions are the
readings SEMANTICS.md itself prescribes (``sanctioned``) and the bugs already
reported with a failing test of their own (``KNOWN_BUGS``). Flips after the
other classes of mutation can be legitimate narrowing (an absent egress list
denies all egress) and are counted, not failed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lint.report.model import SandboxRef
from tests.robustness.mutate import Mutation, apply, mutations
from tests.robustness.outcome import Checker, Verdicts
from tests.robustness.trees import Tree

TYPED_POLICY_LISTS = frozenset({"NetworkPolicyList", "CiliumNetworkPolicyList"})


@dataclass(frozen=True)
class Flip:
    tree: str
    mutation: Mutation
    sandbox: SandboxRef
    decision: str
    before: str | None
    after: str | None

    def describe(self) -> str:
        ref = self.sandbox
        return (
            f"{self.tree}: {self.mutation.describe()} [{self.mutation.category}] turns "
            f"{self.decision} {self.before!r} into {self.after!r} for "
            f"{ref.namespace}/{ref.template} ({ref.path})"
        )


@dataclass
class AuditResult:
    tree: str
    mutations: Counter[str] = field(default_factory=Counter)
    flips: list[Flip] = field(default_factory=list)
    fail_open: list[Flip] = field(default_factory=list)
    sanctioned: list[tuple[Flip, str]] = field(default_factory=list)
    known: list[tuple[Flip, str]] = field(default_factory=list)


def sanctioned(tree: Tree, mutation: Mutation) -> str | None:
    """Why SEMANTICS.md makes this flip the right answer, if it does."""
    path = mutation.path
    if len(path) >= 2 and path[-2] == "policyTypes" and isinstance(path[-1], int):
        return (
            "SEMANTICS §5.3 and §13.1: a direction is enforced only by the exact "
            "string 'Egress' or 'Ingress' in policyTypes"
        )
    if len(path) == 2 and path[0] == "items":
        if _wrapper_kind(tree, mutation) in TYPED_POLICY_LISTS:
            return (
                "SEMANTICS §5.1: a non-object item of a typed policy list is an unreadable "
                "policy of the defaulted namespace, not of the sandbox's"
            )
        return (
            "SEMANTICS §5.1: a non-object item of a plain List has no kind; it is a parse finding"
        )
    return None


def known_bug(tree: Tree, mutation: Mutation) -> str | None:
    """Fail-opens already reported and not yet fixed, each with an xfail
    test reproducing it. None are open: an item of a typed policy list
    without a string kind is judged as the list's kind since the inventory
    takes ``LoadedDocument.kind``."""
    del tree, mutation
    return None


def _wrapper_kind(tree: Tree, mutation: Mutation) -> Any:
    document = tree.documents[mutation.document]
    return document.get("kind") if isinstance(document, dict) else None


def audit(tree: Tree, workdir: Path) -> AuditResult:
    """Run every mutation of ``tree``; no exception may escape the check."""
    result = AuditResult(tree.name)
    checker = Checker(tree, workdir)
    with checker.running():
        before = checker.run(tree.documents)
        for mutation in mutations(tree.documents):
            result.mutations[mutation.category] += 1
            after = checker.run(apply(tree.documents, mutation))
            for flip in flips(tree, mutation, before, after):
                classify(result, tree, flip)
    return result


def flips(
    tree: Tree,
    mutation: Mutation,
    before: dict[SandboxRef, Verdicts],
    after: dict[SandboxRef, Verdicts],
) -> list[Flip]:
    flips = []
    for ref, old in before.items():
        new = after.get(ref)
        if new is None:
            flips.append(Flip(tree.name, mutation, ref, "sandbox", "present", None))
            continue
        refusing = new.refusing()
        for decision, refused in old.refusing().items():
            if refused and not refusing[decision]:
                was, now = getattr(old, decision), getattr(new, decision)
                flips.append(Flip(tree.name, mutation, ref, decision, was, now))
    return flips


def classify(result: AuditResult, tree: Tree, flip: Flip) -> None:
    result.flips.append(flip)
    if flip.mutation.category != "type-change" and flip.decision != "sandbox":
        return
    reason = sanctioned(tree, flip.mutation)
    if reason is not None:
        result.sanctioned.append((flip, reason))
        return
    bug = known_bug(tree, flip.mutation)
    if bug is not None:
        result.known.append((flip, bug))
        return
    result.fail_open.append(flip)
