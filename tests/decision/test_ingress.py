"""The ingress agent-port decision (SEMANTICS.md §13, quirks Q8, Q9, Q11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lint.decision.controller import TEMPLATE_HASH_LABEL, controller_policy, name_hash
from lint.decision.ingress import (
    cilium_ingress_verdict,
    core_ingress_verdict,
    decide_ingress,
    ingress_documents,
    ingress_verdict,
)
from lint.decision.ingress_ports import cilium_port_reach, core_port_reach
from lint.decision.model import Candidate, PolicyDocument, RuleVerdict, Subject, Tri
from lint.decision.reach.model import ReachCandidate

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
NS = "namzu-sandboxes"
LABELS = {"sandbox.namzu.ai/template": "namzu-task"}
SUBJECT = Subject(NS, LABELS)
PORT = 1024
YES, NO, UNKNOWN = Tri.YES, Tri.NO, Tri.UNKNOWN


def core(spec: Any = "absent", *, name: Any = "p", position: int = 0, **top: Any) -> Candidate:
    raw: dict[str, Any] = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NS},
        **top,
    }
    if spec != "absent":
        raw["spec"] = spec
    return Candidate("NetworkPolicy", raw, position)


def cilium(
    spec: Any = "absent", *, name: str = "c", kind: str = "CiliumNetworkPolicy", **top: Any
) -> Candidate:
    raw: dict[str, Any] = {
        "apiVersion": "cilium.io/v2",
        "kind": kind,
        "metadata": {"name": name},
        **top,
    }
    if spec != "absent":
        raw["spec"] = spec
    return Candidate(kind, raw, 0, clusterwide=kind == "CiliumClusterwideNetworkPolicy")


def decide(*candidates: Candidate, subject: Subject = SUBJECT, port: int = PORT) -> Any:
    documents = [d for c in candidates for d in ingress_documents(c, subject, port)]
    return decide_ingress(documents, port)


def verdicts(decision: Any) -> list[str]:
    return [entry.verdict for entry in decision.examined]


HOST_PEER = {"podSelector": {"matchLabels": {"namzu.ai/component": "host"}}}
CLOSED_RULE = {"from": [HOST_PEER], "ports": [{"protocol": "TCP", "port": 1024}]}
OPEN_RULE = {"ports": [{"port": 1024}]}

# --- §13.2 core port coverage -----------------------------------------------------------


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        pytest.param("absent", YES, id="absent"),
        pytest.param(None, YES, id="null"),
        pytest.param([], YES, id="empty"),
        pytest.param("1024", UNKNOWN, id="list-unreadable"),
        pytest.param({"port": 1024}, UNKNOWN, id="object-not-list"),
        pytest.param(["TCP"], UNKNOWN, id="entry-not-object"),
        pytest.param([{}], YES, id="no-port-tcp-default"),
        pytest.param([{"protocol": "TCP"}], YES, id="tcp-every-port"),
        pytest.param([{"protocol": 6, "port": 1024}], UNKNOWN, id="protocol-not-string"),
        pytest.param([{"protocol": None, "port": 1024}], UNKNOWN, id="protocol-null"),
        # Q8: the core ingress check compares TCP case-sensitively.
        pytest.param([{"protocol": "tcp", "port": 1024}], NO, id="lowercase-tcp-skipped"),
        pytest.param([{"protocol": "tcp"}], NO, id="lowercase-tcp-every-port-skipped"),
        pytest.param([{"protocol": "UDP", "port": 1024}], NO, id="udp-skipped"),
        pytest.param([{"protocol": "SCTP"}], NO, id="sctp-skipped"),
        pytest.param(
            [{"protocol": "UDP", "port": "x", "endPort": "y"}], NO, id="skip-before-checks"
        ),
        pytest.param([{"port": 1024, "endPort": "2000"}], UNKNOWN, id="endport-not-number"),
        pytest.param([{"port": 1024, "endPort": None}], UNKNOWN, id="endport-null"),
        pytest.param([{"port": 1024, "endPort": True}], UNKNOWN, id="endport-bool"),
        pytest.param([{"port": 1024}], YES, id="equal"),
        pytest.param([{"port": 1024.0}], YES, id="equal-float"),
        pytest.param([{"port": 80}], NO, id="other-port"),
        pytest.param([{"port": 1000, "endPort": 2000}], YES, id="inside-range"),
        pytest.param([{"port": 1000, "endPort": 1024}], YES, id="range-end"),
        pytest.param([{"port": 1024, "endPort": 1000}], YES, id="start-equal-bad-range"),
        pytest.param([{"port": 1025, "endPort": 2000}], NO, id="range-above"),
        pytest.param([{"port": 1000, "endPort": 1023}], NO, id="range-below"),
        pytest.param([{"port": 1000}], NO, id="start-below-no-end"),
        # Q9: core ingress demands canonical decimal text.
        pytest.param([{"port": "1024"}], YES, id="string-numeric"),
        pytest.param([{"port": " 1024 "}], YES, id="string-padded"),
        pytest.param([{"port": "\t1024\n"}], YES, id="string-js-whitespace"),
        pytest.param([{"port": "0x400"}], UNKNOWN, id="string-hex-is-named"),
        pytest.param([{"port": "1024.0"}], UNKNOWN, id="string-fraction-is-named"),
        pytest.param([{"port": "+1024"}], UNKNOWN, id="string-sign-is-named"),
        pytest.param([{"port": "01024"}], UNKNOWN, id="string-leading-zero-is-named"),
        pytest.param([{"port": "1e3"}], UNKNOWN, id="string-exponent-is-named"),
        pytest.param([{"port": "https"}], UNKNOWN, id="named-port"),
        pytest.param([{"port": ""}], UNKNOWN, id="empty-string"),
        pytest.param([{"port": "80"}], NO, id="string-other-port"),
        pytest.param([{"port": "1000", "endPort": 2000}], YES, id="string-start-range"),
        pytest.param([{"port": True}], UNKNOWN, id="bool-port"),
        pytest.param([{"port": None}], UNKNOWN, id="null-port"),
        pytest.param([{"port": [1024]}], UNKNOWN, id="list-port"),
        # A later match still returns true; marks only matter without one.
        pytest.param([{"port": "https"}, {"port": 1024}], YES, id="match-after-mark"),
        pytest.param([{"port": "https"}, {"port": 80}], UNKNOWN, id="mark-without-match"),
        pytest.param([{"port": 80}, "junk", {"port": 1024}], YES, id="match-after-junk"),
    ],
)
def test_core_port_reach(ports: Any, expected: Tri) -> None:
    rule = {} if ports == "absent" else {"ports": ports}
    assert core_port_reach(rule, PORT)[0] is expected


@pytest.mark.parametrize(
    ("ports", "agent_port", "expected"),
    [
        ([{"port": 2222}], 2222, YES),
        ([{"port": 1024}], 2222, NO),
        ([{"port": "2222"}], 2222, YES),
        ([{"port": 2000, "endPort": 3000}], 2222, YES),
    ],
)
def test_core_port_reach_uses_the_agent_port(ports: Any, agent_port: int, expected: Tri) -> None:
    assert core_port_reach({"ports": ports}, agent_port)[0] is expected


# --- §13.2 Cilium port coverage -------------------------------------------------------------


def to_ports(*ports: Any) -> dict[str, Any]:
    return {"toPorts": [{"ports": list(ports)}]}


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        pytest.param({}, YES, id="toPorts-absent"),
        pytest.param({"toPorts": None}, YES, id="toPorts-null"),
        pytest.param({"toPorts": []}, YES, id="toPorts-empty"),
        pytest.param({"toPorts": {"ports": []}}, UNKNOWN, id="toPorts-unreadable"),
        pytest.param({"toPorts": ["x"]}, UNKNOWN, id="entry-not-object"),
        pytest.param({"toPorts": [{"ports": "1024"}]}, UNKNOWN, id="entry-ports-unreadable"),
        pytest.param({"toPorts": [{}]}, YES, id="entry-ports-absent"),
        pytest.param({"toPorts": [{"ports": []}]}, YES, id="entry-ports-empty"),
        pytest.param({"toPorts": [{"ports": None, "rules": {}}]}, YES, id="entry-ports-null"),
        pytest.param(to_ports("1024"), UNKNOWN, id="port-not-object"),
        pytest.param(to_ports({"port": "1024", "protocol": 6}), UNKNOWN, id="protocol-not-string"),
        pytest.param(to_ports({"port": "1024", "protocol": None}), UNKNOWN, id="protocol-null"),
        # Q8: Cilium uppercases, and an absent protocol is ANY.
        pytest.param(to_ports({"port": "1024", "protocol": "tcp"}), YES, id="lowercase-tcp"),
        pytest.param(to_ports({"port": "1024", "protocol": "any"}), YES, id="lowercase-any"),
        pytest.param(to_ports({"port": "1024"}), YES, id="protocol-absent-is-any"),
        pytest.param(to_ports({"port": "1024", "protocol": "UDP"}), NO, id="udp-skipped"),
        pytest.param(
            to_ports({"port": "x", "protocol": "UDP", "endPort": "y"}), NO, id="skip-first"
        ),
        pytest.param(to_ports({"port": "1024", "endPort": "2000"}), UNKNOWN, id="endport-string"),
        pytest.param(to_ports({"protocol": "TCP"}), YES, id="port-absent"),
        pytest.param(to_ports({"port": True}), UNKNOWN, id="port-bool"),
        pytest.param(to_ports({"port": None}), UNKNOWN, id="port-null"),
        pytest.param(to_ports({"port": 1024}), YES, id="number"),
        # Q9: plain Number() on Cilium strings.
        pytest.param(to_ports({"port": "0x400"}), YES, id="hex-accepted"),
        pytest.param(to_ports({"port": "1024.0"}), YES, id="fraction-zero-accepted"),
        pytest.param(to_ports({"port": " 1024 "}), YES, id="padded"),
        pytest.param(to_ports({"port": "1e3", "endPort": 2000}), YES, id="exponent-range"),
        pytest.param(to_ports({"port": "1024.5"}), UNKNOWN, id="fraction"),
        pytest.param(to_ports({"port": "http-alt"}), UNKNOWN, id="named"),
        pytest.param(to_ports({"port": "80"}), NO, id="other-port"),
        pytest.param(to_ports({"port": "1000", "endPort": 2000}), YES, id="range"),
        pytest.param(to_ports({"port": "1025", "endPort": 2000}), NO, id="range-above"),
        pytest.param(to_ports({"port": "https"}, {"port": "1024"}), YES, id="match-after-mark"),
        pytest.param(to_ports({"port": "https"}, {"port": "80"}), UNKNOWN, id="mark-no-match"),
        pytest.param(
            {"toPorts": [{"ports": [{"port": "80"}]}, {"ports": []}]}, YES, id="later-entry-all"
        ),
        pytest.param(
            {"toPorts": ["junk", {"ports": [{"port": "1024"}]}]}, YES, id="match-after-bad-entry"
        ),
    ],
)
def test_cilium_port_reach(rule: dict[str, Any], expected: Tri) -> None:
    assert cilium_port_reach(rule, PORT)[0] is expected


def test_three_readings_of_0x400() -> None:
    """Q9: "0x400" is a port for egress and Cilium ingress, a name for core ingress."""
    assert core_port_reach({"ports": [{"port": "0x400"}]}, PORT)[0] is UNKNOWN
    assert cilium_port_reach(to_ports({"port": "0x400"}), PORT)[0] is YES


# --- §13.3 core rule verdicts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "outcome", "fragment"),
    [
        pytest.param("rule", UNKNOWN, "not an object", id="not-object"),
        pytest.param(None, UNKNOWN, "not an object", id="null"),
        pytest.param({"ports": [{"port": "https"}]}, UNKNOWN, '"https"', id="named-port"),
        pytest.param(
            {"ports": "x", "from": "x"}, UNKNOWN, "`ports` is not a list", id="ports-list"
        ),
        # Coverage is judged before sources: a closed port hides everything else.
        pytest.param({"ports": [{"port": 80}], "from": "junk"}, NO, None, id="closed-first"),
        pytest.param({"ports": [{"port": 80}]}, NO, None, id="closed-no-from"),
        pytest.param({"from": "junk"}, UNKNOWN, "`from` is not a list", id="from-unreadable"),
        pytest.param({}, YES, "no `from` peers", id="from-absent"),
        pytest.param({"from": None}, YES, "no `from` peers", id="from-null"),
        pytest.param({"from": []}, YES, "no `from` peers", id="from-empty"),
        pytest.param({"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}, YES, "0.0.0.0/0", id="v4-any"),
        pytest.param(
            {"from": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]},
            YES,
            "except",
            id="v4-any-except-ignored",
        ),
        pytest.param({"from": [{"ipBlock": {"cidr": " ::/0 "}}]}, YES, "::/0", id="v6-any-trim"),
        pytest.param({"from": [{"namespaceSelector": {}}]}, YES, "namespaceSelector", id="all-ns"),
        pytest.param(
            {"from": [{"namespaceSelector": {"matchLabels": {}}, "podSelector": {}}]},
            YES,
            "namespaceSelector",
            id="all-ns-all-pods",
        ),
        pytest.param({"from": [{"podSelector": {}}]}, NO, None, id="same-ns-pods-excluded"),
        pytest.param({"from": [HOST_PEER]}, NO, None, id="host-peer"),
        pytest.param(
            {"from": [{"namespaceSelector": {"matchLabels": {"a": "b"}}}]}, NO, None, id="some-ns"
        ),
        pytest.param({"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}, NO, None, id="private"),
        pytest.param({"from": [{}]}, UNKNOWN, "cannot be read: {}", id="empty-peer"),
        pytest.param({"from": ["peer"]}, UNKNOWN, '"peer"', id="peer-not-object"),
        pytest.param(
            {"from": [{"ipBlock": "0.0.0.0/0"}]}, UNKNOWN, "cannot be read", id="bad-ipblock"
        ),
        # A wide-open peer anywhere beats an unreadable one earlier in the list.
        pytest.param(
            {"from": [{}, {"namespaceSelector": {}}]}, YES, "namespaceSelector", id="open-beats"
        ),
        pytest.param(
            {"from": [HOST_PEER, {}]}, UNKNOWN, "cannot be read", id="unknown-beats-closed"
        ),
    ],
)
def test_core_rule_verdict(rule: Any, outcome: Tri, fragment: str | None) -> None:
    verdict = core_ingress_verdict(rule, 3, PORT)
    assert verdict.outcome is outcome
    assert verdict.index == 3
    if fragment is None:
        assert verdict.detail is None
    else:
        assert verdict.detail is not None
        assert fragment in verdict.detail


@pytest.mark.parametrize(
    "rule",
    [{}, {"from": [{"namespaceSelector": {}}]}, {"ports": [{"port": "https"}]}],
)
def test_core_details_name_the_agent_port(rule: Any) -> None:
    detail = core_ingress_verdict(rule, 0, 2222).detail
    assert detail is not None
    assert "TCP 2222" in detail


# --- §13.3 Cilium rule verdicts -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "outcome", "fragment"),
    [
        pytest.param([], UNKNOWN, "not an object", id="not-object"),
        pytest.param({"toPorts": "x"}, UNKNOWN, "`toPorts`", id="ports-unknown"),
        pytest.param(
            {**to_ports({"port": "80"}), "fromEntities": ["world"]}, NO, None, id="closed-first"
        ),
        # Step 4 reads every source field before judging any.
        pytest.param(
            {"fromEntities": ["world"], "fromGroups": "x"}, UNKNOWN, "`fromGroups`", id="read-all"
        ),
        pytest.param({"fromEndpoints": {}}, UNKNOWN, "`fromEndpoints`", id="endpoints-list"),
        pytest.param({"fromCIDRSet": "x"}, UNKNOWN, "`fromCIDRSet`", id="cidrset-list"),
        pytest.param({"fromNodes": 1}, UNKNOWN, "`fromNodes`", id="nodes-list"),
        # Step 5: entities.
        pytest.param({"fromEntities": ["world"]}, YES, "'world'", id="world"),
        pytest.param({"fromEntities": ["cluster"]}, YES, "'cluster'", id="cluster"),
        pytest.param({"fromEntities": ["all"]}, YES, "'all'", id="all"),
        pytest.param({"fromEntities": ["host", "remote-node"]}, NO, None, id="narrow-entities"),
        pytest.param({"fromEntities": ["World"]}, NO, None, id="entities-case-sensitive"),
        pytest.param({"fromEntities": ["host", "world"]}, YES, "'world'", id="later-world"),
        pytest.param({"fromEntities": [5, "world"]}, UNKNOWN, "5", id="entity-not-string"),
        pytest.param({"fromEntities": ["world", 5]}, YES, "'world'", id="world-first"),
        # Step 6: CIDRs.
        pytest.param({"fromCIDR": ["0.0.0.0/0"]}, YES, "0.0.0.0/0", id="cidr-v4"),
        pytest.param({"fromCIDR": [" ::/0\n"]}, YES, "::/0", id="cidr-v6-trimmed"),
        pytest.param({"fromCIDR": ["10.0.0.0/8"]}, NO, None, id="cidr-private"),
        pytest.param({"fromCIDR": ["0.0.0.0/1"]}, NO, None, id="cidr-half"),
        pytest.param({"fromCIDR": [None]}, UNKNOWN, "null", id="cidr-not-string"),
        # Step 7: CIDR sets.
        pytest.param(
            {"fromCIDRSet": [{"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}]},
            YES,
            "0.0.0.0/0",
            id="cidrset-wide",
        ),
        pytest.param({"fromCIDRSet": [{"cidr": "192.0.2.0/24"}]}, NO, None, id="cidrset-narrow"),
        # CLUSTER-POLICIES §6.3 replaces §13.3 step 7 for a group reference:
        # with no CiliumCIDRGroup named `g` in the manifests, it is unknown.
        pytest.param(
            {"fromCIDRSet": [{"cidrGroupRef": "g"}]}, UNKNOWN, "resolved", id="cidrset-group"
        ),
        pytest.param({"fromCIDRSet": ["0.0.0.0/0"]}, UNKNOWN, "not an object", id="cidrset-entry"),
        pytest.param({"fromCIDRSet": [{"cidr": None}]}, UNKNOWN, "`cidr`", id="cidrset-null"),
        pytest.param({"fromCIDRSet": [{"cidr": 0}]}, UNKNOWN, "`cidr`", id="cidrset-number"),
        # Step 8: endpoint and node selectors must be readable.
        pytest.param({"fromEndpoints": [None]}, UNKNOWN, "`fromEndpoints`", id="endpoint-null"),
        pytest.param(
            {"fromEndpoints": [{"matchLabels": {"a": 1}}]}, UNKNOWN, "`fromEndpoints`", id="ep-bad"
        ),
        pytest.param(
            {"fromNodes": [{"matchExpressions": None}]}, UNKNOWN, "`fromNodes`", id="nodes-bad"
        ),
        # fromEndpoints: [{}] is not treated as wide open.
        pytest.param({"fromEndpoints": [{}]}, NO, None, id="empty-endpoint-not-wide"),
        pytest.param({"fromEndpoints": [{"matchLabels": {}}]}, NO, None, id="empty-labels"),
        pytest.param({"fromNodes": [{}]}, NO, None, id="nodes"),
        pytest.param({"fromGroups": [{"aws": {}}]}, NO, None, id="groups-are-sources"),
        # Step 9: a port-only rule.
        pytest.param({}, YES, "port-only", id="empty-rule"),
        pytest.param(to_ports({"port": "1024"}), YES, "port-only", id="port-only"),
        pytest.param({"fromEndpoints": [], "fromCIDR": None}, YES, "port-only", id="empty-sources"),
        pytest.param({"fromRequires": [{}]}, YES, "port-only", id="requires-is-not-a-source"),
        # Order: entities, then CIDR, then CIDR sets, then selectors.
        pytest.param(
            {"fromEntities": [5], "fromCIDR": ["0.0.0.0/0"]}, UNKNOWN, "5", id="entities-first"
        ),
        pytest.param({"fromCIDR": [5], "fromEntities": ["world"]}, YES, "world", id="entity-open"),
        pytest.param(
            {"fromEndpoints": [None], "fromCIDRSet": [{"cidr": "::/0"}]},
            YES,
            "::/0",
            id="sets-first",
        ),
    ],
)
def test_cilium_rule_verdict(rule: Any, outcome: Tri, fragment: str | None) -> None:
    verdict = cilium_ingress_verdict(rule, 2, PORT)
    assert verdict.outcome is outcome
    assert verdict.index == 2
    if fragment is None:
        assert verdict.detail is None
    else:
        assert verdict.detail is not None
        assert fragment in verdict.detail


@pytest.mark.parametrize(
    "rule",
    [{}, {"fromEntities": ["world"]}, {"fromCIDR": ["0.0.0.0/0"]}, to_ports({"port": "x"})],
)
def test_cilium_details_name_the_agent_port(rule: Any) -> None:
    detail = cilium_ingress_verdict(rule, 0, 2222).detail
    assert detail is not None
    assert "TCP 2222" in detail


# --- §13.1 core documents --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "fragment"),
    [
        pytest.param(Candidate("NetworkPolicy", "junk", 4), "not a policy object", id="not-object"),
        pytest.param(core(), "`spec` is not an object", id="spec-absent"),
        pytest.param(core(None), "`spec` is not an object", id="spec-null"),
        pytest.param(core([]), "`spec` is not an object", id="spec-list"),
        pytest.param(core({"policyTypes": "Ingress"}), "`spec.policyTypes`", id="types"),
        pytest.param(
            core({"policyTypes": "x", "ingress": "x"}), "`spec.policyTypes`", id="types-first"
        ),
        pytest.param(core({"ingress": {"from": []}}), "`spec.ingress`", id="ingress"),
    ],
)
def test_core_unreadable_documents(candidate: Candidate, fragment: str) -> None:
    [document] = ingress_documents(candidate, SUBJECT, PORT)
    assert document.unreadable is not None
    assert fragment in document.unreadable
    assert ingress_verdict(document) == ("not-evaluable", document.unreadable)


def test_core_unreadable_egress_does_not_matter_for_ingress() -> None:
    [document] = ingress_documents(core({"egress": "junk"}), SUBJECT, PORT)
    assert document.unreadable is None
    assert ingress_verdict(document)[0] == "covers"


def test_unnamed_document_uses_position() -> None:
    [document] = ingress_documents(core({}, name="", position=7), SUBJECT, PORT)
    assert document.name == "(unnamed #7)"
    [document] = ingress_documents(Candidate("NetworkPolicy", 3, 2), SUBJECT, PORT)
    assert document.name == "(unnamed #2)"


@pytest.mark.parametrize(
    ("spec", "enforces"),
    [
        # The API server includes Ingress whenever policyTypes is absent,
        # null or empty (SEMANTICS §5.3, read as stored).
        pytest.param({}, True, id="absent-no-ingress"),
        pytest.param({"egress": [{}]}, True, id="absent-with-egress"),
        pytest.param({"policyTypes": None}, True, id="null-is-absent"),
        pytest.param({"policyTypes": ["Ingress"]}, True, id="ingress"),
        pytest.param({"policyTypes": ["Egress", "Ingress"]}, True, id="both"),
        pytest.param({"policyTypes": ["Egress"]}, False, id="egress-only"),
        pytest.param({"policyTypes": []}, True, id="empty"),
        pytest.param({"policyTypes": ["ingress"]}, False, id="case-sensitive"),
    ],
)
def test_core_enforces_ingress(spec: dict[str, Any], enforces: bool) -> None:
    [document] = ingress_documents(core(spec), SUBJECT, PORT)
    assert document.enforces is enforces
    expected = "covers" if enforces else "not-ingress-scoped"
    assert ingress_verdict(document)[0] == expected


def test_core_rules_only_judged_when_ingress_is_enforced() -> None:
    spec = {"policyTypes": ["Egress"], "ingress": [{}]}
    [document] = ingress_documents(core(spec), SUBJECT, PORT)
    assert document.rules == ()
    verdict, detail = ingress_verdict(document)
    assert verdict == "not-ingress-scoped"
    assert detail is not None
    assert "default-denies nothing on ingress" in detail


@pytest.mark.parametrize(
    ("selector", "selects"),
    [
        pytest.param("absent", YES, id="absent"),
        pytest.param({}, YES, id="empty"),
        pytest.param({"matchLabels": LABELS}, YES, id="template"),
        pytest.param({"matchLabels": {"sandbox.namzu.ai/template": "x"}}, NO, id="other"),
        pytest.param(None, UNKNOWN, id="null"),
        pytest.param({"matchExpressions": [{"key": "a", "operator": "Gt"}]}, UNKNOWN, id="op"),
        # Core selectors do not map Cilium sources: the key is taken literally.
        pytest.param(
            {"matchLabels": {"k8s:sandbox.namzu.ai/template": "namzu-task"}}, NO, id="no-mapping"
        ),
    ],
)
def test_core_selection(selector: Any, selects: Tri) -> None:
    spec = {} if selector == "absent" else {"podSelector": selector}
    [document] = ingress_documents(core(spec), SUBJECT, PORT)
    assert document.selects is selects


# --- §13.1 Cilium documents -----------------------------------------------------------------------


def test_cilium_spec_then_specs_in_order() -> None:
    candidate = cilium({"ingress": []}, specs=[{"ingress": [{}]}, {"ingressDeny": []}])
    documents = ingress_documents(candidate, SUBJECT, PORT)
    assert [d.spec_index for d in documents] == [None, 0, 1]
    assert [ingress_verdict(d)[0] for d in documents] == ["covers", "opens-agent-port", "covers"]
    assert {d.name for d in documents} == {"c"}


@pytest.mark.parametrize(
    ("candidate", "fragment"),
    [
        pytest.param(
            Candidate("CiliumNetworkPolicy", ["x"], 0), "not a policy object", id="not-object"
        ),
        # An unreadable specs drops the spec document too: one document only.
        pytest.param(cilium({"ingress": []}, specs="x"), "`specs`", id="specs-unreadable"),
        pytest.param(cilium(), "neither", id="neither"),
        pytest.param(cilium(None), "neither", id="spec-null"),
        pytest.param(cilium(specs=[]), "neither", id="specs-empty"),
        pytest.param(cilium(None, specs=None), "neither", id="both-null"),
        pytest.param(cilium("x"), "a rule spec is not an object", id="spec-not-object"),
        pytest.param(cilium({"ingress": "x"}), "`spec.ingress`", id="ingress"),
        pytest.param(cilium({"ingressDeny": {}}), "`spec.ingressDeny`", id="ingress-deny"),
        pytest.param(
            cilium({"enableDefaultDeny": None}), "`spec.enableDefaultDeny`", id="edd-null"
        ),
        pytest.param(
            cilium({"enableDefaultDeny": True}), "`spec.enableDefaultDeny`", id="edd-bool"
        ),
        pytest.param(
            cilium({"enableDefaultDeny": {"ingress": "false"}}),
            "`spec.enableDefaultDeny.ingress`",
            id="edd-ingress-string",
        ),
        pytest.param(
            cilium({"enableDefaultDeny": {"ingress": None}}),
            "`spec.enableDefaultDeny.ingress`",
            id="edd-ingress-null",
        ),
    ],
)
def test_cilium_unreadable_documents(candidate: Candidate, fragment: str) -> None:
    [document] = ingress_documents(candidate, SUBJECT, PORT)
    assert document.unreadable is not None
    assert fragment in document.unreadable


def test_cilium_unreadable_specs_entry_names_its_index() -> None:
    documents = ingress_documents(cilium({}, specs=[{}, 5]), SUBJECT, PORT)
    assert [d.unreadable for d in documents[:2]] == [None, None]
    assert documents[2].unreadable is not None
    assert "specs[1]" in documents[2].unreadable


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param({"egress": "junk"}, id="egress"),
        pytest.param({"egressDeny": "junk"}, id="egress-deny"),
        pytest.param({"enableDefaultDeny": {"egress": "junk"}}, id="edd-egress"),
    ],
)
def test_cilium_egress_fields_do_not_matter_for_ingress(spec: dict[str, Any]) -> None:
    [document] = ingress_documents(cilium({"ingress": [], **spec}), SUBJECT, PORT)
    assert document.unreadable is None


@pytest.mark.parametrize(
    "spec",
    [{"nodeSelector": {}, "ingress": [{}]}, {"nodeSelector": None, "ingress": "junk"}],
)
def test_cilium_node_scoped_specs_are_skipped(spec: dict[str, Any]) -> None:
    """Q11: a nodeSelector, even null, makes the spec node-scoped."""
    assert ingress_documents(cilium(spec), SUBJECT, PORT) == []
    documents = ingress_documents(cilium(spec, specs=[{"ingress": []}]), SUBJECT, PORT)
    assert [d.spec_index for d in documents] == [0]


@pytest.mark.parametrize(
    ("spec", "enforces"),
    [
        pytest.param({}, False, id="nothing"),
        pytest.param({"ingress": None}, False, id="null-is-absent"),
        pytest.param({"ingress": []}, True, id="empty-ingress-counts"),
        pytest.param({"ingressDeny": []}, True, id="empty-deny-counts"),
        pytest.param({"egress": []}, False, id="egress-only"),
        pytest.param({"ingress": [], "enableDefaultDeny": {"ingress": False}}, False, id="edd-off"),
        pytest.param({"ingress": [], "enableDefaultDeny": {"ingress": True}}, True, id="edd-on"),
        pytest.param({"ingress": [], "enableDefaultDeny": {}}, True, id="edd-empty"),
        pytest.param(
            {"ingress": [], "enableDefaultDeny": {"egress": False}}, True, id="edd-egress"
        ),
        pytest.param({"enableDefaultDeny": {"ingress": True}}, False, id="edd-cannot-turn-on"),
    ],
)
def test_cilium_enforces_ingress(spec: dict[str, Any], enforces: bool) -> None:
    [document] = ingress_documents(cilium(spec), SUBJECT, PORT)
    assert document.unreadable is None
    assert document.enforces is enforces


def test_cilium_rules_judged_even_when_default_deny_is_off() -> None:
    """§13.4: step 4 comes before step 6, so the open rule still opens."""
    spec = {"ingress": [{"fromEntities": ["world"]}], "enableDefaultDeny": {"ingress": False}}
    [document] = ingress_documents(cilium(spec), SUBJECT, PORT)
    assert document.enforces is False
    assert ingress_verdict(document)[0] == "opens-agent-port"


def test_cilium_ingress_deny_rules_are_not_judged() -> None:
    spec = {"ingressDeny": [{"fromEntities": ["world"]}]}
    [document] = ingress_documents(cilium(spec), SUBJECT, PORT)
    assert document.rules == ()
    assert ingress_verdict(document)[0] == "covers"


@pytest.mark.parametrize(
    ("selector", "selects"),
    [
        pytest.param("absent", YES, id="absent"),
        pytest.param(
            {"matchLabels": {"k8s:sandbox.namzu.ai/template": "namzu-task"}}, YES, id="k8s"
        ),
        pytest.param(
            {"matchLabels": {"any:sandbox.namzu.ai/template": "namzu-task"}}, YES, id="any"
        ),
        pytest.param(
            {"matchLabels": {"k8s:io.kubernetes.pod.namespace": NS}}, YES, id="identity-ns"
        ),
        pytest.param({"matchLabels": {"io.kubernetes.pod.namespace": "other"}}, NO, id="other-ns"),
        pytest.param({"matchLabels": {"reserved:host": ""}}, UNKNOWN, id="reserved-source"),
        pytest.param(
            {"matchLabels": {"k8s:io.cilium.k8s.policy.serviceaccount": "x"}}, NO, id="absent-label"
        ),
    ],
)
def test_cilium_selection_uses_identity_labels(selector: Any, selects: Tri) -> None:
    spec: dict[str, Any] = {"ingress": []}
    if selector != "absent":
        spec["endpointSelector"] = selector
    [document] = ingress_documents(cilium(spec), SUBJECT, PORT)
    assert document.selects is selects


def test_clusterwide_policies_are_read_like_cilium() -> None:
    spec = {
        "endpointSelector": {"matchLabels": {"k8s:io.kubernetes.pod.namespace": NS}},
        "ingress": [{"fromEntities": ["cluster"]}],
    }
    candidate = cilium(spec, kind="CiliumClusterwideNetworkPolicy", name="ccnp")
    [document] = ingress_documents(candidate, SUBJECT, PORT)
    assert document.kind == "CiliumClusterwideNetworkPolicy"
    assert document.selects is YES
    assert ingress_verdict(document)[0] == "opens-agent-port"


def test_rule_indexes_locate_rules() -> None:
    spec = {"ingress": [CLOSED_RULE, {"fromEntities": ["world"]}]}
    [document] = ingress_documents(cilium(spec), SUBJECT, PORT)
    assert [r.index for r in document.rules] == [0, 1]


# --- §13.4 document verdicts and precedence ------------------------------------------------------


def doc(
    name: str,
    *,
    selects: Tri = YES,
    enforces: bool = True,
    rules: tuple[Tri, ...] = (),
    unreadable: str | None = None,
) -> PolicyDocument:
    verdicts = tuple(
        RuleVerdict(outcome, None if outcome is NO else f"rule {i} of {name}", i)
        for i, outcome in enumerate(rules)
    )
    return PolicyDocument("NetworkPolicy", name, selects, enforces, verdicts, unreadable)


@pytest.mark.parametrize(
    ("document", "verdict", "detail"),
    [
        pytest.param(
            doc("a", unreadable="bad", selects=NO), "not-evaluable", "bad", id="unreadable-first"
        ),
        pytest.param(
            doc("a", selects=NO, rules=(YES,)), "does-not-select", None, id="not-selecting"
        ),
        pytest.param(
            doc("a", selects=UNKNOWN, rules=(YES,)), "not-evaluable", "selector", id="unknown"
        ),
        pytest.param(
            doc("a", rules=(UNKNOWN, YES)), "opens-agent-port", "rule 1 of a", id="open-first"
        ),
        pytest.param(
            doc("a", rules=(NO, UNKNOWN, UNKNOWN)),
            "not-evaluable",
            "rule 1 of a",
            id="first-unknown",
        ),
        pytest.param(
            doc("a", enforces=False, rules=(YES,)),
            "opens-agent-port",
            "rule 0",
            id="open-before-scope",
        ),
        pytest.param(
            doc("a", enforces=False, rules=(UNKNOWN,)),
            "not-evaluable",
            "rule 0",
            id="unknown-before-scope",
        ),
        pytest.param(
            doc("a", enforces=False, rules=(NO,)), "not-ingress-scoped", "ingress", id="not-scoped"
        ),
        pytest.param(doc("a", rules=(NO, NO)), "covers", None, id="covers"),
    ],
)
def test_document_verdict(document: PolicyDocument, verdict: str, detail: str | None) -> None:
    got, got_detail = ingress_verdict(document)
    assert got == verdict
    if detail is None:
        assert got_detail is None
    else:
        assert got_detail is not None
        assert detail in got_detail


@pytest.mark.parametrize(
    ("documents", "refusal", "named"),
    [
        pytest.param([], "no-covering-policy", None, id="nothing"),
        pytest.param([doc("a", selects=NO)], "no-covering-policy", None, id="none-selects"),
        pytest.param([doc("a", enforces=False)], "no-covering-policy", None, id="not-scoped"),
        pytest.param([doc("a")], None, None, id="covers"),
        pytest.param([doc("a"), doc("b", enforces=False)], None, None, id="one-covers"),
        # Open beats undecided beats no-covering, whatever the order.
        pytest.param(
            [doc("u", rules=(UNKNOWN,)), doc("o", rules=(YES,)), doc("c")],
            "port-open",
            "NetworkPolicy/o",
            id="open-beats-undecided",
        ),
        pytest.param(
            [doc("o1", rules=(YES,)), doc("o2", rules=(YES,))],
            "port-open",
            "NetworkPolicy/o1",
            id="first-open",
        ),
        pytest.param(
            [doc("c"), doc("u1", unreadable="x"), doc("u2", selects=UNKNOWN)],
            "not-evaluable",
            "NetworkPolicy/u1",
            id="undecided-beats-covering",
        ),
        pytest.param(
            [doc("n", enforces=False), doc("u", selects=UNKNOWN)],
            "not-evaluable",
            "NetworkPolicy/u",
            id="undecided-beats-no-covering",
        ),
        # There is no allow-all style exemption, and a non-selecting open
        # policy does not count.
        pytest.param(
            [doc("o", selects=NO, rules=(YES,)), doc("c")], None, None, id="not-selecting"
        ),
    ],
)
def test_precedence(
    documents: list[PolicyDocument], refusal: str | None, named: str | None
) -> None:
    decision = decide_ingress(documents, PORT)
    assert decision.refusal == refusal
    assert [e.name for e in decision.examined] == [d.name for d in documents]
    assert [e.document for e in decision.examined] == documents
    if refusal is None:
        assert decision.summary is None
    else:
        assert decision.summary is not None
    if named is not None:
        assert decision.summary is not None
        assert named in decision.summary


def test_summaries() -> None:
    opened = decide_ingress([doc("o", rules=(YES,))], 2222)
    assert opened.summary is not None
    assert "NetworkPolicy/o" in opened.summary
    assert "rule 0 of o" in opened.summary
    assert "TCP 2222" in opened.summary

    undecided = decide_ingress([doc("u", rules=(UNKNOWN,))], 2222)
    assert undecided.summary is not None
    for fact in ("NetworkPolicy/u", "rule 0 of u", "cannot be decided", "TCP 2222"):
        assert fact in undecided.summary

    uncovered = decide_ingress([], 2222)
    assert uncovered.summary is not None
    assert "no policy enforces ingress" in uncovered.summary
    assert "every pod in the cluster" in uncovered.summary


# --- end to end over manifests --------------------------------------------------------------------

BASELINE: dict[str, Any] = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "namzu-sandbox-baseline", "namespace": NS},
    "spec": {
        "podSelector": {
            "matchExpressions": [{"key": "sandbox.namzu.ai/template", "operator": "Exists"}]
        },
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [{"podSelector": {"matchLabels": {"namzu.ai/component": "host"}}}],
                "ports": [{"protocol": "TCP", "port": 1024}],
            }
        ],
        "egress": [
            {
                "to": [
                    {
                        "namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": "kube-system"}
                        },
                        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
                    }
                ],
                "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
            },
            {
                "to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}],
                "ports": [{"protocol": "TCP", "port": 443}],
            },
        ],
    },
}


def baseline() -> Candidate:
    return Candidate("NetworkPolicy", json.loads(json.dumps(BASELINE)), 0)


def test_reference_baseline_covers() -> None:
    decision = decide(baseline())
    assert decision.refusal is None
    assert verdicts(decision) == ["covers"]
    assert decision.examined[0].name == "namzu-sandbox-baseline"


def test_reference_baseline_does_not_select_other_pods() -> None:
    decision = decide(baseline(), subject=Subject(NS, {"app": "web"}))
    assert verdicts(decision) == ["does-not-select"]
    assert decision.refusal == "no-covering-policy"


def test_open_policy_next_to_the_baseline_opens_the_port() -> None:
    opener = core(
        {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}]}]}, name="open"
    )
    decision = decide(baseline(), opener)
    assert verdicts(decision) == ["covers", "opens-agent-port"]
    assert decision.refusal == "port-open"
    assert decision.summary is not None
    assert "NetworkPolicy/open" in decision.summary


def test_baseline_with_a_named_port_is_not_evaluable() -> None:
    candidate = baseline()
    candidate.raw["spec"]["ingress"][0]["ports"] = [{"protocol": "TCP", "port": "agent"}]
    decision = decide(candidate)
    assert decision.refusal == "not-evaluable"


def test_controller_default_policy_covers_pooled_pods_only() -> None:
    """AGENT-SANDBOX §4.3: the router peer needs both selectors, so it is not wide open."""
    template = {"kind": "SandboxTemplate", "metadata": {"name": "namzu-task"}, "spec": {}}
    policy = controller_policy(template, NS)
    candidate = Candidate("NetworkPolicy", policy, 0)
    pooled = Subject(NS, {**LABELS, TEMPLATE_HASH_LABEL: name_hash("namzu-task")})
    assert verdicts(decide(candidate, subject=pooled)) == ["covers"]
    assert verdicts(decide(candidate)) == ["does-not-select"]


def test_controller_custom_block_without_ingress_covers() -> None:
    """AGENT-SANDBOX §4.2: an omitted ingress denies all ingress."""
    template = {
        "kind": "SandboxTemplate",
        "metadata": {"name": "t"},
        "spec": {"networkPolicy": {"egress": [{"ports": [{"port": 443}]}]}},
    }
    candidate = Candidate("NetworkPolicy", controller_policy(template, NS), 0)
    pooled = Subject(NS, {TEMPLATE_HASH_LABEL: name_hash("t")})
    assert verdicts(decide(candidate, subject=pooled)) == ["covers"]


# --- robustness over real manifests -------------------------------------------------------------------

POLICY_KINDS = ("NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy")
VOCABULARY = {
    "covers",
    "opens-agent-port",
    "does-not-select",
    "not-ingress-scoped",
    "not-evaluable",
}


def _corpus_policies() -> list[Candidate]:
    yaml = pytest.importorskip("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    found: list[Candidate] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if "NetworkPolicy" not in text:
            continue
        try:
            docs = list(yaml.load_all(text, Loader=loader))
        except Exception:  # unparseable corpus files are kept on purpose
            continue
        for item in docs:
            items = item.get("items") if isinstance(item, dict) and "items" in item else [item]
            for obj in items if isinstance(items, list) else []:
                if isinstance(obj, dict) and obj.get("kind") in POLICY_KINDS:
                    found.append(Candidate(obj["kind"], obj, len(found)))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_corpus_policies_never_crash() -> None:
    candidates = _corpus_policies()
    assert len(candidates) > 100
    subject = Subject("default", {"app": "web", "sandbox.namzu.ai/template": "t"})
    seen: set[str] = set()
    for candidate in candidates:
        documents = ingress_documents(candidate, subject, PORT)
        decision = decide_ingress(documents, PORT)
        assert decision.refusal in (None, "port-open", "no-covering-policy", "not-evaluable")
        seen.update(entry.verdict for entry in decision.examined)
    assert seen <= VOCABULARY
    assert {"covers", "opens-agent-port", "does-not-select"} <= seen


# --- fromCIDRSet group references (CLUSTER-POLICIES §6.3, binding by its §11) ------------


def _cidr_group(name: str, cidrs: Any, labels: Any = None) -> ReachCandidate:
    metadata: dict[str, Any] = {"name": name}
    if labels is not None:
        metadata["labels"] = labels
    raw = {"apiVersion": "cilium.io/v2", "kind": "CiliumCIDRGroup", "metadata": metadata}
    raw["spec"] = {"externalCIDRs": cidrs}
    return ReachCandidate("cilium.io/v2", "CiliumCIDRGroup", raw)


EVERYONE = _cidr_group("everyone", ["10.0.0.0/8", "0.0.0.0/0"], {"scope": "all"})
OFFICE = _cidr_group("office", ["192.0.2.0/24"], {"scope": "office"})


@pytest.mark.parametrize(
    ("entry", "outcome", "fragment"),
    [
        pytest.param({"cidrGroupRef": "everyone"}, YES, "0.0.0.0/0", id="ref-wide"),
        pytest.param({"cidrGroupRef": "office"}, NO, None, id="ref-narrow"),
        pytest.param({"cidrGroupRef": "missing"}, UNKNOWN, "missing", id="ref-missing"),
        pytest.param({"cidrGroupRef": 5}, UNKNOWN, "fromCIDRSet", id="ref-not-a-string"),
        pytest.param(
            {"cidrGroupSelector": {"matchLabels": {"scope": "all"}}}, YES, "0.0.0.0/0", id="sel"
        ),
        pytest.param({"cidrGroupSelector": {}}, YES, "/0", id="empty-selector-is-every-address"),
        pytest.param(
            {"cidrGroupSelector": {"matchLabels": {"scope": "none"}}}, UNKNOWN, None, id="no-match"
        ),
        pytest.param(
            {"cidr": "192.0.2.0/24", "cidrGroupRef": "everyone"}, YES, "0.0.0.0/0", id="both"
        ),
    ],
)
def test_a_cidr_set_group_reference_is_resolved(
    entry: dict[str, Any], outcome: Tri, fragment: str | None
) -> None:
    rule = {"fromCIDRSet": [entry]}
    verdict = cilium_ingress_verdict(rule, 0, PORT, (EVERYONE, OFFICE))
    assert verdict.outcome is outcome
    if fragment is not None:
        assert verdict.detail is not None and fragment in verdict.detail


def test_without_the_groups_a_reference_cannot_be_resolved() -> None:
    # The reference reading skipped such an entry as closed; §6.3 fails closed.
    verdict = cilium_ingress_verdict({"fromCIDRSet": [{"cidrGroupRef": "everyone"}]}, 0, PORT)
    assert verdict.outcome is UNKNOWN
