"""``explain --to`` asked of the exact tier model check's reach judged the
path by: the headline verdict and its reason, the deciding rule of each
slot with the file and line of its document, the verdict for an address no
pod or node holds, the cluster policies' rules that let it out, and the
allowance line and exit status, all from one answer, so explain and check
cannot disagree for the path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import msgspec

from lint.decision.model import Tri
from lint.decision.tiers.cells import AddressQuery, NameQuery, Query
from lint.decision.tiers.evaluate import (
    DOES_NOT_APPLY,
    NO_RULE,
    UNDECIDABLE_SLOT,
    Path,
    Step,
    slot_isolation,
)
from lint.decision.tiers.model import Action, Ports, Protocol, TierInput
from lint.decision.tiers.points import FAMILY_BITS
from lint.decision.tiers.questions import (
    ALLOWED,
    DENIED,
    INSIDE,
    PARTLY_ALLOWED,
    ExplainAnswer,
    doubt_text,
    explain,
)
from lint.explain.allowance import AllowanceAnswer
from lint.explain.destination import Destination
from lint.explain.places import Places
from lint.explain.verdict import Headline, Verdict
from lint.kinds import CILIUM_CLUSTERWIDE_NETWORK_POLICY, CILIUM_NETWORK_POLICY, NETWORK_POLICY
from lint.report.model import Location

_VERDICTS: Final = {
    ALLOWED: Verdict.ALLOWED,
    DENIED: Verdict.DENIED,
    PARTLY_ALLOWED: Verdict.PARTLY_ALLOWED,
}
"""The model's words in explain's vocabulary; its ``undecided`` is the
``unknown`` explain has always written."""

_QUIET_ENDS: Final = (NO_RULE, DOES_NOT_APPLY)
"""Slot ends that decide nothing: the point went on to the next slot."""

_NETWORK_POLICY_TIER: Final = frozenset(
    kind.name for kind in (NETWORK_POLICY, CILIUM_NETWORK_POLICY, CILIUM_CLUSTERWIDE_NETWORK_POLICY)
)
"""The kinds the union reads; their rules are listed by the hits, not as
cluster policies' rules."""

SHOWN: Final = 4
"""How many deciding rules the headline's reason names before "and N more"."""

UNISOLATED: Final = (
    "nothing isolates the pod in any tier and no rule denies it anything, so it "
    "reaches every destination (the cluster's default allow)"
)


class ClusterAdmit(msgspec.Struct, frozen=True):
    """A rule of a cluster policy (an Admin or baseline tier, a Calico
    tier: anything but NetworkPolicy and Cilium policies) that ends an
    allowing path for the destination: its Allow, or the last Pass before
    the default allow. ``certain`` when every point of the destination is
    allowed."""

    kind: str
    name: str
    rule: int
    rule_name: str | None
    location: Location | None
    ports: str
    certain: bool
    why: str | None


class TierAnswer(msgspec.Struct, frozen=True):
    """The model's answer for the destination, in explain's terms."""

    headline: Headline
    allowance: AllowanceAnswer
    outside_verdict: str | None
    deciding: tuple[str, ...]
    admits: tuple[ClusterAdmit, ...] = ()


def queries_of(destination: Destination) -> tuple[Query, ...]:
    """The destination's points: an address block or a name, on its port."""
    protocol = Protocol(destination.protocol) if destination.protocol else None
    port = destination.port
    if port is None:
        protocol = None
    elif protocol is None:
        protocol = Protocol.TCP
    if destination.cidr is not None:
        cidr = destination.cidr
        size = 1 << (FAMILY_BITS[cidr.family] - cidr.prefix)
        return (AddressQuery(cidr.family, cidr.base, cidr.base + size - 1, protocol, port),)
    assert destination.host is not None
    return (NameQuery(destination.host, protocol, port),)


def tier_answer(tiers: TierInput, destination: Destination, places: Places) -> TierAnswer:
    answer = explain(tiers, queries_of(destination), by_name=True)
    deciding = tuple(
        dict.fromkeys(_step_text(tiers, s, places) for p in answer.paths for s in p.steps)
    )
    verdict = _VERDICTS.get(answer.verdict, Verdict.UNKNOWN)
    reason = _reason(tiers, answer, places)
    if answer.allowance == INSIDE:
        allowance = AllowanceAnswer(True, ())
    elif answer.exit_status == 1:
        allowance = AllowanceAnswer(False, (answer.reach.summary or "let out",))
    else:
        allowance = AllowanceAnswer(False, ())
    admits = tuple(_admits(tiers, answer, places))
    return TierAnswer(
        Headline(verdict, reason), allowance, answer.outside_verdict, deciding, admits
    )


def _at(location: Location | None) -> str:
    return "" if location is None else f" at {location.file}:{location.line}"


def _step_text(tiers: TierInput, step: Step, places: Places) -> str:
    """One slot's deciding rule or end, with its document's file and line."""
    if step.slot == UNDECIDABLE_SLOT and step.document is not None:
        thing = tiers.undecidable[step.document]
        where = _at(places.document(thing.ref))
        return f"{step.slot}: {thing.kind}/{thing.name}{where}: {thing.detail} ({step.action})"
    if step.document is None:
        return f"{step.slot}: {step.end} ({step.action})"
    document = tiers.documents[step.document]
    named = f"{document.kind}/{document.name}"
    where = _at(places.document(document.ref))
    if step.rule is None:
        return f"{step.slot}: {step.end} ({step.action}): {named}{where}"
    # A tie's disagreement shows as a doubt in an undecided verdict's reason.
    return f"{step.slot}: {named} {step.rule.text} ({step.action}){where}"


def _decisive(path: Path) -> Iterator[Step]:
    """The steps of a path where a slot decided something."""
    return (s for s in path.steps if s.rule is not None or s.end not in _QUIET_ENDS)


def _reason(tiers: TierInput, answer: ExplainAnswer, places: Places) -> str:
    if not answer.paths:
        return "no tier decides it"
    if answer.verdict == ALLOWED and _unisolated(tiers, answer):
        return UNISOLATED
    steps = dict.fromkeys(_step_text(tiers, s, places) for p in answer.paths for s in _decisive(p))
    texts = list(steps)
    shown = "; ".join(texts[:SHOWN])
    if len(texts) > SHOWN:
        shown += f"; and {len(texts) - SHOWN} more (the deciding rules below)"
    if answer.verdict in (ALLOWED, DENIED, PARTLY_ALLOWED):
        return f"decided by {shown}"
    doubts = sorted({doubt_text(tiers, d) for d in answer.doubts})
    why = "; ".join(doubts[:2]) + ("; …" if len(doubts) > 2 else "")
    outside = answer.outside_verdict
    if outside is not None and outside != answer.verdict:
        # Decided for an address no pod or node holds: the doubt is the owner's.
        head = f"it depends on whether a pod or node holds the address ({outside} when none does)"
    else:
        head = "the cluster may allow or deny it"
    return f"{head} ({why}): {shown}" if why else f"{head}: {shown}"


def _unisolated(tiers: TierInput, answer: ExplainAnswer) -> bool:
    """No slot isolates the pod, no document that may apply to it has a
    Deny, nothing is undecidable, and no rule decided this destination: the
    pod reaches every destination, this one by the default allow."""
    if tiers.undecidable or any(s.rule is not None for p in answer.paths for s in p.steps):
        return False
    if any(value is not Tri.NO for value in slot_isolation(tiers).values()):
        return False
    for document in tiers.documents:
        if document.subject is Tri.NO:
            continue
        rules = (*document.rules, *document.deny_rules)
        if any(Action.DENY in rule.actions for rule in rules):
            return False
    return True


def _admits(tiers: TierInput, answer: ExplainAnswer, places: Places) -> Iterator[ClusterAdmit]:
    """The cluster policies' rules that end an allowing path
    (``reachAdmittedBy``), in the model's document order, then rule order."""
    seen: set[tuple[int, int]] = set()
    certain = answer.verdict == ALLOWED
    for path in sorted(answer.paths, key=_culprit_order):
        culprit = path.culprit
        if culprit is None or culprit.document is None or culprit.rule is None:
            continue
        document = tiers.documents[culprit.document]
        if document.kind in _NETWORK_POLICY_TIER:
            continue
        key = (culprit.document, culprit.rule.index)
        if key in seen:
            continue
        seen.add(key)
        why = None
        if culprit.action is Action.PASS:
            why = "a Pass: no later tier stops it, and the cluster's default allow lets it out"
        elif not certain:
            doubts = sorted({doubt_text(tiers, d) for d in path.doubts})
            why = "; ".join(doubts) or "other points of the destination are not allowed"
        yield ClusterAdmit(
            document.kind,
            document.name,
            culprit.rule.index,
            places.rule_name(document.ref, culprit.rule),
            places.rule(document.ref, culprit.rule),
            ports_text(culprit.rule.ports),
            certain,
            why,
        )


def _culprit_order(path: Path) -> tuple[int, int]:
    culprit = path.culprit
    if culprit is None or culprit.document is None or culprit.rule is None:
        return (-1, -1)
    return (culprit.document, culprit.rule.index)


def ports_text(ports: Ports) -> str:
    """A rule's protocols and ports in words."""
    if ports.unreadable:
        return "unknown ports"
    if ports.every:
        return "every port"
    parts = [
        f"{s.protocol.value} {s.low}" if s.low == s.high else f"{s.protocol.value} {s.low}-{s.high}"
        for s in ports.spans
    ]
    parts += ["ICMP"] if ports.icmp else []
    parts += ["other protocols"] if ports.other else []
    parts += [f"protocol {n}" for n in ports.other_numbers]
    text = ", ".join(parts) or "no port"
    return text + (" (less some)" if ports.exclude is not None else "")
