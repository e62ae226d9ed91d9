"""C§7: kinds recognised only to fail closed, the cilium-config `never`
mode, and the pod conditions; and C§8, the fail-closed ingress rule."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from lint.decision.model import IngressRefusal, IngressVerdict
from lint.decision.reach import reach_documents
from lint.decision.reach.catch_all import catch_all_reason, pod_condition_documents
from lint.decision.reach.ingress import (
    decide_ingress_reach,
    ingress_documents,
    ingress_pod_condition_documents,
)
from lint.decision.reach.model import ReachCandidate, ReachData, ReachSubject
from tests.decision.reach.scenario import (
    NAMESPACE,
    Scenario,
    anp,
    banp,
    cnp,
    data_for,
    subject_for,
    union_documents,
)


def subject(code: str = "D", **scenario: Any) -> ReachSubject:
    return subject_for(Scenario(code, **scenario), union_documents(code))


def obj(
    api_version: str, kind: str, name: str = "x", namespace: str | None = None, **rest: Any
) -> ReachCandidate:
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return ReachCandidate(
        api_version, kind, {"apiVersion": api_version, "kind": kind, "metadata": metadata, **rest}
    )


CAUGHT: list[tuple[str, str, str, str]] = [
    (
        "crd.antrea.io/v1beta1",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy.crd.antrea.io",
        "Antrea-native tiers",
    ),
    (
        "crd.antrea.io/v1alpha1",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy.crd.antrea.io",
        "Antrea-native tiers",
    ),
    (
        "crd.antrea.io/v1beta1",
        "NetworkPolicy",
        "NetworkPolicy.crd.antrea.io",
        "namespaced Antrea-native",
    ),
    (
        "policy.networking.k8s.io/v1beta1",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy",
        "does not know",
    ),
    (
        "policy.networking.k8s.io/v1alpha2",
        "AdminNetworkPolicy",
        "AdminNetworkPolicy",
        "does not know",
    ),
    (
        "policy.networking.k8s.io/v1alpha1",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy",
        "does not know",
    ),
    (
        "k8s.cni.cncf.io/v1beta1",
        "MultiNetworkPolicy",
        "MultiNetworkPolicy.k8s.cni.cncf.io",
        "secondary interfaces",
    ),
    ("k8s.ovn.org/v1", "EgressFirewall", "EgressFirewall.k8s.ovn.org", "Allow/Deny"),
    ("k8s.ovn.org/v1", "UserDefinedNetwork", "UserDefinedNetwork.k8s.ovn.org", "primary network"),
    (
        "k8s.ovn.org/v1",
        "ClusterUserDefinedNetwork",
        "ClusterUserDefinedNetwork.k8s.ovn.org",
        "primary network",
    ),
    (
        "network.openshift.io/v1",
        "EgressNetworkPolicy",
        "EgressNetworkPolicy.network.openshift.io",
        "openshift-sdn",
    ),
    (
        "networking.gke.io/v1alpha3",
        "FQDNNetworkPolicy",
        "FQDNNetworkPolicy.networking.gke.io",
        "GKE",
    ),
    ("kubeovn.io/v1", "SecurityGroup", "SecurityGroup.kubeovn.io", "Kube-OVN"),
    (
        "example.com/v1",
        "FancyNetworkPolicy",
        "FancyNetworkPolicy.example.com",
        "unknown policy kind",
    ),
    ("example.com/v1", "EgressFirewall", "EgressFirewall.example.com", "unknown policy kind"),
    (
        "crd.antrea.io/v1beta2",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy.crd.antrea.io",
        "unknown policy kind",
    ),
]


@pytest.mark.parametrize(
    ("api_version", "kind", "shown", "reason"), CAUGHT, ids=[f"{a} {k}" for a, k, *_ in CAUGHT]
)
def test_caught_kinds(api_version: str, kind: str, shown: str, reason: str) -> None:
    """§7: one not-evaluable document named as §2.8, whose detail names the
    kind, the group and the reason."""
    (document,) = reach_documents(
        obj(api_version, kind, namespace=NAMESPACE), subject(), ReachData()
    )
    assert (document.kind, document.name, str(document.verdict), document.group) == (
        shown,
        "x",
        "not-evaluable",
        "other",
    )
    assert document.detail is not None
    assert (
        kind in document.detail
        and api_version.split("/", maxsplit=1)[0] in document.detail
        and reason in document.detail
    )


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("crd.antrea.io/v1beta1", "Tier"),
        ("crd.antrea.io/v1beta1", "ClusterGroup"),
        ("crd.antrea.io/v1beta1", "Group"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("cilium.io/v2", "CiliumNetworkPolicy"),
        ("cilium.io/v2", "CiliumClusterwideNetworkPolicy"),
        ("cilium.io/v2", "CiliumCIDRGroup"),
        ("cilium.io/v2", "CiliumEgressGatewayPolicy"),
        ("k8s.ovn.org/v1", "EgressIP"),
        ("v1", "Namespace"),
        ("projectcalico.org/v3", "Tier"),
        ("apps/v1", "Deployment"),
    ],
)
def test_kinds_without_a_document(api_version: str, kind: str) -> None:
    assert reach_documents(obj(api_version, kind), subject(), ReachData()) == ()


def test_namespaced_kinds_only_count_in_the_sandbox_namespace() -> None:
    elsewhere = obj("k8s.ovn.org/v1", "EgressFirewall", namespace="other")
    assert reach_documents(elsewhere, subject(), ReachData()) == ()
    defaulted = ReachCandidate(
        "k8s.ovn.org/v1", "EgressFirewall", {"metadata": {"name": "d"}}, namespace=NAMESPACE
    )
    assert len(reach_documents(defaulted, subject(), ReachData())) == 1
    # Cluster-scoped kinds ignore metadata.namespace.
    antrea = obj("crd.antrea.io/v1beta1", "ClusterNetworkPolicy", namespace="other")
    assert len(reach_documents(antrea, subject(), ReachData())) == 1


def test_kube_ovn_subnet_only_with_acls() -> None:
    assert catch_all_reason("kubeovn.io/v1", "Subnet", {"spec": {}}) is None
    assert catch_all_reason("kubeovn.io/v1", "Subnet", {"spec": {"acls": []}}) is not None


def _cilium_config(
    value: Any, namespace: str = "kube-system", name: str = "cilium-config"
) -> ReachCandidate:
    return obj("v1", "ConfigMap", name=name, namespace=namespace, data={"enable-policy": value})


def test_cilium_never_mode_under_cilium_only() -> None:
    (document,) = reach_documents(_cilium_config("never"), subject("DC"), ReachData())
    assert str(document.verdict) == "not-evaluable" and document.name == "kube-system/cilium-config"
    assert reach_documents(_cilium_config("never"), subject("D"), ReachData()) == ()
    assert reach_documents(_cilium_config("default"), subject("DC"), ReachData()) == ()
    assert (
        reach_documents(_cilium_config("never", namespace="other"), subject("DC"), ReachData())
        == ()
    )
    assert reach_documents(_cilium_config("never", name="other"), subject("DC"), ReachData()) == ()


def test_pod_conditions() -> None:
    networks = {"metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": "macvlan-conf"}}}
    (document,) = pod_condition_documents(subject(pod_template=networks))
    assert str(document.verdict) == "not-evaluable" and document.kind == "pod condition"
    assert document.rule_path[-1] == "k8s.v1.cni.cncf.io/networks"
    (host,) = pod_condition_documents(subject(pod_template={"spec": {"hostNetwork": True}}))
    assert host.name == "hostNetwork" and "host-networked" in (host.detail or "")
    assert pod_condition_documents(subject(pod_template={"spec": {"hostNetwork": "true"}})) == ()
    assert (
        pod_condition_documents(subject(pod_template={"metadata": {"annotations": {"other": "x"}}}))
        == ()
    )
    assert pod_condition_documents(subject(pod_template=None)) == ()
    claimed = replace(subject(), pod_annotations={"k8s.v1.cni.cncf.io/networks": "x"})
    assert len(pod_condition_documents(claimed)) == 1


# --- §8 ingress ---------------------------------------------------------------------------------

ALL_NS: dict[str, Any] = {"namespaces": {}}


def _ingress(raw: dict[str, Any], code: str = "D", **scenario: Any) -> IngressVerdict:
    candidate = ReachCandidate(raw["apiVersion"], raw["kind"], raw)
    (document,) = ingress_documents(
        candidate, subject(code, **scenario), data_for(Scenario(code, **scenario))
    )
    assert isinstance(document.verdict, IngressVerdict)
    return document.verdict


INGRESS: list[tuple[str, dict[str, Any], IngressVerdict]] = [
    (
        "ANP Allow",
        anp({"subject": ALL_NS, "ingress": [{"action": "Allow", "from": [ALL_NS]}]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "ANP Pass",
        anp({"subject": ALL_NS, "ingress": [{"action": "Pass", "from": [ALL_NS]}]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "ANP Deny only",
        anp({"subject": ALL_NS, "ingress": [{"action": "Deny", "from": [ALL_NS]}]}),
        IngressVerdict.NOT_INGRESS_SCOPED,
    ),
    (
        "ANP egress only",
        anp({"subject": ALL_NS, "egress": [{"action": "Allow"}]}),
        IngressVerdict.NOT_INGRESS_SCOPED,
    ),
    (
        "ANP other namespace",
        anp(
            {
                "subject": {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "o"}}},
                "ingress": [{"action": "Allow"}],
            }
        ),
        IngressVerdict.DOES_NOT_SELECT,
    ),
    (
        "ANP unknown subject",
        anp(
            {
                "subject": {"namespaces": {"matchLabels": {"team": "ml"}}},
                "ingress": [{"action": "Allow"}],
            }
        ),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "ANP unreadable rule",
        anp({"subject": ALL_NS, "ingress": ["Allow"]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "ANP unknown action",
        anp({"subject": ALL_NS, "ingress": [{"action": "allow"}]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "ANP ingress not a list",
        anp({"subject": ALL_NS, "ingress": {}}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    ("ANP unreadable", anp({"subject": {}}), IngressVerdict.NOT_EVALUABLE),
    (
        "BANP Allow",
        banp({"subject": ALL_NS, "ingress": [{"action": "Allow"}]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    (
        "CNP Accept",
        cnp({"tier": "Admin", "subject": ALL_NS, "ingress": [{"action": "Accept"}]}),
        IngressVerdict.NOT_EVALUABLE,
    ),
    ("CNP bad tier", cnp({"tier": "x", "subject": ALL_NS}), IngressVerdict.NOT_EVALUABLE),
]


@pytest.mark.parametrize(("case", "raw", "verdict"), INGRESS, ids=[c for c, *_ in INGRESS])
def test_ingress_rule(case: str, raw: dict[str, Any], verdict: IngressVerdict) -> None:
    assert _ingress(raw) is verdict


def test_catch_all_and_pod_conditions_are_not_evaluable_for_ingress() -> None:
    (document,) = ingress_documents(
        obj("k8s.ovn.org/v1", "EgressFirewall", namespace=NAMESPACE), subject(), ReachData()
    )
    assert document.verdict is IngressVerdict.NOT_EVALUABLE
    host = subject(pod_template={"spec": {"hostNetwork": True}})
    (condition,) = ingress_pod_condition_documents(host)
    assert condition.verdict is IngressVerdict.NOT_EVALUABLE
    assert ingress_documents(obj("apps/v1", "Deployment"), subject(), ReachData()) == ()


def test_decide_ingress_reach() -> None:
    allowing = anp({"subject": ALL_NS, "ingress": [{"action": "Allow"}]}, name="b")
    denying = anp({"subject": ALL_NS, "ingress": [{"action": "Deny"}]}, name="a")
    documents = [
        d
        for raw in (allowing, denying)
        for d in ingress_documents(
            ReachCandidate(raw["apiVersion"], raw["kind"], raw), subject(), ReachData()
        )
    ]
    decision = decide_ingress_reach(documents)
    assert decision.refusal is IngressRefusal.NOT_EVALUABLE
    assert decision.summary is not None and "AdminNetworkPolicy/b" in decision.summary
    assert [d.name for d in decision.documents] == ["a", "b"]
    assert decide_ingress_reach(documents[1:]).refusal is None
