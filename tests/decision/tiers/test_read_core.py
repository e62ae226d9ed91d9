"""The core NetworkPolicy reader of the tier model (``read_core``): the API
server's ``policyTypes`` defaulting, ports, peers by owner, the subject."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from lint.decision.model import EgressRefusal, Tri
from lint.decision.tiers.model import (
    ALLOW_ONLY,
    EVERY_PORT,
    UNREADABLE_PORTS,
    PodSet,
    Protocol,
    Slot,
    TierDocument,
)
from lint.decision.tiers.read_core import core_peer, core_ports, read_core
from lint.decision.tiers.reading import namespace_pin, span
from tests.decision.tiers.objects import NAMESPACE, ask, build, candidates, context, core_np

HASH = "agents.x-k8s.io/sandbox-name-hash"


def document(spec: dict[str, Any], **facts: Any) -> TierDocument:
    (found,) = read_core(candidates([core_np(spec)])[0], context(**facts)).documents
    return found


def test_no_policy_types_and_an_empty_egress_leaves_the_pod_unisolated() -> None:
    read = document({"podSelector": {}, "egress": []})
    assert (read.isolates, read.types, read.rules) == (False, Tri.NO, ())
    reach_answer, explained = ask(
        build([core_np({"podSelector": {}, "egress": []})], "Dn"), "8.8.8.8:443/TCP"
    )
    assert reach_answer.refusal is EgressRefusal.NO_ENFORCING_POLICY
    assert explained.verdict == "allowed"


def test_empty_policy_types_with_an_allow_everything_rule_widens() -> None:
    read = document({"podSelector": {}, "policyTypes": [], "egress": [{}]})
    assert read.isolates and read.types is Tri.YES
    assert read.rules[0].peers is None and read.rules[0].ports == EVERY_PORT
    reach_answer, _ = ask(
        build([core_np({"podSelector": {}, "policyTypes": [], "egress": [{}]})], "Dn"),
        "8.8.8.8:443/TCP",
    )
    assert reach_answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS


def test_the_document_sits_in_the_network_policy_slot_and_only_allows() -> None:
    read = document({"podSelector": {}, "policyTypes": ["Egress"], "egress": [{"to": []}]})
    assert (read.slot, read.kind, read.name, read.namespace) == (
        Slot.NETWORK_POLICY,
        "NetworkPolicy",
        "np",
        NAMESPACE,
    )
    assert read.rules[0].actions == ALLOW_ONLY and read.rules[0].path == ("spec", "egress", 0)


@pytest.mark.parametrize(
    ("selector", "subject"),
    [
        ({}, Tri.YES),
        ({"matchLabels": {"app": "agent"}}, Tri.YES),
        ({"matchLabels": {"app": "other"}}, Tri.NO),
        ({"matchExpressions": [{"key": HASH, "operator": "Exists"}]}, Tri.YES),
        ({"matchExpressions": [{"key": HASH, "operator": "In", "values": ["x"]}]}, Tri.UNKNOWN),
    ],
)
def test_the_subject_is_matched_on_the_pod_view(selector: dict[str, Any], subject: Tri) -> None:
    assert document({"podSelector": selector, "policyTypes": ["Egress"]}).subject is subject


def test_an_unreadable_policy_is_one_may_rule_that_only_allows() -> None:
    read = document({"podSelector": {"matchLabels": {"app": 1}}})
    assert read.unreadable is not None and read.subject is Tri.UNKNOWN
    assert read.rules[0].actions == ALLOW_ONLY and read.rules[0].ports == UNREADABLE_PORTS


def test_another_namespace_s_policy_gives_nothing() -> None:
    other = core_np({"podSelector": {}})
    other["metadata"]["namespace"] = "elsewhere"
    assert read_core(candidates([other])[0], context()).documents == ()


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        (None, EVERY_PORT),
        ([], EVERY_PORT),
        ([{"port": 443}], (span(Protocol.TCP, 443),)),
        ([{"protocol": "UDP", "port": 53}], (span(Protocol.UDP, 53),)),
        ([{"protocol": "SCTP", "port": 100, "endPort": 200}], (span(Protocol.SCTP, 100, 200),)),
        ([{"protocol": "UDP"}], (span(Protocol.UDP),)),
        ([{"port": "https"}], EVERY_PORT),
        ([{"protocol": "ICMP"}], UNREADABLE_PORTS),
        ([{"port": 200, "endPort": 100}], UNREADABLE_PORTS),
        ([{"port": 0}], UNREADABLE_PORTS),
    ],
)
def test_ports(ports: list[Any] | None, expected: Any) -> None:
    read = core_ports({} if ports is None else {"ports": ports})
    if isinstance(expected, tuple):
        assert read.spans == expected and not read.every
    else:
        assert read == expected


@pytest.mark.parametrize(
    ("calico", "cilium_r", "pod", "node"),
    [
        (True, False, Tri.YES, Tri.YES),
        (False, True, Tri.NO, Tri.UNKNOWN),
        (False, False, Tri.UNKNOWN, Tri.UNKNOWN),
        (True, True, Tri.UNKNOWN, Tri.UNKNOWN),
    ],
)
def test_an_ip_block_holds_for_pods_and_nodes_by_the_cni(
    calico: bool, cilium_r: bool, pod: Tri, node: Tri
) -> None:
    peer = core_peer(
        {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}},
        context(calico=calico, cilium_r=cilium_r),
    )
    assert (peer.out, peer.pod, peer.node) == (Tri.YES, pod, node)
    assert peer.blocks is not None and len(peer.blocks[0].excepts) == 1


def test_a_pod_selector_alone_is_the_policy_s_own_namespace() -> None:
    peer = core_peer({"podSelector": {"matchLabels": {"app": "b"}}}, context())
    assert isinstance(peer.pod, PodSet)
    assert peer.pod.namespaces == namespace_pin(NAMESPACE)
    assert peer.pod.pods is not None and peer.pod.pods.labels == (("app", "b"),)
    assert (peer.out, peer.node, peer.on_name) == (Tri.NO, Tri.UNKNOWN, Tri.NO)


def test_a_namespace_selector_is_read_and_an_unreadable_one_is_inexact() -> None:
    peer = core_peer({"namespaceSelector": {}}, context())
    assert peer.pod == PodSet(None, None)
    peer = core_peer({"namespaceSelector": {"matchLabels": {"a": 1}}}, context())
    assert isinstance(peer.pod, PodSet) and not peer.pod.exact


def test_a_peer_with_nothing_in_it_may_match_anything() -> None:
    peer = core_peer({}, context())
    assert (peer.out, peer.pod, peer.node) == (Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN)


def test_a_policy_that_cannot_be_known_is_unreadable() -> None:
    candidate = replace(candidates([core_np({"podSelector": {}})])[0], unreadable="no template")
    (found,) = read_core(candidate, context()).documents
    assert found.unreadable == "no template" and found.rules[0].actions == ALLOW_ONLY
