"""Every Kubernetes kind egress-lint knows, once (DESIGN §2.1).

One table, ``KINDS``, names each kind with its API group, the versions the
tool knows, its scope and its resource name; every set of kinds elsewhere in
the tool is derived from it. The loader reads an object by its ``kind`` alone and never
checks ``apiVersion`` (an API server would serve only the listed versions,
but a rendered manifest of another version still says what the author
meant), so ``versions`` are what the tool writes and documents: the first is
the one it writes.

This module is plain data, with no I/O, so the pure decision engine
(``lint/decision/``) may import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Scope(StrEnum):
    """Whether objects of a kind live in a namespace or in the cluster."""

    NAMESPACED = "namespaced"
    CLUSTER = "cluster"


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind the tool reads or writes.

    ``resource`` is the kind's plural resource name, as RBAC and admission
    rules name it. ``read`` is False for a kind ``generate`` writes and the
    check never reads. ``network_policy`` marks a kind that can bound a
    pod's traffic, so an unreadable copy fails its namespaces closed
    (SEMANTICS §17.7). ``listed_by_host`` marks a kind the sandbox host
    lists from the API server on every create (SEMANTICS §5.1): an item of
    its typed list that is not an object is still a policy of that kind,
    which cannot be read.
    """

    name: str
    group: str
    """The API group; ``""`` is the core group, whose apiVersion has no group part."""
    versions: tuple[str, ...]
    scope: Scope
    resource: str
    read: bool = True
    network_policy: bool = False
    listed_by_host: bool = False
    workload: bool = False
    """A kind whose pods a ``workload:`` declaration describes (issue 17). It
    is read only when a declaration names the kind, so a tree checked
    without one is read exactly as before (``relevant_kinds``)."""

    @property
    def api_version(self) -> str:
        """The ``apiVersion`` the tool writes for this kind."""
        version = self.versions[0]
        return f"{self.group}/{version}" if self.group else version

    @property
    def list_kind(self) -> str:
        """The name of the typed list wrapper: ``NetworkPolicyList``."""
        return f"{self.name}List"


_AGENT_SANDBOX_VERSIONS: Final = ("v1beta1", "v1alpha1")
"""AGENT-SANDBOX.md §2: v1beta1 is stored, v1alpha1 still served."""
_AGENT_SANDBOX_EXTENSIONS: Final = "extensions.agents.x-k8s.io"
_ADMISSION: Final = "admissionregistration.k8s.io"
_RBAC: Final = "rbac.authorization.k8s.io"
_NAMESPACED, _CLUSTER = Scope.NAMESPACED, Scope.CLUSTER

NETWORK_POLICY: Final = Kind(
    "NetworkPolicy",
    "networking.k8s.io",
    ("v1",),
    _NAMESPACED,
    "networkpolicies",
    network_policy=True,
    listed_by_host=True,
)
CILIUM_NETWORK_POLICY: Final = Kind(
    "CiliumNetworkPolicy",
    "cilium.io",
    ("v2",),
    _NAMESPACED,
    "ciliumnetworkpolicies",
    network_policy=True,
    listed_by_host=True,
)
CILIUM_CLUSTERWIDE_NETWORK_POLICY: Final = Kind(
    "CiliumClusterwideNetworkPolicy",
    "cilium.io",
    ("v2",),
    _CLUSTER,
    "ciliumclusterwidenetworkpolicies",
    network_policy=True,
)
ADMIN_NETWORK_POLICY: Final = Kind(
    "AdminNetworkPolicy",
    "policy.networking.k8s.io",
    ("v1alpha1",),
    _CLUSTER,
    "adminnetworkpolicies",
    network_policy=True,
)
BASELINE_ADMIN_NETWORK_POLICY: Final = Kind(
    "BaselineAdminNetworkPolicy",
    "policy.networking.k8s.io",
    ("v1alpha1",),
    _CLUSTER,
    "baselineadminnetworkpolicies",
    network_policy=True,
)
SANDBOX_TEMPLATE: Final = Kind(
    "SandboxTemplate",
    _AGENT_SANDBOX_EXTENSIONS,
    _AGENT_SANDBOX_VERSIONS,
    _NAMESPACED,
    "sandboxtemplates",
)
SANDBOX_WARM_POOL: Final = Kind(
    "SandboxWarmPool",
    _AGENT_SANDBOX_EXTENSIONS,
    _AGENT_SANDBOX_VERSIONS,
    _NAMESPACED,
    "sandboxwarmpools",
)
SANDBOX_CLAIM: Final = Kind(
    "SandboxClaim", _AGENT_SANDBOX_EXTENSIONS, _AGENT_SANDBOX_VERSIONS, _NAMESPACED, "sandboxclaims"
)
SANDBOX: Final = Kind(
    "Sandbox", "agents.x-k8s.io", _AGENT_SANDBOX_VERSIONS, _NAMESPACED, "sandboxes"
)
NAMESPACE: Final = Kind("Namespace", "", ("v1",), _CLUSTER, "namespaces")
CONFIG_MAP: Final = Kind("ConfigMap", "", ("v1",), _NAMESPACED, "configmaps")
"""Only the controller's ``agent-sandbox-config`` is read (``CONFIG_MAP_NAME``)."""
VALIDATING_ADMISSION_POLICY: Final = Kind(
    "ValidatingAdmissionPolicy", _ADMISSION, ("v1",), _CLUSTER, "validatingadmissionpolicies"
)
VALIDATING_ADMISSION_POLICY_BINDING: Final = Kind(
    "ValidatingAdmissionPolicyBinding",
    _ADMISSION,
    ("v1",),
    _CLUSTER,
    "validatingadmissionpolicybindings",
)
ROLE: Final = Kind("Role", _RBAC, ("v1",), _NAMESPACED, "roles")
ROLE_BINDING: Final = Kind("RoleBinding", _RBAC, ("v1",), _NAMESPACED, "rolebindings")
CLUSTER_ROLE: Final = Kind("ClusterRole", _RBAC, ("v1",), _CLUSTER, "clusterroles", read=False)
CLUSTER_ROLE_BINDING: Final = Kind(
    "ClusterRoleBinding", _RBAC, ("v1",), _CLUSTER, "clusterrolebindings", read=False
)
SERVICE_ACCOUNT: Final = Kind(
    "ServiceAccount", "", ("v1",), _NAMESPACED, "serviceaccounts", read=False
)

_APPS: Final = "apps"
_BATCH: Final = "batch"
DEPLOYMENT: Final = Kind("Deployment", _APPS, ("v1",), _NAMESPACED, "deployments", workload=True)
STATEFUL_SET: Final = Kind(
    "StatefulSet", _APPS, ("v1",), _NAMESPACED, "statefulsets", workload=True
)
DAEMON_SET: Final = Kind("DaemonSet", _APPS, ("v1",), _NAMESPACED, "daemonsets", workload=True)
REPLICA_SET: Final = Kind("ReplicaSet", _APPS, ("v1",), _NAMESPACED, "replicasets", workload=True)
JOB: Final = Kind("Job", _BATCH, ("v1",), _NAMESPACED, "jobs", workload=True)
CRON_JOB: Final = Kind("CronJob", _BATCH, ("v1",), _NAMESPACED, "cronjobs", workload=True)
POD: Final = Kind("Pod", "", ("v1",), _NAMESPACED, "pods", workload=True)
WORKLOAD_KINDS: Final[tuple[Kind, ...]] = (
    DEPLOYMENT,
    STATEFUL_SET,
    DAEMON_SET,
    REPLICA_SET,
    JOB,
    CRON_JOB,
    POD,
)
"""Kinds whose pods a ``workload:`` declaration describes (issue 17)."""
WORKLOAD_POD_TEMPLATE: Final[Mapping[str, tuple[str, ...]]] = {
    **{kind.name: ("spec", "template") for kind in WORKLOAD_KINDS},
    CRON_JOB.name: ("spec", "jobTemplate", "spec", "template"),
    POD.name: (),
}
"""Where each workload kind keeps the pod it makes: a Pod is its own."""

KINDS: Final[tuple[Kind, ...]] = (
    NETWORK_POLICY,
    CILIUM_NETWORK_POLICY,
    CILIUM_CLUSTERWIDE_NETWORK_POLICY,
    SANDBOX_TEMPLATE,
    SANDBOX_WARM_POOL,
    SANDBOX_CLAIM,
    SANDBOX,
    NAMESPACE,
    CONFIG_MAP,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
    ROLE,
    ROLE_BINDING,
    ADMIN_NETWORK_POLICY,
    BASELINE_ADMIN_NETWORK_POLICY,
    *WORKLOAD_KINDS,
    CLUSTER_ROLE,
    CLUSTER_ROLE_BINDING,
    SERVICE_ACCOUNT,
)
"""Every kind the tool knows: those the check reads, in the order DESIGN
§2.1 lists them, then the workload kinds (read when a declaration names
them), then those only ``generate`` writes."""
READ_KINDS: Final = tuple(kind for kind in KINDS if kind.read and not kind.workload)
"""The kinds the check always reads (workload kinds only when declared)."""

CONFIG_MAP_NAME: Final = "agent-sandbox-config"
"""The only ConfigMap the check reads (AGENT-SANDBOX.md §7)."""

RELEVANT_KINDS: Final = frozenset(kind.name for kind in READ_KINDS)
"""The names of every kind the check reads; every other kind is counted and skipped."""
CLUSTER_KINDS: Final = frozenset(kind.name for kind in READ_KINDS if kind.scope is Scope.CLUSTER)
"""Kinds the check reads whose objects have no namespace."""
POLICY_KINDS: Final = frozenset(kind.name for kind in KINDS if kind.network_policy)
"""Kubernetes kinds that bound traffic, whose unreadable copy must fail the
check closed (SEMANTICS §17.7). Not the declared ``egress.policy.kind``
values, which are ``lint.decision.constants.EGRESS_POLICY_KINDS``."""
TYPED_POLICY_LISTS: Final = frozenset(kind.list_kind for kind in KINDS if kind.listed_by_host)
"""Lists whose non-object items are still policies of the listed kind (§5.1)."""
ADMIN_POLICY_KINDS: Final = (ADMIN_NETWORK_POLICY.name, BASELINE_ADMIN_NETWORK_POLICY.name)
"""Admin policies, whose semantics are not implemented: they fail closed."""
JUDGED_POLICY_KINDS: Final = tuple(
    kind.name for kind in KINDS if kind.network_policy and kind.name not in ADMIN_POLICY_KINDS
)
"""Policies whose rules the check reads and judges, in ``KINDS`` order."""


def _policy_groups() -> Mapping[str, str]:
    suspects: dict[str, str] = {}
    for kind in KINDS:
        if kind.network_policy:
            suspects.setdefault(kind.group, kind.name)
    return suspects


POLICY_GROUPS: Final = _policy_groups()
"""API groups that serve a policy kind, and the kind an object of the group
without a readable kind is taken for: the group's first policy kind in
``KINDS``, which is its namespaced one where it has one."""

INVENTORY_KINDS: Final = RELEVANT_KINDS | {kind.name for kind in WORKLOAD_KINDS}
"""The kinds the inventory files: what the loader keeps, workloads included
when a declaration names their kind (``relevant_kinds``)."""


def relevant_kinds(workload_kinds: Iterable[str] = ()) -> frozenset[str]:
    """The kinds to keep: ``RELEVANT_KINDS`` and the workload kinds the
    declarations name (issue 17)."""
    named = set(workload_kinds)
    return RELEVANT_KINDS | {kind.name for kind in WORKLOAD_KINDS if kind.name in named}
