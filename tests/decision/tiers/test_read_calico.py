"""The Calico reader of the tier model (``read_calico``): slots and orders,
actions, ports with their negations, destinations, selector scopes,
network sets, skipped objects, Tier manifests."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lint.decision.model import EgressRefusal, Tri
from lint.decision.tiers.build import reader_for
from lint.decision.tiers.model import (
    EVERY_ACTION,
    EVERY_PORT,
    UNREADABLE_PORTS,
    Action,
    CalicoTier,
    PodSet,
    Protocol,
    Slot,
    TierDocument,
)
from lint.decision.tiers.read_calico import calico_ports, read_tier
from lint.decision.tiers.reading import Read, namespace_pin, span
from lint.kinds import identify
from tests.decision.tiers.objects import (
    CALICO_API,
    NAMESPACE,
    ask,
    build,
    calico_np,
    candidates,
    context,
    gnp,
    tier,
)


def read(obj: dict[str, Any], **facts: Any) -> Read:
    reader = reader_for(identify(obj["apiVersion"], obj["kind"]))
    assert reader is not None
    return reader(candidates([obj])[0], context(**facts))


def document(spec: dict[str, Any], **facts: Any) -> TierDocument:
    (found,) = read(gnp("g", {"selector": "all()", **spec}), **facts).documents
    return found


def one_rule(rule: dict[str, Any]) -> Any:
    (found,) = document({"egress": [rule]}).rules
    return found


@pytest.mark.parametrize(
    ("tier_name", "slot"),
    [
        (None, Slot.NETWORK_POLICY),
        ("default", Slot.NETWORK_POLICY),
        ("platform", "platform"),
        ("kube-admin", Slot.ADMIN),
        ("baselineadminnetworkpolicy", Slot.BASELINE),
    ],
)
def test_the_tier_is_the_slot(tier_name: str | None, slot: str) -> None:
    spec = {} if tier_name is None else {"tier": tier_name}
    assert document(spec).slot == slot


def test_order_absent_is_last_and_the_tie_class_is_the_kind() -> None:
    found = document({})
    assert found.order == math.inf and found.tie_class == "GlobalNetworkPolicy.projectcalico.org"
    namespaced = read(calico_np("n", {"order": 5})).documents[0]
    assert namespaced.order == 5.0 and namespaced.tie_class == "NetworkPolicy.projectcalico.org"
    assert namespaced.namespace == NAMESPACE


def test_an_order_that_cannot_be_read_is_an_unreadable_document() -> None:
    found = document({"order": "first"})
    assert found.unreadable is not None and found.rules[0].actions == EVERY_ACTION


@pytest.mark.parametrize(
    ("spec", "types"),
    [
        ({"types": ["Egress"]}, Tri.YES),
        ({"types": ["Ingress"], "egress": [{"action": "Deny"}]}, Tri.NO),
        ({"egress": [{"action": "Deny"}]}, Tri.YES),
        ({}, Tri.NO),
    ],
)
def test_types(spec: dict[str, Any], types: Tri) -> None:
    found = document(spec)
    assert found.types is types and found.isolates is (types is Tri.YES)


def test_selection_on_the_calico_views() -> None:
    assert read(gnp("g", {"selector": "app == 'agent'"})).documents[0].subject is Tri.YES
    assert read(gnp("g", {"selector": "app == 'other'"})).documents[0].subject is Tri.NO
    unknown = read(gnp("g", {"namespaceSelector": "team == 'ml'"})).documents[0]
    assert unknown.subject is Tri.UNKNOWN and unknown.subject_why is not None


def test_actions_and_log() -> None:
    rules = document(
        {
            "egress": [
                {"action": "Log"},
                {"action": "Allow"},
                {"action": "Deny"},
                {"action": "Pass"},
                {"action": "Drop"},
            ]
        }
    ).rules
    assert [rule.index for rule in rules] == [1, 2, 3, 4]
    assert [rule.actions for rule in rules] == [
        frozenset({Action.ALLOW}),
        frozenset({Action.DENY}),
        frozenset({Action.PASS}),
        EVERY_ACTION,
    ]


@pytest.mark.parametrize(
    ("rule", "spans", "icmp", "numbers"),
    [
        (
            {"protocol": "TCP", "destination": {"ports": [443, "8000:8080"]}},
            (span(Protocol.TCP, 443), span(Protocol.TCP, 8000, 8080)),
            False,
            (),
        ),
        ({"protocol": "UDP"}, (span(Protocol.UDP),), False, ()),
        ({"protocol": 17, "destination": {"ports": [53]}}, (span(Protocol.UDP, 53),), False, ()),
        ({"protocol": "ICMP"}, (), True, ()),
        ({"protocol": "ICMPv6"}, (), True, ()),
        ({"protocol": 47}, (), False, (47,)),
    ],
)
def test_ports(rule: dict[str, Any], spans: Any, icmp: bool, numbers: tuple[int, ...]) -> None:
    found = calico_ports(rule)
    assert (found.spans, found.icmp, found.other_numbers, found.every) == (
        spans,
        icmp,
        numbers,
        False,
    )


def test_no_protocol_is_every_point_and_ports_need_a_protocol() -> None:
    assert calico_ports({}) == EVERY_PORT
    assert calico_ports({"destination": {"ports": [80]}}) == UNREADABLE_PORTS


def test_a_named_port_is_every_point() -> None:
    assert calico_ports({"protocol": "TCP", "destination": {"ports": ["http"]}}).every


def test_not_protocol_and_not_ports_are_exclusions() -> None:
    found = calico_ports({"notProtocol": "TCP"})
    assert found.every and found.exclude is not None
    assert found.exclude.spans == (span(Protocol.TCP),)
    found = calico_ports({"protocol": "TCP", "destination": {"notPorts": [22]}})
    assert found.spans == (span(Protocol.TCP),)
    assert found.exclude is not None and found.exclude.spans == (span(Protocol.TCP, 22),)


def test_nets_less_not_nets_hold_by_address_for_every_owner() -> None:
    (peer,) = one_rule(
        {"action": "Deny", "destination": {"nets": ["10.0.0.0/8"], "notNets": ["10.1.0.0/16"]}}
    ).peers
    assert (peer.out, peer.pod, peer.node) == (Tri.YES, Tri.YES, Tri.YES)
    assert peer.blocks is not None and len(peer.blocks[0].excepts) == 1


def test_not_nets_alone_is_every_address_less_them() -> None:
    peers = one_rule({"action": "Deny", "destination": {"notNets": ["10.0.0.0/8"]}}).peers
    assert len(peers) == 2 and peers[0].blocks is not None


def test_no_destination_is_every_point() -> None:
    assert one_rule({"action": "Deny"}).peers is None


def test_a_selector_scope_is_a_pod_set_in_the_policy_s_namespace() -> None:
    policy = calico_np(
        "n", {"egress": [{"action": "Allow", "destination": {"selector": "app == 'db'"}}]}
    )
    (peer,) = read(policy).documents[0].rules[0].peers or ()
    assert isinstance(peer.pod, PodSet) and peer.pod.namespaces == namespace_pin(NAMESPACE)
    assert peer.out is Tri.NO and peer.node is Tri.UNKNOWN


def test_a_selector_outside_the_fragment_is_inexact() -> None:
    (peer,) = one_rule(
        {"action": "Allow", "destination": {"selector": "app == 'a' || app == 'b'"}}
    ).peers
    assert isinstance(peer.pod, PodSet) and not peer.pod.exact and peer.out is Tri.NO


def test_not_selector_removes_pods() -> None:
    policy = calico_np(
        "n",
        {
            "egress": [
                {
                    "action": "Deny",
                    "destination": {"selector": "all()", "notSelector": "app == 'db'"},
                }
            ]
        },
    )
    (peer,) = read(policy).documents[0].rules[0].peers or ()
    assert isinstance(peer.pod, PodSet) and peer.pod.exclude is not None
    assert peer.pod.exclude.pods is not None


def test_global_scopes_and_services_may_match() -> None:
    (peer,) = one_rule({"action": "Allow", "destination": {"namespaceSelector": "global()"}}).peers
    assert (peer.out, peer.pod, peer.node) == (Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN)
    (peer,) = one_rule({"action": "Allow", "destination": {"services": {"name": "s"}}}).peers
    assert peer.out is Tri.UNKNOWN


def test_ip_version_keeps_one_family() -> None:
    (peer,) = one_rule({"action": "Deny", "ipVersion": 6}).peers
    assert peer.blocks is not None and peer.blocks[0].cidr.family == 6
    peers = one_rule(
        {"action": "Deny", "ipVersion": 4, "destination": {"notNets": ["10.0.0.0/8"]}}
    ).peers
    assert [p.blocks[0].cidr.family for p in peers if p.blocks] == [4]


def test_a_source_makes_the_rule_only_may() -> None:
    (peer,) = one_rule(
        {
            "action": "Deny",
            "source": {"selector": "app == 'x'"},
            "destination": {"nets": ["1.1.1.1/32"]},
        }
    ).peers
    assert peer.out is Tri.UNKNOWN


def network_set(name: str, labels: dict[str, str], nets: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": CALICO_API,
        "kind": "NetworkSet",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {"nets": nets},
    }


def test_a_scope_selects_the_network_sets_of_its_namespace() -> None:
    rule = {"action": "Allow", "destination": {"selector": "role == 'external'"}}
    built = build(
        [
            calico_np("n", {"selector": "all()", "types": ["Egress"], "egress": [rule]}),
            network_set("ext", {"role": "external"}, ["203.0.113.0/24"]),
            network_set("other", {"role": "internal"}, ["198.51.100.0/24"]),
        ],
        "Dn",
    )
    (found,) = [d for d in built.input.documents if d.name == "n"]
    assert len(found.rules[0].peers or ()) == 2
    _, explained = ask(built, "203.0.113.9:443/TCP")
    assert explained.verdict == "allowed"
    # A pod may hold that address and match the selector; an outside address may not.
    _, explained = ask(built, "198.51.100.9:443/TCP")
    assert (explained.verdict, explained.outside_verdict) == ("undecided", "denied")


def test_staged_and_host_endpoint_policies_are_skipped() -> None:
    staged = {**gnp("s", {"selector": "all()"}), "kind": "StagedGlobalNetworkPolicy"}
    assert read(staged).skipped[0].reason == "staged, not enforced"
    host = read(gnp("h", {"selector": "all()", "preDNAT": True}))
    assert host.documents == () and "host endpoints" in host.skipped[0].reason


def test_another_namespace_s_policy_gives_nothing() -> None:
    other = calico_np("n", {})
    other["metadata"]["namespace"] = "elsewhere"
    assert read(other) == Read()


def test_tier_manifests() -> None:
    def tier_of(spec: dict[str, Any], name: str = "platform") -> Read:
        return read_tier(candidates([tier(name, spec)])[0], context())

    assert tier_of({"order": 100}).tiers == (CalicoTier("platform", 100.0, False),)
    assert tier_of({"defaultAction": "Pass"}).tiers == (CalicoTier("platform", math.inf, True),)
    assert tier_of({"order": "x", "defaultAction": "Log"}).tiers == (
        CalicoTier("platform", None, None),
    )
    assert tier_of({"order": 1}, name="default").tiers == ()


def test_build_gives_a_policy_s_tier_without_a_manifest_an_unknown_place() -> None:
    policy = gnp("g", {"tier": "security", "selector": "all()", "egress": [{"action": "Deny"}]})
    assert build([policy]).input.tiers == (CalicoTier("security", None, None),)
    agreeing = build([policy, tier("security", {"order": 5}), tier("security", {"order": 6})])
    assert agreeing.input.tiers == (CalicoTier("security", None, False),)


def test_a_default_tier_that_passes_ends_the_default_tier_in_pass() -> None:
    assert not build([tier("default", {})]).input.default_tier_passes
    built = build(
        [
            tier("default", {"defaultAction": "Pass"}),
            gnp("g", {"selector": "all()", "types": ["Egress"]}),
        ],
        "Dn",
    )
    assert built.input.default_tier_passes
    reach_answer, _ = ask(built, "8.8.8.8:443/TCP")
    assert reach_answer.refusal is EgressRefusal.NO_ENFORCING_POLICY


def test_a_scope_in_no_one_namespace_may_select_global_network_sets() -> None:
    global_set = {
        "apiVersion": CALICO_API,
        "kind": "GlobalNetworkSet",
        "metadata": {"name": "world", "labels": {"role": "external"}},
        "spec": {"nets": ["0.0.0.0/0"]},
    }
    rule = {"action": "Allow", "destination": {"selector": "role == 'external'"}}
    built = build(
        [gnp("g", {"selector": "all()", "types": ["Egress"], "egress": [rule]}), global_set],
        "Dn",
    )
    (found,) = [d for d in built.input.documents if d.name == "g"]
    peers = found.rules[0].peers or ()
    assert len(peers) == 2 and peers[1].out is Tri.UNKNOWN
    _, explained = ask(built, "8.8.8.8:443/TCP")
    assert explained.outside_verdict == "undecided"
