"""The answer to ``--to``: is this destination let out, and by what?

Kubernetes unions the policies that select a pod: a pod that no
egress-enforcing policy selects reaches everything, and an isolated pod
reaches what some selecting policy's rule admits. A Cilium ``egressDeny``
rule overrides every allow. Policies whose selection or rules cannot be
read make the answer ``unknown`` where they could change it, never
``allowed`` or ``denied`` by guess.

That reading is the NetworkPolicy tier's alone: it lists the rules behind
the answer (admitted by, denied by, may reach) and is the namzu host's own
verdict. The headline, the cluster's verdict over every tier, is the exact
tier model's (``lint.explain.tiers_answer``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

import msgspec

from lint.decision.constants import CORE_KIND
from lint.decision.model import EgressVerdict
from lint.explain.destination import Destination
from lint.explain.grants import Grant
from lint.explain.matching import Match, Reach, match_grant
from lint.explain.sandbox import PolicyView, RuleView

if TYPE_CHECKING:
    from lint.explain.allowance import AllowanceAnswer
    from lint.explain.tiers_answer import ClusterAdmit


class Verdict(StrEnum):
    """Whether the destination is let out."""

    ALLOWED = "allowed"
    PARTLY_ALLOWED = "partly-allowed"
    DENIED = "denied"
    UNKNOWN = "unknown"


class Hit(msgspec.Struct, frozen=True):
    """One rule's grant that (maybe, or in part) reaches the destination."""

    policy: PolicyView
    rule: RuleView
    grant: Grant | None
    match: Match


class ToVerdict(msgspec.Struct, frozen=True):
    destination: Destination
    verdict: Verdict
    reason: str
    admitted_by: tuple[Hit, ...]
    partly: tuple[Hit, ...]
    undecided: tuple[Hit, ...]
    denied_by: tuple[Hit, ...]
    unreadable: tuple[PolicyView, ...]
    allowance: AllowanceAnswer | None = None
    """Whether the destination is let out beyond the allowance (the exit
    status of ``explain --to``); set by ``run_explain``."""
    cluster: Headline | None = None
    """The cluster's verdict, the headline: the exact tier model's verdict
    for the destination (``tier_answer``), or, without a model, why there
    is none; set by ``run_explain``. ``verdict`` and ``reason`` are the
    NetworkPolicy tier's alone (the union's reading of the rules)."""
    host: Headline | None = None
    """Under ``host: namzu``: the host's own verdict, over the policies its
    union check reads; set by ``run_explain``."""
    outside_verdict: str | None = None
    """The model's verdict for an address of the destination that no pod or
    node holds (None for a name); set by ``run_explain``."""
    deciding: tuple[str, ...] = ()
    """Each slot's deciding rule on the destination's paths, as text, with
    the file and line of its document."""
    admits: tuple[ClusterAdmit, ...] = ()
    """The cluster policies' rules (not NetworkPolicy or Cilium) that end
    an allowing path of the model for the destination."""

    @property
    def headline(self) -> Headline:
        return self.cluster or Headline(self.verdict, self.reason)


class Headline(msgspec.Struct, frozen=True):
    """A verdict for the destination, and why."""

    verdict: Verdict
    reason: str


def isolation(policies: Sequence[PolicyView]) -> tuple[list[str], list[str]]:
    """The policies that certainly put the pod in egress default-deny, and
    those that may select it but cannot be evaluated, by label."""
    relevant = [p for p in policies if p.entry.verdict != EgressVerdict.DOES_NOT_SELECT]
    enforcing = [p.label for p in relevant if p.certain and p.document.enforces]
    doubtful = [p.label for p in relevant if not p.certain]
    return enforcing, doubtful


def _hits(policies: Sequence[PolicyView], destination: Destination, *, deny: bool) -> Iterator[Hit]:
    """Every rule grant of the policies that may select the pod, matched."""
    for policy in policies:
        for rule in policy.rules:
            if rule.deny != deny:
                continue
            if rule.read.unreadable is not None:
                why = f"the rule cannot be read: {rule.read.unreadable}"
                yield Hit(policy, rule, None, Match(Reach.MAYBE, why))
            for grant in rule.read.grants:
                found = match_grant(grant, destination)
                if found.reach is not Reach.NO:
                    yield Hit(policy, rule, grant, _weighed(policy, found))


def _weighed(policy: PolicyView, found: Match) -> Match:
    """A rule of a policy that may not select the pod proves nothing."""
    if policy.certain or found.reach is Reach.MAYBE:
        return found
    return Match(Reach.MAYBE, "its policy's selector cannot be evaluated against the pod")


def judge_destination(policies: Sequence[PolicyView], destination: Destination) -> ToVerdict:
    """The verdict for one destination over the examined policies."""
    relevant = [p for p in policies if p.entry.verdict != EgressVerdict.DOES_NOT_SELECT]
    allows = list(_hits(relevant, destination, deny=False))
    denies = list(_hits(relevant, destination, deny=True))
    unreadable = tuple(p for p in relevant if p.document.unreadable is not None)
    hits = _Hits(
        admitted=tuple(h for h in allows if h.match.reach is Reach.YES),
        partly=tuple(h for h in allows if h.match.reach is Reach.PART),
        undecided=tuple(h for h in (*allows, *denies) if h.match.reach is not Reach.YES),
        denied=tuple(h for h in denies if h.match.reach is Reach.YES),
    )
    verdict, reason = _decide(relevant, hits, unreadable)
    return ToVerdict(
        destination,
        verdict,
        reason,
        hits.admitted,
        hits.partly,
        hits.undecided,
        hits.denied,
        unreadable,
    )


class _Hits(msgspec.Struct, frozen=True):
    admitted: tuple[Hit, ...]
    partly: tuple[Hit, ...]
    undecided: tuple[Hit, ...]
    denied: tuple[Hit, ...]


def _decide(
    relevant: Sequence[PolicyView], hits: _Hits, unreadable: Sequence[PolicyView]
) -> tuple[Verdict, str]:
    if hits.denied:
        return Verdict.DENIED, f"an egressDeny rule of {hits.denied[0].policy.label} matches it"
    enforcing, doubtful = isolation(relevant)
    if not enforcing:
        if doubtful:
            return Verdict.UNKNOWN, (
                "no policy that certainly selects the pod enforces egress, and "
                f"{', '.join(doubtful)} cannot be evaluated"
            )
        return (
            Verdict.ALLOWED,
            "no policy puts the pod in egress default-deny, so it reaches everything",
        )
    # Only a Cilium egressDeny rule can take an admitted destination back.
    deny_doubt = [h for h in hits.undecided if h.rule.deny]
    deny_doubt_policies = [p for p in unreadable if p.entry.kind != CORE_KIND]
    if hits.admitted and not deny_doubt and not deny_doubt_policies:
        return Verdict.ALLOWED, f"{_rule_label(hits.admitted[0])} admits it"
    if hits.undecided or unreadable:
        return Verdict.UNKNOWN, _unknown_reason(hits, unreadable)
    if hits.partly:
        return Verdict.PARTLY_ALLOWED, f"{_rule_label(hits.partly[0])} admits part of it"
    return Verdict.DENIED, (
        f"nothing admits it: {', '.join(enforcing)} put the pod in egress default-deny, "
        "and no rule of a policy selecting the pod reaches it"
    )


def _unknown_reason(hits: _Hits, unreadable: Sequence[PolicyView]) -> str:
    if hits.undecided:
        first = hits.undecided[0]
        return f"{_rule_label(first)} may reach it: {first.match.why}"
    return f"{unreadable[0].label} cannot be read: {unreadable[0].document.unreadable}"


def _rule_label(hit: Hit) -> str:
    field = "egressDeny" if hit.rule.deny else "egress"
    return f"{hit.policy.label} {field} rule {hit.rule.index}"
