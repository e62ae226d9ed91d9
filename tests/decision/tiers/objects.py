"""Objects and allowances for the tier readers' tests: the base of the worked
examples (namespace ``sbx``, template ``t``, the pod labels of the direct
path), real manifests as dicts, and one call from them to a ``TierInput``
and to the two questions."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lint.decision.allowance import build_allowance
from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.model import Allowance, Translation
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    namespace_label_view,
    pod_label_view,
)
from lint.decision.tiers.build import Built, PathFacts, build_tier_input
from lint.decision.tiers.cells import AddressQuery, NameQuery, Query
from lint.decision.tiers.model import Protocol
from lint.decision.tiers.questions import ExplainAnswer, ReachAnswer, explain, reach
from lint.decision.tiers.reading import ReadContext
from lint.decision.translation import translate, translate_allow
from lint.kinds import ENFORCES_WORDS

NAMESPACE = "sbx"
TEMPLATE = "t"
POD_LABELS = {
    "sandbox.namzu.ai/template": TEMPLATE,
    "app": "agent",
    # The controller's label: on every sandbox pod, with a value no manifest tells.
    "agents.x-k8s.io/sandbox-name-hash": UNKNOWN_LABEL_VALUE,
}
ALL_ENFORCED = frozenset(ENFORCES_WORDS)

ANP_API = "policy.networking.k8s.io/v1alpha1"
CNP_API = "policy.networking.k8s.io/v1alpha2"
CALICO_API = "projectcalico.org/v3"
CILIUM_API = "cilium.io/v2"

ALL2: dict[str, Any] = {"to": [{"networks": ["0.0.0.0/0", "::/0"]}]}
KDNS: dict[str, Any] = {
    "pods": {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    }
}
DNSPORTS1: list[dict[str, Any]] = [
    {"portNumber": {"protocol": "UDP", "port": 53}},
    {"portNumber": {"protocol": "TCP", "port": 53}},
]
KUBE_DNS_LABELS = {"kubernetes.io/metadata.name": "kube-system"}


def anp(name: str, priority: int, egress: list[Any], subject: Any = None) -> dict[str, Any]:
    return {
        "apiVersion": ANP_API,
        "kind": "AdminNetworkPolicy",
        "metadata": {"name": name},
        "spec": {
            "priority": priority,
            "subject": {"namespaces": {}} if subject is None else subject,
            "egress": egress,
        },
    }


def banp(egress: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": ANP_API,
        "kind": "BaselineAdminNetworkPolicy",
        "metadata": {"name": "default"},
        "spec": {"subject": {"namespaces": {}}, "egress": egress},
    }


def cnp(name: str, tier: str, priority: int, egress: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": CNP_API,
        "kind": "ClusterNetworkPolicy",
        "metadata": {"name": name},
        "spec": {
            "tier": tier,
            "priority": priority,
            "subject": {"namespaces": {}},
            "egress": egress,
        },
    }


def gnp(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": CALICO_API,
        "kind": "GlobalNetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def calico_np(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": CALICO_API,
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def tier(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": CALICO_API, "kind": "Tier", "metadata": {"name": name}, "spec": spec}


def cilium_np(spec: dict[str, Any], name: str = "c") -> dict[str, Any]:
    return {
        "apiVersion": CILIUM_API,
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"endpointSelector": {}, **spec},
    }


def core_np(spec: dict[str, Any], name: str = "np") -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


# --- allowances --------------------------------------------------------------------------


@dataclass(frozen=True)
class Code:
    """An allowance code of the worked examples: the translation, whether
    its object is in the manifests (the named object), and the run's
    Cilium flag (engine ``cilium``)."""

    translation: Translation
    named: bool
    cilium: bool

    @property
    def allowance(self) -> Allowance:
        return build_allowance(self.translation)


def _egress(kind: str, engine: str) -> dict[str, Any]:
    return {"policy": {"kind": kind}, "engine": engine}


R31_ALLOW = [
    {
        "to": [
            {
                "namespaceSelector": {"matchLabels": KUBE_DNS_LABELS},
                "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
            }
        ],
        "ports": [{"protocol": p, "port": 53} for p in ("UDP", "TCP", "SCTP")],
    }
]

CODES: dict[str, Code] = {
    "D": Code(translate(_egress("deny-all", "core"), TEMPLATE, NAMESPACE), True, False),
    "DC": Code(translate(_egress("deny-all", "cilium"), TEMPLATE, NAMESPACE), True, True),
    "P": Code(translate(_egress("public-internet", "core"), TEMPLATE, NAMESPACE), True, False),
    "PC": Code(translate(_egress("public-internet", "cilium"), TEMPLATE, NAMESPACE), True, True),
    "Dn": Code(translate(_egress("deny-all", "core"), TEMPLATE, NAMESPACE), False, False),
    "R31": Code(
        translate_allow({"engine": "cilium", "allow": R31_ALLOW}, TEMPLATE, NAMESPACE),
        False,
        True,
    ),
}


def context(namespace_labels: Mapping[str, str] | None = None, **facts: Any) -> ReadContext:
    """A reader's context for the base pod in ``sbx``."""
    return ReadContext(
        namespace=NAMESPACE,
        pod=pod_label_view(POD_LABELS),
        namespace_view=namespace_label_view(NAMESPACE, namespace_labels),
        **facts,
    )


# --- building ---------------------------------------------------------------------------


def candidates(objects: Iterable[Mapping[str, Any]]) -> tuple[ReachCandidate, ...]:
    found = []
    for position, obj in enumerate(objects):
        metadata = obj.get("metadata", {})
        found.append(
            ReachCandidate(
                obj.get("apiVersion", ""),
                obj.get("kind", ""),
                obj,
                position,
                metadata.get("namespace") if isinstance(metadata, dict) else None,
            )
        )
    return tuple(found)


def build(
    objects: Iterable[Mapping[str, Any]],
    code: str = "D",
    *,
    enforces: frozenset[str] | None = ALL_ENFORCED,
    namespace_labels: Mapping[str, str] | None = None,
    pod: Mapping[str, str] = POD_LABELS,
) -> Built:
    """The objects (and the code's named object) through ``build_tier_input``."""
    chosen = CODES[code]
    every = [*objects]
    if chosen.named:
        every.insert(0, chosen.translation.manifest)
    views = {}
    if namespace_labels is not None:
        views[NAMESPACE] = namespace_label_view(NAMESPACE, namespace_labels)
    offered = candidates(every)
    # Data-only objects go where the check gathers them (ReachData).
    groups = tuple(c for c in offered if c.kind == "CiliumCIDRGroup")
    sets = tuple(c for c in offered if c.kind in ("NetworkSet", "GlobalNetworkSet"))
    return build_tier_input(
        tuple(c for c in offered if c not in groups and c not in sets),
        ReachData(namespace_labels=views, cidr_groups=groups, network_sets=sets),
        PathFacts(NAMESPACE, pod_label_view(pod)),
        chosen.allowance,
        cilium=chosen.cilium,
        enforces=enforces,
    )


def query(destination: str) -> tuple[Query, ...]:
    """``8.8.8.8:443/TCP``, ``[2001:db8::1]:443`` (TCP), ``10.0.0.0/7``,
    ``host:443``."""
    text, _, protocol_text = destination.partition("/")
    if ":" not in text or (text.count(":") > 1 and not text.startswith("[")):
        try:
            network = ipaddress.ip_network(destination, strict=False)
        except ValueError:
            network = None
        if network is not None:
            low = int(network.network_address)
            high = int(network.broadcast_address)
            return (AddressQuery(network.version, low, high),)
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    protocol = Protocol(protocol_text) if protocol_text else Protocol.TCP
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return (NameQuery(host, protocol, int(port)),)
    value = int(address)
    return (AddressQuery(address.version, value, value, protocol, int(port)),)


def ask(built: Built, destination: str) -> tuple[ReachAnswer, ExplainAnswer]:
    """Both questions: reach over every point, explain for ``destination``."""
    return reach(built.input), explain(built.input, query(destination))
