"""Judging a decision's policies, once per namespace and context: the
union and ingress checks gather the judged documents of a scope here, with
their origins, and turn a refusal into a finding.

A candidate's judged entries depend only on the candidate, the pod labels
its selectors read, and the decision's context (the allowance, or the
agent port). Many declarations share a namespace and an allowance, so each
candidate is judged once per distinct context and the entries are reused
(DESIGN §7: remember verdicts).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain

from lint.checks.candidates import (
    Placeholder,
    Sourced,
    cilium_candidates,
    core_candidates,
    unparsed_placeholders,
)
from lint.checks.context import (
    CheckContext,
    JudgedEntry,
    JudgmentMemo,
    Origin,
    examined_entries,
)
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.egress_documents import document_name
from lint.decision.model import Candidate, Decision, Examined, PolicyDocument, Subject
from lint.decision.policy_shape import Direction
from lint.decision.selection_index import ScopeSelection, selection_index
from lint.inventory import KubeObject
from lint.report.model import DecisionReport

DocumentReader = Callable[[Candidate], list[PolicyDocument]]
Examiner = Callable[[PolicyDocument], Examined]


@dataclass(frozen=True)
class Scope:
    """Where a decision looks: the namespace, the template (for the
    controller's policy on the pooled path), and whether Cilium kinds count."""

    namespace: str
    template: KubeObject | None
    pooled: bool
    """Whether the controller's policies for the template are candidates
    (``with_controller``)."""
    with_cilium: bool
    only_cilium: bool = False
    """Only the Cilium candidates: reach's reading of them under engine core."""
    facts: ControllerFacts = DEFAULT_FACTS


def with_controller(path: str, facts: ControllerFacts) -> bool:
    """Whether the path's pods can carry the label the controller's policy
    selects on (AGENT-SANDBOX §6, §8): pooled and warm pods; direct ones only
    where the version copies the label from the pod template as written."""
    return path != "direct" or facts.column.hash_on_pods == "as-written"


def _sourced(ctx: CheckContext, scope: Scope) -> list[Sourced]:
    namespace = ctx.inventory.namespace(scope.namespace)
    if scope.only_cilium:
        return cilium_candidates(namespace, ctx.inventory)
    sourced = core_candidates(namespace, scope.template, scope.pooled, scope.facts)
    if scope.with_cilium or ctx.read_cilium == "always":
        sourced += cilium_candidates(namespace, ctx.inventory)
    return sourced


def _placeholders(ctx: CheckContext, scope: Scope) -> list[Placeholder]:
    return unparsed_placeholders(ctx.problems, scope.namespace)


@dataclass(frozen=True)
class Judging:
    """How one decision judges: its reader and examiner, the key of its
    context (everything besides the candidate and the pod's labels that
    the documents depend on), and the key its rules sit under."""

    read: DocumentReader
    examine: Examiner
    context: Hashable
    rules_key: Direction
    subject: Subject
    named: tuple[str, str] | None = None
    """The translation's (kind, name): the one candidate exempt from rule
    judgement (§11.2) is judged apart from every other."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A candidate with what its memo key needs, computed once per scope."""

    item: Sourced
    label_keys: tuple[str, ...]
    name: str


@dataclass
class _Quiet:
    """One direction of a scope: the selection index, and each indexable
    candidate's shared ``does-not-select`` entries, filled the first time a
    pod it cannot select is judged (``missing`` are those not filled yet)."""

    index: ScopeSelection
    slots: list[tuple[JudgedEntry, ...] | None]
    missing: set[int]


@dataclass(frozen=True)
class PreparedScope:
    """A scope's candidates in §5.1 order, grouped by the label keys their
    selectors read: every candidate of a group sees the same labels, so a
    group is looked up once per decision instead of once per candidate."""

    candidates: list[Prepared]
    groups: list[tuple[tuple[str, ...], tuple[int, ...]]]
    group_of: dict[int, int]
    """The group number of each candidate index."""
    by_name: dict[tuple[str, str], tuple[int, ...]]
    quiet: dict[Direction, _Quiet] = field(default_factory=dict)
    """Per direction, built on first use (``_quiet_of``)."""


def _prepared(ctx: CheckContext, scope: Scope) -> PreparedScope:
    with_cilium = scope.with_cilium or ctx.read_cilium == "always"
    # The template matters only on the pooled path, through its controller policy.
    template = scope.template if scope.pooled else None
    key = (scope.namespace, id(template), scope.pooled, with_cilium, scope.only_cilium, scope.facts)
    cached = ctx.memo.scopes.get(key)
    if cached is not None and cached[0] is template:
        prepared: PreparedScope = cached[1]
        return prepared
    candidates = [
        Prepared(item, ctx.memo.keys_of(item.candidate), document_name(item.candidate))
        for item in _sourced(ctx, scope)
    ]
    groups: dict[tuple[str, ...], list[int]] = {}
    by_name: dict[tuple[str, str], list[int]] = {}
    for index, candidate in enumerate(candidates):
        groups.setdefault(candidate.label_keys, []).append(index)
        by_name.setdefault((candidate.item.candidate.kind, candidate.name), []).append(index)
    group_list = [(keys, tuple(indices)) for keys, indices in groups.items()]
    prepared = PreparedScope(
        candidates,
        group_list,
        {index: number for number, (_, members) in enumerate(group_list) for index in members},
        {name: tuple(indices) for name, indices in by_name.items()},
    )
    ctx.memo.scopes[key] = (template, prepared)
    return prepared


def _quiet_of(memo: JudgmentMemo, prepared: PreparedScope, direction: Direction) -> _Quiet:
    quiet = prepared.quiet.get(direction)
    if quiet is None:
        requirements = [
            memo.requirements_of(p.item.candidate, direction) for p in prepared.candidates
        ]
        index = selection_index([p.item.candidate for p in prepared.candidates], requirements)
        always = set(index.core.always) | set(index.cilium.always)
        missing = {i for i in range(len(prepared.candidates)) if i not in always}
        quiet = _Quiet(index, [None] * len(prepared.candidates), missing)
        prepared.quiet[direction] = quiet
    return quiet


def judged_entries(
    ctx: CheckContext,
    scope: Scope,
    labels: Mapping[str, str],
    judging: Judging,
    *,
    placeholders: bool = True,
) -> list[JudgedEntry]:
    """Every examined entry of the decision, in §5.1 order, reusing what an
    earlier decision with the same context already judged.

    Only the candidates the selection index says can select the pod are
    visited; every other one takes its shared ``does-not-select`` entries
    (``_unselected``), with no entry of its own in the memo. A group's memo
    key holds the pod's own values of the keys its selectors read, which
    also settle which of its candidates the index visits. The namespace,
    which Cilium adds to the labels it matches, is fixed by the scope.
    """
    prepared = _prepared(ctx, scope)
    quiet = _quiet_of(ctx.memo, prepared, judging.rules_key)
    selecting = quiet.index.selecting(judging.subject)
    named = _named_by_group(prepared, judging)
    for i in quiet.missing - selecting:
        quiet.slots[i] = _unselected(ctx.memo, prepared.candidates[i], False, judging)
    quiet.missing &= selecting
    slots = quiet.slots.copy()
    for named_indices in named.values():
        for i in named_indices:
            if i not in selecting:
                slots[i] = _unselected(ctx.memo, prepared.candidates[i], True, judging)
    visited: dict[int, list[int]] = {}
    for i in sorted(selecting):
        visited.setdefault(prepared.group_of[i], []).append(i)
    for number, members in visited.items():
        keys = prepared.groups[number][0]
        read_labels = tuple(map(labels.get, keys))
        group_named = named.get(number, ())
        key = (id(prepared), number, judging.context, read_labels, group_named)
        hit = ctx.memo.groups.get(key)
        if hit is None or hit[0] is not prepared:
            entries = tuple(
                _entries_for(
                    ctx.memo, prepared.candidates[i], read_labels, i in group_named, judging
                )
                for i in members
            )
            hit = (prepared, entries)
            ctx.memo.groups[key] = hit
        for index, entries in zip(members, hit[1], strict=True):
            slots[index] = entries
    # A slot left empty (a bug) fails loudly here: None is not iterable.
    result: list[JudgedEntry] = list(chain.from_iterable(slots))  # type: ignore[arg-type]
    for placeholder in _placeholders(ctx, scope) if placeholders else ():
        examined = judging.examine(placeholder.document)
        origins: dict[int, Origin] = {id(placeholder.document): placeholder}
        entry = examined_entries([examined], origins, judging.rules_key)[0]
        result.append(JudgedEntry(examined, entry, placeholder))
    return result


def _named_by_group(prepared: PreparedScope, judging: Judging) -> dict[int, tuple[int, ...]]:
    """The candidates named like the translation, by the group they sit in."""
    indices = prepared.by_name.get(judging.named, ()) if judging.named else ()
    named: dict[int, tuple[int, ...]] = {}
    for index in indices:
        group = prepared.group_of[index]
        named[group] = (*named.get(group, ()), index)
    return named


def _entries_for(
    memo: JudgmentMemo,
    prepared: Prepared,
    read_labels: tuple[str | None, ...],
    named: bool,
    judging: Judging,
) -> tuple[JudgedEntry, ...]:
    candidate = prepared.item.candidate
    # A clusterwide candidate sits in every namespace's scope, and Cilium
    # matches the namespace too: it is part of the key.
    namespace = judging.subject.namespace
    key = (id(candidate.raw), candidate.position, namespace, judging.context, read_labels, named)
    hit = memo.entries.get(key)
    if hit is not None and hit[0] is candidate.raw:
        return hit[1]
    if memo.selects_nothing(candidate, judging.subject, judging.rules_key, read_labels):
        value = _unselected(memo, prepared, named, judging)
    else:
        value = _judge(prepared, judging)
    memo.entries[key] = (candidate.raw, value)
    return value


def _unselected(
    memo: JudgmentMemo, prepared: Prepared, named: bool, judging: Judging
) -> tuple[JudgedEntry, ...]:
    """Entries of a candidate none of whose documents select the pod: the
    same under every context and label set (``selects_nothing``), so they
    are judged once per direction and shared."""
    candidate = prepared.item.candidate
    key = (id(candidate.raw), candidate.position, judging.rules_key, named)
    hit = memo.unselected.get(key)
    if hit is not None and hit[0] is candidate.raw:
        return hit[1]
    value = _judge(prepared, judging)
    memo.unselected[key] = (candidate.raw, value)
    return value


def _judge(prepared: Prepared, judging: Judging) -> tuple[JudgedEntry, ...]:
    documents = judging.read(prepared.item.candidate)
    examined = [judging.examine(document) for document in documents]
    origins: dict[int, Origin] = {id(document): prepared.item for document in documents}
    entries = examined_entries(examined, origins, judging.rules_key)
    return tuple(JudgedEntry(e, r, prepared.item) for e, r in zip(examined, entries, strict=True))


_ENTRY = operator.attrgetter("entry")
_EXAMINED = operator.attrgetter("examined")


def examined_of(judged: Sequence[JudgedEntry]) -> list[Examined]:
    """Each judged entry's examined entry, in order, at C speed."""
    return list(map(_EXAMINED, judged))


def decision_report(decision: Decision, judged: list[JudgedEntry]) -> DecisionReport:
    refusal = None if decision.refusal is None else str(decision.refusal)
    return DecisionReport(refusal, decision.summary, tuple(map(_ENTRY, judged)))
