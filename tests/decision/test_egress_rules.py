"""Egress rule verdicts (SEMANTICS.md §10.1 core, §10.2 Cilium)."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.allowance import build_allowance
from lint.decision.egress_rules import (
    CILIUM_DESTINATION_FIELDS,
    cilium_rule_verdict,
    core_rule_verdict,
)
from lint.decision.model import Allowance, RuleVerdict, Translation, Tri
from lint.decision.ports import read_cilium_ports
from lint.decision.translation import translate
from lint.decision.values import compact_json
from tests.decision import manifests as m

DENY_ALL = build_allowance(m.deny_all())
ALLOW_ALL = build_allowance(m.allow_all())
NO_NETWORK = build_allowance(m.no_network())
PUBLIC = build_allowance(m.public_internet())
STATIC = build_allowance(m.static_unnarrowed())
NARROWED = build_allowance(m.static_narrowed_tls())
NARROWED_DOMAIN = build_allowance(m.static_narrowed_domain())

CORE_DNS_PORTS = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
KUBE_SYSTEM_PEER = {"namespaceSelector": m.KUBE_SYSTEM_NS}
KUBE_DNS_PEER = {"namespaceSelector": m.KUBE_SYSTEM_NS, "podSelector": m.KUBE_DNS_POD}


def _assert_detail(verdict: RuleVerdict, *facts: str) -> None:
    """A deciding verdict names every fact; an inside verdict has no detail."""
    if verdict.outcome is Tri.NO:
        assert verdict.detail is None
        assert not facts
        return
    assert verdict.detail is not None
    for fact in facts:
        assert fact in verdict.detail, (fact, verdict.detail)


# --- §10.1 core -------------------------------------------------------------------


@pytest.mark.parametrize("rule", [{}, "not an object", {"to": "x"}, {"ports": [{"port": "https"}]}])
def test_core_step1_no_network_widens_whatever_the_shape(rule: Any) -> None:
    verdict = core_rule_verdict(rule, 4, NO_NETWORK)
    assert verdict.outcome is Tri.YES
    assert verdict.index == 4
    _assert_detail(verdict, "egress rule", "'no-network'", "no egress at all")


@pytest.mark.parametrize("rule", ["x", 5, None, ["to"]])
def test_core_step2_rule_not_an_object(rule: Any) -> None:
    verdict = core_rule_verdict(rule, 0, DENY_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "not an object")


@pytest.mark.parametrize(
    "ports",
    [
        "443",
        [{"port": "https"}],
        ["443"],
        [{"port": 443, "protocol": 6}],
        [{"port": 443, "endPort": "444"}],
        [{"port": None}],
        [{"port": True}],
        [{"port": 53.5}],
    ],
)
def test_core_step3_unreadable_ports(ports: Any) -> None:
    verdict = core_rule_verdict(
        {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": ports}, 0, DENY_ALL
    )
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "`ports`", "named port")


@pytest.mark.parametrize("to", ["x", {"ipBlock": {"cidr": "0.0.0.0/0"}}, 5])
def test_core_step4_to_not_a_list(to: Any) -> None:
    verdict = core_rule_verdict({"to": to}, 0, DENY_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "`to`", "not a list of peers")


@pytest.mark.parametrize(
    ("rule", "ports_text"),
    [
        ({}, "every port"),
        ({"to": []}, "every port"),
        ({"to": None}, "every port"),
        ({"ports": [{"port": 443}]}, "TCP 443"),
        ({"to": [], "ports": [{"protocol": "UDP"}]}, "every UDP port"),
    ],
)
def test_core_step5_no_peers(rule: dict[str, Any], ports_text: str) -> None:
    verdict = core_rule_verdict(rule, 2, DENY_ALL)
    assert verdict.outcome is Tri.YES
    assert verdict.index == 2
    _assert_detail(verdict, "no `to` peers", "every destination", ports_text)
    assert core_rule_verdict(rule, 2, ALLOW_ALL).outcome is Tri.NO


@pytest.mark.parametrize(
    "peer",
    [
        "x",
        {},
        {"ipBlock": None},
        {"ipBlock": {"cidr": None}},
        {"ipBlock": {"cidr": "bogus"}},
        {"podSelector": None},
        {"namespaceSelector": {"matchLabels": None}},
        {"podSelector": {"matchLabels": {"app": None}}},
    ],
)
def test_core_step6a_unreadable_peer(peer: Any) -> None:
    verdict = core_rule_verdict({"to": [peer]}, 0, DENY_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "`to` peer cannot be read", compact_json(peer))


@pytest.mark.parametrize(
    "peer",
    [
        KUBE_DNS_PEER,
        KUBE_SYSTEM_PEER,
        {"namespaceSelector": {}},
        {"namespaceSelector": {"matchLabels": {}}},
    ],
)
@pytest.mark.parametrize(
    "ports",
    [CORE_DNS_PORTS, None, [{"protocol": "UDP", "port": 53}], [{"port": 1, "endPort": 100}]],
)
def test_core_step6b_resolver_under_dns_narrowing(peer: dict[str, Any], ports: Any) -> None:
    rule: dict[str, Any] = {"to": [peer]}
    if ports is not None:
        rule["ports"] = ports
    verdict = core_rule_verdict(rule, 0, NARROWED)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, compact_json(peer), "resolver", "DNS", "dnsNames")


def test_core_step6b_needs_the_dns_port() -> None:
    verdict = core_rule_verdict({"to": [KUBE_DNS_PEER], "ports": [{"port": 443}]}, 0, NARROWED)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, "TCP 443", "'static'")
    assert "dnsNames" not in (verdict.detail or "")


def test_core_step6b_q3_domain_entry_disables_the_dns_check() -> None:
    rule = {"to": [KUBE_DNS_PEER], "ports": CORE_DNS_PORTS}
    # The narrowed-by-exact-names translation refuses it; the `.domain`
    # translation reads dnsNarrowedTo as `all`, and the resolver allows it.
    assert core_rule_verdict(rule, 0, NARROWED).outcome is Tri.YES
    assert core_rule_verdict(rule, 0, NARROWED_DOMAIN).outcome is Tri.NO
    assert core_rule_verdict(rule, 0, STATIC).outcome is Tri.NO


@pytest.mark.parametrize(
    ("allowance", "peer", "ports", "facts", "wide"),
    [
        (
            DENY_ALL,
            {"ipBlock": {"cidr": "0.0.0.0/0"}},
            None,
            ['{"cidr":"0.0.0.0/0"}', "every port", "'deny-all'"],
            True,
        ),
        (
            DENY_ALL,
            {"ipBlock": {"cidr": "::/0"}},
            [{"port": 443}],
            ['{"cidr":"::/0"}', "TCP 443"],
            True,
        ),
        (DENY_ALL, {"ipBlock": {"cidr": "10.0.0.0/8"}}, None, ['{"cidr":"10.0.0.0/8"}'], False),
        (
            DENY_ALL,
            {"namespaceSelector": {}},
            CORE_DNS_PORTS,
            ['{"namespaceSelector":{}}', "UDP 53, TCP 53"],
            True,
        ),
        # Q6: {"matchLabels": {}} is empty for wide-open detection.
        (
            DENY_ALL,
            {"namespaceSelector": {"matchLabels": {}}},
            None,
            ['{"namespaceSelector":{"matchLabels":{}}}'],
            True,
        ),
        (DENY_ALL, {"podSelector": {}}, None, ['{"podSelector":{}}'], False),
        (DENY_ALL, KUBE_SYSTEM_PEER, [{"port": 53, "protocol": "ANY"}], ["any 53"], False),
        (
            PUBLIC,
            {"ipBlock": {"cidr": "10.1.0.0/16"}},
            None,
            ['{"cidr":"10.1.0.0/16"}', "'public-internet'"],
            False,
        ),
        (PUBLIC, {"ipBlock": {"cidr": "0.0.0.0/0"}}, None, ["'public-internet'"], True),
        (STATIC, KUBE_DNS_PEER, None, ["every port", "'static'"], False),
    ],
)
def test_core_step6c_destination_not_allowed(
    allowance: Allowance, peer: dict[str, Any], ports: Any, facts: list[str], wide: bool
) -> None:
    rule: dict[str, Any] = {"to": [peer]}
    if ports is not None:
        rule["ports"] = ports
    verdict = core_rule_verdict(rule, 1, allowance)
    assert verdict.outcome is Tri.YES
    assert verdict.index == 1
    _assert_detail(verdict, *facts)
    assert verdict.detail is not None
    assert verdict.detail.startswith("wide-open peer") is wide


@pytest.mark.parametrize(
    ("allowance", "rule"),
    [
        (DENY_ALL, {"to": [KUBE_SYSTEM_PEER], "ports": CORE_DNS_PORTS}),
        (DENY_ALL, {"to": [KUBE_DNS_PEER], "ports": [{"protocol": "udp", "port": "53"}]}),
        (PUBLIC, {"to": [{"ipBlock": {"cidr": "8.8.8.8/32"}}]}),
        (PUBLIC, {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": m.IPV4_EXCEPT}}]}),
        (PUBLIC, {"to": [KUBE_DNS_PEER], "ports": CORE_DNS_PORTS}),
        (ALLOW_ALL, {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}),
        (STATIC, {"to": [KUBE_DNS_PEER], "ports": [{"protocol": "UDP", "port": 53}]}),
    ],
)
def test_core_step7_inside(allowance: Allowance, rule: dict[str, Any]) -> None:
    verdict = core_rule_verdict(rule, 3, allowance)
    assert verdict == RuleVerdict(Tri.NO, None, 3)


def test_core_first_deciding_peer_wins() -> None:
    inside = {"ipBlock": {"cidr": "8.8.8.8/32"}}
    outside = {"ipBlock": {"cidr": "10.0.0.0/8"}}
    widening = core_rule_verdict({"to": [inside, outside, "x"]}, 0, PUBLIC)
    assert widening.outcome is Tri.YES
    _assert_detail(widening, "10.0.0.0/8")
    undecided = core_rule_verdict({"to": [inside, "x", outside]}, 0, PUBLIC)
    assert undecided.outcome is Tri.UNKNOWN


# --- §10.2 Cilium -----------------------------------------------------------------


@pytest.mark.parametrize("rule", [{}, "x", {"toEndpoints": "x"}])
def test_cilium_step1_no_network(rule: Any) -> None:
    verdict = cilium_rule_verdict(rule, 5, NO_NETWORK)
    assert verdict.outcome is Tri.YES
    assert verdict.index == 5
    _assert_detail(verdict, "'no-network'", "no egress at all")


@pytest.mark.parametrize("rule", ["x", None, [], 1.5])
def test_cilium_step2_not_an_object(rule: Any) -> None:
    verdict = cilium_rule_verdict(rule, 0, STATIC)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "not an object")


@pytest.mark.parametrize(
    ("to_ports", "fact"),
    [
        ("x", "`toPorts` is not a list"),
        (["x"], "entry is not an object"),
        ([{"ports": "x"}], "`ports` is not a list"),
        ([{"ports": [{"port": "https"}]}], "cannot be read"),
        ([{"ports": [{"port": "443", "protocol": None}]}], "cannot be read"),
    ],
)
def test_cilium_step3_unreadable_ports(to_ports: Any, fact: str) -> None:
    rule = {"toFQDNs": [{"matchName": "api.github.com"}], "toPorts": to_ports}
    verdict = cilium_rule_verdict(rule, 0, STATIC)
    assert verdict.outcome is Tri.UNKNOWN
    failure = read_cilium_ports(rule)
    assert verdict.detail == getattr(failure, "detail", None)
    _assert_detail(verdict, fact)


@pytest.mark.parametrize("field", CILIUM_DESTINATION_FIELDS)
def test_cilium_step4_each_field_must_be_a_list(field: str) -> None:
    verdict = cilium_rule_verdict({field: "x"}, 0, ALLOW_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, f"`{field}`", "not a list of peers")


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ({"toFQDNs": "x", "toEndpoints": "y"}, "toEndpoints"),
        ({"toNodes": "x", "toServices": 5}, "toServices"),
        ({"toEntities": ["world"], "toCIDR": {"cidr": "x"}}, "toCIDR"),
    ],
)
def test_cilium_step4_first_unreadable_field_in_order(rule: dict[str, Any], field: str) -> None:
    verdict = cilium_rule_verdict(rule, 0, DENY_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, f"`{field}`")


@pytest.mark.parametrize(
    ("rule", "ports_text"),
    [
        ({}, "every port"),
        ({"toEndpoints": [], "toFQDNs": None, "toCIDR": []}, "every port"),
        ({"toPorts": [{"ports": [{"port": "443"}]}]}, "any 443"),
        ({"toPorts": [{"ports": [{"port": "443", "protocol": "tcp"}]}], "icmps": [{}]}, "TCP 443"),
    ],
)
def test_cilium_step5_port_only_rule(rule: dict[str, Any], ports_text: str) -> None:
    verdict = cilium_rule_verdict(rule, 0, STATIC)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, "port-only", "every destination", ports_text)
    assert cilium_rule_verdict(rule, 0, ALLOW_ALL).outcome is Tri.NO


@pytest.mark.parametrize("entity", ["world", "cluster", "host", "kube-apiserver", "made-up"])
def test_cilium_step6_any_entity_widens(entity: str) -> None:
    verdict = cilium_rule_verdict({"toEntities": [entity]}, 0, DENY_ALL)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, f'"{entity}"', "'deny-all'")
    # Q1: entities are accepted under allow-all.
    assert cilium_rule_verdict({"toEntities": [entity]}, 0, ALLOW_ALL).outcome is Tri.NO


@pytest.mark.parametrize(
    ("entities", "allowance", "outcome"),
    [
        ([5], ALLOW_ALL, Tri.UNKNOWN),
        ([None], DENY_ALL, Tri.UNKNOWN),
        (["world", 5], DENY_ALL, Tri.YES),
        ([5, "world"], DENY_ALL, Tri.UNKNOWN),
        (["world", 5], ALLOW_ALL, Tri.UNKNOWN),
    ],
)
def test_cilium_step6_entity_order(entities: list[Any], allowance: Allowance, outcome: Tri) -> None:
    verdict = cilium_rule_verdict({"toEntities": entities}, 0, allowance)
    assert verdict.outcome is outcome
    if outcome is Tri.UNKNOWN:
        _assert_detail(verdict, "not an entity name")


@pytest.mark.parametrize(
    ("rule", "allowance", "outcome", "facts"),
    [
        (
            {"toCIDR": ["0.0.0.0/0"]},
            DENY_ALL,
            Tri.YES,
            ["`toCIDR`", '{"cidr":"0.0.0.0/0"}', "'deny-all'", "every port"],
        ),
        ({"toCIDR": ["8.8.8.8/32"]}, PUBLIC, Tri.NO, []),
        (
            {"toCIDR": ["10.0.0.0/24"]},
            PUBLIC,
            Tri.YES,
            ['{"cidr":"10.0.0.0/24"}', "'public-internet'"],
        ),
        ({"toCIDR": ["bogus"]}, DENY_ALL, Tri.UNKNOWN, ["`toCIDR`", "bogus"]),
        ({"toCIDR": [5]}, ALLOW_ALL, Tri.UNKNOWN, ["`toCIDR`"]),
        ({"toCIDR": ["0.0.0.0/0"]}, ALLOW_ALL, Tri.NO, []),
        ({"toCIDRSet": [{"cidr": "0.0.0.0/0", "except": m.IPV4_EXCEPT}]}, PUBLIC, Tri.NO, []),
        (
            {"toCIDRSet": [{"cidr": "0.0.0.0/0"}]},
            PUBLIC,
            Tri.YES,
            ['`toCIDRSet` ipBlock {"cidr":"0.0.0.0/0"} '],
        ),
        (
            {"toCIDRSet": [{"cidr": "0.0.0.0/0", "except": None}]},
            PUBLIC,
            Tri.YES,
            ['{"cidr":"0.0.0.0/0","except":null}'],
        ),
        (
            {"toCIDRSet": [{"except": ["10.0.0.0/8"], "cidr": "0.0.0.0/0"}]},
            PUBLIC,
            Tri.YES,
            ['{"cidr":"0.0.0.0/0","except":["10.0.0.0/8"]}'],
        ),
        ({"toCIDRSet": ["0.0.0.0/0"]}, ALLOW_ALL, Tri.UNKNOWN, ["`toCIDRSet`"]),
        ({"toCIDRSet": [{"except": []}]}, ALLOW_ALL, Tri.UNKNOWN, ["`toCIDRSet`"]),
        (
            {"toCIDRSet": [{"cidr": "0.0.0.0/0", "except": "10.0.0.0/8"}]},
            ALLOW_ALL,
            Tri.UNKNOWN,
            ["`toCIDRSet`"],
        ),
        # toCIDR entries are judged before toCIDRSet entries.
        (
            {"toCIDRSet": [{"cidr": "0.0.0.0/0"}], "toCIDR": ["bogus"]},
            PUBLIC,
            Tri.UNKNOWN,
            ["`toCIDR`"],
        ),
        ({"toCIDRSet": ["x"], "toCIDR": ["10.0.0.0/8"]}, PUBLIC, Tri.YES, ["`toCIDR`"]),
    ],
)
def test_cilium_step7_cidrs(
    rule: dict[str, Any], allowance: Allowance, outcome: Tri, facts: list[str]
) -> None:
    verdict = cilium_rule_verdict(rule, 0, allowance)
    assert verdict.outcome is outcome
    _assert_detail(verdict, *facts)


def test_cilium_step7_cidr_ports_must_be_covered() -> None:
    rule = {"toCIDR": ["8.8.8.8/32"], "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]}
    assert cilium_rule_verdict(rule, 0, PUBLIC).outcome is Tri.NO
    verdict = cilium_rule_verdict({"toCIDR": ["10.0.0.1/32"], **rule}, 0, DENY_ALL)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, "TCP 443")


@pytest.mark.parametrize(
    ("entries", "to_ports", "allowance", "outcome", "facts"),
    [
        ([{"matchName": "api.github.com"}], None, STATIC, Tri.NO, []),
        ([{"matchName": "api.github.com"}, {"matchName": "pypi.org"}], None, STATIC, Tri.NO, []),
        # Q2: exact and case-sensitive.
        (
            [{"matchName": "API.github.com"}],
            None,
            STATIC,
            Tri.YES,
            ['{"matchName":"API.github.com"}', "'static'"],
        ),
        # Q2: a pattern widens even when the translation emits the very same one.
        (
            [{"matchPattern": "*.pypi.org"}],
            None,
            STATIC,
            Tri.YES,
            ['{"matchPattern":"*.pypi.org"}'],
        ),
        ([{"matchName": None}], None, STATIC, Tri.YES, ['{"matchName":null}']),
        (["api.github.com"], None, STATIC, Tri.UNKNOWN, ["`toFQDNs` entry is not an object"]),
        ([{"matchName": "evil.example"}, "x"], None, STATIC, Tri.YES, ["evil.example"]),
        # Q1: FQDN rules widen even allow-all.
        ([{"matchName": "api.github.com"}], None, ALLOW_ALL, Tri.YES, ["'allow-all'"]),
        (
            [{"matchName": "github.com"}],
            [{"ports": [{"port": "22", "protocol": "TCP"}]}],
            NARROWED,
            Tri.NO,
            [],
        ),
        (
            [{"matchName": "github.com"}],
            [{"ports": [{"port": "8080", "protocol": "TCP"}]}],
            NARROWED,
            Tri.YES,
            ["TCP 8080"],
        ),
        ([{"matchName": "github.com"}], None, NARROWED, Tri.YES, ["every port"]),
        (
            [{"matchName": "github.com"}],
            [{"ports": [{"port": "443"}]}],
            NARROWED,
            Tri.YES,
            ["any 443"],
        ),
    ],
)
def test_cilium_step8_fqdns(
    entries: list[Any], to_ports: Any, allowance: Allowance, outcome: Tri, facts: list[str]
) -> None:
    rule: dict[str, Any] = {"toFQDNs": entries}
    if to_ports is not None:
        rule["toPorts"] = to_ports
    verdict = cilium_rule_verdict(rule, 0, allowance)
    assert verdict.outcome is outcome
    _assert_detail(verdict, *facts)


@pytest.mark.parametrize(
    "selector",
    [
        # Q17: any matchExpressions key makes the endpoint unreadable.
        {"matchLabels": {"app": "x"}, "matchExpressions": []},
        {"matchLabels": {"app": "x"}, "matchExpressions": None},
        {},
        {"matchLabels": None},
        {"matchLabels": {"app": 5}},
        {"matchLabels": {"reserved:host": ""}},
        "x",
    ],
)
def test_cilium_step9_unreadable_endpoint(selector: Any) -> None:
    verdict = cilium_rule_verdict({"toEndpoints": [selector]}, 0, ALLOW_ALL)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, "`toEndpoints`", "cannot be read")


def test_cilium_step9_empty_match_labels_is_this_namespace_q17() -> None:
    rule = {"toEndpoints": [{"matchLabels": {}}]}
    verdict = cilium_rule_verdict(rule, 0, DENY_ALL)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, '{"matchLabels":{}}', "'deny-all'")
    assert cilium_rule_verdict(rule, 0, ALLOW_ALL).outcome is Tri.NO


def _dns_rule(
    names: list[str] | None = None, *, patterns: bool = False, ports: Any = "53"
) -> dict[str, Any]:
    rule: dict[str, Any] = {"toEndpoints": [m.KUBE_DNS_ENDPOINT]}
    if names is None:
        return rule
    dns: list[Any] = [{"matchName": name} for name in names]
    if patterns:
        dns.append({"matchPattern": "*"})
    rule["toPorts"] = [{"ports": [{"port": ports, "protocol": "ANY"}], "rules": {"dns": dns}}]
    return rule


@pytest.mark.parametrize(
    ("rule", "outcome", "facts"),
    [
        (_dns_rule(["github.com"]), Tri.NO, []),
        (_dns_rule(list(m.NARROWED_DNS_NAMES)), Tri.NO, []),
        (_dns_rule([]), Tri.NO, []),
        # Q4: no toPorts reads as no names at all, a subset: no port check.
        (_dns_rule(), Tri.NO, []),
        (
            _dns_rule(["github.com", "evil.example"]),
            Tri.YES,
            ['"evil.example"', "resolver", "subset"],
        ),
        (
            _dns_rule(["github.com"], patterns=True),
            Tri.YES,
            ["resolver", "no DNS-name restriction"],
        ),
        (
            {"toEndpoints": [m.KUBE_DNS_ENDPOINT], "toPorts": [{"ports": [{"port": "53"}]}]},
            Tri.YES,
            ["resolver", "no DNS-name restriction", "any 53"],
        ),
        (
            {
                "toEndpoints": [m.KUBE_DNS_ENDPOINT],
                "toPorts": [{"ports": [{"port": "53"}], "rules": None}],
            },
            Tri.YES,
            ["resolver", "cannot be read"],
        ),
        # The subset check skips the peer check too, so a whole-namespace
        # endpoint with a narrow name list is accepted.
        (
            {
                **_dns_rule(["github.com"]),
                "toEndpoints": [
                    {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system"}}
                ],
            },
            Tri.NO,
            [],
        ),
    ],
)
def test_cilium_step9a_dns_subset_under_narrowing(
    rule: dict[str, Any], outcome: Tri, facts: list[str]
) -> None:
    verdict = cilium_rule_verdict(rule, 0, NARROWED)
    assert verdict.outcome is outcome
    if facts:
        _assert_detail(verdict, '"k8s:io.kubernetes.pod.namespace":"kube-system"', *facts)


def test_cilium_step9a_not_reaching_the_dns_port_goes_to_9b() -> None:
    rule = _dns_rule(["github.com"], ports="443")
    verdict = cilium_rule_verdict(rule, 0, NARROWED)
    assert verdict.outcome is Tri.YES
    _assert_detail(verdict, "any 443", "'static'")
    assert "resolver's DNS port" not in (verdict.detail or "")


UDP_DNS_RULE = {
    "toEndpoints": [m.KUBE_DNS_ENDPOINT],
    "toPorts": [{"ports": [{"port": "53", "protocol": "UDP"}]}],
}


@pytest.mark.parametrize(
    ("translation", "rule", "outcome"),
    [
        # Q4: without DNS narrowing the resolver covers only port 53.
        (m.static_unnarrowed(), _dns_rule(), Tri.YES),
        (m.static_unnarrowed(), _dns_rule(["anything.example"]), Tri.NO),
        (m.static_unnarrowed(), UDP_DNS_RULE, Tri.NO),
        # Q3: a `.domain` entry leaves dnsNarrowedTo at `all`; names are not checked.
        (m.static_narrowed_domain(), _dns_rule(["evil.example"]), Tri.NO),
        (m.static_narrowed_domain(), _dns_rule(), Tri.YES),
        # Q5: deny-all allows UDP 53 and TCP 53, not "every protocol".
        (m.deny_all(), _dns_rule(["x"]), Tri.YES),
        (
            m.deny_all(),
            {
                "toEndpoints": [m.KUBE_DNS_ENDPOINT],
                "toPorts": [
                    {
                        "ports": [
                            {"port": "53", "protocol": "UDP"},
                            {"port": "53", "protocol": "TCP"},
                        ]
                    }
                ],
            },
            Tri.NO,
        ),
        (m.public_internet(), UDP_DNS_RULE, Tri.NO),
        (m.allow_all(), _dns_rule(), Tri.NO),
    ],
)
def test_cilium_step9b_destination(
    translation: Translation, rule: dict[str, Any], outcome: Tri
) -> None:
    verdict = cilium_rule_verdict(rule, 0, build_allowance(translation))
    assert verdict.outcome is outcome
    if outcome is Tri.YES:
        _assert_detail(
            verdict, "`toEndpoints`", '"k8s:k8s-app":"kube-dns"', f"'{translation.policy_kind}'"
        )


def test_cilium_step9_clusterwide_endpoint_without_namespace_reaches_every_namespace() -> None:
    # §17.3: a clusterwide selector with no namespace key reaches kube-dns in
    # kube-system, so under DNS narrowing it is judged by its DNS names; a
    # namespaced one stays in its own namespace and is simply not allowed.
    rule = {
        "toEndpoints": [{"matchLabels": {"k8s:k8s-app": "kube-dns"}}],
        "toPorts": [
            {
                "ports": [{"port": "53", "protocol": "ANY"}],
                "rules": {"dns": [{"matchName": "evil.example"}]},
            }
        ],
    }
    namespaced = cilium_rule_verdict(rule, 0, NARROWED)
    clusterwide = cilium_rule_verdict(rule, 0, NARROWED, clusterwide=True)
    assert namespaced.outcome is Tri.YES and clusterwide.outcome is Tri.YES
    assert "resolver" not in (namespaced.detail or "")
    _assert_detail(clusterwide, "resolver", "evil.example")
    subset = {
        **rule,
        "toPorts": [{"ports": [{"port": "53"}], "rules": {"dns": [{"matchName": "github.com"}]}}],
    }
    assert cilium_rule_verdict(subset, 0, NARROWED, clusterwide=True).outcome is Tri.NO
    assert cilium_rule_verdict(subset, 0, NARROWED).outcome is Tri.YES


@pytest.mark.parametrize(
    ("rule", "allowance", "field"),
    [
        ({"toServices": [{"k8sService": {"serviceName": "x"}}]}, ALLOW_ALL, "toServices"),
        ({"toGroups": [{"aws": {}}]}, DENY_ALL, "toGroups"),
        ({"toNodes": [{}]}, DENY_ALL, "toNodes"),
        ({"toGroups": [{}], "toServices": [{}]}, DENY_ALL, "toServices"),
        ({"toNodes": [{}], "toGroups": [{}]}, DENY_ALL, "toGroups"),
        ({"toFQDNs": [{"matchName": "api.github.com"}], "toNodes": [{}]}, STATIC, "toNodes"),
        ({"toEndpoints": [m.KUBE_DNS_ENDPOINT], "toServices": [{}]}, ALLOW_ALL, "toServices"),
    ],
)
def test_cilium_step10_unenumerable_destinations(
    rule: dict[str, Any], allowance: Allowance, field: str
) -> None:
    verdict = cilium_rule_verdict(rule, 0, allowance)
    assert verdict.outcome is Tri.UNKNOWN
    _assert_detail(verdict, f"`{field}`", "cannot be enumerated")


def test_cilium_step10_comes_after_widening_fields() -> None:
    rule = {"toFQDNs": [{"matchName": "evil.example"}], "toServices": [{}]}
    assert cilium_rule_verdict(rule, 0, STATIC).outcome is Tri.YES


@pytest.mark.parametrize(
    ("rule", "allowance"),
    [
        (
            {
                "toEndpoints": [m.KUBE_DNS_ENDPOINT],
                "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}],
            },
            STATIC,
        ),
        ({"toFQDNs": [{"matchName": "pypi.org"}], "toRequires": [{}], "icmps": [{}]}, STATIC),
        (
            {
                "toCIDR": ["1.1.1.1/32"],
                "toEndpoints": [{"matchLabels": {"app": "x"}}],
                "toEntities": ["world"],
            },
            ALLOW_ALL,
        ),
        ({"toServices": [], "toFQDNs": [{"matchName": "pypi.org"}]}, STATIC),
    ],
)
def test_cilium_step11_inside(rule: dict[str, Any], allowance: Allowance) -> None:
    assert cilium_rule_verdict(rule, 7, allowance) == RuleVerdict(Tri.NO, None, 7)


def test_rule_verdicts_are_deterministic_values() -> None:
    rule = {"toFQDNs": [{"matchName": "evil.example"}]}
    assert cilium_rule_verdict(rule, 0, STATIC) == cilium_rule_verdict(rule, 0, STATIC)


def test_an_unreadable_peer_among_many_is_named_with_its_entry_and_why() -> None:
    """One bad CIDR in a list of twenty: the detail says which entry and why."""
    peers: list[Any] = [{"ipBlock": {"cidr": f"10.0.{i}.0/24"}} for i in range(20)]
    peers[7] = {"ipBlock": {"cidr": "1.2.3.4/32/32"}}
    allowance = build_allowance(translate({"policy": {"kind": "allow-all"}}, "t", "ns"))
    verdict = core_rule_verdict({"to": peers}, 0, allowance)
    assert verdict.outcome is Tri.UNKNOWN
    assert verdict.detail is not None
    assert "(entry 7: `ipBlock.cidr` is not a CIDR)" in verdict.detail
    assert verdict.detail.endswith('{"ipBlock":{"cidr":"1.2.3.4/32/32"}}')
    assert verdict.detail.startswith("a `to` peer cannot be read")


@pytest.mark.parametrize(
    ("peer", "why"),
    [
        (
            {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16", "x"]}},
            "`ipBlock.except` entry 1 is not a CIDR",
        ),
        (
            {"ipBlock": {"cidr": "10.0.0.0/8", "except": "10.1.0.0/16"}},
            "`ipBlock.except` is not a list",
        ),
        ({"ipBlock": "10.0.0.0/8"}, "`ipBlock` is not an object"),
        ({"ports": []}, "neither an `ipBlock` nor a selector"),
        ("10.0.0.0/8", "the peer is not an object"),
    ],
)
def test_the_reason_names_the_field(peer: Any, why: str) -> None:
    allowance = build_allowance(translate({"policy": {"kind": "allow-all"}}, "t", "ns"))
    verdict = core_rule_verdict({"to": [peer]}, 0, allowance)
    assert verdict.detail is not None and why in verdict.detail
