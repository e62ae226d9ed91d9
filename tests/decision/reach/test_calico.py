"""Calico policies and tiers in reach (CLUSTER-POLICIES.md §5): the C§9 rows
35-50 and a test per §5 rule.

Builders first: the C§9 base (namespace
``sbx``, template ``t``, pod labels ``{sandbox.namzu.ai/template: t, app:
agent}``) and allowances built by the real translation (S§3, S§4)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.controller import SANDBOX_NAME_HASH_LABEL
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    Candidate,
    EgressRefusal,
    EgressVerdict,
    Examined,
    PortRange,
    Subject,
    Translation,
    Tri,
)
from lint.decision.reach import decide_reach
from lint.decision.reach.calico import (
    GLOBAL_SCOPE,
    Position,
    Scope,
    Undecided,
    calico_documents,
    calico_ingress_documents,
    calico_selects,
    calico_tier_documents,
    calico_views,
    deftier,
    read_destination,
    read_wanted_ports,
    tier_position,
    translate_scope,
)
from lint.decision.reach.calico_selector import KeyState, evaluate, parse_selector
from lint.decision.reach.ingress import ingress_documents
from lint.decision.reach.model import (
    LabelView,
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
    known_labels,
    namespace_label_view,
    pod_label_view,
)
from lint.decision.translation import translate
from lint.decision.union import examine
from lint.decision.values import ABSENT

NAMESPACE = "sbx"
TEMPLATE = "t"
POD_LABELS = {
    "sandbox.namzu.ai/template": TEMPLATE,
    "app": "agent",
    # As ``lint.sandboxes.pod_labels`` gives it on every path of a template.
    SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE,
}
V3 = "projectcalico.org/v3"
CRD = "crd.projectcalico.org/v1"

# Allowance codes of C§9: declaration, ISO, CILIUM.
CODES: dict[str, tuple[dict[str, Any], bool, bool]] = {
    "D": ({"policy": {"kind": "deny-all"}, "engine": "core"}, True, False),
    "DC": ({"policy": {"kind": "deny-all"}, "engine": "cilium"}, True, True),
    "P": ({"policy": {"kind": "public-internet"}, "engine": "core"}, True, False),
    "PC": ({"policy": {"kind": "public-internet"}, "engine": "cilium"}, True, True),
    "S": (
        {"policy": {"kind": "static", "allowedHosts": ["api.github.com"]}, "engine": "cilium"},
        False,
        True,
    ),
    "SN": (
        {
            "policy": {"kind": "static", "allowedHosts": ["api.github.com"]},
            "engine": "cilium",
            "ciliumNarrowing": {"dnsNames": True},
        },
        False,
        True,
    ),
    "A": ({"policy": {"kind": "allow-all"}, "engine": "core"}, True, False),
    "N": ({"policy": {"kind": "no-network"}, "engine": "core"}, True, False),
}


def translation(code: str) -> Translation:
    return translate(CODES[code][0], TEMPLATE, NAMESPACE)


def allowance(code: str) -> Allowance:
    return build_allowance(translation(code))


def subject(
    code: str,
    *,
    pod: Mapping[str, str] = POD_LABELS,
    service_account: str = "default",
    iso: bool | None = None,
) -> ReachSubject:
    _, code_iso, cilium = CODES[code]
    built = translation(code)
    return ReachSubject(
        namespace=NAMESPACE,
        pod=pod_label_view(pod),
        service_account=service_account,
        allowance=build_allowance(built),
        iso=code_iso if iso is None else iso,
        cilium=cilium,
        iso_policy=built.name if (code_iso if iso is None else iso) else None,
    )


def union_examined(code: str) -> list[Examined]:
    """The union's documents for the base: the named object only (C§9)."""
    built = translation(code)
    raw = json.loads(json.dumps(built.manifest))
    documents = egress_documents(
        Candidate(built.kind, raw, 0),
        Subject(NAMESPACE, POD_LABELS),
        build_allowance(built),
        built,
    )
    return [examine(document) for document in documents]


def gnp(spec: dict[str, Any], name: str = "x", api_version: str = V3) -> ReachCandidate:
    raw = {"apiVersion": api_version, "kind": "GlobalNetworkPolicy", "metadata": {"name": name}}
    return ReachCandidate(api_version, "GlobalNetworkPolicy", {**raw, "spec": spec})


def cnp(spec: dict[str, Any], name: str = "x", api_version: str = V3) -> ReachCandidate:
    raw = {
        "apiVersion": api_version,
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }
    return ReachCandidate(api_version, "NetworkPolicy", raw)


def staged(kind: str, spec: dict[str, Any], name: str = "x") -> ReachCandidate:
    raw = {"apiVersion": V3, "kind": kind, "metadata": {"name": name}, "spec": spec}
    return ReachCandidate(V3, kind, raw)


def tier(name: str, spec: Any, api_version: str = V3) -> ReachCandidate:
    raw = {"apiVersion": api_version, "kind": "Tier", "metadata": {"name": name}, "spec": spec}
    return ReachCandidate(api_version, "Tier", raw)


def network_set(
    namespace: str, labels: Any, spec: Any, name: str = "set", kind: str = "NetworkSet"
) -> ReachCandidate:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels is not None:
        metadata["labels"] = labels
    raw = {"apiVersion": V3, "kind": kind, "metadata": metadata, "spec": spec}
    return ReachCandidate(V3, kind, raw)


def data(
    *,
    tiers: tuple[ReachCandidate, ...] = (),
    sets: tuple[ReachCandidate, ...] = (),
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
    service_accounts: Mapping[tuple[str, str], LabelView] | None = None,
) -> ReachData:
    views = {
        name: namespace_label_view(name, labels) for name, labels in (namespaces or {}).items()
    }
    return ReachData(
        namespace_labels=views,
        service_accounts=dict(service_accounts or {}),
        calico_tiers=tiers,
        network_sets=sets,
    )


# --- C§9 rows 35-50 ----------------------------------------------------------------------

GNP_KIND = "GlobalNetworkPolicy.projectcalico.org"
CNP_KIND = "NetworkPolicy.projectcalico.org"
TIER_KIND = "Tier.projectcalico.org"
ALLOW_ALL_RULES = [{"action": "Allow"}]
DNS_DESTINATION = {
    "selector": "k8s-app == 'kube-dns'",
    "namespaceSelector": "projectcalico.org/name == 'kube-system'",
    "ports": [53],
}
DNS_RULES = [
    {"action": "Allow", "protocol": "UDP", "destination": DNS_DESTINATION},
    {"action": "Allow", "protocol": "TCP", "destination": DNS_DESTINATION},
]
KUBE_DNS_SET = network_set(
    "kube-system", {"k8s-app": "kube-dns"}, {"nets": ["0.0.0.0/0"]}, name="dns-set"
)
PASS_DEFAULT_TIER = tier("default", {"order": 1000000, "defaultAction": "Pass"})


def _row(
    number: int,
    code: str,
    objects: list[Any],
    expected: list[tuple[str, str, str]],
    refusal: str | None,
    *,
    facts: ReachData | None = None,
    skipped: list[str] | None = None,
) -> Any:
    return pytest.param(
        code, objects, facts or data(), expected, skipped or [], refusal, id=f"row{number}"
    )


ROWS = [
    _row(
        35,
        "D",
        [("gnp", {"selector": "all()", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "widens-egress")],
        "policy-widens-egress",
    ),
    _row(
        36,
        "D",
        [("gnp", {"selector": "all()", "types": ["Ingress"], "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "not-egress-scoped")],
        None,
    ),
    _row(
        37,
        "D",
        [
            (
                "gnp",
                {
                    "selector": "all()",
                    "doNotTrack": True,
                    "applyOnForward": True,
                    "egress": ALLOW_ALL_RULES,
                },
            )
        ],
        [],
        None,
        skipped=[GNP_KIND],
    ),
    _row(
        38,
        "D",
        [
            (
                "cnp",
                {
                    "selector": "app == 'agent'",
                    "types": ["Egress"],
                    "egress": [{"action": "Allow", "destination": {"nets": ["0.0.0.0/0"]}}],
                },
            )
        ],
        [(CNP_KIND, "x", "widens-egress")],
        "policy-widens-egress",
    ),
    _row(
        39,
        "D",
        [("gnp", {"namespaceSelector": "team == 'ml'", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "not-evaluable")],
        "not-evaluable",
    ),
    _row(
        40,
        "D",
        [("gnp", {"selector": "has(app) && app != 'agent'", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "does-not-select")],
        None,
    ),
    _row(
        41,
        "D",
        [("gnp", {"selector": "app = 'agent'", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "not-evaluable")],
        "not-evaluable",
    ),
    _row(
        42,
        "D",
        [("gnp", {"selector": "all()", "egress": DNS_RULES})],
        [(GNP_KIND, "x", "within")],
        None,
    ),
    _row(
        43,
        "D",
        [("gnp", {"selector": "all()", "egress": DNS_RULES})],
        [(GNP_KIND, "x", "widens-egress")],
        "policy-widens-egress",
        facts=data(sets=(KUBE_DNS_SET,)),
    ),
    _row(
        44,
        "D",
        [("gnp", {"tier": "platform", "selector": "all()", "egress": [{"action": "Pass"}]})],
        [(GNP_KIND, "x", "within")],
        None,
        facts=data(tiers=(tier("platform", {"order": 100}),)),
    ),
    _row(
        45,
        "D",
        [("gnp", {"selector": "all()", "egress": [{"action": "Pass"}]})],
        [(GNP_KIND, "x", "widens-egress")],
        "policy-widens-egress",
    ),
    _row(
        46,
        "D",
        [("gnp", {"tier": "kube-baseline", "selector": "all()", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "within")],
        None,
    ),
    _row(
        47,
        "D",
        [("gnp", {"tier": "kube-baseline", "selector": "all()", "egress": ALLOW_ALL_RULES})],
        [(GNP_KIND, "x", "widens-egress"), (TIER_KIND, "default", "not-evaluable")],
        "policy-widens-egress",
        facts=data(tiers=(PASS_DEFAULT_TIER,)),
    ),
    _row(
        48,
        "D",
        [
            (
                "gnp",
                {
                    "selector": "all()",
                    "egress": [
                        {
                            "action": "Allow",
                            "destination": {"services": {"name": "api", "namespace": "x"}},
                        }
                    ],
                },
            )
        ],
        [(GNP_KIND, "x", "not-evaluable")],
        "not-evaluable",
    ),
    _row(
        49,
        "P",
        [
            (
                "gnp",
                {
                    "selector": "all()",
                    "egress": [{"action": "Allow", "destination": {"notNets": ["10.0.0.0/8"]}}],
                },
            )
        ],
        [(GNP_KIND, "x", "widens-egress")],
        "policy-widens-egress",
    ),
    _row(
        50,
        "D",
        [("StagedGlobalNetworkPolicy", {"selector": "all()", "egress": ALLOW_ALL_RULES})],
        [],
        None,
        skipped=["StagedGlobalNetworkPolicy.projectcalico.org"],
    ),
]


def _candidate(kind: str, spec: dict[str, Any], api_version: str) -> ReachCandidate:
    if kind == "gnp":
        return gnp(spec, api_version=api_version)
    if kind == "cnp":
        return cnp(spec, api_version=api_version)
    candidate = staged(kind, spec)
    raw = {**candidate.raw, "apiVersion": api_version}
    return ReachCandidate(api_version, kind, raw)


def _judge_row(
    code: str, objects: list[Any], facts: ReachData, api_version: str
) -> tuple[ReachSubject, list[ReachDocument], list[Skipped]]:
    judged_subject = subject(code)
    documents: list[ReachDocument] = []
    skipped: list[Skipped] = []
    for kind, spec in objects:
        result = calico_documents(_candidate(kind, spec, api_version), judged_subject, facts)
        if isinstance(result, Skipped):
            skipped.append(result)
        else:
            documents.extend(result)
    documents.extend(calico_tier_documents(facts, judged_subject))
    return judged_subject, documents, skipped


@pytest.mark.parametrize("api_version", [V3, CRD])
@pytest.mark.parametrize(("code", "objects", "facts", "expected", "skipped", "refusal"), ROWS)
def test_row_documents(
    code: str,
    objects: list[Any],
    facts: ReachData,
    expected: list[tuple[str, str, str]],
    skipped: list[str],
    refusal: str | None,
    api_version: str,
) -> None:
    _, documents, skipped_objects = _judge_row(code, objects, facts, api_version)
    assert [(d.kind, d.name, d.verdict.value) for d in documents] == expected
    assert [s.kind for s in skipped_objects] == skipped
    for document in documents:
        assert document.group == "calico"
        if document.verdict not in (EgressVerdict.WITHIN, EgressVerdict.DOES_NOT_SELECT):
            assert document.detail


@pytest.mark.parametrize(("code", "objects", "facts", "expected", "skipped", "refusal"), ROWS)
def test_row_refusal(
    code: str,
    objects: list[Any],
    facts: ReachData,
    expected: list[tuple[str, str, str]],
    skipped: list[str],
    refusal: str | None,
) -> None:
    judged_subject, documents, skipped_objects = _judge_row(code, objects, facts, V3)
    try:
        decision = decide_reach(
            union_examined(code),
            [],
            documents,
            judged_subject.allowance,
            skipped=skipped_objects,
        )
    except NotImplementedError:
        pytest.skip("decide_reach is not implemented on reach-core yet")
    assert decision.refusal == (None if refusal is None else EgressRefusal(refusal))


# --- One test per §5 rule ----------------------------------------------------------------


def judge(
    candidate: ReachCandidate,
    code: str = "D",
    facts: ReachData | None = None,
    **subject_facts: Any,
) -> ReachDocument:
    result = calico_documents(candidate, subject(code, **subject_facts), facts or data())
    assert not isinstance(result, Skipped), result
    (document,) = result
    return document


def allow_to(destination: Any, **rule: Any) -> dict[str, Any]:
    return {
        "selector": "all()",
        "egress": [{"action": "Allow", "destination": destination, **rule}],
    }


def verdict(candidate: ReachCandidate, code: str = "D", **kwargs: Any) -> str:
    return judge(candidate, code, **kwargs).verdict.value


# §5.4 label views


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("projectcalico.org/namespace == 'sbx'", Tri.YES),
        ("projectcalico.org/orchestrator == 'k8s'", Tri.YES),
        ("projectcalico.org/serviceaccount == 'default'", Tri.YES),
        ("pcns.projectcalico.org/name == 'sbx'", Tri.YES),
        ("pcns.kubernetes.io/metadata.name == 'sbx'", Tri.YES),
        ("pcns.team == 'ml'", Tri.UNKNOWN),  # no Namespace manifest: partial
        ("has(pcns.team)", Tri.UNKNOWN),
        ("pcsa.projectcalico.org/name == 'default'", Tri.YES),
        ("pcsa.role == 'a'", Tri.UNKNOWN),  # no ServiceAccount manifest
        ("app == 'agent'", Tri.YES),
        ("has(other)", Tri.NO),
        ("has(agents.x-k8s.io/sandbox-name-hash)", Tri.YES),
        ("agents.x-k8s.io/sandbox-name-hash == 'abc'", Tri.UNKNOWN),
    ],
)
def test_endpoint_view_with_partial_namespace_and_service_account(
    selector: str, expected: Tri
) -> None:
    views = calico_views(subject("D"), data())
    node = parse_selector(selector)
    assert not isinstance(node, Exception)
    assert evaluate(node, views.endpoint) is expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("pcns.team == 'ml'", Tri.YES),
        ("has(pcns.other)", Tri.NO),
        ("pcsa.role == 'a'", Tri.YES),
        ("has(pcsa.other)", Tri.NO),
        ("pcsa.projectcalico.org/name == 'runner'", Tri.YES),
        ("projectcalico.org/serviceaccount == 'runner'", Tri.YES),
    ],
)
def test_endpoint_view_with_known_namespace_and_service_account(
    selector: str, expected: Tri
) -> None:
    facts = data(
        namespaces={NAMESPACE: {"team": "ml"}},
        service_accounts={(NAMESPACE, "runner"): known_labels({"role": "a"})},
    )
    views = calico_views(subject("D", service_account="runner"), facts)
    node = parse_selector(selector)
    assert evaluate(node, views.endpoint) is expected  # type: ignore[arg-type]


def test_a_pod_label_colliding_with_an_added_label_is_present_with_unknown_value() -> None:
    pod = {**POD_LABELS, "projectcalico.org/namespace": "elsewhere", "pcns.team": "x"}
    views = calico_views(subject("D", pod=pod), data(namespaces={NAMESPACE: {}}))
    assert views.endpoint("projectcalico.org/namespace") is KeyState.PRESENT
    # The namespace has no `team` label, so only the pod's value is there.
    assert views.endpoint("pcns.team") == "x"


def test_namespace_and_service_account_views_add_the_calico_name() -> None:
    views = calico_views(subject("D"), data())
    assert views.namespace_view("projectcalico.org/name") == NAMESPACE
    assert views.namespace_view("kubernetes.io/metadata.name") == NAMESPACE
    assert views.namespace_view("team") is KeyState.UNKNOWN
    assert views.service_account_view("projectcalico.org/name") == "default"
    assert views.service_account_view("role") is KeyState.UNKNOWN


# §5.5 selection


@pytest.mark.parametrize(
    ("maker", "spec", "facts", "expected"),
    [
        (cnp, {"selector": "app == 'agent'", "egress": ALLOW_ALL_RULES}, None, "widens-egress"),
        (cnp, {"selector": "app == 'other'", "egress": ALLOW_ALL_RULES}, None, "does-not-select"),
        (cnp, {"egress": ALLOW_ALL_RULES}, None, "widens-egress"),  # absent = all()
        (cnp, {"selector": "", "egress": ALLOW_ALL_RULES}, None, "widens-egress"),
        (cnp, {"selector": 7, "egress": ALLOW_ALL_RULES}, None, "not-evaluable"),
        (cnp, {"selector": "global()", "egress": ALLOW_ALL_RULES}, None, "not-evaluable"),
        # A namespaced policy has no namespaceSelector: it is not read.
        (
            cnp,
            {"namespaceSelector": "team == 'ml'", "egress": ALLOW_ALL_RULES},
            None,
            "widens-egress",
        ),
        (
            cnp,
            {"serviceAccountSelector": "role == 'x'", "egress": ALLOW_ALL_RULES},
            None,
            "not-evaluable",
        ),
        (
            cnp,
            {
                "serviceAccountSelector": "projectcalico.org/name == 'default'",
                "egress": ALLOW_ALL_RULES,
            },
            None,
            "widens-egress",
        ),
        (
            gnp,
            {"serviceAccountSelector": "role == 'x'", "egress": ALLOW_ALL_RULES},
            data(service_accounts={(NAMESPACE, "default"): known_labels({"role": "y"})}),
            "does-not-select",
        ),
        (
            gnp,
            {"namespaceSelector": "team == 'ml'", "egress": ALLOW_ALL_RULES},
            data(namespaces={NAMESPACE: {"team": "web"}}),
            "does-not-select",
        ),
        (
            gnp,
            {"namespaceSelector": "team == 'ml'", "egress": ALLOW_ALL_RULES},
            data(namespaces={NAMESPACE: {"team": "ml"}}),
            "widens-egress",
        ),
        (
            gnp,
            {"namespaceSelector": "projectcalico.org/name == 'sbx'", "egress": ALLOW_ALL_RULES},
            None,
            "widens-egress",
        ),
        # no wins over unknown
        (
            gnp,
            {
                "selector": "app == 'other'",
                "namespaceSelector": "team == 'ml'",
                "egress": ALLOW_ALL_RULES,
            },
            None,
            "does-not-select",
        ),
    ],
)
def test_selection(
    maker: Any, spec: dict[str, Any], facts: ReachData | None, expected: str
) -> None:
    assert verdict(maker(spec), facts=facts) == expected


def test_unknown_selection_with_rules_inside_is_within() -> None:
    spec = {"namespaceSelector": "team == 'ml'", "egress": [{"action": "Deny"}]}
    assert verdict(gnp(spec)) == "within"


def test_calico_selects_is_offered_for_other_checks() -> None:
    assert calico_selects(gnp({"selector": "app == 'agent'"}), subject("D"), data()) is Tri.YES
    assert calico_selects(gnp({"selector": "team == 'x'"}), subject("D"), data()) is Tri.NO
    unreadable = ReachCandidate(V3, "GlobalNetworkPolicy", {"spec": 3})
    assert calico_selects(unreadable, subject("D"), data()) is Tri.UNKNOWN


# §5.6 types


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"types": "Egress", "egress": ALLOW_ALL_RULES}, "not-evaluable"),
        ({"types": ["egress"], "egress": ALLOW_ALL_RULES}, "not-evaluable"),
        ({"types": [None], "egress": ALLOW_ALL_RULES}, "not-evaluable"),
        ({"types": ["Ingress", "Egress"], "egress": ALLOW_ALL_RULES}, "widens-egress"),
        ({"types": ["Ingress"], "egress": ALLOW_ALL_RULES}, "not-egress-scoped"),
        ({"types": ["Egress"]}, "not-egress-scoped"),  # governs, but no rule to judge
        ({"types": [], "egress": ALLOW_ALL_RULES}, "widens-egress"),  # [] read as absent
        ({"egress": ALLOW_ALL_RULES}, "widens-egress"),
        ({"egress": []}, "not-egress-scoped"),
        ({"ingress": ALLOW_ALL_RULES}, "not-egress-scoped"),
    ],
)
def test_types(spec: dict[str, Any], expected: str) -> None:
    assert verdict(gnp({"selector": "all()", **spec})) == expected


# §5.7 rule verdicts


@pytest.mark.parametrize(
    ("rules", "expected", "index"),
    [
        ([5], "not-evaluable", 0),
        ([{"action": "allow"}], "not-evaluable", 0),
        ([{"action": "Accept"}], "not-evaluable", 0),
        ([{}], "not-evaluable", 0),
        ([{"action": "Deny"}], "within", None),
        ([{"action": "Log"}, {"action": "Deny"}], "within", None),
        ([{"action": "Deny"}, {"action": "Allow"}], "widens-egress", 1),  # no shadowing
        # `source` only narrows the sending endpoint: not read.
        ([{"action": "Allow", "source": {"selector": "app == 'nobody'"}}], "widens-egress", 0),
        ([{"action": "Allow", "notProtocol": "TCP", "icmp": {"type": 8}}], "widens-egress", 0),
    ],
)
def test_rule_actions(rules: list[Any], expected: str, index: int | None) -> None:
    document = judge(gnp({"selector": "all()", "egress": rules}))
    assert document.verdict.value == expected
    assert document.rule_index == index
    assert document.rule_path == (() if index is None else ("spec", "egress", index))


def test_an_unknown_rule_before_a_widening_one_still_widens() -> None:
    document = judge(gnp({"selector": "all()", "egress": [5, {"action": "Allow"}]}))
    assert (document.verdict.value, document.rule_index) == ("widens-egress", 1)


@pytest.mark.parametrize(
    ("tier_name", "tiers", "code", "subject_facts", "expected"),
    [
        ("platform", (tier("platform", {"order": 100}),), "D", {}, "within"),  # row 44
        ("platform", (tier("platform", {"order": 100}),), "S", {}, "widens-egress"),  # no ISO
        ("platform", (tier("platform", {"order": 100}),), "D", {"iso": False}, "widens-egress"),
        (
            "platform",
            (tier("platform", {"order": 100}), PASS_DEFAULT_TIER),
            "D",
            {},
            "widens-egress",
        ),
        ("platform", (), "D", {}, "widens-egress"),  # no Tier manifest: unknown position
        ("platform", (tier("platform", {"order": "x"}),), "D", {}, "widens-egress"),
        ("kube-admin", (), "D", {}, "within"),  # built in, before default
        ("adminnetworkpolicy", (), "D", {}, "within"),
        ("default", (), "D", {}, "widens-egress"),  # row 45
    ],
)
def test_pass(
    tier_name: str,
    tiers: tuple[ReachCandidate, ...],
    code: str,
    subject_facts: dict[str, Any],
    expected: str,
) -> None:
    spec = {"tier": tier_name, "selector": "all()", "egress": [{"action": "Pass"}]}
    document = judge(gnp(spec), code, data(tiers=tiers), **subject_facts)
    assert document.verdict.value == expected
    if expected == "widens-egress":
        assert "Pass" in (document.detail or "")


def test_no_network_allowance_refuses_any_allow_rule() -> None:
    spec = allow_to({"nets": ["10.0.0.1/32"]})
    assert verdict(gnp(spec), "N") == "widens-egress"
    assert verdict(gnp({"selector": "all()", "egress": [{"action": "Deny"}]}), "N") == "within"


def test_allow_all_allowance_lets_every_rule_through() -> None:
    assert verdict(gnp({"selector": "all()", "egress": ALLOW_ALL_RULES}), "A") == "within"


# §5.2 tier positions


@pytest.mark.parametrize(
    ("name", "tiers", "expected"),
    [
        ("default", (), Position.DEFAULT),
        ("kube-admin", (), Position.BEFORE),
        ("adminnetworkpolicy", (), Position.BEFORE),
        ("kube-baseline", (), Position.AFTER),
        ("baselineadminnetworkpolicy", (), Position.AFTER),
        ("custom", (), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": 999999.5}),), Position.BEFORE),
        ("custom", (tier("custom", {"order": 1000001}),), Position.AFTER),
        ("custom", (tier("custom", {}),), Position.AFTER),  # absent order: last
        ("custom", (tier("custom", {"order": None}),), Position.AFTER),
        ("aaa", (tier("aaa", {"order": 1000000}),), Position.BEFORE),  # name order
        ("zzz", (tier("zzz", {"order": 1000000}),), Position.AFTER),
        ("custom", (tier("custom", {"order": "100"}),), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": True}),), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": float("nan")}),), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": float("inf")}),), Position.UNKNOWN),
        ("custom", (tier("custom", None),), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": 1}), tier("custom", {"order": 2})), Position.BEFORE),
        (
            "custom",
            (tier("custom", {"order": 1}), tier("custom", {"order": 2000000})),
            Position.UNKNOWN,
        ),
        ("kube-admin", (tier("kube-admin", {"order": 1000}),), Position.BEFORE),
        ("kube-admin", (tier("kube-admin", {"order": 2000000}),), Position.UNKNOWN),
        ("custom", (tier("custom", {"order": 5}, api_version=CRD),), Position.BEFORE),
    ],
)
def test_tier_position(name: str, tiers: tuple[ReachCandidate, ...], expected: Position) -> None:
    assert tier_position(name, data(tiers=tiers)) is expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"tier": 5, "egress": ALLOW_ALL_RULES}, "not-evaluable"),
        ({"tier": None, "egress": ALLOW_ALL_RULES}, "widens-egress"),  # default tier
        ({"tier": "", "egress": ALLOW_ALL_RULES}, "widens-egress"),
    ],
)
def test_tier_field(spec: dict[str, Any], expected: str) -> None:
    assert verdict(gnp({"selector": "all()", **spec})) == expected


# §5.8 wanted ports


@pytest.mark.parametrize(
    ("rule", "ports", "named"),
    [
        ({}, ALL_PORTS, False),
        ({"protocol": None}, ALL_PORTS, False),
        ({"protocol": "udp"}, (PortRange("UDP"),), False),
        ({"protocol": "ICMPv6"}, (PortRange("ICMPV6"),), False),
        ({"protocol": 6}, (PortRange("TCP"),), False),
        ({"protocol": 17}, (PortRange("UDP"),), False),
        ({"protocol": 132}, (PortRange("SCTP"),), False),
        ({"protocol": 1}, (PortRange("1"),), False),
        ({"protocol": 17.0}, (PortRange("UDP"),), False),
        ({"protocol": "TCP", "destination": {"ports": [443]}}, (PortRange("TCP", 443),), False),
        ({"protocol": "TCP", "destination": {"ports": ["443"]}}, (PortRange("TCP", 443),), False),
        ({"protocol": "TCP", "destination": {"ports": [0]}}, (PortRange("TCP", 0),), False),
        (
            {"protocol": "TCP", "destination": {"ports": ["1000:2000", 53]}},
            (PortRange("TCP", 1000, 2000), PortRange("TCP", 53)),
            False,
        ),
        ({"destination": {"ports": [53]}}, (PortRange(None, 53),), False),  # no protocol
        ({"protocol": "TCP", "destination": {"ports": ["https"]}}, ALL_PORTS, True),
        ({"protocol": "TCP", "destination": {"ports": [53, "dns"]}}, ALL_PORTS, True),
        ({"protocol": "TCP", "destination": {"ports": ["2000:1000"]}}, ALL_PORTS, True),
        ({"protocol": "TCP", "destination": {"ports": []}}, (PortRange("TCP"),), False),
        ({"protocol": "TCP", "destination": {"notPorts": [22]}}, (PortRange("TCP"),), False),
    ],
)
def test_wanted_ports(rule: dict[str, Any], ports: Any, named: bool) -> None:
    read = read_wanted_ports(rule, rule.get("destination"))
    assert not isinstance(read, str), read
    assert (read.ports, read.named_port) == (ports, named)


@pytest.mark.parametrize(
    "rule",
    [
        {"protocol": True},
        {"protocol": 0},
        {"protocol": 256},
        {"protocol": 6.5},
        {"protocol": ["TCP"]},
        {"destination": {"ports": 53}},
        {"destination": {"ports": [True]}},
        {"destination": {"ports": [None]}},
        {"destination": {"ports": [70000]}},
        {"destination": {"ports": ["70000"]}},
        {"destination": {"ports": ["1:70000"]}},
        {"destination": {"ports": [-1]}},
        {"destination": {"ports": [{"port": 53}]}},
        {"destination": {"ports": ["dns", True]}},  # unreadable wins over named, in any order
        {"destination": {"ports": [True, "dns"]}},
    ],
)
def test_unreadable_ports(rule: dict[str, Any]) -> None:
    assert isinstance(read_wanted_ports(rule, rule.get("destination")), str)
    document = judge(gnp({"selector": "all()", "egress": [{"action": "Allow", **rule}]}))
    assert document.verdict is EgressVerdict.NOT_EVALUABLE
    assert "ports cannot be read" in (document.detail or "")


def test_a_named_port_reads_as_every_port() -> None:
    destination = {
        "namespaceSelector": "projectcalico.org/name == 'kube-system'",
        "ports": ["dns"],
    }
    document = judge(gnp(allow_to(destination, protocol="UDP")))
    assert document.verdict is EgressVerdict.WIDENS_EGRESS
    assert "named port, read as every port and protocol" in (document.detail or "")
    # The same rule on port 53 stays inside the deny-all allowance.
    destination["ports"] = [53]
    assert verdict(gnp(allow_to(destination, protocol="UDP"))) == "within"


# §5.9 destinations


@pytest.mark.parametrize(
    ("destination", "code", "expected", "detail"),
    [
        ("nope", "D", "not-evaluable", "not an object"),
        ({"domains": ["api.github.com"]}, "D", "not-evaluable", '"domains"'),
        ({"services": {"name": "api"}}, "D", "not-evaluable", "Service"),
        ({"nets": "10.0.0.0/8"}, "D", "not-evaluable", "not a list"),
        ({"nets": ["10.0.0.0/33"]}, "D", "not-evaluable", "not a CIDR"),
        ({"notNets": [5]}, "D", "not-evaluable", "not a CIDR"),
        ({"selector": 5}, "D", "not-evaluable", "not a string"),
        ({"nets": ["8.8.8.8/32"]}, "P", "within", None),
        ({"nets": ["10.1.0.0/16"]}, "P", "widens-egress", "10.1.0.0/16"),
        ({"nets": ["0.0.0.0/0"], "notNets": ["10.0.0.0/8"]}, "P", "widens-egress", None),
        (
            {
                "nets": ["0.0.0.0/0", "::/0"],
                "notNets": [
                    "10.0.0.0/8",
                    "172.16.0.0/12",
                    "192.168.0.0/16",
                    "100.64.0.0/10",
                    "169.254.0.0/16",
                    "127.0.0.0/8",
                    "168.63.129.16/32",
                    "fc00::/7",
                    "fe80::/10",
                    "::1/128",
                ],
            },
            "P",
            "within",
            None,
        ),
        ({"notNets": ["10.0.0.0/8"]}, "P", "widens-egress", None),  # row 49
        ({}, "A", "within", None),
        (None, "D", "widens-egress", "names no destination"),
        ({"notSelector": "app == 'x'"}, "D", "widens-egress", "names no destination"),
        ({"notPorts": [22]}, "D", "widens-egress", "names no destination"),
    ],
)
def test_destinations(destination: Any, code: str, expected: str, detail: str | None) -> None:
    rule: dict[str, Any] = {"action": "Allow"}
    if destination is not None:
        rule["destination"] = destination
    document = judge(gnp({"selector": "all()", "egress": [rule]}), code)
    assert document.verdict.value == expected
    if detail is not None:
        assert detail in (document.detail or "")


def test_nets_take_the_not_nets_of_their_own_family() -> None:
    rule = {"destination": {"nets": ["0.0.0.0/0", "::/0"], "notNets": ["10.0.0.0/8", "fc00::/7"]}}
    read = read_destination(rule, namespaced=False)
    assert not isinstance(read, Undecided)
    assert [peer.text for peer in read.cidrs] == [
        '{"cidr":"0.0.0.0/0","except":["10.0.0.0/8"]}',
        '{"cidr":"::/0","except":["fc00::/7"]}',
    ]


@pytest.mark.parametrize(
    ("destination", "namespaced", "scoped"),
    [
        ({"selector": "a == 'b'"}, False, True),
        ({"namespaceSelector": "a == 'b'"}, False, True),
        ({"serviceAccounts": {"names": ["x"]}}, False, True),
        ({"notSelector": "a == 'b'"}, True, True),
        ({"notSelector": "a == 'b'"}, False, False),
        ({"selector": ""}, True, False),
        ({"nets": ["10.0.0.0/8"]}, True, False),
    ],
)
def test_selector_scope(destination: dict[str, Any], namespaced: bool, scoped: bool) -> None:
    read = read_destination({"destination": destination}, namespaced=namespaced)
    assert not isinstance(read, Undecided)
    assert read.scoped is scoped


KUBE_SYSTEM = {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}


@pytest.mark.parametrize(
    ("destination", "namespace", "namespace_selector", "pod_selector"),
    [
        (
            {"selector": "app == 'x'"},
            NAMESPACE,
            {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
            {"matchLabels": {"app": "x"}},
        ),
        ({"selector": "app == 'x'"}, None, {}, {"matchLabels": {"app": "x"}}),
        ({"namespaceSelector": "projectcalico.org/name == 'kube-system'"}, None, KUBE_SYSTEM, None),
        (
            {"namespaceSelector": "kubernetes.io/metadata.name == 'kube-system'"},
            NAMESPACE,
            KUBE_SYSTEM,
            None,
        ),
        ({"namespaceSelector": "all()", "selector": "all()"}, NAMESPACE, {}, {}),
        (
            {"namespaceSelector": "has(team) && team != 'x'", "selector": "!has(a)"},
            None,
            {
                "matchExpressions": [
                    {"key": "team", "operator": "Exists"},
                    {"key": "team", "operator": "NotIn", "values": ["x"]},
                ]
            },
            {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]},
        ),
        ({"serviceAccounts": {"selector": "x == 'y'"}}, None, {}, None),
    ],
)
def test_scope_translation(
    destination: dict[str, Any],
    namespace: str | None,
    namespace_selector: Any,
    pod_selector: Any,
) -> None:
    scope = translate_scope(destination, namespace)
    assert isinstance(scope, Scope), scope
    assert scope.peer.namespace_selector == namespace_selector
    assert scope.peer.pod_selector == (ABSENT if pod_selector is None else pod_selector)
    assert scope.peer.text == json.dumps(destination, separators=(",", ":"))


@pytest.mark.parametrize(
    ("destination", "reason"),
    [
        ({"namespaceSelector": "a == 'x' || b == 'y'"}, "conjunctive fragment"),
        ({"namespaceSelector": "a == 'x"}, "does not parse"),
        ({"selector": "a contains 'x'"}, "conjunctive fragment"),
        ({"selector": "a = 'x'"}, "does not parse"),
        ({"selector": "global()"}, "global()"),
        ({"selector": "pcns.team == 'ml'"}, "pcns.team"),
        ({"selector": "pcsa.role == 'x'"}, "pcsa.role"),
        (
            {"selector": "projectcalico.org/namespace == 'kube-system'"},
            "projectcalico.org/namespace",
        ),
        ({"namespaceSelector": 3}, "not a string"),
    ],
)
def test_scope_translation_unknown(destination: dict[str, Any], reason: str) -> None:
    scope = translate_scope(destination, None)
    assert isinstance(scope, Undecided)
    assert reason in scope.detail
    document = judge(gnp(allow_to(destination)))
    assert document.verdict is EgressVerdict.NOT_EVALUABLE


@pytest.mark.parametrize(
    ("code", "expected"),
    [("D", "widens-egress"), ("P", "not-evaluable"), ("A", "within"), ("S", "widens-egress")],
)
def test_global_scope(code: str, expected: str) -> None:
    destination = {"namespaceSelector": "global()"}
    assert translate_scope(destination, None) is GLOBAL_SCOPE
    assert translate_scope({"namespaceSelector": "has(x) || global()"}, None) is GLOBAL_SCOPE
    assert verdict(gnp(allow_to(destination)), code) == expected


@pytest.mark.parametrize(
    ("maker", "destination", "code", "expected"),
    [
        # A namespaced selector stays in the policy's own namespace, which
        # the deny-all allowance does not reach.
        (cnp, {"selector": "app == 'x'"}, "D", "widens-egress"),
        (cnp, {"notSelector": "app == 'x'"}, "D", "widens-egress"),
        (gnp, {"selector": "app == 'x'"}, "D", "widens-egress"),
        (gnp, {"namespaceSelector": "all()"}, "D", "widens-egress"),
        (gnp, {"namespaceSelector": "projectcalico.org/name == 'kube-system'"}, "D", "within"),
        (
            gnp,
            {
                "namespaceSelector": "projectcalico.org/name == 'kube-system'",
                "selector": "k8s-app == 'kube-dns'",
            },
            "P",
            "within",
        ),
        (
            gnp,
            {"namespaceSelector": "projectcalico.org/name == 'kube-system'"},
            "P",
            "widens-egress",
        ),
        (
            gnp,
            {
                "namespaceSelector": "projectcalico.org/name == 'kube-system'",
                "selector": "k8s-app == 'kube-dns'",
            },
            "SN",
            "widens-egress",
        ),
        # nets and a scope: only addresses in both.
        (
            gnp,
            {
                "nets": ["10.0.0.0/8"],
                "namespaceSelector": "projectcalico.org/name == 'kube-system'",
            },
            "D",
            "within",
        ),
        (gnp, {"nets": ["0.0.0.0/0"], "namespaceSelector": "team == 'x'"}, "D", "widens-egress"),
        (
            gnp,
            {"nets": ["0.0.0.0/0"], "namespaceSelector": "a == 'x' || b == 'y'"},
            "D",
            "not-evaluable",
        ),
        (gnp, {"nets": ["8.8.8.8/32"], "namespaceSelector": "a == 'x' || b == 'y'"}, "P", "within"),
        (gnp, {"nets": ["0.0.0.0/0"], "namespaceSelector": "global()"}, "P", "widens-egress"),
        (gnp, {"nets": ["0.0.0.0/0"], "namespaceSelector": "global()"}, "D", "widens-egress"),
    ],
)
def test_scoped_destinations(
    maker: Any, destination: dict[str, Any], code: str, expected: str
) -> None:
    rule = {"action": "Allow", "protocol": "UDP", "destination": {**destination, "ports": [53]}}
    assert verdict(maker({"selector": "all()", "egress": [rule]}), code) == expected


# §5.9.2 the network-set check


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ((), "within"),
        ((KUBE_DNS_SET,), "widens-egress"),  # row 43
        ((network_set("kube-system", {"k8s-app": "other"}, {"nets": ["0.0.0.0/0"]}),), "within"),
        ((network_set("kube-system", None, {"nets": ["0.0.0.0/0"]}),), "within"),
        ((network_set("other", {"k8s-app": "kube-dns"}, {"nets": ["0.0.0.0/0"]}),), "within"),
        (
            (
                network_set(
                    "kube-system",
                    {"k8s-app": "kube-dns"},
                    {"nets": ["0.0.0.0/0"]},
                    kind="GlobalNetworkSet",
                ),
            ),
            "within",
        ),
        ((network_set("kube-system", "bad", {"nets": ["0.0.0.0/0"]}),), "widens-egress"),
        (
            (network_set("kube-system", {"k8s-app": "kube-dns"}, {"nets": ["bad"]}),),
            "not-evaluable",
        ),
        ((network_set("kube-system", {"k8s-app": "kube-dns"}, None),), "not-evaluable"),
        ((network_set("kube-system", {"k8s-app": "kube-dns"}, {"nets": 5}),), "not-evaluable"),
        ((network_set("kube-system", {"k8s-app": "kube-dns"}, {}),), "within"),
        (
            (
                network_set(
                    "kube-system",
                    {"k8s-app": "kube-dns"},
                    {"allowedEgressDomains": ["evil.example"]},
                ),
            ),
            "widens-egress",
        ),
    ],
)
def test_network_set_check(sets: tuple[ReachCandidate, ...], expected: str) -> None:
    document = judge(gnp({"selector": "all()", "egress": DNS_RULES}), facts=data(sets=sets))
    assert document.verdict.value == expected
    if expected != "within":
        assert "NetworkSet" in (document.detail or "")


def test_network_set_check_without_a_pod_part_judges_every_set_there() -> None:
    destination = {"namespaceSelector": "projectcalico.org/name == 'kube-system'", "ports": [53]}
    spec = {
        "selector": "all()",
        "egress": [{"action": "Allow", "protocol": "UDP", "destination": destination}],
    }
    some_set = network_set("kube-system", {"any": "thing"}, {"nets": ["1.2.3.4/32"]})
    assert verdict(gnp(spec)) == "within"
    assert verdict(gnp(spec), facts=data(sets=(some_set,))) == "widens-egress"


# §5.10 the later-tier excuse


@pytest.mark.parametrize(
    ("tier_name", "tiers", "subject_facts", "expected", "excused"),
    [
        ("kube-baseline", (), {}, "within", True),  # row 46
        ("kube-baseline", (), {"iso": False}, "widens-egress", False),
        ("kube-baseline", (PASS_DEFAULT_TIER,), {}, "widens-egress", False),  # row 47
        ("late", (tier("late", {}),), {}, "within", True),
        ("late", (), {}, "widens-egress", False),  # unknown position is not excused
        ("kube-admin", (), {}, "widens-egress", False),  # before: Allow is final
    ],
)
def test_later_tier_excuse(
    tier_name: str,
    tiers: tuple[ReachCandidate, ...],
    subject_facts: dict[str, Any],
    expected: str,
    excused: bool,
) -> None:
    spec = {"tier": tier_name, "selector": "all()", "egress": ALLOW_ALL_RULES}
    document = judge(gnp(spec), facts=data(tiers=tiers), **subject_facts)
    assert (document.verdict.value, document.excused) == (expected, excused)
    if excused:
        assert "t-egress" in (document.detail or "")


def test_the_excuse_does_not_depend_on_cilium() -> None:
    spec = {"tier": "kube-baseline", "selector": "all()", "egress": ALLOW_ALL_RULES}
    assert judge(gnp(spec), "DC").excused


def test_an_excused_policy_that_does_not_select_keeps_its_verdict() -> None:
    spec = {"tier": "kube-baseline", "selector": "app == 'other'", "egress": ALLOW_ALL_RULES}
    assert verdict(gnp(spec)) == "does-not-select"


# §5.11 Tier documents and DEFTIER


@pytest.mark.parametrize(
    ("tiers", "has_deftier", "documents"),
    [
        ((), True, 0),
        ((tier("default", {"order": 1000000, "defaultAction": "Deny"}),), True, 0),
        ((tier("default", {"order": 1000000}),), True, 0),
        ((tier("default", {"defaultAction": None}),), True, 0),
        ((PASS_DEFAULT_TIER,), False, 1),
        ((tier("default", {"defaultAction": "deny"}),), False, 1),
        ((tier("default", None),), False, 1),
        ((tier("default", "x", api_version=CRD),), False, 1),
        ((tier("platform", {"defaultAction": "Pass"}),), True, 0),
    ],
)
def test_tier_documents(
    tiers: tuple[ReachCandidate, ...], has_deftier: bool, documents: int
) -> None:
    facts = data(tiers=tiers)
    assert deftier(facts) is has_deftier
    produced = calico_tier_documents(facts, subject("D"))
    assert len(produced) == documents
    for document in produced:
        assert (document.kind, document.name, document.verdict) == (
            TIER_KIND,
            "default",
            EgressVerdict.NOT_EVALUABLE,
        )
        assert "later tiers" in (document.detail or "")


# §5.12, §5.13 skipped objects


@pytest.mark.parametrize(
    "kind", ["StagedGlobalNetworkPolicy", "StagedNetworkPolicy", "StagedKubernetesNetworkPolicy"]
)
def test_staged_kinds_are_skipped(kind: str) -> None:
    result = calico_documents(
        staged(kind, {"egress": ALLOW_ALL_RULES}, name="s"), subject("D"), data()
    )
    assert result == Skipped(f"{kind}.projectcalico.org", "s", "staged, not enforced")


@pytest.mark.parametrize(
    ("spec", "skipped"),
    [
        ({"doNotTrack": True}, True),
        ({"preDNAT": True}, True),
        ({"doNotTrack": False, "preDNAT": False}, False),
        ({"applyOnForward": True}, False),
    ],
)
def test_host_endpoint_only_policies_are_skipped(spec: dict[str, Any], skipped: bool) -> None:
    result = calico_documents(
        gnp({"selector": "all()", "egress": ALLOW_ALL_RULES, **spec}), subject("D"), data()
    )
    assert isinstance(result, Skipped) is skipped


@pytest.mark.parametrize("field", ["doNotTrack", "preDNAT"])
def test_non_boolean_host_endpoint_fields_are_unreadable(field: str) -> None:
    assert (
        verdict(gnp({"selector": "all()", field: "true", "egress": ALLOW_ALL_RULES}))
        == "not-evaluable"
    )


def test_a_namespaced_policy_has_no_host_endpoint_fields() -> None:
    spec = {"doNotTrack": True, "preDNAT": "x", "egress": ALLOW_ALL_RULES}
    assert verdict(cnp(spec)) == "widens-egress"


# §5.14 order, and what is not a candidate


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        (["not", "an", "object"], "not a policy object"),
        ({"metadata": {"name": "x"}}, "`spec`"),
        ({"metadata": {"name": "x"}, "spec": {"egress": {"action": "Allow"}}}, "`spec.egress`"),
    ],
)
def test_unreadable_objects(raw: Any, detail: str) -> None:
    document = judge(ReachCandidate(V3, "GlobalNetworkPolicy", raw, position=3))
    assert document.verdict is EgressVerdict.NOT_EVALUABLE
    assert detail in (document.detail or "")
    if not isinstance(raw, dict):
        assert document.name == "(unnamed #3)"


def test_an_unreadable_staged_object_is_not_evaluable() -> None:
    # §5.14: step 1 comes before the staged check.
    result = calico_documents(staged("StagedNetworkPolicy", "x"), subject("D"), data())  # type: ignore[arg-type]
    assert not isinstance(result, Skipped)
    assert result[0].verdict is EgressVerdict.NOT_EVALUABLE


def test_unreadable_beats_host_endpoint_and_selection() -> None:
    spec = {"doNotTrack": True, "selector": "app == 'other'", "egress": "x"}
    assert verdict(gnp(spec)) == "not-evaluable"


@pytest.mark.parametrize(
    "candidate",
    [
        ReachCandidate("projectcalico.org/v2", "GlobalNetworkPolicy", {"spec": {}}),
        ReachCandidate("networking.k8s.io/v1", "NetworkPolicy", {"spec": {}}),
        ReachCandidate(V3, "Tier", {"metadata": {"name": "default"}, "spec": {}}),
        ReachCandidate(V3, "NetworkSet", {"spec": {}}),
        ReachCandidate(
            V3,
            "NetworkPolicy",
            {
                "metadata": {"name": "x", "namespace": "elsewhere"},
                "spec": {"egress": ALLOW_ALL_RULES},
            },
        ),
    ],
)
def test_not_calico_policy_candidates(candidate: ReachCandidate) -> None:
    assert calico_documents(candidate, subject("D"), data()) == ()


def test_a_namespaced_policy_without_namespace_is_taken_as_the_sandbox_namespace() -> None:
    raw = {"metadata": {"name": "x"}, "spec": {"egress": ALLOW_ALL_RULES}}
    assert verdict(ReachCandidate(V3, "NetworkPolicy", raw)) == "widens-egress"


def test_documents_never_depend_on_data_order() -> None:
    tiers = (tier("platform", {"order": 100}), PASS_DEFAULT_TIER, tier("late", {}))
    sets = (
        KUBE_DNS_SET,
        network_set("kube-system", {"k8s-app": "kube-dns"}, {"nets": ["bad"]}, name="b"),
    )
    spec = {"tier": "platform", "selector": "all()", "egress": [{"action": "Pass"}, *DNS_RULES]}
    forward = judge(gnp(spec), facts=data(tiers=tiers, sets=sets))
    backward = judge(gnp(spec), facts=data(tiers=tiers[::-1], sets=sets[::-1]))
    assert forward.verdict == backward.verdict


def test_the_defaulted_namespace_decides_for_namespaced_objects() -> None:
    raw = {"metadata": {"name": "x"}, "spec": {"egress": ALLOW_ALL_RULES}}
    elsewhere = ReachCandidate(V3, "NetworkPolicy", raw, namespace="elsewhere")
    here = ReachCandidate(V3, "NetworkPolicy", raw, namespace=NAMESPACE)
    assert calico_documents(elsewhere, subject("D"), data()) == ()
    assert verdict(here) == "widens-egress"
    staged_elsewhere = ReachCandidate(V3, "StagedNetworkPolicy", raw, namespace="elsewhere")
    assert calico_documents(staged_elsewhere, subject("D"), data()) == ()
    # A cluster-scoped policy is read whatever namespace it names.
    global_raw = {
        "metadata": {"name": "x", "namespace": "elsewhere"},
        "spec": {"egress": ALLOW_ALL_RULES},
    }
    assert verdict(ReachCandidate(V3, "GlobalNetworkPolicy", global_raw)) == "widens-egress"


def test_a_network_set_of_unknown_namespace_is_checked_everywhere() -> None:
    raw = {
        "metadata": {"name": "s", "labels": {"k8s-app": "kube-dns"}},
        "spec": {"nets": ["0.0.0.0/0"]},
    }
    floating = ReachCandidate(V3, "NetworkSet", raw)
    placed = ReachCandidate(V3, "NetworkSet", raw, namespace="other")
    spec = {"selector": "all()", "egress": DNS_RULES}
    assert verdict(gnp(spec), facts=data(sets=(floating,))) == "widens-egress"
    assert verdict(gnp(spec), facts=data(sets=(placed,))) == "within"


# §8 ingress for Calico


@pytest.mark.parametrize(
    ("maker", "spec", "expected", "index"),
    [
        (gnp, {"selector": "all()", "ingress": [{"action": "Allow"}]}, "not-evaluable", 0),
        (
            gnp,
            {"selector": "all()", "ingress": [{"action": "Deny"}, {"action": "Pass"}]},
            "not-evaluable",
            1,
        ),
        (
            gnp,
            {"selector": "all()", "ingress": [{"action": "Deny"}, {"action": "Log"}]},
            "not-ingress-scoped",
            None,
        ),
        (gnp, {"selector": "all()", "ingress": [{"action": "Accept"}]}, "not-evaluable", 0),
        (gnp, {"selector": "all()", "ingress": [3]}, "not-evaluable", 0),
        (gnp, {"selector": "all()", "ingress": "x"}, "not-evaluable", None),
        (
            gnp,
            {"selector": "all()", "types": ["Egress"], "ingress": [{"action": "Allow"}]},
            "not-ingress-scoped",
            None,
        ),
        (
            gnp,
            {"selector": "app == 'other'", "ingress": [{"action": "Allow"}]},
            "does-not-select",
            None,
        ),
        (
            gnp,
            {"namespaceSelector": "team == 'ml'", "ingress": [{"action": "Allow"}]},
            "not-evaluable",
            0,
        ),
        (gnp, {"selector": "all()", "egress": ALLOW_ALL_RULES}, "not-ingress-scoped", None),
        (cnp, {"selector": "app == 'agent'", "ingress": [{"action": "Allow"}]}, "not-evaluable", 0),
        (gnp, {"tier": 4, "ingress": [{"action": "Allow"}]}, "not-evaluable", None),
    ],
)
def test_calico_ingress(maker: Any, spec: dict[str, Any], expected: str, index: int | None) -> None:
    (document,) = calico_ingress_documents(maker(spec), subject("D"), data())
    assert (document.verdict.value, document.rule_index) == (expected, index)
    assert document.group == "calico"
    assert document.rule_path == (() if index is None else ("spec", "ingress", index))
    # The package's ingress reader hands Calico policies to the same reader.
    assert ingress_documents(maker(spec), subject("D"), data()) == (document,)


@pytest.mark.parametrize(
    "candidate",
    [
        gnp({"selector": "all()", "doNotTrack": True, "ingress": [{"action": "Allow"}]}),
        staged("StagedGlobalNetworkPolicy", {"ingress": [{"action": "Allow"}]}),
        tier("default", {}),
        ReachCandidate(
            V3,
            "NetworkPolicy",
            {"metadata": {"namespace": "elsewhere"}, "spec": {"ingress": [{"action": "Allow"}]}},
        ),
    ],
)
def test_calico_ingress_ignores_what_is_not_enforced_on_the_pod(candidate: ReachCandidate) -> None:
    assert calico_ingress_documents(candidate, subject("D"), data()) == ()


@pytest.mark.parametrize(("code", "objects", "facts", "expected", "skipped", "refusal"), ROWS)
def test_row_without_the_named_object_never_passes(
    code: str,
    objects: list[Any],
    facts: ReachData,
    expected: list[tuple[str, str, str]],
    skipped: list[str],
    refusal: str | None,
) -> None:
    """C§9: with the named object removed nothing isolates the pod (ISO is
    false) and new kinds never count as enforcing, so reach refuses."""
    bare = subject(code, iso=False)
    documents: list[ReachDocument] = []
    for kind, spec in objects:
        result = calico_documents(_candidate(kind, spec, V3), bare, facts)
        if not isinstance(result, Skipped):
            documents.extend(result)
    documents.extend(calico_tier_documents(facts, bare))
    decision = decide_reach([], [], documents, bare.allowance)
    assert decision.refusal is not None
    if refusal is not None:
        # What refused with the named object still refuses at least as strongly.
        assert decision.refusal != EgressRefusal.NO_ENFORCING_POLICY


# --- Properties ----------------------------------------------------------------------------


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 70000)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)
selectors = st.sampled_from(
    [
        "",
        "all()",
        "app == 'agent'",
        "team == 'ml'",
        "has(x) ||",
        "global()",
        "k8s-app == 'kube-dns'",
    ]
)
rule_values = st.fixed_dictionaries(
    {"action": st.sampled_from(["Allow", "Deny", "Pass", "Log", "allow"])},
    optional={
        "protocol": st.sampled_from(["TCP", "UDP", 17, None, True]),
        "destination": st.fixed_dictionaries(
            {},
            optional={
                "nets": st.lists(
                    st.sampled_from(["0.0.0.0/0", "10.0.0.0/8", "8.8.8.8/32", "x"]), max_size=2
                ),
                "notNets": st.lists(st.sampled_from(["10.0.0.0/8", "fc00::/7"]), max_size=2),
                "selector": selectors,
                "namespaceSelector": st.sampled_from(
                    [
                        "projectcalico.org/name == 'kube-system'",
                        "all()",
                        "global()",
                        "a == 'b' || c == 'd'",
                    ]
                ),
                "ports": st.lists(st.sampled_from([53, "53", "1:100", "dns", True]), max_size=2),
                "services": st.just({"name": "x"}),
            },
        ),
    },
)
policy_specs = st.fixed_dictionaries(
    {},
    optional={
        "tier": st.sampled_from(["default", "platform", "late", "kube-baseline", "kube-admin", 3]),
        "selector": selectors,
        "namespaceSelector": selectors,
        "types": st.sampled_from([["Egress"], ["Ingress"], ["Ingress", "Egress"], "Egress"]),
        "egress": st.lists(rule_values | json_values, max_size=3),
        "doNotTrack": st.sampled_from([True, False, "x"]),
    },
)
tier_sets = st.lists(
    st.builds(
        tier,
        st.sampled_from(["default", "platform", "late"]),
        st.fixed_dictionaries(
            {},
            optional={
                "order": st.sampled_from([100, 1000000, 2000000, None, "x"]),
                "defaultAction": st.sampled_from(["Deny", "Pass"]),
            },
        ),
    ),
    max_size=3,
)
set_lists = st.lists(
    st.builds(
        network_set,
        st.sampled_from(["kube-system", "sbx"]),
        st.sampled_from([{"k8s-app": "kube-dns"}, {}, "bad"]),
        st.sampled_from([{"nets": ["0.0.0.0/0"]}, {"nets": ["bad"]}, {}, None]),
        name=st.sampled_from(["a", "b", "c"]),
    ),
    max_size=3,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    json_values, st.sampled_from(["GlobalNetworkPolicy", "NetworkPolicy", "StagedNetworkPolicy"])
)
def test_any_json_is_judged_or_skipped_never_crashes(raw: Any, kind: str) -> None:
    candidate = ReachCandidate(V3, kind, raw)
    result = calico_documents(candidate, subject("D"), data())
    assert isinstance(result, Skipped | tuple)
    calico_ingress_documents(candidate, subject("D"), data())


@settings(max_examples=300, deadline=None)
@given(
    policy_specs,
    tier_sets,
    set_lists,
    st.sampled_from(["D", "P", "S", "A", "N"]),
    st.randoms(use_true_random=False),
)
def test_documents_do_not_depend_on_the_order_of_tiers_and_sets(
    spec: dict[str, Any],
    tiers: list[ReachCandidate],
    sets: list[ReachCandidate],
    code: str,
    random: Any,
) -> None:
    first = calico_documents(gnp(spec), subject(code), data(tiers=tuple(tiers), sets=tuple(sets)))
    random.shuffle(tiers)
    random.shuffle(sets)
    second = calico_documents(gnp(spec), subject(code), data(tiers=tuple(tiers), sets=tuple(sets)))
    assert first == second


@settings(max_examples=300, deadline=None)
@given(policy_specs, st.sampled_from(["D", "P", "S", "N"]))
def test_an_allow_rule_with_no_destination_never_passes(spec: dict[str, Any], code: str) -> None:
    """Outside allow-all, a selecting policy that governs egress and is not
    excused refuses once it holds a bare Allow rule."""
    widened = {**spec, "egress": [*spec.get("egress", []), {"action": "Allow"}]}
    widened.pop("types", None)
    result = calico_documents(gnp(widened), subject(code), data())
    if isinstance(result, Skipped) or not result:
        return
    (document,) = result
    assert (
        document.verdict
        in (
            EgressVerdict.WIDENS_EGRESS,
            EgressVerdict.NOT_EVALUABLE,
            EgressVerdict.DOES_NOT_SELECT,
        )
        or document.excused
    )
