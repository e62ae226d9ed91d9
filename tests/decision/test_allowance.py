"""The allowance (SEMANTICS.md §4) and the §9.4 / §9.6 helpers built on it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lint.decision.allowance import (
    ALL_NAMES,
    RESOLVER_PORTS,
    build_allowance,
    destination_allowed,
    fqdn_allowed,
    reaches_resolver,
    read_dns_names,
)
from lint.decision.cidr import parse_cidr
from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    CidrPeer,
    Everything,
    FqdnGrant,
    NamedRef,
    PortRange,
    SelectorPeer,
    Translation,
)
from lint.decision.peers import RESOLVER_PEER, read_core_peer, read_endpoint_peer
from lint.decision.translation import translate
from lint.decision.values import ABSENT, UNREADABLE
from tests.decision import manifests as m

DNS_PORTS = (PortRange("UDP", 53), PortRange("TCP", 53))


def _core_translation(egress: Any, policy_kind: str = "custom") -> Translation:
    translation = m.deny_all()
    manifest = dict(translation.manifest)
    spec = dict(manifest["spec"])
    if egress is ABSENT:
        del spec["egress"]
    else:
        spec["egress"] = egress
    manifest["spec"] = spec
    return Translation("NetworkPolicy", policy_kind, m.NAMESPACE, m.NAME, manifest)


def _cilium_translation(egress: list[Any]) -> Translation:
    translation = m.static_unnarrowed()
    manifest = dict(translation.manifest)
    manifest["spec"] = {**manifest["spec"], "egress": egress}
    return Translation("CiliumNetworkPolicy", "static", m.NAMESPACE, m.NAME, manifest)


def _selector(peer: object) -> tuple[object, object]:
    assert isinstance(peer, SelectorPeer)
    return peer.namespace_selector, peer.pod_selector


def _cidr(peer: object) -> tuple[object, tuple[object, ...]]:
    assert isinstance(peer, CidrPeer)
    return peer.cidr, peer.excepts


# --- §4.3: the allowance of every kind --------------------------------------------


def test_deny_all_is_the_whole_kube_system_namespace_on_dns() -> None:
    allowance = build_allowance(m.deny_all())
    assert len(allowance.destinations) == 1
    (destination,) = allowance.destinations
    assert _selector(destination.peer) == (m.KUBE_SYSTEM_NS, ABSENT)
    assert destination.ports == DNS_PORTS
    assert allowance.fqdns == ()
    assert allowance.dns_narrowed_to == ALL_NAMES
    assert not allowance.permits_everything
    assert not allowance.permits_nothing
    assert allowance.policy_kind == "deny-all"
    assert allowance.named_object == NamedRef("NetworkPolicy", m.NAME)


def test_allow_all_permits_everything() -> None:
    allowance = build_allowance(m.allow_all())
    assert len(allowance.destinations) == 1
    assert isinstance(allowance.destinations[0].peer, Everything)
    assert allowance.destinations[0].ports == ALL_PORTS
    assert allowance.permits_everything
    assert not allowance.permits_nothing


def test_no_network_permits_nothing() -> None:
    allowance = build_allowance(m.no_network())
    assert allowance.destinations == ()
    assert allowance.permits_nothing
    assert not allowance.permits_everything
    assert allowance.policy_kind == "no-network"


@pytest.mark.parametrize(
    ("extra_v4", "extra_v6"),
    [((), ()), (("203.0.113.0/24",), ("2001:db8::/32",)), (("10.0.0.0/8",), ())],
)
def test_public_internet_is_kube_dns_plus_two_blocks(
    extra_v4: tuple[str, ...], extra_v6: tuple[str, ...]
) -> None:
    allowance = build_allowance(m.public_internet(extra_v4, extra_v6))
    dns, v4, v6 = allowance.destinations
    assert _selector(dns.peer) == (m.KUBE_SYSTEM_NS, m.KUBE_DNS_POD)
    assert dns.ports == DNS_PORTS
    v4_excepts = [parse_cidr(text) for text in [*m.IPV4_EXCEPT, *extra_v4]]
    v6_excepts = [parse_cidr(text) for text in [*m.IPV6_EXCEPT, *extra_v6]]
    assert _cidr(v4.peer) == (parse_cidr("0.0.0.0/0"), tuple(v4_excepts))
    assert _cidr(v6.peer) == (parse_cidr("::/0"), tuple(v6_excepts))
    assert v4.ports == ALL_PORTS
    assert v6.ports == ALL_PORTS
    assert not allowance.permits_everything
    assert not allowance.permits_nothing


@pytest.mark.parametrize("policy_kind", ["static", "resolver"])
def test_unnarrowed_allowlist_records_match_names_only(policy_kind: str) -> None:
    allowance = build_allowance(m.static_unnarrowed(policy_kind))
    (destination,) = allowance.destinations
    assert destination.peer is RESOLVER_PEER
    assert destination.ports == (PortRange(None, 53),) == RESOLVER_PORTS
    # §4.1: matchPattern entries are not recorded.
    assert allowance.fqdns == (
        FqdnGrant("api.github.com", ALL_PORTS),
        FqdnGrant("pypi.org", ALL_PORTS),
    )
    # DNS_VISIBILITY's matchPattern "*" reads as every name.
    assert allowance.dns_narrowed_to == ALL_NAMES
    assert not allowance.permits_everything
    assert not allowance.permits_nothing
    assert allowance.policy_kind == policy_kind
    assert allowance.named_object == NamedRef("CiliumNetworkPolicy", m.NAME)


def test_narrowed_domain_entry_leaves_dns_unnarrowed_q3() -> None:
    allowance = build_allowance(m.static_narrowed_domain())
    assert allowance.dns_narrowed_to == ALL_NAMES
    assert allowance.fqdns == (FqdnGrant("pypi.org", (PortRange("TCP", 443),)),)


def test_narrowed_exact_hosts_record_dns_names_and_host_ports() -> None:
    allowance = build_allowance(m.static_narrowed_tls())
    assert allowance.dns_narrowed_to == m.NARROWED_DNS_NAMES
    assert allowance.fqdns == (
        FqdnGrant("github.com", (PortRange("TCP", 443), PortRange("TCP", 22))),
        FqdnGrant("registry.npmjs.org", (PortRange("TCP", 443),)),
    )
    assert not allowance.permits_everything
    assert not allowance.permits_nothing


def test_ports_only_narrowing_keeps_dns_visibility() -> None:
    allowance = build_allowance(m.static_ports_only())
    assert allowance.dns_narrowed_to == ALL_NAMES
    assert allowance.fqdns == (FqdnGrant("a.example", (PortRange("TCP", 443),)),)


def test_empty_allowlist_still_permits_neither_everything_nor_nothing() -> None:
    allowance = build_allowance(_cilium_translation([{"toFQDNs": []}]))
    assert allowance.fqdns == ()
    assert not allowance.permits_everything
    assert not allowance.permits_nothing
    assert len(allowance.destinations) == 1


# --- §4.2: reading a core translation -----------------------------------------------


@pytest.mark.parametrize(
    ("egress", "permits_nothing"),
    [
        (ABSENT, True),
        (None, True),
        ("not a list", True),
        ([], True),
        (["not an object"], False),
    ],
)
def test_core_rule_list_reading(egress: Any, permits_nothing: bool) -> None:
    allowance = build_allowance(_core_translation(egress))
    assert allowance.permits_nothing is permits_nothing
    assert allowance.destinations == ()


@pytest.mark.parametrize(
    "rule",
    [
        {"ports": [{"port": "https"}]},
        {"ports": "443"},
        {"to": "everyone"},
        {"to": [{"ipBlock": {"cidr": "bogus"}}]},
        {"to": ["not a peer", {}]},
    ],
)
def test_core_unreadable_rules_and_peers_are_skipped(rule: dict[str, Any]) -> None:
    allowance = build_allowance(_core_translation([rule]))
    assert allowance.destinations == ()
    assert not allowance.permits_everything


@pytest.mark.parametrize(
    ("rule", "ports", "permits_everything"),
    [
        ({}, ALL_PORTS, True),
        ({"to": []}, ALL_PORTS, True),
        ({"to": None, "ports": None}, ALL_PORTS, True),
        ({"ports": [{"port": 443}]}, (PortRange("TCP", 443),), False),
        ({"ports": [{"protocol": "udp"}]}, (PortRange("UDP"),), False),
    ],
)
def test_core_rule_without_peers_is_everything(
    rule: dict[str, Any], ports: object, permits_everything: bool
) -> None:
    allowance = build_allowance(_core_translation([rule]))
    (destination,) = allowance.destinations
    assert isinstance(destination.peer, Everything)
    assert destination.ports == ports
    assert allowance.permits_everything is permits_everything


def test_core_readable_peers_each_become_a_destination() -> None:
    rule = {
        "to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}, "unreadable", {"podSelector": {}}],
        "ports": [{"port": 8080}],
    }
    allowance = build_allowance(_core_translation([rule]))
    first, second = allowance.destinations
    assert _cidr(first.peer) == (parse_cidr("10.0.0.0/8"), ())
    assert _selector(second.peer) == (ABSENT, {})
    assert first.ports == second.ports == (PortRange("TCP", 8080),)
    assert allowance.fqdns == ()
    assert allowance.dns_narrowed_to == ALL_NAMES


# --- §4.1: reading a Cilium translation ---------------------------------------------


def test_cilium_fqdn_ports_fall_back_to_all_when_unreadable() -> None:
    rule = {"toFQDNs": [{"matchName": "a.example"}], "toPorts": "443"}
    allowance = build_allowance(_cilium_translation([rule]))
    assert allowance.fqdns == (FqdnGrant("a.example", ALL_PORTS),)


def test_cilium_fqdn_entries_need_a_string_match_name() -> None:
    rule = {
        "toFQDNs": [
            {"matchName": 5},
            "a.example",
            {"matchPattern": "*.example"},
            {"matchName": "b.example", "matchPattern": "*.b.example"},
        ]
    }
    allowance = build_allowance(_cilium_translation([rule, "not a rule", {"toFQDNs": "x"}]))
    assert allowance.fqdns == (FqdnGrant("b.example", ALL_PORTS),)


def _dns_rule(names: list[str], endpoints: Any = None) -> dict[str, Any]:
    return {
        "toEndpoints": [m.KUBE_DNS_ENDPOINT] if endpoints is None else endpoints,
        "toPorts": [
            {
                "ports": [{"port": "53", "protocol": "ANY"}],
                "rules": {"dns": [{"matchName": name} for name in names]},
            }
        ],
    }


def test_only_the_first_kube_dns_rule_sets_the_narrowed_names() -> None:
    allowance = build_allowance(_cilium_translation([_dns_rule(["a"]), _dns_rule(["b"])]))
    assert allowance.dns_narrowed_to == ("a",)


def test_kube_dns_rule_is_found_by_deep_equality() -> None:
    reordered = [
        {
            "matchLabels": {
                "k8s:k8s-app": "kube-dns",
                "k8s:io.kubernetes.pod.namespace": "kube-system",
            }
        }
    ]
    other = [{"matchLabels": {"k8s:k8s-app": "kube-dns"}}]
    rules = [_dns_rule(["other"], endpoints=other), _dns_rule(["found"], endpoints=reordered)]
    assert build_allowance(_cilium_translation(rules)).dns_narrowed_to == ("found",)


@pytest.mark.parametrize(
    "rule",
    [
        {"toEndpoints": [m.KUBE_DNS_ENDPOINT], "toPorts": [{"rules": None}]},
        {"toEndpoints": [m.KUBE_DNS_ENDPOINT], "toPorts": "x"},
    ],
)
def test_failed_dns_read_means_every_name(rule: dict[str, Any]) -> None:
    assert build_allowance(_cilium_translation([rule])).dns_narrowed_to == ALL_NAMES


def test_no_kube_dns_rule_means_every_name() -> None:
    assert build_allowance(_cilium_translation([])).dns_narrowed_to == ALL_NAMES


def test_kube_dns_rule_without_to_ports_narrows_to_no_name() -> None:
    rule = {"toEndpoints": [m.KUBE_DNS_ENDPOINT]}
    assert build_allowance(_cilium_translation([rule])).dns_narrowed_to == ()


# --- §9.6: reading a Cilium rule's DNS names --------------------------------------------


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({}, ()),
        ({"toPorts": None}, ()),
        ({"toPorts": []}, ()),
        ({"toPorts": "x"}, UNREADABLE),
        ({"toPorts": ["x"]}, UNREADABLE),
        ({"toPorts": [{}]}, ALL_NAMES),
        ({"toPorts": [{"rules": None}]}, UNREADABLE),
        ({"toPorts": [{"rules": "x"}]}, UNREADABLE),
        ({"toPorts": [{"rules": {}}]}, ALL_NAMES),
        ({"toPorts": [{"rules": {"dns": None}}]}, ALL_NAMES),
        ({"toPorts": [{"rules": {"dns": "x"}}]}, UNREADABLE),
        ({"toPorts": [{"rules": {"dns": []}}]}, ()),
        ({"toPorts": [{"rules": {"dns": ["x"]}}]}, UNREADABLE),
        ({"toPorts": [{"rules": {"dns": [{"matchName": "a"}, {"matchName": "b"}]}}]}, ("a", "b")),
        ({"toPorts": [{"rules": {"dns": [{"matchName": "a"}, {"matchPattern": "*"}]}}]}, ALL_NAMES),
        ({"toPorts": [{"rules": {"dns": [{"matchName": 5}]}}]}, ALL_NAMES),
        ({"toPorts": [{"rules": {"dns": [{"matchPattern": "*"}, "x"]}}]}, ALL_NAMES),
        (
            {
                "toPorts": [
                    {"rules": {"dns": [{"matchName": "a"}]}},
                    {"rules": {"dns": [{"matchName": "b"}]}},
                ]
            },
            ("a", "b"),
        ),
        ({"toPorts": [{"rules": {"dns": [{"matchName": "a"}]}}, "x"]}, UNREADABLE),
        ({"toPorts": [{}, "x"]}, ALL_NAMES),
    ],
)
def test_read_dns_names(rule: dict[str, Any], expected: object) -> None:
    assert read_dns_names(rule) == expected


# --- §9.4: destinations, FQDNs and the resolver -------------------------------------------


def _core_peer(raw: Any) -> Any:
    peer = read_core_peer(raw)
    assert peer is not None
    return peer


KUBE_SYSTEM_PEER = {"namespaceSelector": m.KUBE_SYSTEM_NS}
KUBE_DNS_PEER = {"namespaceSelector": m.KUBE_SYSTEM_NS, "podSelector": m.KUBE_DNS_POD}


@pytest.mark.parametrize(
    ("raw_peer", "ports", "allowed"),
    [
        (KUBE_SYSTEM_PEER, (PortRange("UDP", 53),), True),
        (KUBE_SYSTEM_PEER, DNS_PORTS, True),
        (KUBE_DNS_PEER, (PortRange("TCP", 53),), True),
        # Q5: every protocol is only covered by an every-protocol range.
        (KUBE_SYSTEM_PEER, (PortRange(None, 53),), False),
        (KUBE_SYSTEM_PEER, (PortRange("TCP", 443),), False),
        # Every wanted range must be covered.
        (KUBE_SYSTEM_PEER, (PortRange("UDP", 53), PortRange("TCP", 443)), False),
        (KUBE_SYSTEM_PEER, ALL_PORTS, False),
        ({"podSelector": m.KUBE_DNS_POD}, (PortRange("UDP", 53),), False),
        ({"namespaceSelector": {}}, (PortRange("UDP", 53),), False),
        ({"ipBlock": {"cidr": "10.0.0.0/8"}}, (PortRange("UDP", 53),), False),
    ],
)
def test_destination_allowed_under_deny_all(raw_peer: Any, ports: Any, allowed: bool) -> None:
    allowance = build_allowance(m.deny_all())
    assert destination_allowed(allowance, _core_peer(raw_peer), ports) is allowed


@pytest.mark.parametrize(
    ("cidr", "excepts", "allowed"),
    [
        ("8.8.8.8/32", None, True),
        ("10.1.0.0/16", None, False),
        ("0.0.0.0/0", None, False),
        ("0.0.0.0/0", m.IPV4_EXCEPT, True),
        ("2001:db8::/32", None, True),
        ("fd00::/8", None, False),
    ],
)
def test_destination_allowed_under_public_internet(
    cidr: str, excepts: list[str] | None, allowed: bool
) -> None:
    block: dict[str, Any] = {"cidr": cidr}
    if excepts is not None:
        block["except"] = excepts
    allowance = build_allowance(m.public_internet())
    assert destination_allowed(allowance, _core_peer({"ipBlock": block}), ALL_PORTS) is allowed


def test_everything_is_allowed_under_allow_all() -> None:
    allowance = build_allowance(m.allow_all())
    for raw in [{"ipBlock": {"cidr": "0.0.0.0/0"}}, {"namespaceSelector": {}}]:
        assert destination_allowed(allowance, _core_peer(raw), ALL_PORTS)
    assert destination_allowed(allowance, Everything(), ALL_PORTS)


def test_nothing_is_allowed_under_no_network() -> None:
    allowance = build_allowance(m.no_network())
    assert not destination_allowed(allowance, _core_peer(KUBE_DNS_PEER), (PortRange("UDP", 53),))


@pytest.mark.parametrize(
    ("translation", "host", "ports", "allowed"),
    [
        (m.static_unnarrowed(), "api.github.com", ALL_PORTS, True),
        (m.static_unnarrowed(), "pypi.org", (PortRange("TCP", 8080),), True),
        # Q2: exact and case-sensitive; patterns were never recorded.
        (m.static_unnarrowed(), "API.github.com", ALL_PORTS, False),
        (m.static_unnarrowed(), "files.pypi.org", ALL_PORTS, False),
        (m.static_narrowed_tls(), "github.com", (PortRange("TCP", 22),), True),
        (
            m.static_narrowed_tls(),
            "github.com",
            (PortRange("TCP", 443), PortRange("TCP", 22)),
            True,
        ),
        (m.static_narrowed_tls(), "github.com", (PortRange("TCP", 8080),), False),
        (m.static_narrowed_tls(), "github.com", ALL_PORTS, False),
        (m.static_narrowed_tls(), "registry.npmjs.org", (PortRange("TCP", 22),), False),
        # Q1: permitsEverything is ignored for FQDNs.
        (m.allow_all(), "api.github.com", ALL_PORTS, False),
    ],
)
def test_fqdn_allowed(translation: Translation, host: str, ports: Any, allowed: bool) -> None:
    assert fqdn_allowed(build_allowance(translation), host, ports) is allowed


@pytest.mark.parametrize(
    ("raw_peer", "ports", "reaches"),
    [
        (KUBE_SYSTEM_PEER, (PortRange("UDP", 53),), True),
        (KUBE_DNS_PEER, (PortRange("TCP", 53),), True),
        (KUBE_DNS_PEER, ALL_PORTS, True),
        (KUBE_DNS_PEER, (PortRange("TCP", 1, 1000),), True),
        (KUBE_DNS_PEER, (PortRange("TCP"),), True),
        (KUBE_DNS_PEER, (PortRange("TCP", 443),), False),
        (KUBE_DNS_PEER, (PortRange("SCTP", 53),), False),
        ({"namespaceSelector": {}}, (PortRange(None, 53),), True),
        (
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "other"}}},
            ALL_PORTS,
            False,
        ),
        (
            {"namespaceSelector": m.KUBE_SYSTEM_NS, "podSelector": {"matchLabels": {"app": "x"}}},
            ALL_PORTS,
            False,
        ),
        ({"podSelector": {}}, ALL_PORTS, False),
        ({"ipBlock": {"cidr": "0.0.0.0/0"}}, ALL_PORTS, False),
    ],
)
def test_reaches_resolver(raw_peer: Any, ports: Any, reaches: bool) -> None:
    assert reaches_resolver(_core_peer(raw_peer), ports) is reaches


def test_reaches_resolver_from_a_cilium_endpoint() -> None:
    peer = read_endpoint_peer(m.KUBE_DNS_ENDPOINT)
    assert peer is not None
    assert reaches_resolver(peer, ALL_PORTS)


def test_allowance_is_frozen_and_reusable() -> None:
    translation = m.static_narrowed_tls()
    first, second = build_allowance(translation), build_allowance(translation)
    assert isinstance(first, Allowance)
    assert first.fqdns == second.fqdns
    assert first.dns_narrowed_to == second.dns_narrowed_to


# --- the hand-built manifests agree with the translator ----------------------------------

TRANSLATOR_CASES = [
    ({"policy": {"kind": "deny-all"}}, m.deny_all),
    ({"policy": {"kind": "allow-all"}}, m.allow_all),
    ({"policy": {"kind": "no-network"}}, m.no_network),
    (
        {"policy": {"kind": "public-internet", "exceptCidrs": ["203.0.113.0/24", "2001:db8::/32"]}},
        lambda: m.public_internet(("203.0.113.0/24",), ("2001:db8::/32",)),
    ),
    (
        {
            "engine": "cilium",
            "policy": {"kind": "static", "allowedHosts": ["api.github.com", ".pypi.org"]},
        },
        m.static_unnarrowed,
    ),
    (
        {
            "engine": "cilium",
            "policy": {"kind": "static", "allowedHosts": [".pypi.org"]},
            "ciliumNarrowing": {"ports": [443], "dnsNames": {"searchSuffixes": ["corp.internal"]}},
        },
        m.static_narrowed_domain,
    ),
    (
        {
            "engine": "cilium",
            "policy": {"kind": "static", "allowedHosts": ["github.com", "registry.npmjs.org"]},
            "ciliumNarrowing": {
                "ports": [443],
                "hostPorts": {"github.com": [443, 22]},
                "tlsServerNames": True,
                "dnsNames": True,
            },
        },
        m.static_narrowed_tls,
    ),
]


@pytest.mark.parametrize(("egress", "builder"), TRANSLATOR_CASES)
def test_hand_built_manifests_match_the_translator(egress: dict[str, Any], builder: Any) -> None:
    """The §3 manifests these tests use are the translator's bytes, key order included."""
    expected: Translation = builder()
    actual = translate(egress, m.TEMPLATE, m.NAMESPACE)
    assert (actual.kind, actual.policy_kind, actual.namespace, actual.name) == (
        expected.kind,
        expected.policy_kind,
        expected.namespace,
        expected.name,
    )
    assert json.dumps(actual.manifest) == json.dumps(expected.manifest)
