"""The destination space and the allowance on it (CLUSTER-POLICIES.md §12.1).

A point is ``(family, address, owner, protocol, port)``; a name point is
``(host, protocol, port)``. This module holds the exact membership tests of
one point in the sets a rule or the allowance names (an address block, a port
set, a pod set, a name pattern), and the allowance ``A(p)``, two-valued, read
as the union reads it (S§4, S§7.4, S§9.3, S§9.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import msgspec

from lint.decision.model import (
    Allowance,
    Cidr,
    CidrPeer,
    Everything,
    PortRange,
    PortSet,
    SelectorPeer,
    Tri,
)
from lint.decision.reach.common import (
    StrictSelector,
    match_strict,
    normalise_domain,
    read_strict_selector,
)
from lint.decision.reach.model import NAMESPACE_NAME_LABEL, known_labels
from lint.decision.tiers.kleene import kleene_and, kleene_not, of_bool
from lint.decision.tiers.model import (
    EVERY_PORT,
    PORTED,
    CidrBlock,
    Owner,
    PeerMatch,
    PodSet,
    Ports,
    PortSpan,
    Protocol,
)
from lint.decision.values import ABSENT, is_integer

Family = Literal[4, 6]
FAMILY_BITS: Final[dict[int, int]] = {4: 32, 6: 128}
MIN_PORT: Final = 1
MAX_PORT: Final = 65535
MAX_PROTOCOL_NUMBER: Final = 255
"""An ``OTHER`` point's port is its IP protocol number, 0 to 255."""

OUT: Final[Owner] = "OUT"
POD: Final[Owner] = "POD"
NODE: Final[Owner] = "NODE"


class Point(msgspec.Struct, frozen=True):
    """One destination (§12.1). ``port`` is None for ``ICMP``, the IP
    protocol number for ``OTHER``. ``namespace_labels`` and ``pod_labels``
    are the owner's labels when the owner is ``POD`` (known exactly), or,
    with ``host_pod``, the labels of the host-networked pod a ``NODE``
    address belongs to. A plain node (no ``host_pod``) is in no pod set:
    a selector peer's ``M`` on nodes stands for host-networked pods only."""

    family: Family
    address: int
    owner: Owner
    protocol: Protocol
    port: int | None
    namespace_labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    pod_labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    host_pod: bool = False


class NamePoint(msgspec.Struct, frozen=True):
    """A destination named by host (§12.1): FQDN rules and ``--to HOST:PORT``."""

    host: str
    protocol: Protocol
    port: int | None


# --- exact membership tests --------------------------------------------------------------


def cidr_bounds(cidr: Cidr) -> tuple[int, int]:
    """The first and last address of a cidr."""
    size = 1 << (FAMILY_BITS[cidr.family] - cidr.prefix)
    return cidr.base, cidr.base + size - 1


def in_cidr(cidr: Cidr, family: int, address: int) -> bool:
    low, high = cidr_bounds(cidr)
    return cidr.family == family and low <= address <= high


def in_block(block: CidrBlock, family: int, address: int) -> bool:
    """The address lies in the block's cidr and in none of its excepts."""
    return in_cidr(block.cidr, family, address) and not any(
        in_cidr(hole, family, address) for hole in block.excepts
    )


def ports_hold(ports: Ports, protocol: Protocol, port: int | None) -> Tri:
    """§12.2.1 on one point: ``M`` for an unreadable part; excludes remove."""
    if ports.unreadable:
        return Tri.UNKNOWN
    held = of_bool(_ports_contain(ports, protocol, port))
    if ports.exclude is None:
        return held
    return kleene_and(held, kleene_not(ports_hold(ports.exclude, protocol, port)))


def _ports_contain(ports: Ports, protocol: Protocol, port: int | None) -> bool:
    if ports.every:
        return True
    if protocol is Protocol.ICMP:
        return ports.icmp
    if protocol is Protocol.OTHER:
        return ports.other or port in ports.other_numbers
    return port is not None and any(
        span.protocol is protocol and span.low <= port <= span.high for span in ports.spans
    )


def selector_holds(selector: StrictSelector | None, labels: Mapping[str, str]) -> Tri:
    """A selector on labels known exactly (``Y``/``N``); None selects all."""
    if selector is None:
        return Tri.YES
    return match_strict(selector, known_labels(labels))


def podset_holds(
    pods: PodSet, namespace_labels: Mapping[str, str], pod_labels: Mapping[str, str]
) -> Tri:
    """The label test of a selector peer on one pod (§12.2.2)."""
    if not pods.exact:
        return Tri.UNKNOWN
    held = kleene_and(
        selector_holds(pods.namespaces, namespace_labels), selector_holds(pods.pods, pod_labels)
    )
    if pods.exclude is None:
        return held
    excluded = podset_holds(pods.exclude, namespace_labels, pod_labels)
    return kleene_and(held, kleene_not(excluded))


def name_matches(pattern: str, host: str, one_label: bool = False) -> bool:
    """An exact name, or ``*.suffix`` for one or more labels before ``suffix``
    (``one_label``: exactly one, Cilium's reading of ``matchPattern``).
    Names are compared normalised: ASCII lowercase, one trailing dot dropped."""
    pattern = normalise_domain(pattern)
    host = normalise_domain(host)
    if pattern.startswith("*."):
        suffix = pattern[1:]
        if not host.endswith(suffix) or len(host) == len(suffix):
            return False
        return not one_label or "." not in host[: -len(suffix)]
    return pattern == host


def peer_holds(peer: PeerMatch, point: Point) -> Tri:
    """§12.2.2 on one address point: the address test and the owner part."""
    if peer.blocks is not None and not any(
        in_block(block, point.family, point.address) for block in peer.blocks
    ):
        return Tri.NO
    if point.owner == OUT:
        return peer.out
    if isinstance(peer.pod, Tri):
        return peer.node if point.owner == NODE else peer.pod
    if point.owner == NODE and not point.host_pod:
        return Tri.NO
    held = podset_holds(peer.pod, point.namespace_labels, point.pod_labels)
    return kleene_and(peer.node, held) if point.owner == NODE else held


def peer_holds_name(peer: PeerMatch, point: NamePoint) -> Tri:
    """§12.2.2 on a name point: an FQDN peer by name, any other ``on_name``."""
    if peer.names is None:
        return peer.on_name
    return of_bool(any(name_matches(p, point.host, peer.one_label) for p in peer.names))


# --- the allowance (§12.1) ------------------------------------------------------------


class AllowanceView(msgspec.Struct, frozen=True):
    """The allowance as the sets it holds: each entry a peer and its ports.
    An ``fqdns`` grant is a peer that holds its exact name on name points
    and no address point."""

    entries: tuple[tuple[PeerMatch, Ports], ...]


def read_allowance(allowance: Allowance, namespace: str) -> AllowanceView:
    """The allowance's destinations as peers (a selector without a
    namespaceSelector means the sandbox namespace), then its ``fqdns``."""
    entries = [
        (allowance_peer(destination.peer, namespace), ports_of(destination.ports))
        for destination in allowance.destinations
    ]
    entries += [(fqdn_peer(grant.host), ports_of(grant.ports)) for grant in allowance.fqdns]
    entries += [
        (pattern_peer(grant.host), ports_of(grant.ports)) for grant in allowance.fqdn_patterns
    ]
    return AllowanceView(tuple(entries))


def pattern_peer(pattern: str) -> PeerMatch:
    """A ``matchPattern`` of the translated manifest: the names it matches,
    as Cilium reads it."""
    return PeerMatch(
        pattern,
        out=Tri.NO,
        pod=Tri.NO,
        node=Tri.NO,
        on_name=Tri.NO,
        names=(pattern,),
        one_label=True,
    )


def fqdn_peer(host: str) -> PeerMatch:
    """An ``fqdns`` grant: its exact name (S§9.4), never an address."""
    exact = host[2:] if host.startswith("*.") else host
    names = (exact,) if exact == host else ()
    return PeerMatch(host, out=Tri.NO, pod=Tri.NO, node=Tri.NO, on_name=Tri.NO, names=names)


def allowance_peer(peer: Everything | CidrPeer | SelectorPeer, namespace: str) -> PeerMatch:
    if isinstance(peer, Everything):
        return PeerMatch(peer.text, on_name=Tri.YES)
    if isinstance(peer, CidrPeer):
        block = CidrBlock(peer.cidr, peer.excepts)
        return PeerMatch(peer.text, blocks=(block,), on_name=Tri.NO)
    # The translation lets out what its selector selects, host-networked pods included.
    pods = allowance_pods(peer, namespace)
    node = Tri.YES if isinstance(pods, PodSet) else Tri.NO
    return PeerMatch(peer.text, out=Tri.NO, node=node, pod=pods, on_name=Tri.NO)


def allowance_pods(peer: SelectorPeer, namespace: str) -> PodSet | Tri:
    """The pods a selector destination holds; ``N`` when a selector cannot
    be read strictly (the allowance never holds what it cannot tell)."""
    if peer.namespace_selector is ABSENT:
        namespaces: StrictSelector | str = StrictSelector(((NAMESPACE_NAME_LABEL, namespace),), ())
    else:
        namespaces = read_strict_selector(peer.namespace_selector)
    pods = None if peer.pod_selector is ABSENT else read_strict_selector(peer.pod_selector)
    if isinstance(namespaces, str) or isinstance(pods, str):
        return Tri.NO
    return PodSet(namespaces, pods)


def ports_of(ports: PortSet) -> Ports:
    """S§7.4 as a port set: ``all`` is every protocol, ICMP and OTHER
    included; ranges cover TCP, UDP and SCTP ports only (no protocol: all three)."""
    if ports == "all":
        return EVERY_PORT
    spans: list[PortSpan] = []
    for port_range in ports:
        spans.extend(_spans_of(port_range))
    return Ports(spans=tuple(spans))


def _spans_of(port_range: PortRange) -> list[PortSpan]:
    if port_range.protocol is None:
        protocols: tuple[Protocol, ...] = PORTED
    elif port_range.protocol in PORTED:
        protocols = (Protocol(port_range.protocol),)
    else:
        return []
    if port_range.start is None:
        low, high = MIN_PORT, MAX_PORT
    else:
        end = port_range.start if port_range.end is None else port_range.end
        if not (is_integer(port_range.start) and is_integer(end)):
            return []
        low, high = max(int(port_range.start), MIN_PORT), min(int(end), MAX_PORT)
    if low > high:
        return []
    return [PortSpan(protocol, low, high) for protocol in protocols]


def allowed(view: AllowanceView, point: Point) -> bool:
    """``A(p)`` for an address point."""
    return any(
        ports_hold(ports, point.protocol, point.port) is Tri.YES
        and peer_holds(peer, point) is Tri.YES
        for peer, ports in view.entries
    )


def name_allowed(view: AllowanceView, point: NamePoint) -> bool:
    """``A(p)`` for a name point: an exact ``fqdns`` host, or ``everything``."""
    return any(
        ports_hold(ports, point.protocol, point.port) is Tri.YES
        and peer_holds_name(peer, point) is Tri.YES
        for peer, ports in view.entries
    )
