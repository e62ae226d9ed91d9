"""Small trees for the shapes the fixtures lack: a policy outside the
default namespace, and policies inside typed and plain list wrappers."""

from __future__ import annotations

from typing import Any

from tests.robustness.trees import Tree, namespace, template


def _policy(name: str, spec: dict[str, Any], kind: str = "NetworkPolicy") -> dict[str, Any]:
    api = "networking.k8s.io/v1" if kind == "NetworkPolicy" else "cilium.io/v2"
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "sbx"},
        "spec": spec,
    }


_DNS_RULE = {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}],
    "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
}
_BASELINE = _policy(
    "baseline", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [_DNS_RULE]}
)
_WIDENING = _policy(
    "widening",
    {
        "podSelector": {"matchLabels": {"app": "task"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}],
                "ports": [{"port": 443}],
            }
        ],
    },
)
_CILIUM_WIDENING = _policy(
    "cilium-widening",
    {
        "endpointSelector": {"matchLabels": {"k8s:app": "task"}},
        "egress": [
            {
                "toCIDRSet": [{"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}],
                "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}],
            },
            {"toFQDNs": [{"matchName": "example.com"}], "toEntities": ["world"]},
        ],
    },
    kind="CiliumNetworkPolicy",
)
_SANDBOX = (namespace("sbx"), template("task", "sbx", {"app": "task"}))
# The declared namespace is not the default one, so that a policy whose
# namespace cannot be read would land elsewhere if the loader let it.
_ELSEWHERE = (
    "version: 1\n"
    "defaultNamespace: elsewhere\n"
    "sandboxes:\n"
    "  - template: task\n"
    "    namespace: sbx\n"
    "    egress: {engine: cilium, policy: {kind: deny-all}}\n"
)


def synthetic_trees() -> list[Tree]:
    """Shapes the fixtures lack: policies outside the default namespace, and
    policies inside typed and plain list wrappers. Each tree has one
    refusing policy, so that a mutation that silences it shows."""

    def wrapped(kind: str, policy: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": kind, "items": [policy]}

    shapes = {
        "elsewhere-core": _WIDENING,
        "elsewhere-cilium": _CILIUM_WIDENING,
        "plain-list": wrapped("List", _WIDENING),
        "typed-list": wrapped("NetworkPolicyList", _WIDENING),
        "cilium-list": wrapped("CiliumNetworkPolicyList", _CILIUM_WIDENING),
    }
    return [
        Tree(f"synthetic/{name}", (*_SANDBOX, _BASELINE, shape), _ELSEWHERE)
        for name, shape in shapes.items()
    ]
