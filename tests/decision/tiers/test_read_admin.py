"""The network-policy API reader of the tier model (``read_admin``):
AdminNetworkPolicy, BaselineAdminNetworkPolicy and ClusterNetworkPolicy."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.model import Tri
from lint.decision.tiers.model import (
    EVERY_ACTION,
    EVERY_PORT,
    UNREADABLE_PORTS,
    Action,
    PodSet,
    Protocol,
    Slot,
    TierDocument,
)
from lint.decision.tiers.read_admin import read_anp, read_banp, read_cnp
from lint.decision.tiers.reading import Credit, span
from tests.decision.tiers.objects import ALL2, KDNS, anp, banp, candidates, cnp, context

ALLOW = frozenset({Action.ALLOW})
DENY = frozenset({Action.DENY})
PASS = frozenset({Action.PASS})


def read(obj: dict[str, Any], **facts: Any) -> TierDocument:
    reader = {"AdminNetworkPolicy": read_anp, "BaselineAdminNetworkPolicy": read_banp}.get(
        obj["kind"], read_cnp
    )
    (found,) = reader(candidates([obj])[0], context(**facts)).documents
    return found


def rule(egress_rule: dict[str, Any], maker: Any = None) -> Any:
    obj = anp("a", 10, [egress_rule]) if maker is None else maker([egress_rule])
    return read(obj).rules[0]


def test_an_admin_network_policy_is_ordered_by_priority_in_the_admin_slot() -> None:
    document = read(anp("a", 7, [{"action": "Deny", **ALL2}]))
    assert (document.slot, document.order, document.namespace) == (Slot.ADMIN, 7.0, None)
    assert (document.subject, document.types) == (Tri.YES, Tri.YES)
    assert document.rules[0].actions == DENY


def test_equal_priorities_always_tie() -> None:
    first, second = read(anp("a", 10, [])), read(anp("b", 10, []))
    assert first.tie_class != second.tie_class


def test_the_baseline_has_no_order_and_no_pass() -> None:
    document = read(banp([{"action": "Pass", **ALL2}]))
    assert (document.slot, document.order) == (Slot.BASELINE, None)
    assert document.rules[0].actions == frozenset({Action.ALLOW, Action.DENY})


@pytest.mark.parametrize(("tier", "slot"), [("Admin", Slot.ADMIN), ("Baseline", Slot.BASELINE)])
def test_a_cluster_network_policy_sits_in_its_tier(tier: str, slot: Slot) -> None:
    document = read(cnp("c", tier, 3, [{"action": "Accept", **ALL2}]))
    assert (document.slot, document.order) == (slot, 3.0)
    assert document.rules[0].actions == ALLOW


def test_allow_is_not_a_cluster_network_policy_action() -> None:
    document = read(cnp("c", "Admin", 3, [{"action": "Allow", **ALL2}]))
    assert document.rules[0].actions == EVERY_ACTION


def test_an_unreadable_tier_or_priority_is_an_unreadable_document() -> None:
    document = read(cnp("c", "admin", 3, []))
    assert document.unreadable is not None and document.slot == Slot.ADMIN
    obj = anp("a", 1, [])
    del obj["spec"]["priority"]
    assert read(obj).unreadable is not None


def test_no_egress_governs_no_egress() -> None:
    assert read(anp("a", 1, [])).types is Tri.NO


def test_an_unknown_subject_label_is_may_and_says_why() -> None:
    obj = anp("a", 1, [], subject={"namespaces": {"matchLabels": {"team": "ml"}}})
    document = read(obj)
    assert document.subject is Tri.UNKNOWN and document.subject_why is not None
    assert read(obj, namespace_labels={"team": "ml"}).subject is Tri.YES
    assert read(obj, namespace_labels={"team": "web"}).subject is Tri.NO


def test_credit_comes_from_the_context() -> None:
    credits = {"AdminNetworkPolicy": Credit(Tri.UNKNOWN, "why")}
    document = read(anp("a", 1, []), credits=credits)
    assert (document.credit, document.credit_why) == (Tri.UNKNOWN, "why")


def test_networks_hold_by_address_for_every_owner() -> None:
    peers = rule({"action": "Deny", **ALL2}).peers
    assert [p.blocks[0].cidr.family for p in peers if p.blocks] == [4, 6]
    assert all((p.out, p.pod, p.node) == (Tri.YES, Tri.YES, Tri.YES) for p in peers)


def test_pods_and_namespaces_never_match_a_node() -> None:
    (pods,) = rule({"action": "Allow", "to": [KDNS]}).peers
    assert isinstance(pods.pod, PodSet) and pods.node is Tri.NO and pods.out is Tri.NO
    (namespaces,) = rule({"action": "Allow", "to": [{"namespaces": {}}]}).peers
    assert namespaces.pod == PodSet(None, None)


def test_nodes_match_only_nodes() -> None:
    (every,) = rule({"action": "Allow", "to": [{"nodes": {}}]}).peers
    assert (every.out, every.pod, every.node) == (Tri.NO, Tri.NO, Tri.YES)
    (some,) = rule({"action": "Allow", "to": [{"nodes": {"matchLabels": {"a": "b"}}}]}).peers
    assert some.node is Tri.UNKNOWN


def test_domain_names_match_by_name() -> None:
    (peer,) = rule({"action": "Allow", "to": [{"domainNames": ["API.example.com."]}]}).peers
    assert peer.names == ("api.example.com",) and peer.out is Tri.UNKNOWN


def test_a_peer_that_cannot_be_read_may_match_anything() -> None:
    (peer,) = rule({"action": "Deny", "to": [{"unknown": {}}]}).peers
    assert (peer.out, peer.pod, peer.node) == (Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN)


def test_no_to_is_every_destination() -> None:
    assert rule({"action": "Deny"}).peers is None


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        (None, EVERY_PORT),
        ([{"portNumber": {"port": 80}}], (span(Protocol.TCP, 80),)),
        ([{"portNumber": {"protocol": "UDP", "port": 53}}], (span(Protocol.UDP, 53),)),
        ([{"portRange": {"start": 1000, "end": 2000}}], (span(Protocol.TCP, 1000, 2000),)),
        ([{"namedPort": "dns"}], EVERY_PORT),
        ([{"portNumber": {"port": 0}}], UNREADABLE_PORTS),
    ],
)
def test_anp_ports(ports: list[Any] | None, expected: Any) -> None:
    found = rule({"action": "Allow", **({} if ports is None else {"ports": ports})}).ports
    if isinstance(expected, tuple):
        assert found.spans == expected and not found.every
    else:
        assert found == expected


@pytest.mark.parametrize(
    ("protocols", "expected"),
    [
        (None, EVERY_PORT),
        ([{"tcp": {"destinationPort": {"number": 443}}}], (span(Protocol.TCP, 443),)),
        ([{"udp": {}}], (span(Protocol.UDP),)),
        (
            [{"sctp": {"destinationPort": {"range": {"start": 5, "end": 9}}}}],
            (span(Protocol.SCTP, 5, 9),),
        ),
        ([{"destinationNamedPort": "dns"}], EVERY_PORT),
    ],
)
def test_cluster_network_policy_protocols(protocols: list[Any] | None, expected: Any) -> None:
    egress_rule = {"action": "Accept", **({} if protocols is None else {"protocols": protocols})}
    found = read(cnp("c", "Admin", 1, [egress_rule])).rules[0].ports
    if isinstance(expected, tuple):
        assert found.spans == expected and not found.every
    else:
        assert found == expected


def test_a_rule_name_is_in_its_text() -> None:
    found = rule({"action": "Pass", "name": "to-dns", **ALL2})
    assert found.actions == PASS and "to-dns" in found.text
