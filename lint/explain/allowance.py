"""Is the ``--to`` destination let out beyond the allowance? (issue 13, item 7)

``explain --to DEST`` exits 1 when it is, 0 when it is not. The allowance
is the translation's (SEMANTICS §4, ``build_allowance``), so the question
is the union check's, asked of one destination:

- **inside**: the allowance itself admits all of DEST, with the engine's
  port coverage and CIDR containment (``lint.explain.matching``). Nothing
  the cluster lets out of DEST is then beyond it.
- **routes**: otherwise, every way DEST (or part of it) is or may be let
  out that does not stay inside the allowance: a rule of a selecting
  policy judged other than ``within`` that reaches, partly reaches or may
  reach DEST; a policy that cannot be read; and a pod that no policy
  isolates, which reaches everything. A rule of a ``within`` policy stays
  inside the allowance by that verdict, so what it lets out of DEST is
  inside too.

DEST is **outside** when it is not inside and some route exists; an
``unknown`` route counts (the tool fails closed). A destination that is
denied, or reached only through ``within`` policies, is not outside.

This reading serves only a path with no tier model (``verify:
named-object-only``, where check judges no reach); otherwise the allowance
line and the exit status are the model's (``lint.explain.tiers_answer``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import msgspec

from lint.decision.model import (
    Allowance,
    Cidr,
    CidrPeer,
    EgressVerdict,
    Everything,
    SelectorPeer,
)
from lint.decision.values import JSON
from lint.explain.destination import Destination
from lint.explain.grants import Block, EveryDestination, Fqdn, Grant, Pods, Target
from lint.explain.matching import Reach, match_grant
from lint.explain.verdict import Hit, ToVerdict, Verdict


class AllowanceAnswer(msgspec.Struct, frozen=True):
    """Whether DEST is inside the allowance, and the routes that let it
    out beyond it (empty when it is not outside)."""

    inside: bool
    routes: tuple[str, ...]

    @property
    def outside(self) -> bool:
        return not self.inside and bool(self.routes)

    @property
    def text(self) -> str:
        if self.inside:
            return "inside the allowance: the declared intent admits it"
        if not self.routes:
            return "not let out beyond the allowance"
        return "OUTSIDE the allowance, let out by " + "; ".join(self.routes)


def allowance_admits(allowance: Allowance, destination: Destination) -> bool:
    """The allowance admits all of ``destination`` (ports and addresses)."""
    if allowance.permits_everything:
        return True
    grants = [Grant(_target(d.peer), d.ports) for d in allowance.destinations]
    grants += [Grant(Fqdn(f.host, None), f.ports) for f in allowance.fqdns]
    grants += [Grant(Fqdn(None, f.host), f.ports) for f in allowance.fqdn_patterns]
    return any(match_grant(grant, destination).reach is Reach.YES for grant in grants)


def _target(peer: Everything | CidrPeer | SelectorPeer) -> Target:
    if isinstance(peer, Everything):
        return EveryDestination()
    if isinstance(peer, CidrPeer):
        return Block(peer, block_raw(peer))
    return Pods(peer)


def block_raw(peer: CidrPeer) -> dict[str, JSON]:
    """The ``{cidr, except}`` form explain describes a block by."""
    raw: dict[str, JSON] = {"cidr": _cidr_text(peer.cidr)}
    if peer.excepts:
        raw["except"] = [_cidr_text(hole) for hole in peer.excepts]
    return raw


def _cidr_text(cidr: Cidr) -> str:
    if cidr.family == 4:
        return str(ipaddress.IPv4Network((cidr.base, cidr.prefix)))
    return str(ipaddress.IPv6Network((cidr.base, cidr.prefix)))


def judge_allowance(allowance: Allowance, to: ToVerdict) -> AllowanceAnswer:
    """The answer for one destination; see the module docstring."""
    if allowance_admits(allowance, to.destination) or _admitted_inside(to):
        return AllowanceAnswer(True, ())
    return AllowanceAnswer(False, tuple(_routes(to)))


def _admitted_inside(to: ToVerdict) -> bool:
    """A rule of a ``within`` policy certainly admits all of DEST: DEST is
    then inside the allowance, by the union check's verdict on that rule."""
    return to.verdict is Verdict.ALLOWED and any(_within(hit) for hit in to.admitted_by)


def _within(hit: Hit) -> bool:
    return hit.policy.entry.verdict == EgressVerdict.WITHIN


def _routes(to: ToVerdict) -> Iterator[str]:
    if to.verdict is Verdict.DENIED:
        return
    if to.verdict is Verdict.ALLOWED and not to.admitted_by:
        yield "every destination: no policy puts the pod in egress default-deny"
    elif to.verdict is Verdict.UNKNOWN and not (to.undecided or to.unreadable):
        yield to.reason
    seen: set[str] = set()
    for hit in (*to.admitted_by, *to.partly, *to.undecided):
        if hit.rule.deny or _within(hit):
            continue
        label = f"{hit.policy.label} egress rule {hit.rule.index}"
        if label not in seen:
            seen.add(label)
            yield label + ("" if hit.match.reach is Reach.YES else " (maybe)")
    for policy in to.unreadable:
        yield f"{policy.label} (cannot be read)"
