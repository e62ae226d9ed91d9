"""C§3 AdminNetworkPolicy / BaselineAdminNetworkPolicy and C§4
ClusterNetworkPolicy: the document reader, the subject, every rule step,
the ports and `protocols` readers, the `to` entries and the baseline excuse."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.model import ALL_PORTS, CidrPeer, PortRange, SelectorPeer
from lint.decision.reach.admin import (
    ANP_FLAVOUR,
    ANP_PEER_FIELDS,
    BANP_PEER_FIELDS,
    judge_document,
    read_anp_ports,
    read_to_entry,
)
from lint.decision.reach.cluster_network_policy import read_protocols
from lint.decision.reach.model import (
    DomainPeer,
    NodesPeer,
    ReachCandidate,
    ReachDocument,
    UnreadablePeer,
)
from tests.decision.reach.scenario import (
    KDNS,
    Scenario,
    anp,
    banp,
    cnp,
    data_for,
    run,
    subject_for,
    union_documents,
)

ALL_NS: dict[str, Any] = {"namespaces": {}}
WORLD: dict[str, Any] = {"networks": ["0.0.0.0/0"]}


def judge(raw: Any, code: str = "D", **scenario: Any) -> ReachDocument:
    (document,) = run(Scenario(code, [raw], **scenario)).new
    return document


def _anp_rule(rule: Any, subject: Any = None) -> dict[str, Any]:
    return anp({"subject": ALL_NS if subject is None else subject, "egress": [rule]})


# --- §3.2 reading a document ------------------------------------------------------------------

READ_FAILURES: list[tuple[str, Any, str]] = [
    ("1 not an object", ["x"], "not a policy object"),
    (
        "2 spec absent",
        {"apiVersion": "policy.networking.k8s.io/v1alpha1", "kind": "AdminNetworkPolicy"},
        "`spec` is not an object",
    ),
    ("2 spec null", anp(None), "`spec` is not an object"),
    (
        "3 subject not an object",
        anp({"subject": [], "egress": []}),
        "`spec.subject` is not an object",
    ),
    ("4 neither", anp({"subject": {}, "egress": []}), "exactly one of"),
    ("4 both", anp({"subject": {"namespaces": {}, "pods": {}}, "egress": []}), "exactly one of"),
    (
        "4 null counts as absent",
        anp({"subject": {"namespaces": None}, "egress": []}),
        "exactly one of",
    ),
    ("5 egress not a list", anp({"subject": ALL_NS, "egress": {}}), "`spec.egress` is not a list"),
]


@pytest.mark.parametrize(
    ("case", "raw", "detail"), READ_FAILURES, ids=[c for c, *_ in READ_FAILURES]
)
def test_unreadable_documents(case: str, raw: Any, detail: str) -> None:
    """§3.2 steps 1-5, each `not-evaluable` with its detail (§2.7 step 1)."""
    scenario = Scenario("D")
    subject = subject_for(scenario, union_documents("D"))
    candidate = ReachCandidate("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy", raw)
    document = judge_document(candidate, subject, data_for(scenario), ANP_FLAVOUR)
    assert str(document.verdict) == "not-evaluable"
    assert document.detail is not None and detail in document.detail


def test_egress_null_is_not_egress_scoped() -> None:
    """The list reader reads null as absent: no egress rules (§2.7 step 3)."""
    assert str(judge(anp({"subject": ALL_NS, "egress": None})).verdict) == "not-egress-scoped"
    assert str(judge(anp({"subject": ALL_NS, "egress": []})).verdict) == "not-egress-scoped"


# --- §3.3 the subject ---------------------------------------------------------------------------

ALLOW_WORLD = {"action": "Allow", "to": [WORLD]}
SUBJECTS: list[tuple[str, Any, dict[str, str] | None, str]] = [
    ("namespaces, empty", ALL_NS, None, "widens-egress"),
    (
        "namespaces by name label, partial view",
        {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "sbx"}}},
        None,
        "widens-egress",
    ),
    (
        "namespaces, other namespace",
        {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "other"}}},
        None,
        "does-not-select",
    ),
    (
        "namespaces, unknown label",
        {"namespaces": {"matchLabels": {"team": "ml"}}},
        None,
        "not-evaluable",
    ),
    (
        "namespaces, unreadable selector",
        {"namespaces": {"matchLabels": None}},
        None,
        "not-evaluable",
    ),
    (
        "pods, pod labels match",
        {"pods": {"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "agent"}}}},
        None,
        "widens-egress",
    ),
    ("pods, absent selectors are empty", {"pods": {}}, None, "widens-egress"),
    (
        "pods, no beats unknown",
        {
            "pods": {
                "namespaceSelector": {"matchLabels": {"team": "ml"}},
                "podSelector": {"matchLabels": {"app": "other"}},
            }
        },
        None,
        "does-not-select",
    ),
    ("pods, extra key", {"pods": {"podSelector": {}, "namespaces": {}}}, None, "not-evaluable"),
    ("pods, not an object", {"pods": "all"}, None, "not-evaluable"),
    (
        "pods, hash label value",
        {"pods": {"podSelector": {"matchLabels": {"agents.x-k8s.io/sandbox-name-hash": "abc"}}}},
        None,
        "not-evaluable",
    ),
    (
        "pods, hash label exists",
        {
            "pods": {
                "podSelector": {
                    "matchExpressions": [
                        {"key": "agents.x-k8s.io/sandbox-name-hash", "operator": "Exists"}
                    ]
                }
            }
        },
        None,
        "widens-egress",
    ),
    (
        "namespaces, known labels",
        {"namespaces": {"matchLabels": {"team": "ml"}}},
        {"team": "ml"},
        "widens-egress",
    ),
]


@pytest.mark.parametrize(
    ("case", "subject", "labels", "verdict"), SUBJECTS, ids=[c for c, *_ in SUBJECTS]
)
def test_subject(case: str, subject: Any, labels: dict[str, str] | None, verdict: str) -> None:
    """§3.3 over the §2.3 views; a widening rule shows what `selects` was."""
    document = judge(_anp_rule(ALLOW_WORLD, subject), namespace_labels=labels)
    assert str(document.verdict) == verdict


# --- §3.4 rule steps ----------------------------------------------------------------------------

RULES: list[tuple[str, Any, str, str, str | None]] = [
    ("1 not an object", "Allow", "D", "not-evaluable", "not an object"),
    (
        "2 action missing",
        {"to": [WORLD]},
        "D",
        "not-evaluable",
        "null is not one of Allow, Deny, Pass",
    ),
    ("2 action lowercase", {"action": "allow", "to": [WORLD]}, "D", "not-evaluable", '"allow"'),
    ("2 v1alpha2 Accept", {"action": "Accept", "to": [WORLD]}, "D", "not-evaluable", '"Accept"'),
    (
        "3 Deny never judged",
        {"action": "Deny", "to": [WORLD], "ports": "junk"},
        "D",
        "within",
        None,
    ),
    ("4 Pass under ISO is free", {"action": "Pass", "ports": "junk"}, "D", "within", None),
    (
        "5 Pass without ISO is allow-like",
        {"action": "Pass", "to": [WORLD]},
        "S",
        "widens-egress",
        "does not isolate the pod",
    ),
    (
        "6 ports not a list",
        {"action": "Allow", "to": [KDNS], "ports": {}},
        "D",
        "not-evaluable",
        "`ports`",
    ),
    (
        "6 ports entry with two fields",
        {
            "action": "Allow",
            "to": [KDNS],
            "ports": [{"portNumber": {"port": 53}, "namedPort": "dns"}],
        },
        "D",
        "not-evaluable",
        "exactly one",
    ),
    (
        "6a protocol defaults to TCP",
        {"action": "Allow", "to": [KDNS], "ports": [{"portNumber": {"port": 53}}]},
        "D",
        "within",
        None,
    ),
    (
        "6a protocol lowercased is uppercased",
        {
            "action": "Allow",
            "to": [KDNS],
            "ports": [{"portNumber": {"protocol": "udp", "port": 53}}],
        },
        "D",
        "within",
        None,
    ),
    (
        "6a port out of range",
        {"action": "Allow", "to": [KDNS], "ports": [{"portNumber": {"port": 0}}]},
        "D",
        "not-evaluable",
        "cannot be read",
    ),
    (
        "6b range outside DNS",
        {"action": "Allow", "to": [KDNS], "ports": [{"portRange": {"start": 53, "end": 54}}]},
        "D",
        "widens-egress",
        "TCP 53-54",
    ),
    (
        "6b range start after end",
        {"action": "Allow", "to": [KDNS], "ports": [{"portRange": {"start": 54, "end": 53}}]},
        "D",
        "not-evaluable",
        "cannot be read",
    ),
    (
        "6c named port",
        {"action": "Allow", "to": [KDNS], "ports": [{"namedPort": "dns"}]},
        "D",
        "widens-egress",
        "named port",
    ),
    (
        "6c named port not a string",
        {"action": "Allow", "to": [KDNS], "ports": [{"namedPort": 53}]},
        "D",
        "not-evaluable",
        "cannot be read",
    ),
    (
        "6d no ports is every port",
        {"action": "Allow", "to": [KDNS]},
        "D",
        "widens-egress",
        "every port",
    ),
    ("7 to not a list", {"action": "Allow", "to": {}}, "D", "not-evaluable", "`to` is not a list"),
    (
        "8 no to is every destination",
        {"action": "Allow"},
        "D",
        "widens-egress",
        "names no destination",
    ),
    (
        "8 empty to is every destination",
        {"action": "Allow", "to": []},
        "D",
        "widens-egress",
        "names no destination",
    ),
    (
        "8 earlier peer widens before a later unreadable one",
        {"action": "Allow", "to": [WORLD, 7]},
        "D",
        "widens-egress",
        "wide-open",
    ),
    (
        "8 unreadable peer at its turn",
        {"action": "Allow", "to": [7, WORLD]},
        "D",
        "not-evaluable",
        "not an object: 7",
    ),
]


@pytest.mark.parametrize(
    ("case", "rule", "code", "verdict", "detail"), RULES, ids=[c for c, *_ in RULES]
)
def test_anp_rule_steps(case: str, rule: Any, code: str, verdict: str, detail: str | None) -> None:
    document = judge(_anp_rule(rule), code)
    assert str(document.verdict) == verdict, document.detail
    if detail is not None:
        assert document.detail is not None and detail in document.detail


def test_deciding_rule_is_located() -> None:
    raw = anp(
        {
            "subject": ALL_NS,
            "egress": [{"action": "Deny", "to": [WORLD]}, {"name": "open", **ALLOW_WORLD}],
        }
    )
    document = judge(raw)
    assert document.rule_index == 1 and document.rule_path == ("spec", "egress", 1)
    assert document.detail is not None and 'egress rule 1 ("open")' in document.detail
    assert document.group == "admin"


def test_anp_ports_reader_values() -> None:
    assert read_anp_ports({}) == (ALL_PORTS, False)
    assert read_anp_ports({"ports": None}) == (ALL_PORTS, False)
    assert read_anp_ports(
        {
            "ports": [
                {"portNumber": {"protocol": "SCTP", "port": 9}},
                {"portRange": {"start": 1, "end": 2}},
            ]
        }
    ) == (
        (PortRange("SCTP", 9), PortRange("TCP", 1, 2)),
        False,
    )
    assert read_anp_ports({"ports": [{"portNumber": {"port": 1}}, {"namedPort": "x"}]}) == (
        ALL_PORTS,
        True,
    )
    assert isinstance(read_anp_ports({"ports": [{"portNumber": {"protocol": 6, "port": 1}}]}), str)
    assert isinstance(read_anp_ports({"ports": [{"portNumber": {"port": True}}]}), str)
    assert isinstance(read_anp_ports({"ports": [{}]}), str)


# --- §3.4.1 `to` entries -------------------------------------------------------------------------


def test_to_entry_fields() -> None:
    (peer,) = read_to_entry({"namespaces": {}}, ANP_PEER_FIELDS)
    assert isinstance(peer, SelectorPeer) and peer.namespace_selector == {}
    (pods,) = read_to_entry({"pods": {"podSelector": {"matchLabels": {"a": "b"}}}}, ANP_PEER_FIELDS)
    # An absent namespaceSelector is every namespace, never "this namespace".
    assert isinstance(pods, SelectorPeer) and pods.namespace_selector == {}
    (nodes,) = read_to_entry({"nodes": {}}, ANP_PEER_FIELDS)
    assert isinstance(nodes, NodesPeer)
    networks = read_to_entry({"networks": ["10.0.0.0/8", "::/0"]}, ANP_PEER_FIELDS)
    assert [type(p) for p in networks] == [CidrPeer, CidrPeer]
    domains = read_to_entry({"domainNames": ["a.example", 1]}, ANP_PEER_FIELDS)
    assert [type(p) for p in domains] == [DomainPeer, DomainPeer]
    union = read_to_entry({"namespaces": {}, "networks": ["10.0.0.0/8"]}, ANP_PEER_FIELDS)
    assert [type(p) for p in union] == [SelectorPeer, CidrPeer]


UNREADABLE_ENTRIES: list[tuple[str, Any, tuple[str, ...]]] = [
    ("1 not an object", "x", ANP_PEER_FIELDS),
    ("2 no known field", {"namespaceSelector": {}}, ANP_PEER_FIELDS),
    ("2 BANP has no domainNames", {"domainNames": ["a.example"]}, BANP_PEER_FIELDS),
    ("3a unreadable namespaces", {"namespaces": {"sameLabels": ["x"]}}, ANP_PEER_FIELDS),
    ("3b pods extra key", {"pods": {"namespaces": {}}}, ANP_PEER_FIELDS),
    ("3b pods null selector", {"pods": {"podSelector": None}}, ANP_PEER_FIELDS),
    ("3c nodes unreadable", {"nodes": []}, ANP_PEER_FIELDS),
    ("3d networks empty", {"networks": []}, ANP_PEER_FIELDS),
    ("3d network does not parse", {"networks": ["10.0.0.0"]}, ANP_PEER_FIELDS),
    ("3e domainNames empty", {"domainNames": []}, ANP_PEER_FIELDS),
    ("4 one bad field spoils the peer", {"namespaces": {}, "networks": ["x"]}, ANP_PEER_FIELDS),
]


@pytest.mark.parametrize(
    ("case", "raw", "fields"), UNREADABLE_ENTRIES, ids=[c for c, *_ in UNREADABLE_ENTRIES]
)
def test_unreadable_to_entries(case: str, raw: Any, fields: tuple[str, ...]) -> None:
    (peer,) = read_to_entry(raw, fields)
    assert isinstance(peer, UnreadablePeer)


# --- §3.5 the baseline excuse ----------------------------------------------------------------------

BANP_WORLD = banp({"subject": ALL_NS, "egress": [ALLOW_WORLD]})


def test_baseline_excuse_needs_iso_and_not_cilium() -> None:
    excused = judge(BANP_WORLD, "D")
    assert str(excused.verdict) == "within" and excused.excused and excused.group == "baseline"
    assert excused.detail is not None and "NetworkPolicy/t-egress" in excused.detail
    for code in ("DC", "S"):
        judged = judge(BANP_WORLD, code)
        assert str(judged.verdict) == "widens-egress" and not judged.excused


def test_baseline_steps_1_to_3_run_before_the_excuse() -> None:
    unreadable = banp({"subject": {}, "egress": [ALLOW_WORLD]})
    assert str(judge(unreadable).verdict) == "not-evaluable"
    other = banp(
        {
            "subject": {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "x"}}},
            "egress": [ALLOW_WORLD],
        }
    )
    assert str(judge(other).verdict) == "does-not-select" and not judge(other).excused
    assert str(judge(banp({"subject": ALL_NS})).verdict) == "not-egress-scoped"


def test_banp_has_no_pass() -> None:
    document = judge(banp({"subject": ALL_NS, "egress": [{"action": "Pass"}]}), "S")
    assert str(document.verdict) == "not-evaluable"
    assert document.detail is not None and "Allow, Deny" in document.detail


def test_anp_is_never_excused() -> None:
    assert str(judge(_anp_rule(ALLOW_WORLD), "D").verdict) == "widens-egress"


# --- §4 ClusterNetworkPolicy -----------------------------------------------------------------------


def _cnp(rule: Any, tier: Any = "Admin", **spec: Any) -> dict[str, Any]:
    return cnp({"tier": tier, "priority": 5, "subject": ALL_NS, "egress": [rule], **spec})


ACCEPT_WORLD = {"action": "Accept", "to": [WORLD]}


def test_cnp_tiers_and_groups() -> None:
    admin = judge(_cnp(ACCEPT_WORLD))
    assert admin.group == "admin" and str(admin.verdict) == "widens-egress"
    baseline = judge(_cnp(ACCEPT_WORLD, "Baseline"))
    assert baseline.group == "baseline" and baseline.excused
    for tier in ("admin", "Default", None, 1):
        document = judge(_cnp(ACCEPT_WORLD, tier))
        assert str(document.verdict) == "not-evaluable" and document.group == "admin"
        assert document.detail is not None and "`spec.tier`" in document.detail


def test_cnp_tier_is_read_after_the_subject() -> None:
    """§4.3: step 4a comes after §3.2 step 4."""
    document = judge(cnp({"tier": "bad", "subject": {}, "egress": []}))
    assert document.detail is not None and "exactly one of" in document.detail


def test_cnp_pass() -> None:
    """§4.4: an Admin Pass is free under ISO; a Baseline Pass never is."""
    assert str(judge(_cnp({"action": "Pass", "to": [WORLD]})).verdict) == "within"
    assert str(judge(_cnp({"action": "Pass", "to": [WORLD]}), "S").verdict) == "widens-egress"
    baseline = judge(_cnp({"action": "Pass", "to": [WORLD]}, "Baseline"), "DC")
    assert str(baseline.verdict) == "widens-egress"
    assert baseline.detail is not None and "lands in the default allow" in baseline.detail
    # Under D the baseline document is excused before its Pass is read.
    assert judge(_cnp({"action": "Pass", "to": [WORLD]}, "Baseline"), "D").excused


def test_cnp_actions() -> None:
    assert str(judge(_cnp({"action": "Deny", "to": [WORLD]})).verdict) == "within"
    allow = judge(_cnp({"action": "Allow", "to": [WORLD]}))
    assert allow.detail is not None and "write `Accept`" in allow.detail
    other = judge(_cnp({"action": "Drop", "to": [WORLD]}))
    assert other.detail is not None and "write `Accept`" not in other.detail


def test_cnp_domain_names_in_both_tiers() -> None:
    rule = {"action": "Accept", "to": [{"domainNames": ["evil.example"]}]}
    assert str(judge(_cnp(rule)).verdict) == "widens-egress"
    assert str(judge(_cnp(rule, "Baseline"), "S").verdict) == "widens-egress"


PROTOCOLS: list[tuple[str, Any, Any]] = [
    ("absent", None, (ALL_PORTS, False)),
    ("empty", [], (ALL_PORTS, False)),
    ("tcp every port", [{"tcp": {}}], ((PortRange("TCP"),), False)),
    (
        "udp null destinationPort",
        [{"udp": {"destinationPort": None}}],
        ((PortRange("UDP"),), False),
    ),
    (
        "sctp number",
        [{"sctp": {"destinationPort": {"number": 9}}}],
        ((PortRange("SCTP", 9),), False),
    ),
    (
        "tcp range",
        [{"tcp": {"destinationPort": {"range": {"start": 1, "end": 3}}}}],
        ((PortRange("TCP", 1, 3),), False),
    ),
    ("keys unioned", [{"tcp": {}, "udp": {}}], ((PortRange("TCP"), PortRange("UDP")), False)),
    ("named port", [{"tcp": {}}, {"destinationNamedPort": "dns"}], (ALL_PORTS, True)),
    ("extra keys ignored", [{"tcp": {}, "x": 1}], ((PortRange("TCP"),), False)),
]


@pytest.mark.parametrize(
    ("case", "protocols", "expected"), PROTOCOLS, ids=[c for c, *_ in PROTOCOLS]
)
def test_protocols_reader(case: str, protocols: Any, expected: Any) -> None:
    rule = {} if protocols is None else {"protocols": protocols}
    assert read_protocols(rule) == expected


BAD_PROTOCOLS: list[tuple[str, Any, str]] = [
    ("not a list", {}, "not a list"),
    ("entry not an object", ["tcp"], "cannot be read"),
    ("unknown protocol", [{"icmp": {}}], "names no protocol"),
    ("tcp not an object", [{"tcp": 80}], "cannot be read"),
    (
        "number and range",
        [{"tcp": {"destinationPort": {"number": 1, "range": {"start": 1, "end": 2}}}}],
        "cannot be read",
    ),
    ("neither number nor range", [{"tcp": {"destinationPort": {}}}], "cannot be read"),
    ("number out of range", [{"udp": {"destinationPort": {"number": 70000}}}], "cannot be read"),
    (
        "range reversed",
        [{"udp": {"destinationPort": {"range": {"start": 9, "end": 1}}}}],
        "cannot be read",
    ),
    ("empty named port", [{"destinationNamedPort": ""}], "cannot be read"),
]


@pytest.mark.parametrize(
    ("case", "protocols", "detail"), BAD_PROTOCOLS, ids=[c for c, *_ in BAD_PROTOCOLS]
)
def test_bad_protocols(case: str, protocols: Any, detail: str) -> None:
    read = read_protocols({"protocols": protocols})
    assert isinstance(read, str) and detail in read
    document = judge(_cnp({"action": "Accept", "to": [KDNS], "protocols": protocols}))
    assert str(document.verdict) == "not-evaluable"


def test_prerelease_ports_are_pruned() -> None:
    """§4.5 step 5: a `ports` key is ignored, so the rule matches every port."""
    with_ports = judge(
        _cnp(
            {
                "action": "Accept",
                "to": [KDNS],
                "ports": [{"portNumber": {"protocol": "UDP", "port": 53}}],
            }
        )
    )
    assert str(with_ports.verdict) == "widens-egress"
    assert with_ports.detail is not None and "every port" in with_ports.detail
