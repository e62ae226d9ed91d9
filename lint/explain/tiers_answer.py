"""``explain --to`` asked of the exact tier model check's reach judged the
path by: the headline verdict, the deciding rule of each slot, the verdict
for an address no pod or node holds, and the allowance line and exit status,
all from one answer, so explain and check cannot disagree for the path."""

from __future__ import annotations

from dataclasses import dataclass

from lint.decision.tiers.cells import AddressQuery, NameQuery, Query
from lint.decision.tiers.model import Protocol, TierInput
from lint.decision.tiers.points import FAMILY_BITS
from lint.decision.tiers.questions import (
    ALLOWED,
    DENIED,
    INSIDE,
    PARTLY_ALLOWED,
    ExplainAnswer,
    explain,
)
from lint.explain.allowance import AllowanceAnswer
from lint.explain.destination import Destination
from lint.explain.verdict import Headline, Verdict

_VERDICTS = {
    ALLOWED: Verdict.ALLOWED,
    DENIED: Verdict.DENIED,
    PARTLY_ALLOWED: Verdict.PARTLY_ALLOWED,
}


@dataclass(frozen=True, slots=True)
class TierAnswer:
    """The model's answer for the destination, in explain's terms."""

    headline: Headline
    allowance: AllowanceAnswer
    outside_verdict: str | None
    deciding: tuple[str, ...]


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


def tier_answer(tiers: TierInput, destination: Destination) -> TierAnswer:
    answer = explain(tiers, queries_of(destination), by_name=True)
    deciding = _deciding(tiers, answer)
    verdict = _VERDICTS.get(answer.verdict, Verdict.UNKNOWN)
    reason = _reason(answer, deciding)
    if answer.allowance == INSIDE:
        allowance = AllowanceAnswer(True, ())
    elif answer.exit_status == 1:
        allowance = AllowanceAnswer(False, (answer.reach.summary or "let out",))
    else:
        allowance = AllowanceAnswer(False, ())
    return TierAnswer(Headline(verdict, reason), allowance, answer.outside_verdict, deciding)


def _deciding(tiers: TierInput, answer: ExplainAnswer) -> tuple[str, ...]:
    """Each slot's deciding rule on the destination's paths (file order of
    documents, then slots), by name and rule."""
    found: dict[str, None] = {}
    for path in answer.paths:
        for step in path.steps:
            if step.document is None or step.rule is None:
                if step.end:
                    found.setdefault(f"{step.slot}: {step.end} ({step.action})", None)
                continue
            document = tiers.documents[step.document]
            found.setdefault(
                f"{step.slot}: {document.kind}/{document.name} {step.rule.text} ({step.action})",
                None,
            )
    return tuple(found)


def _reason(answer: ExplainAnswer, deciding: tuple[str, ...]) -> str:
    if not answer.paths:
        return "no tier decides it"
    if answer.verdict in (ALLOWED, DENIED) and not deciding:
        return "no tier bounds it: the cluster's default allow" if answer.verdict == ALLOWED else ""
    shown = "; ".join(deciding[:3]) + ("; …" if len(deciding) > 3 else "")
    return f"decided by {shown}" if shown else answer.verdict
