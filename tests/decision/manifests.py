"""Hand-built translations from the exact manifests of SEMANTICS.md §3.

These are independent of ``lint.decision.translation`` on purpose: the
allowance, rule and union tests must not depend on the translator being
right. Every builder returns a fresh manifest, so a test may mutate it.
"""

from __future__ import annotations

import json
from typing import Any

from lint.decision.model import Candidate, Translation

TEMPLATE = "namzu-task"
NAMESPACE = "namzu-sandboxes"
NAME = "namzu-task-egress"
POD_LABELS = {"sandbox.namzu.ai/template": TEMPLATE}

KUBE_SYSTEM_NS = {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}
KUBE_DNS_POD = {"matchLabels": {"k8s-app": "kube-dns"}}
KUBE_DNS_ENDPOINT = {
    "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}
}

CLUSTER_DNS = (
    '{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}}],'
    '"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}'
)
KUBE_DNS = (
    '{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}},'
    '"podSelector":{"matchLabels":{"k8s-app":"kube-dns"}}}],'
    '"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}'
)
IPV4_EXCEPT = [
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "169.254.0.0/16",
    "127.0.0.0/8",
    "168.63.129.16/32",
]
IPV6_EXCEPT = ["fc00::/7", "fe80::/10", "::1/128"]
DNS_VISIBILITY = (
    '{"toEndpoints":[{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system",'
    '"k8s:k8s-app":"kube-dns"}}],"toPorts":[{"ports":[{"port":"53","protocol":"ANY"}],'
    '"rules":{"dns":[{"matchPattern":"*"}]}}]}'
)


def _core(policy_kind: str, egress: list[Any]) -> Translation:
    manifest = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {
            "podSelector": {"matchLabels": {"sandbox.namzu.ai/template": TEMPLATE}},
            "policyTypes": ["Egress"],
            "egress": egress,
        },
    }
    return Translation("NetworkPolicy", policy_kind, NAMESPACE, NAME, manifest)


def _cilium(policy_kind: str, egress: list[Any]) -> Translation:
    manifest = {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {
            "endpointSelector": {"matchLabels": {"sandbox.namzu.ai/template": TEMPLATE}},
            "egress": egress,
        },
    }
    return Translation("CiliumNetworkPolicy", policy_kind, NAMESPACE, NAME, manifest)


def deny_all() -> Translation:
    """§3.2 ``deny-all``: ``[CLUSTER_DNS]``."""
    return _core("deny-all", [json.loads(CLUSTER_DNS)])


def allow_all() -> Translation:
    """§3.2 ``allow-all``: ``[{}]``."""
    return _core("allow-all", [{}])


def no_network() -> Translation:
    """§3.2 ``no-network``: ``[]``."""
    return _core("no-network", [])


def public_internet(extra_v4: tuple[str, ...] = (), extra_v6: tuple[str, ...] = ()) -> Translation:
    """§3.2 ``public-internet``: ``[KUBE_DNS, PUBLIC_BLOCK]``, with any
    ``exceptCidrs`` appended to their family's list."""
    public_block = {
        "to": [
            {"ipBlock": {"cidr": "0.0.0.0/0", "except": [*IPV4_EXCEPT, *extra_v4]}},
            {"ipBlock": {"cidr": "::/0", "except": [*IPV6_EXCEPT, *extra_v6]}},
        ]
    }
    return _core("public-internet", [json.loads(KUBE_DNS), public_block])


def static_unnarrowed(policy_kind: str = "static") -> Translation:
    """§3.3 unnarrowed, ``allowedHosts: ["api.github.com", ".pypi.org"]``."""
    hosts = {
        "toFQDNs": [
            {"matchName": "api.github.com"},
            {"matchName": "pypi.org"},
            {"matchPattern": "*.pypi.org"},
        ]
    }
    return _cilium(policy_kind, [json.loads(DNS_VISIBILITY), hosts])


def static_narrowed_domain() -> Translation:
    """§3.6: ``[".pypi.org"]`` with ``{ports: [443], dnsNames: {searchSuffixes:
    ["corp.internal"]}}``. DNS is narrowed, but the `.domain` entry puts a
    ``matchPattern`` in the DNS rule (quirk Q3)."""
    egress = json.loads(
        '[{"toEndpoints":[{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system",'
        '"k8s:k8s-app":"kube-dns"}}],"toPorts":[{"ports":[{"port":"53","protocol":"ANY"}],'
        '"rules":{"dns":[{"matchName":"pypi.org"},{"matchPattern":"*.pypi.org"},'
        '{"matchName":"pypi.org.namzu-sandboxes.svc.cluster.local"},'
        '{"matchPattern":"*.pypi.org.namzu-sandboxes.svc.cluster.local"},'
        '{"matchName":"pypi.org.svc.cluster.local"},{"matchPattern":"*.pypi.org.svc.cluster.local"},'
        '{"matchName":"pypi.org.cluster.local"},{"matchPattern":"*.pypi.org.cluster.local"},'
        '{"matchName":"pypi.org.corp.internal"},{"matchPattern":"*.pypi.org.corp.internal"}]}}]},'
        '{"toFQDNs":[{"matchName":"pypi.org"},{"matchPattern":"*.pypi.org"}],'
        '"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}]'
    )
    return _cilium("static", egress)


NARROWED_DNS_NAMES = (
    "github.com",
    "github.com.namzu-sandboxes.svc.cluster.local",
    "github.com.svc.cluster.local",
    "github.com.cluster.local",
    "registry.npmjs.org",
    "registry.npmjs.org.namzu-sandboxes.svc.cluster.local",
    "registry.npmjs.org.svc.cluster.local",
    "registry.npmjs.org.cluster.local",
)


def static_narrowed_tls() -> Translation:
    """§3.7: ``["github.com", "registry.npmjs.org"]`` with ``{ports: [443],
    hostPorts: {"github.com": [443, 22]}, tlsServerNames: true, dnsNames: true}``."""
    dns_rule = {
        "toEndpoints": [json.loads(json.dumps(KUBE_DNS_ENDPOINT))],
        "toPorts": [
            {
                "ports": [{"port": "53", "protocol": "ANY"}],
                "rules": {"dns": [{"matchName": name} for name in NARROWED_DNS_NAMES]},
            }
        ],
    }
    github = {
        "toFQDNs": [{"matchName": "github.com"}],
        "toPorts": [
            {"ports": [{"port": "443", "protocol": "TCP"}], "serverNames": ["github.com"]},
            {"ports": [{"port": "22", "protocol": "TCP"}]},
        ],
    }
    npm = {
        "toFQDNs": [{"matchName": "registry.npmjs.org"}],
        "toPorts": [
            {"ports": [{"port": "443", "protocol": "TCP"}], "serverNames": ["registry.npmjs.org"]}
        ],
    }
    return _cilium("static", [dns_rule, github, npm])


def static_ports_only() -> Translation:
    """§3.7 small case: host ``a.example`` with ``{ports: [443]}``; the DNS
    rule stays ``DNS_VISIBILITY``."""
    host = json.loads(
        '{"toFQDNs":[{"matchName":"a.example"}],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}'
    )
    return _cilium("static", [json.loads(DNS_VISIBILITY), host])


# --- policy objects offered as candidates ---------------------------------------


def network_policy(name: Any, **top: Any) -> dict[str, Any]:
    """A NetworkPolicy object; ``top`` keys (``spec=...``) are set verbatim,
    so leaving ``spec`` out makes it absent and ``spec=None`` makes it null."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        **top,
    }


def cilium_policy(name: Any, **top: Any) -> dict[str, Any]:
    """A CiliumNetworkPolicy object; ``top`` keys (``spec``, ``specs``) are
    set verbatim, as for :func:`network_policy`."""
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        **top,
    }


def core_candidate(raw: Any, position: int = 0) -> Candidate:
    return Candidate("NetworkPolicy", raw, position)


def cilium_candidate(raw: Any, position: int = 0) -> Candidate:
    return Candidate("CiliumNetworkPolicy", raw, position)


def clusterwide_candidate(raw: Any, position: int = 0) -> Candidate:
    return Candidate("CiliumClusterwideNetworkPolicy", raw, position, clusterwide=True)


def translation_candidate(translation: Translation, name: str | None = None) -> Candidate:
    """The translation's own manifest offered as a candidate, optionally renamed."""
    raw = json.loads(json.dumps(translation.manifest))
    if name is not None:
        raw["metadata"]["name"] = name
    return Candidate(translation.kind, raw, 0)
