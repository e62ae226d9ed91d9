"""Does one grant let the ``--to`` destination out?

Ports use the engine's coverage (SEMANTICS §7.4, §9.4) and addresses its
CIDR containment with excepts (§8.2, §9.3), so a rule admits a destination
here exactly when the union check would count it as reaching it. What an
offline tool cannot know is answered as MAYBE with the reason, never
guessed: which addresses a selector's pods have, which addresses a name
resolves to, which addresses a Cilium entity stands for.

Hostnames match ``toFQDNs`` as Cilium does: ``matchName`` ignoring case and
a final dot, ``matchPattern`` with ``*`` standing for any run of DNS
characters within one label, and a lone ``*`` matching every name.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

import msgspec

from lint.decision.cidr import overlaps
from lint.decision.fqdn_patterns import name_in_pattern
from lint.decision.model import ALL_PORTS
from lint.decision.peers import peer_within
from lint.decision.ports import covers
from lint.explain.describe import describe_block
from lint.explain.destination import Destination
from lint.explain.grants import Block, Entity, EveryDestination, Fqdn, Grant, Opaque, Pods


class Reach(Enum):
    """How far a grant reaches the destination."""

    YES = "yes"
    PART = "part"
    MAYBE = "maybe"
    NO = "no"


class Match(msgspec.Struct, frozen=True):
    reach: Reach
    why: str | None = None


NO_MATCH: Final = Match(Reach.NO)


def match_grant(grant: Grant, destination: Destination) -> Match:
    """Ports first: a grant on other ports never reaches the destination,
    whatever its peer."""
    ports = _ports(grant, destination)
    if ports.reach is Reach.NO:
        return NO_MATCH
    target = _target(grant, destination)
    if target.reach in (Reach.NO, Reach.MAYBE):
        return target
    if Reach.PART in (target.reach, ports.reach):
        return Match(Reach.PART, "; ".join(w for w in (target.why, ports.why) if w))
    return Match(Reach.YES)


def _ports(grant: Grant, destination: Destination) -> Match:
    if covers(grant.ports, destination.wanted):
        return Match(Reach.YES)
    if destination.port is None and grant.ports != ALL_PORTS and grant.ports:
        return Match(Reach.PART, f"on {grant.ports_text} only")
    return NO_MATCH


def _target(grant: Grant, destination: Destination) -> Match:
    match grant.target:
        case EveryDestination():
            return Match(Reach.YES)
        case Block() as block:
            return _block(block, destination)
        case Pods():
            return Match(
                Reach.MAYBE,
                "it selects pods by label, and which addresses those pods have "
                "cannot be resolved offline",
            )
        case Fqdn() as fqdn:
            return _fqdn(fqdn, destination)
        case Entity(name=name):
            if name == "all":
                return Match(Reach.YES)
            return Match(
                Reach.MAYBE, f"which addresses the entity {name!r} covers cannot be told offline"
            )
        case Opaque(why=why):
            return Match(Reach.MAYBE, why)


def _block(block: Block, destination: Destination) -> Match:
    peer = destination.peer
    if peer is None:
        return Match(
            Reach.MAYBE,
            f"only if {destination.host} resolves into {describe_block(block.raw)}; "
            "names are not resolved offline",
        )
    if peer_within(block.peer, peer):
        return Match(Reach.YES)
    if not destination.single_address and overlaps(block.peer.cidr, peer.cidr):
        return Match(Reach.PART, f"only the part inside {describe_block(block.raw)}")
    return NO_MATCH


def _fqdn(fqdn: Fqdn, destination: Destination) -> Match:
    if destination.host is None:
        shown = fqdn.match_name or fqdn.match_pattern
        return Match(
            Reach.MAYBE,
            f"it admits whatever {shown} resolves to, which cannot be resolved offline",
        )
    if fqdn_matches(fqdn, destination.host):
        return Match(Reach.YES)
    return NO_MATCH


def fqdn_matches(fqdn: Fqdn, host: str) -> bool:
    """A hostname against one toFQDNs entry (either field may match)."""
    name = host.rstrip(".").lower()
    if fqdn.match_name is not None and fqdn.match_name.rstrip(".").lower() == name:
        return True
    if fqdn.match_pattern is None:
        return False
    return name_in_pattern(name, fqdn.match_pattern.rstrip("."))
