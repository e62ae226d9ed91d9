"""The egress union decision (SEMANTICS.md §11).

Kubernetes unions every policy that selects a pod, so one selecting policy
that lets out more than the translation widens the pod's egress however
exactly the named object matches. Every document gets a verdict; the first
widening document, then the first undecided one, decides the refusal.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from lint.decision.model import (
    Allowance,
    Decision,
    EgressRefusal,
    EgressVerdict,
    Examined,
    PolicyDocument,
    Tri,
)

SELECTOR_UNDECIDED = "its selector uses something that cannot be evaluated against pod labels"
NOT_EGRESS_SCOPED = "it selects the pod but default-denies nothing on egress"
RULE_WITHOUT_DETAIL = "a rule could not be judged"


def document_verdict(document: PolicyDocument) -> tuple[EgressVerdict, str | None]:
    """The verdict and detail of one document (§11.1 steps 1-7, with the
    named-object exemption of §11.2 skipping steps 4 and 5)."""
    if document.unreadable is not None:
        return EgressVerdict.NOT_EVALUABLE, document.unreadable
    if document.selects is Tri.NO:
        return EgressVerdict.DOES_NOT_SELECT, None
    if document.selects is Tri.UNKNOWN:
        return EgressVerdict.NOT_EVALUABLE, SELECTOR_UNDECIDED
    if not document.named_object:
        widening = _first_rule_detail(document, Tri.YES)
        if widening is not None:
            return EgressVerdict.WIDENS_EGRESS, widening
        undecided = _first_rule_detail(document, Tri.UNKNOWN)
        if undecided is not None:
            return EgressVerdict.NOT_EVALUABLE, undecided
    if not document.enforces:
        return EgressVerdict.NOT_EGRESS_SCOPED, NOT_EGRESS_SCOPED
    return EgressVerdict.WITHIN, None


def _first_rule_detail(document: PolicyDocument, outcome: Tri) -> str | None:
    for rule in document.rules:
        if rule.outcome is outcome:
            return rule.detail or RULE_WITHOUT_DETAIL
    return None


def decide_union(documents: Sequence[PolicyDocument], allowance: Allowance) -> Decision:
    """The union decision over every document in §5.1 order (§11.1-§11.3):
    a widening document beats an undecided one, which beats having no
    enforcing document; only `allow-all` passes with no enforcing document."""
    return summarize_union(tuple(examine(document) for document in documents), allowance)


def examine(document: PolicyDocument) -> Examined:
    """One document's examined entry (§11.1). It depends on the document
    alone, so callers may judge a document once and reuse the entry."""
    verdict, detail = document_verdict(document)
    return Examined(document.kind, document.name, verdict, detail, document)


def summarize_union(examined: Sequence[Examined], allowance: Allowance) -> Decision:
    """§11.3 precedence and summaries over examined entries in document order."""
    entries = tuple(examined)
    refusal, summary = union_refusal(entries, allowance)
    return Decision(refusal, summary, entries)


def union_refusal(
    examined: Sequence[Examined], allowance: Allowance
) -> tuple[EgressRefusal | None, str | None]:
    """The refusal of ``summarize_union`` and its summary. No
    ``does-not-select`` entry takes part, so a caller may pass the others
    alone, in document order, and get the same answer."""
    verdicts = verdicts_of(examined)
    widening = first_of(examined, verdicts, EgressVerdict.WIDENS_EGRESS)
    if widening is not None:
        return EgressRefusal.POLICY_WIDENS_EGRESS, _widening_summary(widening)
    undecided = first_of(examined, verdicts, EgressVerdict.NOT_EVALUABLE)
    if undecided is not None:
        return EgressRefusal.NOT_EVALUABLE, _undecided_summary(undecided)
    enforcing = EgressVerdict.WITHIN in verdicts
    if not enforcing and not allowance.permits_everything:
        return EgressRefusal.NO_ENFORCING_POLICY, _no_enforcing_summary(allowance)
    return None, None


def verdicts_of(examined: Sequence[Examined]) -> list[str]:
    """Each entry's verdict, in order: the searches below then run at C
    speed over a list of strings (a namespace can hold thousands of
    policies, and every decision scans them all)."""
    return list(map(_VERDICT, examined))


_VERDICT = operator.attrgetter("verdict")


def first_of(examined: Sequence[Examined], verdicts: list[str], verdict: str) -> Examined | None:
    """The first entry of that verdict."""
    try:
        return examined[verdicts.index(verdict)]
    except ValueError:
        return None


def _widening_summary(entry: Examined) -> str:
    return f"{entry.kind}/{entry.name} selects the pod and widens its egress: {entry.detail}"


def _undecided_summary(entry: Examined) -> str:
    return (
        f"{entry.kind}/{entry.name} cannot be evaluated: {entry.detail}; "
        "the pod's egress reach cannot be decided from the objects"
    )


def _no_enforcing_summary(allowance: Allowance) -> str:
    return (
        "no policy puts the pod in egress default-deny, so the configured "
        f"'{allowance.policy_kind}' translation bounds nothing"
    )
