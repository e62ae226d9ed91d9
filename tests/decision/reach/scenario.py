"""The base of CLUSTER-POLICIES §9, shared by the reach tests.

Sandbox namespace `sbx`, template `t`, direct path, pod labels
`{sandbox.namzu.ai/template: t, app: agent}`; the named object (the real
translation of the row's declaration) is in `sbx`; no Namespace manifest
unless the row states one. Allowances come from the real translator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lint.decision.allowance import build_allowance
from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.controller import SANDBOX_NAME_HASH_LABEL
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    Allowance,
    Candidate,
    Examined,
    PolicyDocument,
    Subject,
    Translation,
    Tri,
)
from lint.decision.reach import decide_reach, reach_outcome, subject_documents
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDecision,
    ReachDocument,
    ReachSubject,
    namespace_label_view,
    pod_label_view,
)
from lint.decision.translation import translate
from lint.decision.union import examine

NAMESPACE = "sbx"
TEMPLATE = "t"
POD_LABELS = {
    "sandbox.namzu.ai/template": TEMPLATE,
    "app": "agent",
    # As ``lint.sandboxes.pod_labels`` gives it on every path of a template.
    SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE,
}

KDNS: dict[str, Any] = {
    "pods": {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    }
}
DNSPORTS1: list[Any] = [
    {"portNumber": {"protocol": "UDP", "port": 53}},
    {"portNumber": {"protocol": "TCP", "port": 53}},
]
DNSPROTO2: list[Any] = [
    {"udp": {"destinationPort": {"number": 53}}},
    {"tcp": {"destinationPort": {"number": 53}}},
]

DECLARATIONS: dict[str, dict[str, Any]] = {
    "D": {"policy": {"kind": "deny-all"}},
    "DC": {"engine": "cilium", "policy": {"kind": "deny-all"}},
    "P": {"policy": {"kind": "public-internet"}},
    "PC": {"engine": "cilium", "policy": {"kind": "public-internet"}},
    "S": {"engine": "cilium", "policy": {"kind": "static", "allowedHosts": ["api.github.com"]}},
    "SN": {
        "engine": "cilium",
        "policy": {"kind": "static", "allowedHosts": ["api.github.com"]},
        "ciliumNarrowing": {"dnsNames": True},
    },
    "A": {"policy": {"kind": "allow-all"}},
    "N": {"policy": {"kind": "no-network"}},
}
CILIUM_CODES = frozenset({"DC", "PC", "S", "SN"})


def translation(code: str) -> Translation:
    return translate(DECLARATIONS[code], TEMPLATE, NAMESPACE)


def allowance(code: str) -> Allowance:
    return build_allowance(translation(code))


def anp(spec: dict[str, Any], name: str = "x") -> dict[str, Any]:
    return {
        "apiVersion": "policy.networking.k8s.io/v1alpha1",
        "kind": "AdminNetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def banp(spec: dict[str, Any], name: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "policy.networking.k8s.io/v1alpha1",
        "kind": "BaselineAdminNetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def cnp(spec: dict[str, Any], name: str = "x") -> dict[str, Any]:
    return {
        "apiVersion": "policy.networking.k8s.io/v1alpha2",
        "kind": "ClusterNetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def candidate(raw: Mapping[str, Any], position: int = 0) -> ReachCandidate:
    return ReachCandidate(str(raw["apiVersion"]), str(raw["kind"]), dict(raw), position)


@dataclass
class Scenario:
    """One §9 row's inputs. ``old`` are extra old-kind union documents
    (already judged), appended after the named object's."""

    code: str
    objects: Sequence[Mapping[str, Any]] = ()
    namespace_labels: Mapping[str, str] | None = None
    pod_template: Any = None
    old: Sequence[PolicyDocument] = ()
    cidr_groups: Sequence[Mapping[str, Any]] = ()
    named_object: bool = True
    iso_override: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def union_documents(code: str, named_object: bool = True) -> list[PolicyDocument]:
    """The union's documents: the named object alone (it equals the translation)."""
    if not named_object:
        return []
    tr = translation(code)
    kind = tr.kind
    return egress_documents(
        Candidate(kind, tr.manifest, 0),
        Subject(NAMESPACE, POD_LABELS),
        build_allowance(tr),
        tr,
    )


def iso_of(documents: Sequence[PolicyDocument]) -> bool:
    """§1.3: a readable core NetworkPolicy selects the pod and enforces egress."""
    return any(
        d.kind == "NetworkPolicy" and d.unreadable is None and d.selects is Tri.YES and d.enforces
        for d in documents
    )


def subject_for(scenario: Scenario, documents: Sequence[PolicyDocument]) -> ReachSubject:
    iso = iso_of(documents) if scenario.iso_override is None else scenario.iso_override
    return ReachSubject(
        namespace=NAMESPACE,
        pod=pod_label_view(POD_LABELS),
        service_account="default",
        allowance=allowance(scenario.code),
        iso=iso,
        cilium=scenario.code in CILIUM_CODES,
        iso_policy=f"{TEMPLATE}-egress" if iso else None,
        pod_template=scenario.pod_template,
    )


def data_for(scenario: Scenario) -> ReachData:
    labels = {}
    if scenario.namespace_labels is not None:
        labels[NAMESPACE] = namespace_label_view(NAMESPACE, scenario.namespace_labels)
    return ReachData(
        namespace_labels=labels,
        cidr_groups=tuple(candidate(group, i) for i, group in enumerate(scenario.cidr_groups)),
    )


@dataclass(frozen=True)
class Outcome:
    decision: ReachDecision
    union: tuple[Examined, ...]
    new: tuple[ReachDocument, ...]
    subject: ReachSubject


def run(scenario: Scenario) -> Outcome:
    documents = [*union_documents(scenario.code, scenario.named_object), *scenario.old]
    subject = subject_for(scenario, documents)
    data = data_for(scenario)
    new: list[ReachDocument] = []
    skipped = []
    for position, raw in enumerate(scenario.objects):
        judged, skips = reach_outcome(candidate(raw, position), subject, data)
        new.extend(judged)
        skipped.extend(skips)
    new.extend(subject_documents(subject, data))
    union = tuple(examine(document) for document in documents)
    decision = decide_reach(union, (), new, subject.allowance, skipped=skipped)
    return Outcome(decision, union, tuple(new), subject)


def without_named_object(scenario: Scenario) -> Scenario:
    return replace(scenario, named_object=False)
