"""RBAC the sandbox host needs for per-sandbox egress (SEMANTICS §15.3).

Under ``perSandbox`` the host writes its own CiliumNetworkPolicies and reads
the admission fence before every write. That takes a namespaced Role (with
its RoleBinding) for the writes, and a ClusterRole (with its
ClusterRoleBinding) for reading the cluster-scoped fence objects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from lint.decision.values import JSON
from lint.generate.fence import HOST_SERVICE_ACCOUNT

RBAC_API_VERSION: Final = "rbac.authorization.k8s.io/v1"
WRITER_ROLE: Final = f"{HOST_SERVICE_ACCOUNT}-per-sandbox-egress"
FENCE_READER_ROLE: Final = f"{HOST_SERVICE_ACCOUNT}-admission-fence-read"


def _subject(namespace: str) -> dict[str, JSON]:
    return {"kind": "ServiceAccount", "name": HOST_SERVICE_ACCOUNT, "namespace": namespace}


def writer_role(namespace: str) -> dict[str, JSON]:
    """Role ``namzu-sandbox-host-per-sandbox-egress``: create, patch and
    delete CiliumNetworkPolicies (the fence decides which ones)."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "Role",
        "metadata": {"name": WRITER_ROLE, "namespace": namespace},
        "rules": [
            {
                "apiGroups": ["cilium.io"],
                "resources": ["ciliumnetworkpolicies"],
                "verbs": ["create", "patch", "delete"],
            }
        ],
    }


def writer_role_binding(namespace: str) -> dict[str, JSON]:
    """Grants the writer Role to the host's ServiceAccount."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "RoleBinding",
        "metadata": {"name": WRITER_ROLE, "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": WRITER_ROLE},
        "subjects": [_subject(namespace)],
    }


def fence_reader_role(policies: Iterable[str], bindings: Iterable[str]) -> dict[str, JSON]:
    """ClusterRole ``namzu-sandbox-host-admission-fence-read``: ``get`` on the
    named fence objects only, since the host reads them by name."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": {"name": FENCE_READER_ROLE},
        "rules": [
            {
                "apiGroups": ["admissionregistration.k8s.io"],
                "resources": ["validatingadmissionpolicies"],
                "resourceNames": sorted(set(policies)),
                "verbs": ["get"],
            },
            {
                "apiGroups": ["admissionregistration.k8s.io"],
                "resources": ["validatingadmissionpolicybindings"],
                "resourceNames": sorted(set(bindings)),
                "verbs": ["get"],
            },
        ],
    }


def fence_reader_binding(namespaces: Iterable[str]) -> dict[str, JSON]:
    """Grants the fence reader to the host's ServiceAccount of each namespace
    that declares per-sandbox egress."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": {"name": FENCE_READER_ROLE},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": FENCE_READER_ROLE,
        },
        "subjects": [_subject(namespace) for namespace in sorted(set(namespaces))],
    }
