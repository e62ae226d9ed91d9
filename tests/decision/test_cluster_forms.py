"""Intent for ``host: none`` in the cluster's own terms (issue 28):
``allowHosts`` takes Cilium ``matchPattern`` hosts and ports with protocols,
judged pattern against pattern, and a Cilium port on ``ANY`` is TCP, UDP and
SCTP on it. The namzu host keeps its vocabulary and its union unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.allowance import build_allowance
from lint.decision.egress_rules import cilium_rule_verdict
from lint.decision.fqdn_patterns import name_in_pattern, pattern_within
from lint.decision.model import Allowance, ConfigRefusal, PortRange, Tri
from lint.decision.ports import wanted_ranges
from lint.decision.reach.common import domain_allowed
from lint.decision.translation import translate_allow, with_selector
from lint.explain.allowance import allowance_admits
from lint.explain.destination import parse_destination

TEMPLATE, NAMESPACE = "builder", "build"
LABELS = {"app": "builder"}
KUBE_DNS = {"matchLabels": {"io.kubernetes.pod.namespace": "kube-system", "k8s-app": "kube-dns"}}
KUBE_DNS_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}


def _host_none(egress: dict[str, Any]) -> Allowance:
    translation = translate_allow(egress, TEMPLATE, NAMESPACE, cluster_forms=True)
    return build_allowance(with_selector(translation, LABELS))


def _hosts(*hosts: Any) -> Allowance:
    return _host_none({"engine": "cilium", "allow": [], "allowHosts": list(hosts)})


def _fqdn_rule(entry: dict[str, Any], port: str = "443", protocol: str = "TCP") -> dict[str, Any]:
    return {"toFQDNs": [entry], "toPorts": [{"ports": [{"port": port, "protocol": protocol}]}]}


# --- Cilium's matchPattern, pattern against pattern ---------------------------------------


@pytest.mark.parametrize(
    ("inner", "outer", "within"),
    [
        ("*.debian.org", "*.debian.org", True),
        ("deb*.debian.org", "*.debian.org", True),
        ("*.DEBIAN.org.", "*.debian.org", True),
        ("x.*.debian.org", "*.*.debian.org", True),
        ("*.debian.org", "*", True),
        ("*a*a*", "*a*", True),
        # `*.debian.org` names one label before debian.org, never `*.org`'s.
        ("*.org", "*.debian.org", False),
        # A star never crosses a dot: two labels are not inside one.
        ("*.a.debian.org", "*.debian.org", False),
        ("*.debian.org", "*.org", False),
        ("*.debian.org", "d*.debian.org", False),
        # `**.` may be several labels (later Cilium): never inside one-label stars.
        ("**.debian.org", "*.debian.org", False),
        ("*", "*.org", False),
    ],
)
def test_pattern_within_follows_cilium(inner: str, outer: str, within: bool) -> None:
    assert pattern_within(inner, outer) is within


@pytest.mark.parametrize(
    ("name", "pattern", "matched"),
    [
        ("a.debian.org", "*.debian.org", True),
        ("A.Debian.ORG.", "*.debian.org", True),
        ("ftp.debian.org", "f*.debian.org", True),
        ("any.name", "*", True),
        ("debian.org", "*.debian.org", False),
        ("a.b.debian.org", "*.debian.org", False),
        ("www.debian.org", "f*.debian.org", False),
    ],
)
def test_name_in_pattern_follows_cilium(name: str, pattern: str, matched: bool) -> None:
    assert name_in_pattern(name, pattern) is matched


# --- allowHosts under host: none ------------------------------------------------------


def test_a_declared_pattern_covers_a_policy_pattern_inside_it() -> None:
    allowance = _hosts("*.debian.org")
    inside = cilium_rule_verdict(_fqdn_rule({"matchPattern": "*.debian.org"}), 1, allowance)
    assert inside.outcome is Tri.NO
    name = cilium_rule_verdict(_fqdn_rule({"matchName": "deb.debian.org"}), 1, allowance)
    assert name.outcome is Tri.NO
    wider = cilium_rule_verdict(_fqdn_rule({"matchPattern": "*.org"}), 1, allowance)
    assert wider.outcome is Tri.YES
    assert wider.detail is not None and '"*.org"' in wider.detail
    deeper = cilium_rule_verdict(_fqdn_rule({"matchName": "a.b.debian.org"}), 1, allowance)
    assert deeper.outcome is Tri.YES


def test_an_entry_with_name_and_pattern_needs_both() -> None:
    allowance = _hosts("*.debian.org")
    both = {"matchName": "deb.debian.org", "matchPattern": "*.org"}
    assert cilium_rule_verdict(_fqdn_rule(both), 0, allowance).outcome is Tri.YES


def test_an_exact_host_does_not_cover_a_pattern() -> None:
    allowance = _hosts("deb.debian.org")
    verdict = cilium_rule_verdict(_fqdn_rule({"matchPattern": "*.debian.org"}), 0, allowance)
    assert verdict.outcome is Tri.YES


def test_pattern_hosts_are_emitted_as_match_pattern() -> None:
    translation = translate_allow(
        {"engine": "cilium", "allow": [], "allowHosts": ["*.Debian.org", "deb.debian.org"]},
        TEMPLATE,
        NAMESPACE,
        cluster_forms=True,
    )
    assert translation.companion is not None
    assert translation.companion["spec"]["egress"][1:] == [
        {"toFQDNs": [{"matchPattern": "*.debian.org"}]},
        {"toFQDNs": [{"matchName": "deb.debian.org"}]},
    ]


def test_udp_ports_are_granted_and_tcp_stays_the_default() -> None:
    entry = {"host": "quic.example.com", "ports": [443, {"port": 443, "protocol": "UDP"}]}
    translation = translate_allow(
        {"engine": "cilium", "allow": [], "allowHosts": [entry]},
        TEMPLATE,
        NAMESPACE,
        cluster_forms=True,
    )
    assert translation.companion is not None
    assert translation.companion["spec"]["egress"][1]["toPorts"] == [
        {"ports": [{"port": "443", "protocol": "TCP"}, {"port": "443", "protocol": "UDP"}]}
    ]
    allowance = _hosts(entry)
    quic = {"matchName": "quic.example.com"}
    assert cilium_rule_verdict(_fqdn_rule(quic, protocol="UDP"), 0, allowance).outcome is Tri.NO
    assert cilium_rule_verdict(_fqdn_rule(quic), 0, allowance).outcome is Tri.NO
    sctp = _fqdn_rule(quic, protocol="SCTP")
    assert cilium_rule_verdict(sctp, 0, allowance).outcome is Tri.YES
    tcp_only = _hosts({"host": "quic.example.com", "ports": [443]})
    udp = _fqdn_rule(quic, protocol="UDP")
    assert cilium_rule_verdict(udp, 0, tcp_only).outcome is Tri.YES


@pytest.mark.parametrize(
    ("entry", "field", "fragment"),
    [
        ("**.debian.org", "allowHosts[0]", "`**`"),
        ("*.123", "allowHosts[0]", "all-numeric"),
        (".debian.org", "allowHosts[0]", "`*.debian.org`"),
        ({"host": "a.example.com", "ports": [{"port": 53, "protocol": "ICMP"}]}, "", "UDP"),
        ({"host": "a.example.com", "ports": [{"port": 0, "protocol": "UDP"}]}, "", "65535"),
        ({"host": "a.example.com", "ports": [{"port": 53, "proto": "UDP"}]}, "", "proto"),
    ],
)
def test_host_none_refuses_what_cilium_cannot_hold(entry: Any, field: str, fragment: str) -> None:
    with pytest.raises(ConfigRefusal) as refused:
        _hosts(entry)
    assert fragment in refused.value.message
    assert refused.value.field.startswith(field or "allowHosts[0].ports[0]")


@pytest.mark.parametrize(
    ("entry", "field", "fragment"),
    [
        ("*.debian.org", "allowHosts[0]", "contains a glob"),
        ({"host": "a.example.com", "ports": [{"port": 443, "protocol": "UDP"}]}, "ports[0]", ""),
    ],
)
def test_the_namzu_host_still_refuses_the_new_forms(entry: Any, field: str, fragment: str) -> None:
    egress = {"engine": "cilium", "allow": [], "allowHosts": [entry]}
    with pytest.raises(ConfigRefusal) as refused:
        translate_allow(egress, TEMPLATE, NAMESPACE)
    assert field in refused.value.field
    assert fragment in refused.value.message


# --- Cilium ANY on a port -----------------------------------------------------------------


def _dns_allow(*protocols: str) -> dict[str, Any]:
    ports = [{"protocol": protocol, "port": 53} for protocol in protocols]
    return {"engine": "cilium", "allow": [{"to": [KUBE_DNS_PEER], "ports": ports}]}


ANY_53 = {"toEndpoints": [KUBE_DNS], "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}]}


def test_any_on_a_port_is_covered_by_tcp_udp_and_sctp() -> None:
    allowance = _host_none(_dns_allow("TCP", "UDP", "SCTP"))
    assert cilium_rule_verdict(ANY_53, 0, allowance).outcome is Tri.NO


@pytest.mark.parametrize("missing", ["TCP", "UDP", "SCTP"])
def test_any_on_a_port_is_not_covered_when_one_protocol_is_missing(missing: str) -> None:
    protocols = [p for p in ("TCP", "UDP", "SCTP") if p != missing]
    allowance = _host_none(_dns_allow(*protocols))
    verdict = cilium_rule_verdict(ANY_53, 0, allowance)
    assert verdict.outcome is Tri.YES
    assert verdict.detail is not None and "any 53" in verdict.detail


def test_the_namzu_union_keeps_any_as_one_range() -> None:
    """§7.4 unchanged: under the namzu host, TCP, UDP and SCTP on 53 do not
    cover ANY 53."""
    translation = translate_allow(_dns_allow("TCP", "UDP", "SCTP"), TEMPLATE, NAMESPACE)
    allowance = build_allowance(translation)
    assert not allowance.cluster_terms and allowance.fqdn_patterns == ()
    assert cilium_rule_verdict(ANY_53, 0, allowance).outcome is Tri.YES


def test_a_rule_without_ports_is_not_split() -> None:
    """A Cilium rule without toPorts matches ICMP too, so three protocols
    on every port would not cover it."""
    assert wanted_ranges("all", split_any=True) == (PortRange(None),)
    assert wanted_ranges((PortRange(None, 53),), split_any=True) == (
        PortRange("TCP", 53),
        PortRange("UDP", 53),
        PortRange("SCTP", 53),
    )


def test_the_reach_decision_reads_domain_names_against_declared_patterns() -> None:
    allowance = _hosts({"host": "*.debian.org", "ports": [443]})
    tcp_443 = (PortRange("TCP", 443),)
    assert domain_allowed(allowance, "deb.debian.org", tcp_443)
    assert not domain_allowed(allowance, "a.b.debian.org", tcp_443)
    assert not domain_allowed(allowance, "deb.debian.org", (PortRange("UDP", 443),))


@pytest.mark.parametrize(
    ("destination", "inside"),
    [
        ("deb.debian.org:443", True),
        ("deb.debian.org:443/UDP", True),
        ("deb.debian.org:80", False),
        ("a.b.debian.org:443", False),
    ],
)
def test_explain_reads_a_pattern_grant_as_cilium_does(destination: str, inside: bool) -> None:
    allowance = _hosts({"host": "*.debian.org", "ports": [443, {"port": 443, "protocol": "UDP"}]})
    assert allowance_admits(allowance, parse_destination(destination)) is inside
