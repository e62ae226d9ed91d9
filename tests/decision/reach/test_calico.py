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

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    Allowance,
    Candidate,
    EgressRefusal,
    EgressVerdict,
    Examined,
    Subject,
    Translation,
)
from lint.decision.reach import decide_reach
from lint.decision.reach.calico import calico_documents, calico_tier_documents
from lint.decision.reach.model import (
    LabelView,
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
    namespace_label_view,
    pod_label_view,
)
from lint.decision.translation import translate
from lint.decision.union import examine

NAMESPACE = "sbx"
TEMPLATE = "t"
POD_LABELS = {"sandbox.namzu.ai/template": TEMPLATE, "app": "agent"}
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
