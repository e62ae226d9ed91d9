"""Hypothesis strategies: random tier inputs over a small label universe,
and random points near their boundaries."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from lint.decision.model import (
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
from lint.decision.reach.common import Requirement, StrictSelector
from lint.decision.tiers.model import (
    EVERY_PORT,
    Action,
    CalicoTier,
    CidrBlock,
    PeerMatch,
    PodSet,
    Ports,
    PortSpan,
    Protocol,
    Slot,
    TierDocument,
    TierInput,
    TierRule,
    Undecidable,
)
from lint.decision.tiers.points import NODE, OUT, POD, NamePoint, Point
from lint.decision.values import ABSENT
from tests.decision.tiers.build import cidr

NAMESPACE = "sbx"
TRI = st.sampled_from([Tri.YES, Tri.UNKNOWN, Tri.NO])
MOSTLY_YES = st.sampled_from([Tri.YES, Tri.YES, Tri.YES, Tri.UNKNOWN, Tri.NO])
CIDRS = [
    "0.0.0.0/0",
    "10.0.0.0/8",
    "10.1.0.0/16",
    "8.8.8.8/32",
    "::/0",
    "fc00::/7",
    "2001:db8::/32",
]
PORT_POOL = [1, 52, 53, 54, 443, 5432, 65535]
NAMES = ["api.example.com", "a.b.example.com", "other.org"]
PATTERNS = [*NAMES, "*.example.com", "*.b.example.com"]
NS_VALUES = {"kubernetes.io/metadata.name": ["sbx", "kube-system", "other"], "team": ["ml", "web"]}
POD_VALUES = {"app": ["a", "b"], "k8s-app": ["kube-dns", "x"]}


def _requirement(universe: dict[str, list[str]]) -> st.SearchStrategy[Requirement]:
    keys = st.sampled_from(sorted(universe))
    return keys.flatmap(
        lambda key: st.one_of(
            st.builds(Requirement, st.just(key), st.sampled_from(["Exists", "DoesNotExist"])),
            st.builds(
                Requirement,
                st.just(key),
                st.sampled_from(["In", "NotIn"]),
                st.lists(st.sampled_from(universe[key]), min_size=1, max_size=2, unique=True).map(
                    tuple
                ),
            ),
        )
    )


def selectors(universe: dict[str, list[str]]) -> st.SearchStrategy[StrictSelector]:
    labels = st.dictionaries(
        st.sampled_from(sorted(universe)),
        st.sampled_from([v for values in universe.values() for v in values]),
        max_size=2,
    ).map(lambda d: tuple(sorted(d.items())))
    return st.builds(
        StrictSelector, labels, st.lists(_requirement(universe), max_size=2).map(tuple)
    )


def pod_sets(depth: int = 1) -> st.SearchStrategy[PodSet]:
    exclude = pod_sets(0) if depth else st.none()
    return st.builds(
        PodSet,
        st.none() | selectors(NS_VALUES),
        st.none() | selectors(POD_VALUES),
        st.booleans().map(lambda b: b or False) | st.just(True),
        st.none() | exclude,
    )


def blocks() -> st.SearchStrategy[tuple[CidrBlock, ...]]:
    block = st.builds(
        lambda c, e: CidrBlock(
            cidr(c), tuple(cidr(x) for x in e if cidr(x).family == cidr(c).family)
        ),
        st.sampled_from(CIDRS),
        st.lists(st.sampled_from(CIDRS[1:4] + CIDRS[5:]), max_size=2, unique=True),
    )
    return st.lists(block, min_size=1, max_size=2).map(tuple)


def peers() -> st.SearchStrategy[PeerMatch]:
    return st.builds(
        PeerMatch,
        st.just("peer"),
        st.none() | blocks(),
        TRI,
        TRI | pod_sets(),
        TRI,
        TRI,
        st.none() | st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=2).map(tuple),
        st.just(False),
        st.booleans(),  # ``one_label``: Cilium's reading of ``*.``, or the API's
    )


def ports(depth: int = 1) -> st.SearchStrategy[Ports]:
    span = st.builds(
        lambda p, a, b: PortSpan(p, min(a, b), max(a, b)),
        st.sampled_from([Protocol.TCP, Protocol.UDP, Protocol.SCTP]),
        st.sampled_from(PORT_POOL),
        st.sampled_from(PORT_POOL),
    )
    listed = st.builds(
        Ports,
        st.lists(span, max_size=2).map(tuple),
        st.just(False),
        st.booleans(),
        st.booleans(),
        st.just(False),
        st.lists(st.sampled_from([47, 50]), max_size=1).map(tuple),
        (st.none() | ports(0)) if depth else st.none(),
    )
    return st.one_of(st.just(EVERY_PORT), st.just(Ports(unreadable=True)), listed)


ACTIONS = st.sampled_from(
    [
        frozenset({Action.ALLOW}),
        frozenset({Action.DENY}),
        frozenset({Action.PASS}),
        frozenset({Action.ALLOW, Action.DENY, Action.PASS}),
    ]
)


def tier_rules(max_size: int = 3) -> st.SearchStrategy[tuple[TierRule, ...]]:
    one = st.builds(
        lambda a, p, q: (a, p, q),
        ACTIONS,
        ports(),
        st.none() | st.lists(peers(), max_size=2).map(tuple),
    )
    return st.lists(one, max_size=max_size).map(
        lambda items: tuple(
            TierRule(a, p, q, i, ("egress", i), f"rule {i}") for i, (a, p, q) in enumerate(items)
        )
    )


RULES = tier_rules()
DENY_RULES = tier_rules(2)
NS_SELECTORS = selectors(NS_VALUES)
POD_SELECTORS = selectors(POD_VALUES)
PORT_SETS = st.just("all") | st.lists(
    st.builds(
        PortRange,
        st.sampled_from([None, "TCP", "UDP", "SCTP"]),
        st.sampled_from([None, 53, 443]),
    ),
    min_size=1,
    max_size=2,
).map(tuple)

SLOTS = [Slot.ADMIN.value, Slot.NETWORK_POLICY.value, Slot.BASELINE.value, "t1", "t2"]


@st.composite
def documents(draw: Any, index: int) -> TierDocument:
    slot = draw(st.sampled_from(SLOTS))
    rules = draw(RULES)
    deny = draw(DENY_RULES) if slot == Slot.NETWORK_POLICY.value else ()
    if slot == Slot.NETWORK_POLICY.value and not draw(st.booleans()):
        rules = tuple(
            TierRule(frozenset({Action.ALLOW}), r.ports, r.peers, r.index, r.path, r.text)
            for r in rules
        )
    kind = draw(
        st.sampled_from(["NetworkPolicy", "CiliumNetworkPolicy", "AdminNetworkPolicy", "X"])
    )
    return TierDocument(
        kind=kind,
        name=f"d{draw(st.integers(0, 3))}",
        namespace=None,
        slot=slot,
        order=draw(st.sampled_from([None, 10.0, 20.0])),
        tie_class=draw(st.sampled_from(["x", "y"])),
        subject=draw(MOSTLY_YES),
        types=draw(MOSTLY_YES),
        credit=draw(st.sampled_from([Tri.YES, Tri.YES, Tri.UNKNOWN])),
        rules=rules,
        deny_rules=deny,
        isolates=draw(st.booleans()),
        ref=index,
    )


def _selector_json(selector: StrictSelector | None) -> Any:
    if selector is None:
        return ABSENT
    raw: dict[str, Any] = {"matchLabels": dict(selector.labels)}
    if selector.requirements:
        raw["matchExpressions"] = [
            {
                "key": r.key,
                "operator": r.operator,
                **({"values": list(r.values)} if r.values else {}),
            }
            for r in selector.requirements
        ]
    return raw


@st.composite
def allowances(draw: Any) -> Allowance:
    destinations = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["cidr", "selector", "everything"]))
        port_set = draw(PORT_SETS)
        if kind == "cidr":
            c = draw(st.sampled_from(CIDRS))
            holes = tuple(
                cidr(x)
                for x in draw(st.lists(st.sampled_from(CIDRS), max_size=1))
                if cidr(x).family == cidr(c).family
            )
            peer: Any = CidrPeer(cidr(c), holes, c)
        elif kind == "selector":
            ns = draw(st.none() | NS_SELECTORS)
            pod = draw(st.none() | POD_SELECTORS)
            peer = SelectorPeer(_selector_json(ns), _selector_json(pod), "sel")
        else:
            peer = Everything()
        destinations.append(Destination(peer, port_set))
    fqdns = tuple(FqdnGrant(h, "all") for h in draw(st.lists(st.sampled_from(NAMES), max_size=1)))
    wild = [p for p in PATTERNS if p.startswith("*.")]
    patterns = tuple(FqdnGrant(h, "all") for h in draw(st.lists(st.sampled_from(wild), max_size=1)))
    return Allowance(
        tuple(destinations),
        fqdns,
        "all",
        False,
        not destinations,
        "deny-all",
        NamedRef("NetworkPolicy", "x"),
        fqdn_patterns=patterns,
    )


@st.composite
def tier_inputs(draw: Any) -> TierInput:
    count = draw(st.integers(0, 5))
    docs = tuple(draw(documents(i)) for i in range(count))
    tiers = [CalicoTier("t1", 500.0, draw(st.sampled_from([False, True, None])))]
    if draw(st.booleans()):
        tiers.append(CalicoTier("t2", draw(st.sampled_from([None, 5.0, 2_000_000.0])), False))
    undecidable = (
        (Undecidable("Antrea", "x", "not modelled"),) if draw(st.integers(0, 9)) == 0 else ()
    )
    return TierInput(
        NAMESPACE,
        draw(allowances()),
        docs,
        tuple(tiers),
        undecidable,
        calico_form=draw(st.booleans()),
        cilium_r=draw(st.booleans()),
        default_tier_passes=draw(st.booleans()),
    )


def _address(family: int) -> st.SearchStrategy[int]:
    bounds = []
    for text in CIDRS:
        c = cidr(text)
        if c.family == family:
            size = 1 << ((32 if family == 4 else 128) - c.prefix)
            bounds += [c.base, c.base + size - 1, c.base + size, max(c.base - 1, 0)]
    top = (1 << (32 if family == 4 else 128)) - 1
    return st.sampled_from(sorted(b for b in set(bounds) if b <= top)) | st.integers(0, top)


def _labels(universe: dict[str, list[str]]) -> st.SearchStrategy[dict[str, str]]:
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in universe.items()})


@st.composite
def points(draw: Any) -> Point:
    family = draw(st.sampled_from([4, 6]))
    protocol = draw(st.sampled_from(list(Protocol)))
    if protocol is Protocol.ICMP:
        port = None
    elif protocol is Protocol.OTHER:
        port = draw(st.sampled_from([0, 47, 50, 255]))
    else:
        port = draw(st.sampled_from(PORT_POOL) | st.integers(1, 65535))
    owner = draw(st.sampled_from([OUT, POD, NODE]))
    ns = draw(_labels(NS_VALUES))
    ns.setdefault("kubernetes.io/metadata.name", "sbx")
    return Point(
        family,
        draw(_address(family)),
        owner,
        protocol,
        port,
        ns,
        draw(_labels(POD_VALUES)),
        host_pod=owner == NODE and draw(st.booleans()),
    )


@st.composite
def name_points(draw: Any) -> NamePoint:
    protocol = draw(st.sampled_from([Protocol.TCP, Protocol.UDP]))
    return NamePoint(
        draw(st.sampled_from([*NAMES, "x.example.com", "z.a.b.example.com"])),
        protocol,
        draw(st.sampled_from(PORT_POOL)),
    )
