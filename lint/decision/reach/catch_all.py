"""Kinds recognised only to fail closed, and pod conditions (CLUSTER-POLICIES.md §7).

Each object below yields one `not-evaluable` document in the `other` group,
whose detail names the kind, the group and the reason. Cluster-scoped kinds
are always candidates; namespaced kinds only in the sandbox namespace; pod
conditions are per acquisition path, read from the template's pod template
(and a claim's extra pod annotations).

Kinds that only route traffic (egress gateways, EgressIP, ...) cannot allow
more than the policies do and yield nothing; so do the data-only kinds that
merely feed a policy (Antrea Tier, ClusterGroup, Group).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from lint.decision.model import EgressVerdict
from lint.decision.reach.common import api_group, display_kind, object_name
from lint.decision.reach.model import ReachCandidate, ReachDocument, ReachSubject
from lint.decision.values import JSON


class CatchAllKind(msgspec.Struct, frozen=True):
    """One row of the §7 table. ``versions`` None means every version of the
    group; ``namespaced`` kinds count only in the sandbox namespace."""

    group: str
    kinds: tuple[str, ...]
    namespaced: bool
    reason: str
    versions: tuple[str, ...] | None = None


ANTREA_VERSIONS: Final = ("v1beta1", "v1alpha1")
ANTREA_TIERS: Final = (
    "Antrea-native tiers run before Kubernetes NetworkPolicy (all but `baseline`), so an "
    "Allow rule there overrides NetworkPolicy isolation"
)
PRECEDENCE_UNKNOWN: Final = "its precedence relative to NetworkPolicy is not known"

CATCH_ALL_KINDS: Final = (
    CatchAllKind("crd.antrea.io", ("ClusterNetworkPolicy",), False, ANTREA_TIERS, ANTREA_VERSIONS),
    CatchAllKind(
        "crd.antrea.io",
        ("NetworkPolicy",),
        True,
        f"the namespaced Antrea-native policy: {ANTREA_TIERS}",
        ANTREA_VERSIONS,
    ),
    CatchAllKind(
        "k8s.cni.cncf.io",
        ("MultiNetworkPolicy",),
        True,
        "it governs secondary interfaces, which NetworkPolicy does not",
        ("v1beta1",),
    ),
    CatchAllKind(
        "k8s.ovn.org",
        ("EgressFirewall",),
        True,
        "its ordered Allow/Deny rules govern traffic leaving the cluster and allow what "
        "they do not match; whether its Allow can override a NetworkPolicy deny is not known",
        ("v1",),
    ),
    CatchAllKind(
        "k8s.ovn.org",
        ("UserDefinedNetwork",),
        True,
        "it replaces the pod's primary network, and how NetworkPolicy and cluster "
        "policies apply on it is not known",
        ("v1",),
    ),
    CatchAllKind(
        "k8s.ovn.org",
        ("ClusterUserDefinedNetwork",),
        False,
        "it replaces the pod's primary network, and how NetworkPolicy and cluster "
        "policies apply on it is not known",
        ("v1",),
    ),
    CatchAllKind(
        "network.openshift.io",
        ("EgressNetworkPolicy",),
        True,
        f"the openshift-sdn egress firewall; {PRECEDENCE_UNKNOWN}",
        ("v1",),
    ),
    CatchAllKind(
        "networking.gke.io",
        ("FQDNNetworkPolicy",),
        True,
        f"a GKE FQDN egress allow policy; its version and {PRECEDENCE_UNKNOWN}",
    ),
    CatchAllKind(
        "kubeovn.io",
        ("SecurityGroup",),
        False,
        f"a Kube-OVN security group; {PRECEDENCE_UNKNOWN}",
        ("v1",),
    ),
)
SILENT_KINDS: Final = frozenset(
    {("crd.antrea.io", "Tier"), ("crd.antrea.io", "ClusterGroup"), ("crd.antrea.io", "Group")}
)
"""They only feed the Antrea policies above, which fail closed themselves."""

NETWORK_POLICY_API_GROUP: Final = "policy.networking.k8s.io"
KNOWN_NETWORK_POLICY_API: Final = frozenset(
    {
        ("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy"),
        ("policy.networking.k8s.io/v1alpha1", "BaselineAdminNetworkPolicy"),
        ("policy.networking.k8s.io/v1alpha2", "ClusterNetworkPolicy"),
    }
)
HANDLED_ELSEWHERE: Final = frozenset(
    {
        ("networking.k8s.io", "NetworkPolicy"),
        ("cilium.io", "CiliumNetworkPolicy"),
        ("cilium.io", "CiliumClusterwideNetworkPolicy"),
    }
)
"""Old kinds: the union (and reach, for Cilium under `engine: core`) reads them."""
CALICO_API_VERSIONS: Final = ("projectcalico.org/v3", "crd.projectcalico.org/v1")
UNKNOWN_POLICY_NAMES: Final = ("EgressFirewall", "EgressNetworkPolicy")

CILIUM_CONFIG_NAMESPACE: Final = "kube-system"
CILIUM_CONFIG_NAME: Final = "cilium-config"
CILIUM_NEVER: Final = (
    "Cilium's `never` enforcement mode disables policy enforcement on every endpoint "
    "(the ConfigMap key name is not verified)"
)

NETWORKS_ANNOTATION: Final = "k8s.v1.cni.cncf.io/networks"
POD_CONDITION_KIND: Final = "pod condition"


def _document(kind: str, name: str, detail: str, path: tuple[str | int, ...] = ()) -> ReachDocument:
    return ReachDocument(
        kind=kind,
        name=name,
        verdict=EgressVerdict.NOT_EVALUABLE,
        detail=detail,
        rule_index=None,
        rule_path=path,
        group="other",
    )


def _row(api_version: str, kind: str) -> CatchAllKind | None:
    group = api_group(api_version)
    version = api_version.rsplit("/", 1)[-1]
    for row in CATCH_ALL_KINDS:
        versions_match = row.versions is None or version in row.versions
        if row.group == group and kind in row.kinds and versions_match:
            return row
    return None


def catch_all_reason(api_version: str, kind: str, raw: JSON) -> tuple[str, bool] | None:
    """The §7 reason this (apiVersion, kind) fails closed, and whether the
    kind is namespaced; None for a kind §7 does not catch."""
    group = api_group(api_version)
    if (group, kind) in SILENT_KINDS:
        return None
    row = _row(api_version, kind)
    if row is not None:
        return row.reason, row.namespaced
    if group == NETWORK_POLICY_API_GROUP and (api_version, kind) not in KNOWN_NETWORK_POLICY_API:
        return (
            "an API version (or kind) of the network-policy API whose fields the linter "
            "does not know",
            False,
        )
    if group == "kubeovn.io" and kind == "Subnet":
        return _subnet_reason(raw)
    if (group, kind) in HANDLED_ELSEWHERE or api_version in CALICO_API_VERSIONS:
        return None
    if kind.endswith("NetworkPolicy") or kind in UNKNOWN_POLICY_NAMES:
        # Scope unknown: taken as cluster-scoped, the fail-closed reading.
        return "an unknown policy kind, which fails closed rather than pass silently", False
    return None


def _subnet_reason(raw: JSON) -> tuple[str, bool] | None:
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if isinstance(spec, dict) and spec.get("acls") is not None:
        return f"a Kube-OVN Subnet with `spec.acls`; {PRECEDENCE_UNKNOWN}", False
    return None


def catch_all_documents(
    candidate: ReachCandidate, subject: ReachSubject
) -> tuple[ReachDocument, ...]:
    """§7: one `not-evaluable` document for a caught kind (namespaced kinds
    only in the sandbox namespace), and for the `cilium-config` ConfigMap
    with `enable-policy: never` under CILIUM; () otherwise."""
    return caught_documents(candidate, subject.namespace, subject.cilium)


def caught_documents(
    candidate: ReachCandidate, namespace: str, cilium: bool
) -> tuple[ReachDocument, ...]:
    """``catch_all_documents`` for a sandbox in ``namespace``, under CILIUM
    when ``cilium``."""
    if _is_cilium_never(candidate, cilium):
        return (
            _document(
                "ConfigMap",
                f"{CILIUM_CONFIG_NAMESPACE}/{CILIUM_CONFIG_NAME}",
                f"ConfigMap (core group) sets `enable-policy: never`: {CILIUM_NEVER}",
                ("data", "enable-policy"),
            ),
        )
    caught = catch_all_reason(candidate.api_version, candidate.kind, candidate.raw)
    if caught is None:
        return ()
    reason, namespaced = caught
    if namespaced and candidate.namespace_or(namespace) != namespace:
        return ()
    group = api_group(candidate.api_version) or "core"
    detail = (
        f"{candidate.kind} ({candidate.api_version}, group {group}) is recognised only to "
        f"fail closed: {reason}"
    )
    kind = display_kind(candidate.api_version, candidate.kind)
    return (_document(kind, object_name(candidate.raw, candidate.position), detail),)


def _is_cilium_never(candidate: ReachCandidate, cilium: bool) -> bool:
    if not cilium or candidate.api_version != "v1" or candidate.kind != "ConfigMap":
        return False
    raw = candidate.raw
    if not isinstance(raw, dict):
        return False
    if object_name(raw, candidate.position) != CILIUM_CONFIG_NAME:
        return False
    if candidate.namespace_or("") != CILIUM_CONFIG_NAMESPACE:
        return False
    data = raw.get("data")
    return isinstance(data, dict) and data.get("enable-policy") == "never"


# --- pod conditions ------------------------------------------------------------------------


def pod_condition_documents(subject: ReachSubject) -> tuple[ReachDocument, ...]:
    """§7 pod conditions of one acquisition path: the template's pod
    annotations (and the path's extra annotations) carrying
    `k8s.v1.cni.cncf.io/networks`, and `spec.hostNetwork: true`."""
    return pod_conditions(subject.pod_template, subject.pod_annotations)


def pod_conditions(
    pod_template: JSON, pod_annotations: Mapping[str, JSON]
) -> tuple[ReachDocument, ...]:
    """``pod_condition_documents`` from the template's ``spec.podTemplate``
    and the path's extra pod annotations."""
    template = pod_template if isinstance(pod_template, dict) else {}
    documents: list[ReachDocument] = []
    networks = _networks_annotation_path(template, pod_annotations)
    if networks is not None:
        documents.append(
            _document(
                POD_CONDITION_KIND,
                f"annotation {NETWORKS_ANNOTATION}",
                f"the pod's annotation `{NETWORKS_ANNOTATION}` gives it secondary interfaces, "
                "whose egress no NetworkPolicy, AdminNetworkPolicy or ClusterNetworkPolicy "
                "governs",
                networks,
            )
        )
    spec = template.get("spec")
    if isinstance(spec, dict) and spec.get("hostNetwork") is True:
        documents.append(
            _document(
                POD_CONDITION_KIND,
                "hostNetwork",
                "the pod is host-networked (`spec.hostNetwork: true`): host-networked pods are "
                "excluded from AdminNetworkPolicy and ClusterNetworkPolicy subjects and peers, "
                "and NetworkPolicy may not govern them either",
                ("spec", "podTemplate", "spec", "hostNetwork"),
            )
        )
    return tuple(documents)


CLAIM_ANNOTATIONS_PATH: Final = ("spec", "additionalPodMetadata", "annotations")
"""Where a SandboxClaim adds annotations to its pod (AGENT-SANDBOX §6)."""


def _networks_annotation_path(
    template: Mapping[str, JSON], pod_annotations: Mapping[str, JSON]
) -> tuple[str, ...] | None:
    """Where the secondary-network annotation comes from: the template's pod
    metadata, else the path's extra annotations (a claim's), else nowhere."""
    if NETWORKS_ANNOTATION in _annotations(template):
        return ("spec", "podTemplate", "metadata", "annotations", NETWORKS_ANNOTATION)
    if NETWORKS_ANNOTATION in pod_annotations:
        return (*CLAIM_ANNOTATIONS_PATH, NETWORKS_ANNOTATION)
    return None


def _annotations(template: Mapping[str, JSON]) -> Mapping[str, JSON]:
    metadata = template.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations if isinstance(annotations, dict) else {}
