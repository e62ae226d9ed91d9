"""Egress rule verdicts remembered by the rule's text and place
(``egress_documents.RuleVerdicts``): reading policies one after another with
one memo for one allowance gives, for each, the documents reading it alone
gives. Rules that differ only where the readers tell values apart (``53``,
``53.0``, ``"53"`` and ``True``; a list and a tuple; the same rule at another
index, or in a NetworkPolicy and a Cilium policy) must never share a verdict.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import RuleVerdicts, egress_documents
from lint.decision.model import Candidate, Subject, Translation
from tests.decision.manifests import (
    KUBE_SYSTEM_NS,
    NAMESPACE,
    POD_LABELS,
    allow_all,
    cilium_policy,
    clusterwide_candidate,
    deny_all,
    network_policy,
    public_internet,
    static_narrowed_domain,
    static_unnarrowed,
)

SUBJECT = Subject(NAMESPACE, POD_LABELS)

_port = st.sampled_from([53, 53.0, "53", True, 443, "dns", None])
_protocol = st.sampled_from(["TCP", "UDP", "ANY", None])
_peers = st.sampled_from(
    [
        [{"ipBlock": {"cidr": "10.0.0.0/8"}}],
        ({"ipBlock": {"cidr": "10.0.0.0/8"}},),
        [{"namespaceSelector": KUBE_SYSTEM_NS}],
        [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
        [{}],
        [],
    ]
)


@st.composite
def _ports(draw: st.DrawFn) -> list[dict[str, Any]]:
    port: dict[str, Any] = {}
    for key, value in (("port", draw(_port)), ("protocol", draw(_protocol))):
        if value is not None:
            port[key] = value
    return [port]


@st.composite
def _core_rule(draw: st.DrawFn) -> Any:
    rule: dict[str, Any] = {}
    if draw(st.booleans()):
        rule["to"] = draw(_peers)
    if draw(st.booleans()):
        rule["ports"] = draw(_ports())
    return rule


@st.composite
def _cilium_rule(draw: st.DrawFn) -> Any:
    field = draw(st.sampled_from(["toCIDR", "toFQDNs", "toEndpoints", "toEntities", None]))
    rule: dict[str, Any] = {}
    if field == "toCIDR":
        rule[field] = draw(st.sampled_from([["10.0.0.0/8"], ("10.0.0.0/8",), ["0.0.0.0/0"]]))
    elif field == "toFQDNs":
        rule[field] = [{"matchName": draw(st.sampled_from(["api.github.com", "example.com"]))}]
    elif field == "toEndpoints":
        rule[field] = [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system"}}]
    elif field == "toEntities":
        rule[field] = [draw(st.sampled_from(["world", "cluster"]))]
    if draw(st.booleans()):
        rule["toPorts"] = [{"ports": draw(_ports())}]
    return rule


_rules: st.SearchStrategy[list[Any]] = st.lists(
    st.one_of(_core_rule(), _cilium_rule(), st.just({}), st.just("x")), max_size=3
)


@st.composite
def _candidate(draw: st.DrawFn) -> Candidate:
    egress = draw(_rules)
    kind = draw(st.sampled_from(["core", "cilium", "clusterwide"]))
    if kind == "core":
        spec = {"podSelector": {}, "policyTypes": ["Egress"], "egress": egress}
        return Candidate("NetworkPolicy", network_policy("p", spec=spec), 0)
    raw = cilium_policy("p", spec={"endpointSelector": {}, "egress": egress})
    if kind == "clusterwide":
        return clusterwide_candidate(raw)
    return Candidate("CiliumNetworkPolicy", raw, 0)


_translations = st.sampled_from(
    [deny_all, allow_all, public_internet, static_unnarrowed, static_narrowed_domain]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(candidates=st.lists(_candidate(), min_size=1, max_size=6), made=_translations)
def test_remembered_verdicts_are_the_ones_judged_alone(
    candidates: list[Candidate], made: Any
) -> None:
    translation: Translation = made()
    allowance = build_allowance(translation)
    verdicts: RuleVerdicts = {}
    for candidate in candidates:
        remembered = egress_documents(candidate, SUBJECT, allowance, translation, (), verdicts)
        assert remembered == egress_documents(candidate, SUBJECT, allowance, translation)


def test_a_rule_is_judged_once_for_every_policy_that_writes_it() -> None:
    translation = deny_all()
    allowance = build_allowance(translation)
    rule = {"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}
    verdicts: RuleVerdicts = {}
    documents = [
        egress_documents(
            Candidate(
                "NetworkPolicy",
                network_policy(f"p{i}", spec={"podSelector": {}, "egress": [dict(rule)]}),
                i,
            ),
            SUBJECT,
            allowance,
            translation,
            (),
            verdicts,
        )[0]
        for i in range(3)
    ]
    assert len(verdicts) == 1
    assert documents[0].rules[0] is documents[2].rules[0]


def _core(rule: Any) -> Candidate:
    spec = {"podSelector": {}, "policyTypes": ["Egress"], "egress": [rule]}
    return Candidate("NetworkPolicy", network_policy("p", spec=spec), 0)


def _cilium(rule: Any) -> Candidate:
    return Candidate("CiliumNetworkPolicy", cilium_policy("p", spec={"egress": [rule]}), 0)


CIDR = {"cidr": "10.0.0.0/8"}


@pytest.mark.parametrize(
    "candidates",
    [
        # A list and a tuple write the same JSON text; only the list is readable.
        [_core({"to": [{"ipBlock": CIDR}]}), _core({"to": ({"ipBlock": CIDR},)})],
        [_cilium({"toCIDR": ["10.0.0.0/8"]}), _cilium({"toCIDR": ("10.0.0.0/8",)})],
        # A number, a float, a string and a boolean port.
        [
            _core({"ports": [{"port": p}], "to": [{"ipBlock": CIDR}]})
            for p in (53, 53.0, "53", True)
        ],
        # The same rule text in both kinds of policy.
        [_core({}), _cilium({}), _core({"to": []}), _cilium({"to": []})],
    ],
)
def test_rules_the_readers_tell_apart_never_share_a_verdict(candidates: list[Candidate]) -> None:
    translation = static_unnarrowed()
    allowance = build_allowance(translation)
    verdicts: RuleVerdicts = {}
    alone = [egress_documents(c, SUBJECT, allowance, translation) for c in candidates]
    assert len({d[0].rules for d in alone}) > 1  # the case means something
    remembered = [
        egress_documents(c, SUBJECT, allowance, translation, (), verdicts) for c in candidates
    ]
    assert remembered == alone
