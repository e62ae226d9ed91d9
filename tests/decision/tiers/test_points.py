"""The destination space and the allowance on it."""

from __future__ import annotations

from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    CidrPeer,
    Destination,
    Everything,
    FqdnGrant,
    NamedRef,
    PortRange,
    SelectorPeer,
    Tri,
)
from lint.decision.tiers.model import EVERY_PORT, PodSet, Ports, PortSpan, Protocol
from lint.decision.tiers.points import (
    NODE,
    OUT,
    POD,
    NamePoint,
    Point,
    allowed,
    in_block,
    name_allowed,
    name_matches,
    peer_holds,
    podset_holds,
    ports_hold,
    ports_of,
    read_allowance,
)
from lint.decision.values import ABSENT
from tests.decision.tiers.build import KDNS, blocks, cidr, entity, local_pods, selector

SBX = {"kubernetes.io/metadata.name": "sbx"}
KUBE_SYSTEM = {"kubernetes.io/metadata.name": "kube-system"}
EIGHTS = cidr("8.8.8.8/32").base


def point(
    owner: str = OUT, protocol: Protocol = Protocol.TCP, port: int | None = 443, **kw: object
) -> Point:
    return Point(4, EIGHTS, owner, protocol, port, **kw)  # type: ignore[arg-type]


def test_port_ranges_cover_tcp_udp_sctp_only_and_all_covers_every_protocol() -> None:
    any53 = ports_of((PortRange(None, 53),))
    assert {s.protocol for s in any53.spans} == {Protocol.TCP, Protocol.UDP, Protocol.SCTP}
    assert ports_hold(any53, Protocol.SCTP, 53) is Tri.YES
    assert ports_hold(any53, Protocol.ICMP, None) is Tri.NO
    assert ports_hold(any53, Protocol.OTHER, 47) is Tri.NO
    assert ports_hold(ports_of(ALL_PORTS), Protocol.ICMP, None) is Tri.YES
    every_tcp = ports_of((PortRange("TCP"),))
    assert every_tcp.spans == (PortSpan(Protocol.TCP, 1, 65535),)
    assert ports_of((PortRange("TCP", 2000, 1000),)).spans == ()


def test_ports_unreadable_exclusions_and_other_protocol_numbers() -> None:
    assert ports_hold(Ports(unreadable=True), Protocol.TCP, 1) is Tri.UNKNOWN
    not_443 = Ports(every=True, exclude=Ports(spans=(PortSpan(Protocol.TCP, 443, 443),)))
    assert ports_hold(not_443, Protocol.TCP, 443) is Tri.NO
    assert ports_hold(not_443, Protocol.TCP, 444) is Tri.YES
    gre = Ports(other_numbers=(47,))
    assert ports_hold(gre, Protocol.OTHER, 47) is Tri.YES
    assert ports_hold(gre, Protocol.OTHER, 50) is Tri.NO
    assert ports_hold(Ports(icmp=True), Protocol.ICMP, None) is Tri.YES


def test_block_excepts_and_families() -> None:
    (block,) = blocks("10.0.0.0/8", excepts=["10.1.0.0/16"])
    assert in_block(block, 4, cidr("10.2.0.0/16").base)
    assert not in_block(block, 4, cidr("10.1.2.0/24").base)
    assert not in_block(block, 6, cidr("10.2.0.0/16").base)


def test_selector_peers_hold_pods_by_label_and_nodes_only_as_host_networked_pods() -> None:
    peer = local_pods({"app": "b"})
    assert peer_holds(peer, point(POD, namespace_labels=SBX, pod_labels={"app": "b"})) is Tri.YES
    assert peer_holds(peer, point(POD, namespace_labels=SBX, pod_labels={"app": "c"})) is Tri.NO
    other_ns = {"kubernetes.io/metadata.name": "x"}
    assert (
        peer_holds(peer, point(POD, namespace_labels=other_ns, pod_labels={"app": "b"})) is Tri.NO
    )
    assert peer_holds(peer, point(OUT)) is Tri.NO
    assert peer_holds(peer, point(NODE)) is Tri.NO
    host = point(NODE, namespace_labels=SBX, pod_labels={"app": "b"}, host_pod=True)
    assert peer_holds(peer, host) is Tri.UNKNOWN
    assert (
        peer_holds(
            KDNS,
            point(
                NODE,
                namespace_labels=KUBE_SYSTEM,
                pod_labels={"k8s-app": "kube-dns"},
                host_pod=True,
            ),
        )
        is Tri.NO
    )


def test_entities_by_owner_and_pod_set_exclusions() -> None:
    world = entity("world")
    assert peer_holds(world, point(OUT)) is Tri.YES
    assert peer_holds(world, point(POD)) is Tri.NO
    every_but_b = PodSet(None, None, exclude=PodSet(None, selector({"app": "b"})))
    assert podset_holds(every_but_b, SBX, {"app": "b"}) is Tri.NO
    assert podset_holds(every_but_b, SBX, {"app": "a"}) is Tri.YES
    assert podset_holds(PodSet(None, None, exact=False), SBX, {}) is Tri.UNKNOWN


def test_names_exact_and_wildcard() -> None:
    assert name_matches("API.example.com.", "api.example.com")
    assert name_matches("*.example.com", "a.b.example.com")
    assert not name_matches("*.example.com", "example.com")
    assert not name_matches("api.example.com", "x.api.example.com")


def _allowance(*destinations: Destination, fqdns: tuple[FqdnGrant, ...] = ()) -> Allowance:
    return Allowance(
        destinations, fqdns, "all", False, False, "deny-all", NamedRef("NetworkPolicy", "x")
    )


def test_the_allowance_reads_a_selector_without_namespace_as_the_sandbox_namespace() -> None:
    view = read_allowance(
        _allowance(
            Destination(SelectorPeer(ABSENT, {"matchLabels": {"app": "db"}}, "db"), ALL_PORTS)
        ),
        "sbx",
    )
    assert allowed(view, point(POD, namespace_labels=SBX, pod_labels={"app": "db"}))
    assert not allowed(view, point(POD, namespace_labels=KUBE_SYSTEM, pod_labels={"app": "db"}))
    assert not allowed(view, point(OUT))
    host = point(NODE, namespace_labels=SBX, pod_labels={"app": "db"}, host_pod=True)
    assert allowed(view, host)


def test_the_allowance_on_cidrs_names_and_everything() -> None:
    v = read_allowance(
        _allowance(
            Destination(CidrPeer(cidr("8.8.8.0/24"), (), "x"), (PortRange("TCP", 443),)),
            fqdns=(FqdnGrant("api.example.com", ALL_PORTS),),
        ),
        "sbx",
    )
    assert allowed(v, point(POD, namespace_labels=SBX))
    assert not allowed(v, point(protocol=Protocol.UDP))
    assert name_allowed(v, NamePoint("api.example.com", Protocol.UDP, 53))
    assert not name_allowed(v, NamePoint("x.example.com", Protocol.TCP, 443))
    assert not allowed(v, point(port=80))
    everything = read_allowance(_allowance(Destination(Everything(), ALL_PORTS)), "sbx")
    assert name_allowed(everything, NamePoint("any.org", Protocol.TCP, 1))
    assert ports_of(ALL_PORTS) == EVERY_PORT
