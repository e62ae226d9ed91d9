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
from lint.kinds import (
    CILIUM_NETWORK_POLICY,
    CLUSTER_ROLE,
    CLUSTER_ROLE_BINDING,
    ROLE,
    ROLE_BINDING,
    SERVICE_ACCOUNT,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
)

RBAC_API_VERSION: Final = ROLE.api_version
WRITER_ROLE: Final = f"{HOST_SERVICE_ACCOUNT}-per-sandbox-egress"
FENCE_READER_ROLE: Final = f"{HOST_SERVICE_ACCOUNT}-admission-fence-read"


def _subject(namespace: str) -> dict[str, JSON]:
    return {"kind": SERVICE_ACCOUNT.name, "name": HOST_SERVICE_ACCOUNT, "namespace": namespace}


def writer_role(namespace: str) -> dict[str, JSON]:
    """Role ``namzu-sandbox-host-per-sandbox-egress``: create, patch and
    delete CiliumNetworkPolicies (the fence decides which ones)."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": ROLE.name,
        "metadata": {"name": WRITER_ROLE, "namespace": namespace},
        "rules": [
            {
                "apiGroups": [CILIUM_NETWORK_POLICY.group],
                "resources": [CILIUM_NETWORK_POLICY.resource],
                "verbs": ["create", "patch", "delete"],
            }
        ],
    }


def writer_role_binding(namespace: str) -> dict[str, JSON]:
    """Grants the writer Role to the host's ServiceAccount."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": ROLE_BINDING.name,
        "metadata": {"name": WRITER_ROLE, "namespace": namespace},
        "roleRef": {"apiGroup": ROLE.group, "kind": ROLE.name, "name": WRITER_ROLE},
        "subjects": [_subject(namespace)],
    }


def fence_reader_role(policies: Iterable[str], bindings: Iterable[str]) -> dict[str, JSON]:
    """ClusterRole ``namzu-sandbox-host-admission-fence-read``: ``get`` on the
    named fence objects only, since the host reads them by name."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": CLUSTER_ROLE.name,
        "metadata": {"name": FENCE_READER_ROLE},
        "rules": [
            {
                "apiGroups": [VALIDATING_ADMISSION_POLICY.group],
                "resources": [VALIDATING_ADMISSION_POLICY.resource],
                "resourceNames": sorted(set(policies)),
                "verbs": ["get"],
            },
            {
                "apiGroups": [VALIDATING_ADMISSION_POLICY_BINDING.group],
                "resources": [VALIDATING_ADMISSION_POLICY_BINDING.resource],
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
        "kind": CLUSTER_ROLE_BINDING.name,
        "metadata": {"name": FENCE_READER_ROLE},
        "roleRef": {
            "apiGroup": CLUSTER_ROLE.group,
            "kind": CLUSTER_ROLE.name,
            "name": FENCE_READER_ROLE,
        },
        "subjects": [_subject(namespace) for namespace in sorted(set(namespaces))],
    }
