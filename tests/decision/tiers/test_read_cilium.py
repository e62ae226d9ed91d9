"""The Cilium reader of the tier model (``read_cilium``): spec documents,
``egress`` and ``egressDeny``, default deny, ports, peers by owner, CIDR
groups, the subject over the pod's identity labels."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.model import EgressRefusal, Tri
from lint.decision.reach.model import ReachCandidate, ReachData
from lint.decision.tiers.build import reader_for
from lint.decision.tiers.model import EVERY_PORT, UNREADABLE_PORTS, Action, PodSet, Protocol
from lint.decision.tiers.read_cilium import cilium_ports, endpoint_pod_set
from lint.decision.tiers.reading import every_ported, namespace_pin, span
from lint.kinds import identify
from tests.decision.tiers.objects import (
    NAMESPACE,
    ask,
    build,
    candidates,
    cilium_np,
    context,
)

CCNP = "CiliumClusterwideNetworkPolicy"


def documents(obj: dict[str, Any], **facts: Any) -> Any:
    reader = reader_for(identify(obj["apiVersion"], obj["kind"]))
    assert reader is not None
    return reader(candidates([obj])[0], context(**facts)).documents


def one(spec: dict[str, Any], **facts: Any) -> Any:
    (found,) = documents(cilium_np(spec), **facts)
    return found


def test_egress_allows_and_egress_deny_denies() -> None:
    read = one({"egress": [{"toEntities": ["world"]}], "egressDeny": [{"toEntities": ["all"]}]})
    assert [rule.actions for rule in read.rules] == [frozenset({Action.ALLOW})]
    assert [rule.actions for rule in read.deny_rules] == [frozenset({Action.DENY})]
    assert read.deny_rules[0].path == ("spec", "egressDeny", 0)
    assert (read.types, read.isolates) == (Tri.YES, True)


@pytest.mark.parametrize("rule", [{}, {"toFQDNs": []}, {"toEndpoints": [], "toPorts": []}])
def test_a_rule_with_no_destination_and_no_port_matches_nothing(rule: dict[str, Any]) -> None:
    read = one({"egress": [rule]})
    assert read.rules[0].peers == ()
    built = build([cilium_np({"egress": [rule]})], "Dn")
    reach_answer, explained = ask(built, "1.1.1.1:443/TCP")
    assert reach_answer.refusal is None
    assert explained.verdict == "denied"


def test_a_port_only_rule_still_reaches_every_destination_on_its_ports() -> None:
    read = one({"egress": [{"toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]}]})
    assert read.rules[0].peers is None


def test_deny_all_isolates_the_pod_in_both_questions() -> None:
    built = build([cilium_np({"egressDeny": [{"toEntities": ["all"]}]})], "Dn")
    reach_answer, explained = ask(built, "1.1.1.1:443/TCP")
    assert reach_answer.refusal is None
    assert explained.verdict == "denied"


@pytest.mark.parametrize(
    ("spec", "types", "isolates"),
    [
        ({}, Tri.NO, False),
        ({"egress": []}, Tri.YES, True),
        ({"egressDeny": [{}]}, Tri.YES, True),
        ({"egress": [{}], "enableDefaultDeny": {"egress": False}}, Tri.YES, False),
        ({"egress": [{}], "enableDefaultDeny": {"ingress": False}}, Tri.YES, True),
    ],
)
def test_types_and_default_deny(spec: dict[str, Any], types: Tri, isolates: bool) -> None:
    read = one(spec)
    assert (read.types, read.isolates) == (types, isolates)


def test_each_spec_is_a_document_and_node_specs_give_none() -> None:
    obj = cilium_np({})
    obj["specs"] = [{"endpointSelector": {}, "egress": [{}]}, {"nodeSelector": {}}]
    read = documents(obj)
    assert len(read) == 2
    assert read[1].rules[0].path == ("specs", 0, "egress", 0)


def test_an_unreadable_spec_allows_or_denies_with_may() -> None:
    (read,) = documents(cilium_np({"egress": "all"}))
    assert read.unreadable is not None
    assert read.rules[0].actions == frozenset({Action.ALLOW, Action.DENY})


@pytest.mark.parametrize(
    ("selector", "subject"),
    [
        ({}, Tri.YES),
        ({"matchLabels": {"k8s:app": "agent"}}, Tri.YES),
        ({"matchLabels": {"any:app": "other"}}, Tri.NO),
        ({"matchLabels": {"io.kubernetes.pod.namespace": NAMESPACE}}, Tri.YES),
        ({"matchLabels": {"io.kubernetes.pod.namespace": "kube-system"}}, Tri.NO),
        ({"matchLabels": {"reserved:host": ""}}, Tri.UNKNOWN),
        ({"matchLabels": {"io.cilium.k8s.namespace.labels.team": "ml"}}, Tri.UNKNOWN),
    ],
)
def test_the_endpoint_selector_over_identity_labels(selector: dict[str, Any], subject: Tri) -> None:
    assert one({"endpointSelector": selector, "egress": []}).subject is subject


def test_namespace_labels_are_known_from_a_namespace_view() -> None:
    selector = {"matchLabels": {"io.cilium.k8s.namespace.labels.team": "ml"}}
    read = one({"endpointSelector": selector, "egress": []}, namespace_labels={"team": "ml"})
    assert read.subject is Tri.YES


def test_a_clusterwide_policy_has_no_namespace_and_another_namespace_s_gives_nothing() -> None:
    obj = cilium_np({"egress": []})
    obj["kind"] = CCNP
    del obj["metadata"]["namespace"]
    (read,) = documents(obj)
    assert (read.kind, read.namespace) == (CCNP, None)
    other = cilium_np({"egress": []})
    other["metadata"]["namespace"] = "elsewhere"
    assert documents(other) == ()


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({}, EVERY_PORT),
        ({"toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}]}, every_ported(53)),
        ({"toPorts": [{"ports": [{"port": "53"}]}]}, every_ported(53)),
        (
            {"toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]},
            (span(Protocol.TCP, 443),),
        ),
        (
            {"toPorts": [{"ports": [{"port": "8000", "endPort": 8080, "protocol": "UDP"}]}]},
            (span(Protocol.UDP, 8000, 8080),),
        ),
        ({"toPorts": [{"rules": {"http": [{}]}}]}, every_ported()),
        ({"toPorts": [{"ports": [{"port": "dns", "protocol": "UDP"}]}]}, (span(Protocol.UDP),)),
    ],
)
def test_ports(rule: dict[str, Any], expected: Any) -> None:
    read = cilium_ports(rule)
    if isinstance(expected, tuple):
        assert read.spans == expected and not read.icmp and not read.every
    else:
        assert read == expected


def test_icmps_add_icmp_and_an_icmp_port_cannot_be_read() -> None:
    assert cilium_ports({"icmps": [{"fields": [{"type": 8}]}]}).icmp
    assert cilium_ports({"toPorts": [{"ports": [{"port": "1", "protocol": "ICMP"}]}]}) == (
        UNREADABLE_PORTS
    )


def test_to_endpoints_is_a_pod_set_with_its_namespace() -> None:
    selector = {
        "matchLabels": {"io.kubernetes.pod.namespace": "kube-system", "k8s-app": "kube-dns"}
    }
    pods = endpoint_pod_set(selector, NAMESPACE)
    assert pods.namespaces is not None
    assert pods.namespaces.labels == (("kubernetes.io/metadata.name", "kube-system"),)
    assert pods.pods is not None and pods.pods.labels == (("k8s-app", "kube-dns"),)
    own = endpoint_pod_set({"matchLabels": {"app": "b"}}, NAMESPACE)
    assert own.namespaces == namespace_pin(NAMESPACE)
    assert endpoint_pod_set({}, None) == PodSet(None, None)
    assert not endpoint_pod_set({"matchLabels": {"reserved:host": ""}}, NAMESPACE).exact


@pytest.mark.parametrize(
    ("entity", "owners"),
    [
        ("all", (Tri.YES, Tri.YES, Tri.YES)),
        ("world", (Tri.YES, Tri.NO, Tri.NO)),
        ("cluster", (Tri.NO, Tri.YES, Tri.YES)),
        ("host", (Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN)),
    ],
)
def test_entities(entity: str, owners: tuple[Tri, Tri, Tri]) -> None:
    (peer,) = one({"egress": [{"toEntities": [entity]}]}).rules[0].peers
    assert (peer.out, peer.pod, peer.node) == owners


def test_cidrs_never_hold_for_pods_and_may_for_nodes() -> None:
    (peer,) = one({"egress": [{"toCIDR": ["10.0.0.0/8"]}]}).rules[0].peers
    assert (peer.out, peer.pod, peer.node) == (Tri.YES, Tri.NO, Tri.UNKNOWN)


def group(name: str, cidrs: list[str]) -> ReachCandidate:
    raw = {
        "apiVersion": "cilium.io/v2alpha1",
        "kind": "CiliumCIDRGroup",
        "metadata": {"name": name},
        "spec": {"externalCIDRs": cidrs},
    }
    return ReachCandidate("cilium.io/v2alpha1", "CiliumCIDRGroup", raw)


def test_cidr_groups_are_resolved_and_a_missing_one_may_match_anything() -> None:
    rule = {"toCIDRSet": [{"cidrGroupRef": "g"}]}
    data = ReachData(cidr_groups=(group("g", ["192.0.2.0/24", "198.51.100.0/24"]),))
    peers = one({"egress": [rule]}, data=data).rules[0].peers
    assert len(peers) == 2 and all(p.pod is Tri.NO for p in peers)
    (missing,) = one({"egress": [rule]}).rules[0].peers
    assert (missing.out, missing.pod) == (Tri.UNKNOWN, Tri.UNKNOWN)


def test_a_group_with_an_except_only_may_deny() -> None:
    data = ReachData(cidr_groups=(group("g", ["10.0.0.0/8"]),))
    entry = {"cidrGroupRef": "g", "except": ["10.1.0.0/16"]}
    read = one(
        {"egressDeny": [{"toCIDRSet": [entry]}], "egress": [{"toCIDRSet": [entry]}]}, data=data
    )
    assert read.deny_rules[0].peers[0].out is Tri.UNKNOWN
    assert read.rules[0].peers[0].out is Tri.YES


def test_cidr_groups_count_in_explain() -> None:
    spec = {"egress": [{"toCIDRSet": [{"cidrGroupRef": "g"}]}]}
    built = build([cilium_np(spec), group("g", ["192.0.2.0/24"]).raw], "PC")
    _, inside_group = ask(built, "192.0.2.7:443/TCP")
    _, outside_group = ask(built, "10.9.9.9:443/TCP")
    # A Cilium CIDR rule never holds for a pod's address: allowed only outside.
    assert (inside_group.verdict, inside_group.outside_verdict) == ("undecided", "allowed")
    assert outside_group.verdict == "denied"


def test_fqdns_match_by_name_and_not_in_deny_rules() -> None:
    read = one(
        {
            "egress": [{"toFQDNs": [{"matchName": "API.GitHub.com."}, {"matchPattern": "*.x.io"}]}],
            "egressDeny": [{"toFQDNs": [{"matchName": "a.b"}]}],
        }
    )
    assert [peer.names for peer in read.rules[0].peers] == [("api.github.com",), ("*.x.io",)]
    assert read.deny_rules[0].peers[0].names is None


def test_services_groups_and_nodes_may_match() -> None:
    read = one({"egress": [{"toServices": [{}], "toGroups": [{}], "toNodes": [{}]}]})
    assert all(p.out is Tri.UNKNOWN and p.pod is Tri.UNKNOWN for p in read.rules[0].peers)


def test_a_rule_with_no_destination_matches_every_point() -> None:
    assert one({"egress": [{"toPorts": [{"ports": [{"port": "443"}]}]}]}).rules[0].peers is None


def test_the_cilium_policy_widens_under_engine_cilium() -> None:
    built = build([cilium_np({"egress": [{"toEntities": ["world"]}]})], "DC")
    reach_answer, _ = ask(built, "8.8.8.8:443/TCP")
    assert reach_answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
