"""Properties of the ``egress.allow`` form (issue 17): its allowance is
SEMANTICS §4.2 applied to the declared rules, judged by the same union."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.translation import translate, translate_allow
from tests.decision.test_properties import (
    NAMESPACE,
    TEMPLATE,
    _cidr,
    _decide,
    _policy_sets,
)

_label_value = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?", fullmatch=True)
_selector = st.one_of(
    st.just({}),
    st.builds(lambda v: {"matchLabels": {"app": v}}, _label_value),
    st.builds(
        lambda v: {"matchExpressions": [{"key": "tier", "operator": "In", "values": [v]}]},
        _label_value,
    ),
)
_selector_peer = st.one_of(
    st.builds(lambda n: {"namespaceSelector": n}, _selector),
    st.builds(lambda p: {"podSelector": p}, _selector),
    st.builds(lambda n, p: {"namespaceSelector": n, "podSelector": p}, _selector, _selector),
)
_private_cidr = st.builds(
    lambda a, b, prefix: f"10.{a}.{b}.0/{prefix}",
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(16, 28),
)
_cidr_peer = st.builds(lambda cidr: {"ipBlock": {"cidr": cidr}}, _private_cidr)
_peer = st.one_of(_selector_peer, _cidr_peer)
# Allowed ports stay below 2000, so port 5000 is outside every rule.
_allowed_port = st.builds(
    lambda protocol, port, span: (
        {"protocol": protocol, "port": port}
        if span == 0
        else {"protocol": protocol, "port": port, "endPort": port + span}
    ),
    st.sampled_from(["TCP", "UDP", "SCTP"]),
    st.integers(1, 1900),
    st.integers(0, 50),
)
_rule = st.builds(
    lambda peers, ports: {"to": peers, "ports": ports},
    st.lists(_peer, min_size=1, max_size=3),
    st.lists(_allowed_port, min_size=1, max_size=3),
)
_rules = st.lists(_rule, max_size=4)


def _policy(name: str, egress: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "podSelector": {"matchLabels": {"sandbox.namzu.ai/template": TEMPLATE}},
            "policyTypes": ["Egress"],
            "egress": egress,
        },
    }


@settings(max_examples=150, deadline=None)
@given(_rules)
def test_a_policy_whose_egress_is_the_declared_allow_is_within(rules: list[Any]) -> None:
    translation = translate_allow({"allow": rules}, TEMPLATE, NAMESPACE)
    allowance = build_allowance(translation)
    assert allowance.permits_nothing == (not rules)
    # Another name: judged rule by rule, never exempt as the named object.
    other = _policy("copy", copy.deepcopy(rules))
    decision = _decide([("NetworkPolicy", other)], translation, allowance)
    assert decision.refusal is None, decision.summary
    assert [e.verdict for e in decision.examined] == ["within"]


@settings(max_examples=150, deadline=None)
@given(
    _rules,
    st.one_of(
        st.builds(lambda cidr: {"ipBlock": {"cidr": cidr}}, _cidr),
        _selector_peer,
        _cidr_peer,
    ),
    st.sampled_from(["TCP", "UDP", "SCTP"]),
    st.booleans(),
)
def test_adding_a_rule_outside_the_allowance_refuses(
    rules: list[Any], peer: dict[str, Any], protocol: str, portless: bool
) -> None:
    """Port 5000 is in no allowed rule, and a rule with no ports is every
    port: either way the added rule lets out what the allowance does not."""
    translation = translate_allow({"allow": rules}, TEMPLATE, NAMESPACE)
    allowance = build_allowance(translation)
    outside: dict[str, Any] = {"to": [peer]}
    if not portless:
        outside["ports"] = [{"protocol": protocol, "port": 5000}]
    wider = _policy("wider", [*copy.deepcopy(rules), outside])
    decision = _decide([("NetworkPolicy", wider)], translation, allowance)
    assert decision.refusal == "policy-widens-egress"
    assert [e.verdict for e in decision.examined] == ["widens-egress"]


@st.composite
def _core_kind_configs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["deny-all", "allow-all", "no-network", "public-internet"]))
    policy: dict[str, Any] = {"kind": kind}
    if kind == "public-internet" and draw(st.booleans()):
        policy["exceptCidrs"] = draw(st.lists(_cidr, max_size=3))
    return {"policy": policy, "engine": draw(st.sampled_from(["core", "cilium"]))}


@settings(max_examples=200, deadline=None)
@given(_core_kind_configs(), _policy_sets, st.booleans())
def test_a_core_kind_rewritten_as_allow_gives_the_same_union(
    egress: dict[str, Any], policies: list[dict[str, Any]], with_named: bool
) -> None:
    """Every core kind's translated rules, declared as `allow`, give the same
    refusal and the same verdict for every document, the named object's
    included (it has the same kind and name under both)."""
    kind_translation = translate(egress, TEMPLATE, NAMESPACE)
    rules = copy.deepcopy(kind_translation.manifest["spec"]["egress"])
    allow_translation = translate_allow(
        {"allow": rules, "engine": egress["engine"]}, TEMPLATE, NAMESPACE
    )
    assert (allow_translation.kind, allow_translation.name) == (
        kind_translation.kind,
        kind_translation.name,
    )
    candidates = [("NetworkPolicy", p) for p in policies]
    if with_named:
        candidates.append(("NetworkPolicy", kind_translation.manifest))
    before = _decide(candidates, kind_translation, build_allowance(kind_translation))
    after = _decide(candidates, allow_translation, build_allowance(allow_translation))
    assert before.refusal == after.refusal
    assert [(e.name, e.verdict) for e in before.examined] == [
        (e.name, e.verdict) for e in after.examined
    ]
