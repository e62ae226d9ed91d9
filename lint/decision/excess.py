"""What a widening rule lets out beyond the allowance, computed: the
addresses of the rule's peers that no allowance destination covering the
same ports holds (SEMANTICS.md §9.4 "destination allowed" says whether a
peer is inside; this says, for a person, what is outside).

For a core NetworkPolicy egress rule whose peers are all ``ipBlock`` peers
(or that has no ``to``, which is every address), and for a Cilium egress
rule whose destinations are all ``toCIDR`` and ``toCIDRSet`` entries: per
port range of the rule, the rule's addresses minus those of every allowance destination whose
ports cover the range (an allowance of every destination covers all), as
CIDRs. Ranges with the same excess are said together. Any other rule (a
selector peer, an unreadable entry) gets None: its detail already says
what it reaches.

Pure: a rule's JSON and an ``Allowance`` in, words out.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias

from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    Cidr,
    CidrPeer,
    Everything,
    PortRange,
    PortSet,
)
from lint.decision.peers import read_core_peer
from lint.decision.ports import (
    CiliumPortsError,
    covers,
    describe_ports,
    read_cilium_ports,
    read_port_list,
    wanted_ranges,
)
from lint.decision.values import JSON, UNREADABLE, read_list

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network

SHOWN: Final = 6
"""Ranges named before the rest are counted."""
_EVERY_ADDRESS: Final[tuple[Network, ...]] = (
    ipaddress.ip_network("0.0.0.0/0"),
    ipaddress.ip_network("::/0"),
)


def core_rule_excess(rule: JSON, allowance: Allowance) -> str | None:
    """``172.16.0.0/12 and 192.168.0.0/16 on TCP 443``: what the rule lets
    out beyond the allowance; None when it cannot be said in addresses, or
    when it is the rule's own addresses on its own ports (nothing to add)."""
    if not isinstance(rule, dict) or not _holds_addresses(allowance):
        return None
    ports = read_port_list(read_list(rule, "ports"), "TCP")
    peers = read_list(rule, "to")
    if ports is UNREADABLE or peers is UNREADABLE:
        return None
    return _beyond(_addresses(peers or []), ports, allowance)


def cilium_rule_excess(rule: JSON, allowance: Allowance) -> str | None:
    """The same for a Cilium egress rule whose destinations are all
    ``toCIDR`` and ``toCIDRSet`` entries (a CIDR group reference, or any
    other destination field, cannot be said in addresses here)."""
    if not isinstance(rule, dict) or not _holds_addresses(allowance):
        return None
    if any(rule.get(field) for field in _OTHER_CILIUM_DESTINATIONS):
        return None
    ports = read_cilium_ports(rule)
    cidrs, sets = read_list(rule, "toCIDR"), read_list(rule, "toCIDRSet")
    if isinstance(ports, CiliumPortsError) or cidrs is UNREADABLE or sets is UNREADABLE:
        return None
    blocks: list[JSON] = [{"ipBlock": {"cidr": entry}} for entry in cidrs or []]
    for entry in sets or []:
        if not isinstance(entry, dict) or set(entry) - {"cidr", "except"}:
            return None
        blocks.append({"ipBlock": entry})
    if not blocks:
        return None
    return _beyond(_addresses(blocks), ports, allowance)


_OTHER_CILIUM_DESTINATIONS: Final = (
    "toEndpoints",
    "toEntities",
    "toFQDNs",
    "toServices",
    "toGroups",
    "toNodes",
)


def _beyond(
    reached: tuple[Network, ...] | None, ports: PortSet, allowance: Allowance
) -> str | None:
    """Per port range of ``ports``, ``reached`` less what the allowance holds
    there; ranges with the same excess said together."""
    if reached is None:
        return None
    by_excess: dict[tuple[Network, ...], list[PortRange]] = {}
    for wanted in wanted_ranges(ports):
        allowed = _allowed(allowance, wanted)
        excess = () if allowed is None else _minus(reached, allowed)
        by_excess.setdefault(excess, []).append(wanted)
    said = [
        f"{_networks(excess)} on {_ports(ranges)}" for excess, ranges in by_excess.items() if excess
    ]
    if not said or (len(by_excess) == 1 and next(iter(by_excess)) == reached):
        return None
    return "; ".join(said)


def _holds_addresses(allowance: Allowance) -> bool:
    """Whether the allowance holds any address range: without one, what a
    rule lets out is its own addresses on its own ports, which its detail
    says already (and the ranges need not be worked out, path after path)."""
    return any(isinstance(d.peer, (CidrPeer, Everything)) for d in allowance.destinations)


def _addresses(peers: Sequence[JSON]) -> tuple[Network, ...] | None:
    """The addresses the peers reach (every address without peers), or None
    when a peer is not an address block."""
    if not peers:
        return _EVERY_ADDRESS
    found: list[Network] = []
    for raw in peers:
        peer = read_core_peer(raw)
        if not isinstance(peer, CidrPeer):
            return None
        found += _minus((_network(peer.cidr),), [_network(c) for c in peer.excepts])
    return _collapsed(found)


def _allowed(allowance: Allowance, wanted: PortRange) -> list[Network] | None:
    """The addresses the allowance holds on ``wanted``; None for all of them."""
    held: list[Network] = []
    for destination in allowance.destinations:
        if not covers(destination.ports, wanted):
            continue
        peer = destination.peer
        if isinstance(peer, Everything):
            return None
        if isinstance(peer, CidrPeer):
            held += _minus((_network(peer.cidr),), [_network(c) for c in peer.excepts])
    return held


def _minus(kept: Iterable[Network], taken: Sequence[Network]) -> tuple[Network, ...]:
    result = list(kept)
    for cut in taken:
        result = [piece for network in result for piece in _without(network, cut)]
    return _collapsed(result)


def _without(network: Network, cut: Network) -> list[Network]:
    if network.version != cut.version or not network.overlaps(cut):
        return [network]
    if network.subnet_of(cut):  # type: ignore[arg-type]
        return []
    return list(network.address_exclude(cut))  # type: ignore[arg-type]


def _collapsed(networks: Iterable[Network]) -> tuple[Network, ...]:
    v4 = [n for n in networks if n.version == 4]
    v6 = [n for n in networks if n.version == 6]
    return (*ipaddress.collapse_addresses(v4), *ipaddress.collapse_addresses(v6))


def _network(cidr: Cidr) -> Network:
    if cidr.family == 4:
        return ipaddress.IPv4Network((cidr.base, cidr.prefix))
    return ipaddress.IPv6Network((cidr.base, cidr.prefix))


def _networks(networks: tuple[Network, ...]) -> str:
    """The ranges in words, per family: as listed, or as the smallest range
    holding them all except its holes when that is shorter."""
    said = [_family_words([n for n in networks if n.version == version]) for version in (4, 6)]
    return ", plus ".join(words for words in said if words)


def _family_words(networks: list[Network]) -> str:
    if not networks:
        return ""
    whole = networks[0]
    while not all(n.subnet_of(whole) for n in networks):  # type: ignore[arg-type]
        whole = whole.supernet()
    holes = _minus((whole,), networks)
    if len(networks) > 1 and len(holes) < len(networks):
        return f"{whole} except {_listed([str(h) for h in holes])}"
    return _listed([str(n) for n in networks])


def _listed(names: list[str]) -> str:
    if len(names) > SHOWN:
        return f"{', '.join(names[:SHOWN])} and {len(names) - SHOWN} more ranges"
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _ports(ranges: list[PortRange]) -> str:
    if ranges == [PortRange(None)]:
        return describe_ports(ALL_PORTS)
    return describe_ports(tuple(ranges))
