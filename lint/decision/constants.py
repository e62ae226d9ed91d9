"""Constants of the decision (SEMANTICS.md §0.6, §3.2, §3.3).

The rule constants are built by functions so that each caller gets its own
fresh copy: manifests are plain dicts, and a shared dict mutated by one
caller would corrupt every later translation.
"""

from __future__ import annotations

from typing import Final

from lint.decision.values import JSON
from lint.kinds import CILIUM_CLUSTERWIDE_NETWORK_POLICY, CILIUM_NETWORK_POLICY, NETWORK_POLICY

TEMPLATE_LABEL: Final = "sandbox.namzu.ai/template"
DEFAULT_PROFILE_LABEL: Final = "sandbox.namzu.ai/egress-profile"
DEFAULT_PER_SANDBOX_LABEL: Final = "sandbox.namzu.ai/per-sandbox-egress"
PER_SANDBOX_PREFIX: Final = "namzu-sbx-"
DEFAULT_AGENT_PORT: Final = 1024
MAX_NAME_LENGTH: Final = 253
DEFAULT_TLS_PORTS: Final = (443,)
DEFAULT_CLUSTER_DOMAIN: Final = "cluster.local"

CORE_API_VERSION: Final = NETWORK_POLICY.api_version
CORE_KIND: Final = NETWORK_POLICY.name
CILIUM_API_VERSION: Final = CILIUM_NETWORK_POLICY.api_version
CILIUM_KIND: Final = CILIUM_NETWORK_POLICY.name
CLUSTERWIDE_KIND: Final = CILIUM_CLUSTERWIDE_NETWORK_POLICY.name

# The declared ``egress.policy.kind`` values (§1.2), by the engine that enforces them.
CORE_EGRESS_POLICY_KINDS: Final = ("deny-all", "allow-all", "no-network", "public-internet")
CILIUM_EGRESS_POLICY_KINDS: Final = ("static", "resolver")
EGRESS_POLICY_KINDS: Final = CORE_EGRESS_POLICY_KINDS + CILIUM_EGRESS_POLICY_KINDS

IPV4_EXCLUSIONS: Final = (
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "169.254.0.0/16",
    "127.0.0.0/8",
    "168.63.129.16/32",
)
IPV6_EXCLUSIONS: Final = ("fc00::/7", "fe80::/10", "::1/128")


def kube_system_namespace_selector() -> dict[str, JSON]:
    return {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}


def kube_dns_pod_selector() -> dict[str, JSON]:
    return {"matchLabels": {"k8s-app": "kube-dns"}}


def core_dns_ports() -> list[JSON]:
    return [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]


def cluster_dns_rule() -> dict[str, JSON]:
    """``CLUSTER_DNS`` (§3.2): the whole kube-system namespace on UDP/TCP 53."""
    return {
        "to": [{"namespaceSelector": kube_system_namespace_selector()}],
        "ports": core_dns_ports(),
    }


def kube_dns_rule() -> dict[str, JSON]:
    """``KUBE_DNS`` (§3.2): only the kube-dns pods, on UDP/TCP 53."""
    peer = {
        "namespaceSelector": kube_system_namespace_selector(),
        "podSelector": kube_dns_pod_selector(),
    }
    return {"to": [peer], "ports": core_dns_ports()}


def kube_dns_endpoints() -> list[JSON]:
    """The ``toEndpoints`` of ``DNS_VISIBILITY`` (§3.3)."""
    return [
        {
            "matchLabels": {
                "k8s:io.kubernetes.pod.namespace": "kube-system",
                "k8s:k8s-app": "kube-dns",
            }
        }
    ]


def dns_visibility_rule() -> dict[str, JSON]:
    """``DNS_VISIBILITY`` (§3.3): kube-dns on port "53"/ANY, every lookup visible."""
    return {
        "toEndpoints": kube_dns_endpoints(),
        "toPorts": [
            {
                "ports": [{"port": "53", "protocol": "ANY"}],
                "rules": {"dns": [{"matchPattern": "*"}]},
            }
        ],
    }


UNKNOWN_LABEL_VALUE: Final = "(unknown)"
"""The value of a pod label known present whose value the manifests cannot
tell, such as ``agents.x-k8s.io/sandbox-name-hash`` (CLUSTER-POLICIES §11,
last paragraph). It is no valid label value, and selector matching never
compares it: ``Exists`` matches, a requirement on its value is unknown."""
