"""Reading candidates into egress documents (SEMANTICS.md §5.2-§5.5, §17.3)."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import document_name, egress_documents, identity_labels
from lint.decision.model import Candidate, PolicyDocument, Subject, Translation, Tri
from tests.decision import manifests as m

SUBJECT = Subject(m.NAMESPACE, {**m.POD_LABELS, "team": "data"})
DENY_ALL = m.deny_all()
STATIC = m.static_unnarrowed()
NARROWED = m.static_narrowed_tls()
WIDENING_CORE_RULE = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}
WIDENING_CILIUM_RULE = {"toEntities": ["world"]}


def _documents(candidate: Candidate, translation: Translation = DENY_ALL) -> list[PolicyDocument]:
    return egress_documents(candidate, SUBJECT, build_allowance(translation), translation)


def _core(spec: dict[str, Any]) -> PolicyDocument:
    (document,) = _documents(m.core_candidate(m.network_policy("p", spec=spec)))
    return document


def _cilium(translation: Translation = STATIC, name: Any = "c", **top: Any) -> list[PolicyDocument]:
    return _documents(m.cilium_candidate(m.cilium_policy(name, **top)), translation)


def _one_cilium(spec: Any, translation: Translation = STATIC, name: Any = "c") -> PolicyDocument:
    (document,) = _cilium(translation, name, spec=spec)
    return document


# --- §5.2 names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"metadata": {"name": "egress"}}, "egress"),
        ({"metadata": {"name": ""}}, "(unnamed #3)"),
        ({"metadata": {"name": 5}}, "(unnamed #3)"),
        ({"metadata": {"name": None}}, "(unnamed #3)"),
        ({"metadata": "x"}, "(unnamed #3)"),
        ({}, "(unnamed #3)"),
        ("not an object", "(unnamed #3)"),
    ],
)
def test_document_name(raw: Any, name: str) -> None:
    assert document_name(Candidate("NetworkPolicy", raw, 3)) == name


# --- §5.3 core NetworkPolicy -----------------------------------------------------------


@pytest.mark.parametrize(
    "kind", ["NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]
)
@pytest.mark.parametrize("raw", ["x", 5, None, ["a"]])
def test_non_object_candidate_is_one_unreadable_document(kind: str, raw: Any) -> None:
    documents = _documents(Candidate(kind, raw, 2, clusterwide=kind.startswith("CiliumC")))
    assert len(documents) == 1
    (document,) = documents
    assert document.kind == kind
    assert document.name == "(unnamed #2)"
    assert document.unreadable is not None
    assert "not a policy object" in document.unreadable


@pytest.mark.parametrize(
    ("top", "fact"),
    [
        ({}, "`spec` is not an object"),
        ({"spec": None}, "`spec` is not an object"),
        ({"spec": []}, "`spec` is not an object"),
        ({"spec": "x"}, "`spec` is not an object"),
        ({"spec": {"policyTypes": "Egress"}}, "`spec.policyTypes` is not a list"),
        ({"spec": {"policyTypes": {"0": "Egress"}}}, "`spec.policyTypes` is not a list"),
        ({"spec": {"egress": {"to": []}}}, "`spec.egress` is not a list of rules"),
        ({"spec": {"egress": "x", "policyTypes": "x"}}, "`spec.policyTypes`"),
    ],
)
def test_core_unreadable_steps_in_order(top: dict[str, Any], fact: str) -> None:
    (document,) = _documents(m.core_candidate(m.network_policy("p", **top)))
    assert document.unreadable is not None
    assert fact in document.unreadable
    assert document.kind == "NetworkPolicy"
    assert document.name == "p"


@pytest.mark.parametrize(
    ("spec", "enforces"),
    [
        ({}, False),
        # Read as stored (SEMANTICS §5.3): an absent, null or empty
        # policyTypes lists Egress only when there is an egress rule.
        ({"egress": []}, False),
        ({"egress": None}, False),
        ({"egress": [{}]}, True),
        ({"policyTypes": None, "egress": []}, False),
        ({"policyTypes": None, "egress": [{}]}, True),
        ({"policyTypes": [], "egress": [{}]}, True),
        ({"policyTypes": ["Egress"]}, True),
        ({"policyTypes": ["Ingress", "Egress"], "egress": None}, True),
        ({"policyTypes": ["egress"], "egress": []}, False),
        ({"policyTypes": [], "egress": []}, False),
        ({"policyTypes": ["Ingress"], "egress": [WIDENING_CORE_RULE]}, False),
        ({"policyTypes": [5, "Egress"]}, True),
    ],
)
def test_core_enforces_egress(spec: dict[str, Any], enforces: bool) -> None:
    document = _core(spec)
    assert document.unreadable is None
    assert document.enforces is enforces


def test_core_rules_are_ignored_when_egress_is_not_enforced() -> None:
    document = _core({"policyTypes": ["Ingress"], "egress": [WIDENING_CORE_RULE, "x"]})
    assert document.rules == ()


def test_core_rules_carry_their_index_in_spec_egress() -> None:
    egress = [
        {
            "to": [{"namespaceSelector": m.KUBE_SYSTEM_NS}],
            "ports": [{"protocol": "UDP", "port": 53}],
        },
        "x",
        WIDENING_CORE_RULE,
    ]
    document = _core({"egress": egress})
    assert [(rule.outcome, rule.index) for rule in document.rules] == [
        (Tri.NO, 0),
        (Tri.UNKNOWN, 1),
        (Tri.YES, 2),
    ]


@pytest.mark.parametrize(
    ("pod_selector", "selects"),
    [
        ({}, Tri.YES),
        ({"matchLabels": {}}, Tri.YES),
        ({"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}}, Tri.YES),
        ({"matchLabels": {"team": "other"}}, Tri.NO),
        ({"matchExpressions": [{"key": "team", "operator": "In", "values": ["data"]}]}, Tri.YES),
        ({"matchExpressions": [{"key": "team", "operator": "Bogus"}]}, Tri.UNKNOWN),
        (None, Tri.UNKNOWN),
        ({"matchLabels": None}, Tri.UNKNOWN),
        ({"matchLabels": {"team": None}}, Tri.UNKNOWN),
        ({"matchExpressions": None}, Tri.UNKNOWN),
        # Core selectors never map Cilium sources: the key is taken literally.
        ({"matchLabels": {"k8s:team": "data"}}, Tri.NO),
    ],
)
def test_core_selects_on_pod_labels(pod_selector: Any, selects: Tri) -> None:
    assert _core({"podSelector": pod_selector, "egress": []}).selects is selects


def test_core_absent_pod_selector_selects_everything() -> None:
    assert _core({"egress": []}).selects is Tri.YES


@pytest.mark.parametrize(
    ("name", "translation", "named"),
    [
        (m.NAME, DENY_ALL, True),
        ("other", DENY_ALL, False),
        (m.NAME, STATIC, False),
    ],
)
def test_core_named_object(name: str, translation: Translation, named: bool) -> None:
    raw = m.network_policy(name, spec={"egress": []})
    (document,) = _documents(m.core_candidate(raw), translation)
    assert document.named_object is named
    assert document.spec_index is None


def test_core_named_object_needs_the_sandbox_namespace() -> None:
    raw = m.network_policy(m.NAME, spec={"egress": []})
    subject = Subject("elsewhere", m.POD_LABELS)
    (document,) = egress_documents(
        m.core_candidate(raw), subject, build_allowance(DENY_ALL), DENY_ALL
    )
    assert not document.named_object


# --- §5.4 Cilium ---------------------------------------------------------------------


def test_identity_labels_add_the_namespace() -> None:
    assert identity_labels(SUBJECT) == {
        **SUBJECT.labels,
        "io.kubernetes.pod.namespace": m.NAMESPACE,
    }


def test_unreadable_specs_gives_exactly_one_document() -> None:
    documents = _cilium(spec={"egress": []}, specs="x")
    assert len(documents) == 1
    assert documents[0].unreadable is not None
    assert "`specs` is not a list of rule specs" in documents[0].unreadable
    assert documents[0].kind == "CiliumNetworkPolicy"


@pytest.mark.parametrize(
    "top",
    [
        {},
        {"spec": None},
        {"specs": None},
        {"spec": None, "specs": None},
        {"specs": []},
        {"spec": None, "specs": []},
    ],
)
def test_neither_spec_nor_specs(top: dict[str, Any]) -> None:
    (document,) = _cilium(**top)
    assert document.unreadable is not None
    assert "neither a `spec` nor a `specs` list" in document.unreadable


def test_spec_then_specs_in_order() -> None:
    documents = _cilium(
        STATIC,
        m.NAME,
        spec={"egress": []},
        specs=[{"egress": [WIDENING_CILIUM_RULE]}, {"egressDeny": []}],
    )
    assert [d.spec_index for d in documents] == [None, 0, 1]
    assert [d.name for d in documents] == [m.NAME] * 3
    # Only the spec document of the named object is exempt (§11.2).
    assert [d.named_object for d in documents] == [True, False, False]
    assert documents[1].rules[0].outcome is Tri.YES


def test_specs_only_object_has_no_named_document() -> None:
    documents = _cilium(STATIC, m.NAME, specs=[{"egress": []}])
    assert [d.named_object for d in documents] == [False]


@pytest.mark.parametrize(
    ("top", "fact", "spec_index"),
    [
        ({"spec": "x"}, "a rule spec is not an object", None),
        ({"spec": []}, "a rule spec is not an object", None),
        ({"specs": [{"egress": []}, 5]}, "a rule spec is not an object", 1),
    ],
)
def test_spec_document_not_an_object(
    top: dict[str, Any], fact: str, spec_index: int | None
) -> None:
    documents = _cilium(**top)
    unreadable = [d for d in documents if d.unreadable is not None]
    assert len(unreadable) == 1
    assert fact in (unreadable[0].unreadable or "")
    assert unreadable[0].spec_index == spec_index


@pytest.mark.parametrize("node_selector", [{}, None, {"matchLabels": {"role": "x"}}, "x"])
def test_node_scoped_spec_gives_no_document_q11(node_selector: Any) -> None:
    spec = {"nodeSelector": node_selector, "egress": "unreadable", "enableDefaultDeny": None}
    assert _cilium(spec=spec) == []
    documents = _cilium(spec=spec, specs=[{"egress": []}, {"nodeSelector": None}])
    assert [d.spec_index for d in documents] == [0]


@pytest.mark.parametrize(
    ("spec", "fact"),
    [
        ({"egress": "x"}, "`spec.egress` is not a list of rules"),
        ({"egress": {}}, "`spec.egress` is not a list of rules"),
        ({"egressDeny": "x"}, "`spec.egressDeny` is not a list of rules"),
        ({"egress": "x", "egressDeny": "y"}, "`spec.egress` is not"),
        # Q11: a null enableDefaultDeny is unreadable.
        ({"egress": [], "enableDefaultDeny": None}, "`spec.enableDefaultDeny` is not an object"),
        ({"egress": [], "enableDefaultDeny": False}, "`spec.enableDefaultDeny` is not an object"),
        (
            {"enableDefaultDeny": {"egress": None}},
            "`spec.enableDefaultDeny.egress` is not a boolean",
        ),
        (
            {"enableDefaultDeny": {"egress": "false"}},
            "`spec.enableDefaultDeny.egress` is not a boolean",
        ),
        ({"enableDefaultDeny": {"egress": 0}}, "`spec.enableDefaultDeny.egress` is not a boolean"),
    ],
)
def test_cilium_unreadable_spec_documents(spec: dict[str, Any], fact: str) -> None:
    document = _one_cilium(spec)
    assert document.unreadable is not None
    assert fact in document.unreadable


def test_unreadable_specs_entry_names_its_position() -> None:
    documents = _cilium(specs=[{"egress": []}, {"egress": "x"}])
    assert documents[1].unreadable is not None
    assert "`spec.egress`" in documents[1].unreadable
    assert "specs[1]" in documents[1].unreadable
    assert documents[1].spec_index == 1


@pytest.mark.parametrize(
    ("spec", "enforces"),
    [
        ({}, False),
        ({"egress": []}, True),
        ({"egress": None}, False),
        ({"egressDeny": []}, True),
        ({"egressDeny": None, "egress": None}, False),
        ({"ingress": []}, False),
        ({"egress": [], "enableDefaultDeny": {}}, True),
        ({"egress": [], "enableDefaultDeny": {"ingress": False}}, True),
        ({"egress": [], "enableDefaultDeny": {"egress": True}}, True),
        # Q12: enableDefaultDeny.egress false turns enforcement off.
        ({"egress": [], "enableDefaultDeny": {"egress": False}}, False),
        # `true` never turns enforcement on by itself.
        ({"enableDefaultDeny": {"egress": True}}, False),
    ],
)
def test_cilium_enforces_egress(spec: dict[str, Any], enforces: bool) -> None:
    document = _one_cilium(spec)
    assert document.unreadable is None
    assert document.enforces is enforces


def test_cilium_rules_are_judged_whatever_default_deny_says() -> None:
    document = _one_cilium(
        {"egress": [WIDENING_CILIUM_RULE], "enableDefaultDeny": {"egress": False}}
    )
    assert not document.enforces
    assert [rule.outcome for rule in document.rules] == [Tri.YES]


def test_cilium_egress_deny_rules_are_never_judged() -> None:
    document = _one_cilium({"egressDeny": [WIDENING_CILIUM_RULE, "x"]})
    assert document.enforces
    assert document.rules == ()


def test_cilium_rules_carry_their_index() -> None:
    egress = [{"toFQDNs": [{"matchName": "pypi.org"}]}, WIDENING_CILIUM_RULE, "x"]
    document = _one_cilium({"egress": egress})
    assert [(r.outcome, r.index) for r in document.rules] == [
        (Tri.NO, 0),
        (Tri.YES, 1),
        (Tri.UNKNOWN, 2),
    ]


@pytest.mark.parametrize(
    ("selector", "selects"),
    [
        ({}, Tri.YES),
        # Q6: {"matchLabels": {}} is empty for matching.
        ({"matchLabels": {}}, Tri.YES),
        ({"matchLabels": {"k8s:io.kubernetes.pod.namespace": m.NAMESPACE}}, Tri.YES),
        ({"matchLabels": {"io.kubernetes.pod.namespace": "other"}}, Tri.NO),
        (
            {"matchLabels": {"any:team": "data", "k8s:sandbox.namzu.ai/template": "namzu-task"}},
            Tri.YES,
        ),
        ({"matchLabels": {"team": "other"}}, Tri.NO),
        ({"matchLabels": {"reserved:host": ""}}, Tri.UNKNOWN),
        ({"matchLabels": {"k8s:io.cilium.k8s.policy.serviceaccount": "x"}}, Tri.NO),
        (None, Tri.UNKNOWN),
        ({"matchLabels": {"team": None}}, Tri.UNKNOWN),
    ],
)
def test_cilium_selects_on_identity_labels(selector: Any, selects: Tri) -> None:
    assert _one_cilium({"endpointSelector": selector, "egress": []}).selects is selects


def test_cilium_absent_endpoint_selector_selects_everything() -> None:
    assert _one_cilium({"egress": []}).selects is Tri.YES


@pytest.mark.parametrize(
    ("kind", "name", "translation", "named"),
    [
        ("CiliumNetworkPolicy", m.NAME, STATIC, True),
        ("CiliumNetworkPolicy", "other", STATIC, False),
        ("CiliumNetworkPolicy", m.NAME, DENY_ALL, False),
        ("CiliumClusterwideNetworkPolicy", m.NAME, STATIC, False),
    ],
)
def test_cilium_named_object(kind: str, name: str, translation: Translation, named: bool) -> None:
    raw = m.cilium_policy(name, spec={"egress": []})
    candidate = Candidate(kind, raw, 0, clusterwide=kind == "CiliumClusterwideNetworkPolicy")
    (document,) = _documents(candidate, translation)
    assert document.kind == kind
    assert document.named_object is named


def test_core_object_with_the_cilium_name_is_not_named() -> None:
    (document,) = _documents(
        m.core_candidate(m.network_policy(m.NAME, spec={"egress": []})), STATIC
    )
    assert not document.named_object


# --- §17.3 clusterwide policies ----------------------------------------------------------


def test_clusterwide_selector_matches_identity_labels() -> None:
    spec = {
        "endpointSelector": {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "other"}},
        "egress": [],
    }
    raw = m.cilium_policy("cw", spec=spec)
    (document,) = _documents(m.clusterwide_candidate(raw), STATIC)
    assert document.selects is Tri.NO
    assert document.kind == "CiliumClusterwideNetworkPolicy"


@pytest.mark.parametrize("flagged", [True, False])
def test_clusterwide_endpoints_without_namespace_reach_every_namespace(flagged: bool) -> None:
    # A selector on kube-dns pods with no namespace key: in a clusterwide
    # policy it reaches kube-system, so DNS names decide (here a subset).
    rule = {
        "toEndpoints": [{"matchLabels": {"k8s-app": "kube-dns"}}],
        "toPorts": [{"ports": [{"port": "53"}], "rules": {"dns": [{"matchName": "github.com"}]}}],
    }
    raw = m.cilium_policy("cw", spec={"egress": [rule]})
    # The kind alone marks the candidate clusterwide, even without the flag.
    candidate = Candidate("CiliumClusterwideNetworkPolicy", raw, 0, clusterwide=flagged)
    (clusterwide,) = _documents(candidate, NARROWED)
    assert [r.outcome for r in clusterwide.rules] == [Tri.NO]
    (namespaced,) = _documents(m.cilium_candidate(raw), NARROWED)
    assert [r.outcome for r in namespaced.rules] == [Tri.YES]


# --- §5.5 null versus absent, as the documents see it -----------------------------------


@pytest.mark.parametrize(
    ("case", "raw", "expected"),
    [
        (
            "core policyTypes null is absent",
            m.network_policy("p", spec={"policyTypes": None, "egress": [{}]}),
            "enforces",
        ),
        (
            "core egress null is absent",
            m.network_policy("p", spec={"egress": None}),
            "not-enforcing",
        ),
        ("core spec null is unreadable", m.network_policy("p", spec=None), "unreadable"),
        (
            "podSelector null",
            m.network_policy("p", spec={"podSelector": None, "egress": []}),
            "selects-unknown",
        ),
        (
            "matchLabels null",
            m.network_policy("p", spec={"podSelector": {"matchLabels": None}, "egress": []}),
            "selects-unknown",
        ),
        (
            "matchExpressions null",
            m.network_policy("p", spec={"podSelector": {"matchExpressions": None}, "egress": []}),
            "selects-unknown",
        ),
        (
            "matchLabels value null",
            m.network_policy("p", spec={"podSelector": {"matchLabels": {"a": None}}, "egress": []}),
            "selects-unknown",
        ),
        (
            "rule to null is absent",
            m.network_policy("p", spec={"egress": [{"to": None}]}),
            "rule-yes",
        ),
        (
            "rule ports null is absent",
            m.network_policy(
                "p",
                spec={"egress": [{"to": [{"namespaceSelector": m.KUBE_SYSTEM_NS}], "ports": None}]},
            ),
            "rule-yes",
        ),
        (
            "peer ipBlock null",
            m.network_policy("p", spec={"egress": [{"to": [{"ipBlock": None}]}]}),
            "rule-unknown",
        ),
        (
            "ipBlock cidr null",
            m.network_policy("p", spec={"egress": [{"to": [{"ipBlock": {"cidr": None}}]}]}),
            "rule-unknown",
        ),
        (
            "ipBlock except null is absent",
            m.network_policy(
                "p",
                spec={"egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": None}}]}]},
            ),
            "rule-yes",
        ),
        (
            "port protocol null",
            m.network_policy("p", spec={"egress": [{"ports": [{"protocol": None, "port": 53}]}]}),
            "rule-unknown",
        ),
        (
            "port port null",
            m.network_policy("p", spec={"egress": [{"ports": [{"port": None}]}]}),
            "rule-unknown",
        ),
        (
            "port endPort null",
            m.network_policy("p", spec={"egress": [{"ports": [{"port": 53, "endPort": None}]}]}),
            "rule-unknown",
        ),
        (
            "cilium spec null is absent",
            m.cilium_policy("c", spec=None, specs=[{"egress": []}]),
            "enforces",
        ),
        (
            "cilium specs null is absent",
            m.cilium_policy("c", spec={"egress": []}, specs=None),
            "enforces",
        ),
        (
            "cilium egressDeny null is absent",
            m.cilium_policy("c", spec={"egressDeny": None}),
            "not-enforcing",
        ),
        (
            "cilium enableDefaultDeny null",
            m.cilium_policy("c", spec={"egress": [], "enableDefaultDeny": None}),
            "unreadable",
        ),
        (
            "cilium enableDefaultDeny.egress null",
            m.cilium_policy("c", spec={"egress": [], "enableDefaultDeny": {"egress": None}}),
            "unreadable",
        ),
        (
            "cilium endpointSelector null",
            m.cilium_policy("c", spec={"endpointSelector": None, "egress": []}),
            "selects-unknown",
        ),
        (
            "cilium toPorts null is absent",
            m.cilium_policy("c", spec={"egress": [{"toPorts": None}]}),
            "rule-yes",
        ),
        (
            "cilium toPorts ports null is every port",
            m.cilium_policy(
                "c",
                spec={
                    "egress": [
                        {"toFQDNs": [{"matchName": "pypi.org"}], "toPorts": [{"ports": None}]}
                    ]
                },
            ),
            "rule-no",
        ),
        (
            "cilium peer lists null are absent",
            m.cilium_policy(
                "c",
                spec={"egress": [{"toEndpoints": None, "toFQDNs": [{"matchName": "pypi.org"}]}]},
            ),
            "rule-no",
        ),
        (
            "matchName null widens",
            m.cilium_policy("c", spec={"egress": [{"toFQDNs": [{"matchName": None}]}]}),
            "rule-yes",
        ),
        (
            "endpoint matchExpressions null",
            m.cilium_policy(
                "c",
                spec={"egress": [{"toEndpoints": [{"matchLabels": {}, "matchExpressions": None}]}]},
            ),
            "rule-unknown",
        ),
        (
            "toPorts rules null fails the DNS read",
            m.cilium_policy(
                "c",
                spec={
                    "egress": [
                        {
                            "toEndpoints": [m.KUBE_DNS_ENDPOINT],
                            "toPorts": [{"ports": [{"port": "53"}], "rules": None}],
                        }
                    ]
                },
            ),
            "rule-yes-narrowed",
        ),
        (
            "rules.dns null is absent",
            m.cilium_policy(
                "c",
                spec={
                    "egress": [
                        {
                            "toEndpoints": [m.KUBE_DNS_ENDPOINT],
                            "toPorts": [{"ports": [{"port": "53"}], "rules": {"dns": None}}],
                        }
                    ]
                },
            ),
            "rule-yes-narrowed",
        ),
    ],
)
def test_null_versus_absent(case: str, raw: dict[str, Any], expected: str) -> None:
    kind = raw["kind"]
    translation = (
        NARROWED
        if expected == "rule-yes-narrowed"
        else (STATIC if kind != "NetworkPolicy" else DENY_ALL)
    )
    documents = _documents(Candidate(kind, raw, 0), translation)
    document = documents[-1]
    observed = {
        "enforces": document.unreadable is None and document.enforces,
        "not-enforcing": document.unreadable is None and not document.enforces,
        "unreadable": document.unreadable is not None,
        "selects-unknown": document.unreadable is None and document.selects is Tri.UNKNOWN,
        "rule-yes": [r.outcome for r in document.rules] == [Tri.YES],
        "rule-yes-narrowed": [r.outcome for r in document.rules] == [Tri.YES],
        "rule-no": [r.outcome for r in document.rules] == [Tri.NO],
        "rule-unknown": [r.outcome for r in document.rules] == [Tri.UNKNOWN],
    }
    assert observed[expected], case
