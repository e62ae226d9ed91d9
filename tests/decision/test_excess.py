"""What a widening rule lets out beyond the allowance, in addresses
(``lint.decision.excess``), checked against an independent count of
addresses on the ports the rule names."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.excess import cilium_rule_excess, core_rule_excess
from lint.decision.model import Allowance
from lint.decision.translation import translate, translate_allow

PUBLIC_443 = [
    {
        "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12"]}}],
        "ports": [{"protocol": "TCP", "port": 443}],
    }
]


def _allow(rules: list[Any]) -> Allowance:
    return build_allowance(translate_allow({"allow": rules}, "task", "sbx"))


def _rule(cidr: str, excepts: list[str] | None = None, ports: list[Any] | None = None) -> Any:
    block: dict[str, Any] = {"cidr": cidr}
    if excepts:
        block["except"] = excepts
    rule: dict[str, Any] = {"to": [{"ipBlock": block}]}
    if ports is not None:
        rule["ports"] = ports
    return rule


def test_the_excess_is_named_in_ranges() -> None:
    rule = _rule("0.0.0.0/0", ["10.0.0.0/8"], [{"protocol": "TCP", "port": 443}])
    assert core_rule_excess(rule, _allow(PUBLIC_443)) == "172.16.0.0/12 on TCP 443"


def test_ports_with_different_excess_are_said_apart() -> None:
    rule = _rule("0.0.0.0/0", ["10.0.0.0/8"], [{"port": 80}, {"port": 443}])
    said = core_rule_excess(rule, _allow(PUBLIC_443))
    assert said == "0.0.0.0/0 except 10.0.0.0/8 on TCP 80; 172.16.0.0/12 on TCP 443"


def test_nothing_is_added_when_the_excess_is_the_rule_itself() -> None:
    deny_all = build_allowance(translate({"policy": {"kind": "deny-all"}}, "task", "sbx"))
    assert core_rule_excess(_rule("8.8.8.8/32", ports=[{"port": 53}]), deny_all) is None


def test_a_rule_without_peers_is_every_address_of_both_families() -> None:
    said = core_rule_excess({"ports": [{"protocol": "TCP", "port": 443}]}, _allow(PUBLIC_443))
    assert said == "10.0.0.0/8 and 172.16.0.0/12, plus ::/0 on TCP 443"


def test_selector_peers_are_not_said_in_addresses() -> None:
    rule = {"to": [{"podSelector": {}}], "ports": [{"port": 443}]}
    assert core_rule_excess(rule, _allow(PUBLIC_443)) is None


def test_many_ranges_are_counted() -> None:
    allowed = [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}], "ports": [{"port": 443}]}]
    said = core_rule_excess(_rule("0.0.0.0/0", ports=[{"port": 443}]), _allow(allowed))
    assert said == "0.0.0.0/0 except 10.0.0.0/8 on TCP 443"


_prefix = st.integers(min_value=8, max_value=24)
_octet = st.integers(min_value=0, max_value=255)


@st.composite
def _cidrs(draw: st.DrawFn) -> str:
    network = ipaddress.ip_network(
        f"{draw(_octet)}.{draw(_octet)}.0.0/{draw(_prefix)}", strict=False
    )
    return str(network)


@pytest.mark.parametrize("port", [443])
@settings(max_examples=60, deadline=None)
@given(rule_cidr=_cidrs(), allowed=st.lists(_cidrs(), max_size=3))
def test_the_named_ranges_are_exactly_the_rule_minus_the_allowance(
    port: int, rule_cidr: str, allowed: list[str]
) -> None:
    allowance = (
        _allow([{"to": [{"ipBlock": {"cidr": c}} for c in allowed], "ports": [{"port": port}]}])
        if allowed
        else build_allowance(translate({"policy": {"kind": "deny-all"}}, "task", "sbx"))
    )
    said = core_rule_excess(_rule(rule_cidr, ports=[{"port": port}]), allowance)
    expected = {ipaddress.ip_network(rule_cidr)}
    for cut in map(ipaddress.ip_network, allowed):
        expected = {
            piece
            for network in expected
            for piece in (
                [network]
                if not network.overlaps(cut)
                else ([] if network.subnet_of(cut) else network.address_exclude(cut))  # type: ignore[arg-type]
            )
        }
    total = sum(n.num_addresses for n in expected)
    if said is None:
        # Nothing beyond, or exactly the rule's own addresses.
        assert total in (0, ipaddress.ip_network(rule_cidr).num_addresses)
        return
    named = said.removesuffix(f" on TCP {port}")
    if "more ranges" in named:
        return
    whole, _, holes = named.partition(" except ")
    if holes:
        parts = holes.replace(" and ", ", ").split(", ")
        held = sum(ipaddress.ip_network(p).num_addresses for p in parts)
        assert ipaddress.ip_network(whole).num_addresses - held == total
        return
    parts = named.replace(" and ", ", ").split(", ")
    assert sum(ipaddress.ip_network(p).num_addresses for p in parts) == total


def test_a_cilium_rule_of_cidrs_names_its_excess() -> None:
    rule = {
        "toCIDRSet": [{"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}],
        "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}],
    }
    assert cilium_rule_excess(rule, _allow(PUBLIC_443)) == "172.16.0.0/12 on TCP 443"
    plain = {"toCIDR": ["172.16.5.0/24"], "toPorts": [{"ports": [{"port": "443"}]}]}
    said = cilium_rule_excess(plain, _allow(PUBLIC_443))
    # The rule's own addresses on its own ports: nothing to add.
    assert said is None


@pytest.mark.parametrize(
    "rule",
    [
        {"toFQDNs": [{"matchName": "a.example"}], "toCIDR": ["0.0.0.0/0"]},
        {"toCIDRSet": [{"cidrGroupRef": "g"}]},
        {"toEndpoints": [{}]},
        {"toPorts": [{"ports": [{"port": "443"}]}]},
    ],
)
def test_a_cilium_rule_not_of_cidrs_is_not_said_in_addresses(rule: dict[str, Any]) -> None:
    assert cilium_rule_excess(rule, _allow(PUBLIC_443)) is None
