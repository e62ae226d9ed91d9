"""Cells: boundaries, owner classes, selector containment and disjointness."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lint.decision.model import Tri
from lint.decision.reach.common import Requirement
from lint.decision.tiers.cells import (
    AddressQuery,
    PortCell,
    VectorProbe,
    _spelled,
    build_space,
    pods_on_class,
    pods_within,
    selectors_disjoint,
)
from lint.decision.tiers.evaluate import evaluate
from lint.decision.tiers.match import destination
from lint.decision.tiers.model import PodSet, Protocol
from tests.decision.tiers.build import (
    ALLOW,
    DENY,
    anp,
    base,
    cidr,
    gnp,
    networks,
    pods,
    port,
    rule,
    selector,
)


def test_disjointness_by_one_key() -> None:
    a = selector({"app": "a"})
    assert selectors_disjoint(a, selector({"app": "b"}))
    assert not selectors_disjoint(a, selector({"tier": "web"}))
    assert selectors_disjoint(selector(None, Requirement("app", "In", ("x", "y"))), a)
    assert not selectors_disjoint(selector(None, Requirement("app", "In", ("a", "y"))), a)
    assert selectors_disjoint(
        selector(None, Requirement("app", "Exists")),
        selector(None, Requirement("app", "DoesNotExist")),
    )
    assert selectors_disjoint(a, selector(None, Requirement("app", "NotIn", ("a",))))
    assert not selectors_disjoint(a, selector(None, Requirement("app", "NotIn", ("b",))))
    assert not selectors_disjoint(None, a)


def test_containment_is_the_unions_narrower_than() -> None:
    kube_system = PodSet(selector({"kubernetes.io/metadata.name": "kube-system"}), None)
    kube_dns = PodSet(
        selector({"kubernetes.io/metadata.name": "kube-system"}), selector({"k8s-app": "kube-dns"})
    )
    assert pods_within(kube_system, kube_dns)
    assert not pods_within(kube_dns, kube_system)
    assert pods_within(PodSet(None, None), kube_dns)


def test_a_pod_class_answers_yes_no_or_maybe() -> None:
    app_a = PodSet(None, selector({"app": "a"}))
    app_a_web = PodSet(None, selector({"app": "a", "tier": "web"}))
    app_b = PodSet(None, selector({"app": "b"}))
    tier_web = PodSet(None, selector({"tier": "web"}))
    assert pods_on_class(app_a, app_a_web) is Tri.YES
    assert pods_on_class(app_a, app_b) is Tri.NO
    assert pods_on_class(app_a, tier_web) is Tri.UNKNOWN
    assert pods_on_class(app_a, None) is Tri.NO
    assert pods_on_class(PodSet(None, None, exact=False), app_a) is Tri.UNKNOWN
    but_web = PodSet(None, selector({"app": "a"}), exclude=tier_web)
    assert pods_on_class(but_web, app_a_web) is Tri.NO
    assert pods_on_class(but_web, app_b) is Tri.NO


def test_cells_split_at_every_boundary_and_group_by_answers() -> None:
    tier_input = base(
        "Dn",
        anp("a", 10, rule(DENY, [networks("10.0.0.0/8")], port("TCP", 80, 90))),
        anp("b", 20, rule(ALLOW, [networks("10.1.0.0/16")])),
    )
    space = build_space(
        tier_input, (AddressQuery(4, cidr("8.8.8.8/32").base, cidr("8.8.8.8/32").base),)
    )
    tcp = sorted(
        (c.low, c.high)
        for g in space.port_groups
        for c in g.members
        if isinstance(c, PortCell) and c.protocol is Protocol.TCP and c.low is not None
    )
    assert (80, 90) in tcp and (53, 53) in tcp and (1, 52) in tcp
    lows = {
        p.address.low  # type: ignore[attr-defined]
        for g in space.place_groups
        for p in g.members
        if p.address.family == 4  # type: ignore[attr-defined]
    }
    for text in ("10.0.0.0/8", "10.1.0.0/16", "8.8.8.8/32"):
        assert cidr(text).base in lows
    # Each distinct answer of the rules is evaluated once, and a verdict
    # read from the memo is the one a fresh evaluation gives.
    signatures = set()
    for places in space.place_groups:
        for ports in space.port_groups:
            probe = VectorProbe(space, ports.vector, places.vector)
            signatures.add(tuple(destination(rule, probe) for rule in space.rules))
            assert space.verdict(ports.vector, places.vector) == evaluate(space.plan, probe)
    assert len(space.memo) == len(signatures) < len(space.place_groups) * len(space.port_groups)


def test_no_pod_class_outside_every_selector_when_one_selects_every_pod() -> None:
    everyone = pods(None, None, admin=True)
    space = build_space(base("Dn", anp("a", 10, rule(ALLOW, [everyone]))))
    owners = {p.owner for g in space.place_groups for p in g.members}  # type: ignore[attr-defined]
    pod_classes = [o for o in owners if o.owner == "POD"]
    assert pod_classes and all(o.pods is not None for o in pod_classes)


def test_only_documents_that_may_apply_add_boundaries() -> None:
    ignored = gnp("g", rule(DENY, [networks("1.2.3.0/24")]), subject=Tri.NO)
    space = build_space(base("Dn", ignored, calico=True))
    lows = {p.address.low for g in space.place_groups for p in g.members}  # type: ignore[attr-defined]
    assert cidr("1.2.3.0/24").base not in lows


@given(st.integers(0, 2**48), st.integers(0, 2**48), st.integers(0, 40))
def test_masks_are_spelled_bit_by_bit(certain: int, maybe: int, size: int) -> None:
    expected = tuple(
        Tri.YES if certain >> bit & 1 else Tri.UNKNOWN if maybe >> bit & 1 else Tri.NO
        for bit in range(size)
    )
    assert _spelled((certain, maybe), size) == expected
