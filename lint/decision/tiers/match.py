"""What a rule matches at a point (CLUSTER-POLICIES.md §12.2).

``match(r, p) = subject(d) and types(d) and credit(d) and ports(r, p) and
peer(r, p)``, Kleene three-valued. The destination half (ports and peer) is
asked of a **probe**: one point (an address point under one owner, or a name
point), or a cell of points on which every such answer is constant
(``cells``). The evaluator of §12.3 sees only probes, so a point and a cell
are judged by the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Protocol, TypeVar

from lint.decision.model import Tri
from lint.decision.tiers.kleene import kleene_and, kleene_or
from lint.decision.tiers.model import PeerMatch, Ports, TierDocument, TierRule
from lint.decision.tiers.points import (
    NamePoint,
    Point,
    peer_holds,
    peer_holds_name,
    ports_hold,
)


class Probe(Protocol):
    """The destination side of ``match`` for one point or one cell."""

    def ports(self, ports: Ports) -> Tri: ...

    def peer(self, peer: PeerMatch) -> Tri: ...


R = TypeVar("R")


class MaskedProbe:
    """A probe that already holds each rule's destination answer as bits
    (a cell of ``cells.Space``): ``rule`` gives a rule's answer, None for a
    rule it holds no bit of; ``may_match`` says whether some rule of a list
    of entries may match at all (None: it cannot tell)."""

    __slots__ = ()

    def rule(self, rule: TierRule) -> Tri | None:
        raise NotImplementedError

    def may_match(self, entries: tuple[tuple[int, TierDocument, TierRule], ...]) -> bool | None:
        raise NotImplementedError

    def remembered(
        self, entries: tuple[tuple[int, TierDocument, TierRule], ...], work: Callable[[], R]
    ) -> R:
        """``work()``, an answer about ``entries`` that depends on nothing
        but their rules' answers, once per those answers."""
        raise NotImplementedError

    def remembered_group(
        self,
        group: tuple[tuple[tuple[int, TierDocument, TierRule], ...], ...],
        work: Callable[[], R],
    ) -> R:
        """``remembered`` for an answer about every member of a group of
        tied lists."""
        raise NotImplementedError

    def one_of_equal(self, key: Hashable, value: R) -> R:
        """The value first kept under a key equal to ``key`` (by value), else
        ``value``, kept: one object per distinct value while the cell's
        space lives, so that equal values are told by identity."""
        raise NotImplementedError

    def kept(self, key: Hashable, work: Callable[[], R]) -> R:
        """``work()``, once per ``key`` while the cell's space lives (a key
        may hold the identities of values ``one_of_equal`` keeps)."""
        raise NotImplementedError

    def may_match_document(self, document: TierDocument) -> bool | None:
        """``may_match`` over a document's deny rules and rules."""
        raise NotImplementedError

    def may_match_group(
        self, group: tuple[tuple[tuple[int, TierDocument, TierRule], ...], ...]
    ) -> bool | None:
        """``may_match`` over every member of a group of tied lists."""
        raise NotImplementedError


class PointProbe:
    """One address point (§12.2.1, §12.2.2)."""

    __slots__ = ("point",)

    def __init__(self, point: Point) -> None:
        self.point = point

    def ports(self, ports: Ports) -> Tri:
        return ports_hold(ports, self.point.protocol, self.point.port)

    def peer(self, peer: PeerMatch) -> Tri:
        return peer_holds(peer, self.point)


class NameProbe:
    """One name point: an FQDN peer by name, every other peer ``on_name``."""

    __slots__ = ("point",)

    def __init__(self, point: NamePoint) -> None:
        self.point = point

    def ports(self, ports: Ports) -> Tri:
        return ports_hold(ports, self.point.protocol, self.point.port)

    def peer(self, peer: PeerMatch) -> Tri:
        return peer_holds_name(peer, self.point)


def applies(document: TierDocument) -> Tri:
    """``subject and types and credit``: the pod side of every rule of ``document``."""
    return kleene_and(document.subject, document.types, document.credit)


def destination(rule: TierRule, probe: Probe) -> Tri:
    """``ports(r, p) and peer(r, p)``; a rule naming no destination matches every point."""
    if isinstance(probe, MaskedProbe):
        known = probe.rule(rule)
        if known is not None:
            return known
    ports = probe.ports(rule.ports)
    if ports is Tri.NO or rule.peers is None:
        return ports
    return kleene_and(ports, kleene_or(*(probe.peer(peer) for peer in rule.peers)))


def match(document: TierDocument, rule: TierRule, probe: Probe) -> Tri:
    """``match(r, p)`` (§12.2)."""
    head = applies(document)
    if head is Tri.NO:
        return Tri.NO
    return kleene_and(head, destination(rule, probe))
