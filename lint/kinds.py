"""Every Kubernetes kind egress-lint knows, once (DESIGN §2.1, CLUSTER-POLICIES §2.1, §7).

One table, ``KINDS``, names each kind with its API group, the versions the
tool knows, its scope and its resource name; every set of kinds elsewhere in
the tool is derived from it, and ``identify`` is the one way from an
object's ``apiVersion`` and ``kind`` to its entry.

Two ways of matching live side by side:

- The kinds SEMANTICS §5 reads (core NetworkPolicy, the Cilium policies) and
  the agent-sandbox, RBAC and admission kinds are matched by ``kind`` alone,
  as the tool always read them: an API server would serve only the listed
  versions, but a rendered manifest of another version still says what the
  author meant. The one exception is an apiVersion whose group another entry
  of the same name claims: a ``projectcalico.org/v3`` NetworkPolicy is
  Calico's, never the core one.
- The kinds of CLUSTER-POLICIES (``exact``) are matched on ``apiVersion``
  and ``kind`` exactly (§2.1). An object of a policy-like kind the table
  does not list (§7: any other ``…NetworkPolicy``, any kind of another
  ``policy.networking.k8s.io`` version) is identified as a catch-all kind
  made for it, so it fails closed in reach instead of passing unseen.

``key`` is how a kind is filed and named in reports: for the kinds matched
exactly, the §2.8 name (the plain kind for the groups ``networking.k8s.io``,
``cilium.io`` and ``policy.networking.k8s.io``, ``<Kind>.<group>`` for every
other group); for the kinds the tool read before, their name.

This module is plain data, with no I/O, so the pure decision engine
(``lint/decision/``) may import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Final

import msgspec


class Scope(StrEnum):
    """Whether objects of a kind live in a namespace or in the cluster."""

    NAMESPACED = "namespaced"
    CLUSTER = "cluster"


class Decision(StrEnum):
    """Which decision reads a kind's objects."""

    UNION = "union"
    """Read by the union (SEMANTICS §5), and by reach through the union."""
    REACH = "reach"
    """A policy only reach judges (CLUSTER-POLICIES §3-§5)."""
    REACH_DATA = "reach-data"
    """Data reach's readers look up (Tiers, network sets, CIDR groups)."""
    CATCH_ALL = "catch-all"
    """A kind recognised only to fail closed in reach (§7)."""
    OTHER = "other"
    """Read by the other checks (templates, RBAC, admission, namespaces)."""


_PLAIN_KEY_GROUPS: Final = frozenset(
    {"", "networking.k8s.io", "cilium.io", "policy.networking.k8s.io"}
)


def display_kind(group: str, kind: str) -> str:
    """How a kind is named in reports (CLUSTER-POLICIES §2.8): ``<Kind>``
    for the core, network-policy-API and Cilium groups, ``<Kind>.<group>``
    otherwise, with ``crd.projectcalico.org`` written ``projectcalico.org``."""
    if group in _PLAIN_KEY_GROUPS:
        return kind
    if group == "crd.projectcalico.org":
        group = "projectcalico.org"
    return f"{kind}.{group}"


class Kind(msgspec.Struct, frozen=True):
    """One kind the tool reads or writes.

    ``resource`` is the kind's plural resource name, as RBAC and admission
    rules name it. ``read`` is False for a kind ``generate`` writes and the
    check never reads. ``network_policy`` marks a kind that can bound a
    pod's traffic, so an unreadable copy fails its namespaces closed
    (SEMANTICS §17.7). ``listed_by_host`` marks a kind the sandbox host
    lists from the API server on every create (SEMANTICS §5.1): an item of
    its typed list that is not an object is still a policy of that kind,
    which cannot be read. ``exact`` kinds are identified by ``apiVersion``
    and ``kind`` together (CLUSTER-POLICIES §2.1); ``other_api_versions``
    are further apiVersions of the same kind (Calico's
    ``crd.projectcalico.org/v1``). A kind with no ``versions`` matches every
    version of its group (a catch-all kind).
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
    decision: Decision = Decision.OTHER
    exact: bool = False
    other_api_versions: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        """The ``apiVersion`` the tool writes for this kind."""
        version = self.versions[0] if self.versions else "*"
        return f"{self.group}/{version}" if self.group else version

    @property
    def api_versions(self) -> tuple[str, ...]:
        """Every apiVersion of the kind the table lists."""
        return (
            *(f"{self.group}/{v}" if self.group else v for v in self.versions),
            *self.other_api_versions,
        )

    @property
    def list_kind(self) -> str:
        """The name of the typed list wrapper: ``NetworkPolicyList``."""
        return f"{self.name}List"

    @property
    def key(self) -> str:
        """How objects of the kind are filed and named: the §2.8 name for a
        kind matched exactly, the plain name for every kind the tool read
        before (which the checks look up by name)."""
        return display_kind(self.group, self.name) if self.exact else self.name


_AGENT_SANDBOX_VERSIONS: Final = ("v1beta1", "v1alpha1")
"""AGENT-SANDBOX.md §2: v1beta1 is stored, v1alpha1 still served."""
_AGENT_SANDBOX_EXTENSIONS: Final = "extensions.agents.x-k8s.io"
_ADMISSION: Final = "admissionregistration.k8s.io"
_RBAC: Final = "rbac.authorization.k8s.io"
_POLICY_API: Final = "policy.networking.k8s.io"
_CALICO: Final = "projectcalico.org"
_CALICO_CRD: Final = ("crd.projectcalico.org/v1",)
_ANTREA: Final = "crd.antrea.io"
_OVN: Final = "k8s.ovn.org"
_NAMESPACED, _CLUSTER = Scope.NAMESPACED, Scope.CLUSTER
_UNION, _REACH, _DATA, _CATCH_ALL = (
    Decision.UNION,
    Decision.REACH,
    Decision.REACH_DATA,
    Decision.CATCH_ALL,
)

NETWORK_POLICY: Final = Kind(
    "NetworkPolicy",
    "networking.k8s.io",
    ("v1",),
    _NAMESPACED,
    "networkpolicies",
    network_policy=True,
    listed_by_host=True,
    decision=_UNION,
)
CILIUM_NETWORK_POLICY: Final = Kind(
    "CiliumNetworkPolicy",
    "cilium.io",
    ("v2",),
    _NAMESPACED,
    "ciliumnetworkpolicies",
    network_policy=True,
    listed_by_host=True,
    decision=_UNION,
)
CILIUM_CLUSTERWIDE_NETWORK_POLICY: Final = Kind(
    "CiliumClusterwideNetworkPolicy",
    "cilium.io",
    ("v2",),
    _CLUSTER,
    "ciliumclusterwidenetworkpolicies",
    network_policy=True,
    decision=_UNION,
)
ADMIN_NETWORK_POLICY: Final = Kind(
    "AdminNetworkPolicy",
    _POLICY_API,
    ("v1alpha1",),
    _CLUSTER,
    "adminnetworkpolicies",
    network_policy=True,
    decision=_REACH,
    exact=True,
)
BASELINE_ADMIN_NETWORK_POLICY: Final = Kind(
    "BaselineAdminNetworkPolicy",
    _POLICY_API,
    ("v1alpha1",),
    _CLUSTER,
    "baselineadminnetworkpolicies",
    network_policy=True,
    decision=_REACH,
    exact=True,
)
CLUSTER_NETWORK_POLICY: Final = Kind(
    "ClusterNetworkPolicy",
    _POLICY_API,
    ("v1alpha2",),
    _CLUSTER,
    "clusternetworkpolicies",
    network_policy=True,
    decision=_REACH,
    exact=True,
)


def _calico(name: str, scope: Scope, resource: str, decision: Decision, policy: bool) -> Kind:
    return Kind(
        name,
        _CALICO,
        ("v3",),
        scope,
        resource,
        network_policy=policy,
        decision=decision,
        exact=True,
        other_api_versions=_CALICO_CRD,
    )


CALICO_GLOBAL_NETWORK_POLICY: Final = _calico(
    "GlobalNetworkPolicy", _CLUSTER, "globalnetworkpolicies", _REACH, True
)
CALICO_NETWORK_POLICY: Final = _calico(
    "NetworkPolicy", _NAMESPACED, "networkpolicies", _REACH, True
)
CALICO_STAGED_GLOBAL_NETWORK_POLICY: Final = _calico(
    "StagedGlobalNetworkPolicy", _CLUSTER, "stagedglobalnetworkpolicies", _REACH, False
)
CALICO_STAGED_NETWORK_POLICY: Final = _calico(
    "StagedNetworkPolicy", _NAMESPACED, "stagednetworkpolicies", _REACH, False
)
CALICO_STAGED_KUBERNETES_NETWORK_POLICY: Final = _calico(
    "StagedKubernetesNetworkPolicy", _NAMESPACED, "stagedkubernetesnetworkpolicies", _REACH, False
)
CALICO_TIER: Final = _calico("Tier", _CLUSTER, "tiers", _DATA, False)
CALICO_NETWORK_SET: Final = _calico("NetworkSet", _NAMESPACED, "networksets", _DATA, False)
CALICO_GLOBAL_NETWORK_SET: Final = _calico(
    "GlobalNetworkSet", _CLUSTER, "globalnetworksets", _DATA, False
)
CILIUM_CIDR_GROUP: Final = Kind(
    "CiliumCIDRGroup",
    "cilium.io",
    ("v2", "v2alpha1"),
    _CLUSTER,
    "ciliumcidrgroups",
    decision=_DATA,
    exact=True,
)


def _catch_all(group: str, versions: tuple[str, ...], name: str, scope: Scope) -> Kind:
    return Kind(
        name,
        group,
        versions,
        scope,
        f"{name.lower()}s",
        network_policy=True,
        decision=_CATCH_ALL,
        exact=True,
    )


CATCH_ALL_KINDS: Final = (
    _catch_all(_ANTREA, ("v1beta1", "v1alpha1"), "ClusterNetworkPolicy", _CLUSTER),
    _catch_all(_ANTREA, ("v1beta1", "v1alpha1"), "NetworkPolicy", _NAMESPACED),
    _catch_all("k8s.cni.cncf.io", ("v1beta1",), "MultiNetworkPolicy", _NAMESPACED),
    _catch_all(_OVN, ("v1",), "EgressFirewall", _NAMESPACED),
    _catch_all(_OVN, ("v1",), "UserDefinedNetwork", _NAMESPACED),
    _catch_all(_OVN, ("v1",), "ClusterUserDefinedNetwork", _CLUSTER),
    _catch_all("network.openshift.io", ("v1",), "EgressNetworkPolicy", _NAMESPACED),
    _catch_all("networking.gke.io", (), "FQDNNetworkPolicy", _NAMESPACED),
    _catch_all("kubeovn.io", ("v1",), "SecurityGroup", _CLUSTER),
    Kind("Subnet", "kubeovn.io", ("v1",), _CLUSTER, "subnets", decision=_CATCH_ALL, exact=True),
)
"""The kinds of CLUSTER-POLICIES §7 that the table names; any other
policy-like kind is caught by ``identify``. A Kube-OVN ``Subnet`` fails
closed only with ``spec.acls`` (so it is no ``network_policy``: reach's
reader decides)."""

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
"""Not among the kinds every run reads: parsing every ServiceAccount cost a
quarter of the load time of the 16 MB bench tree (docs/performance.md).
Only a Calico policy reads their labels (CLUSTER-POLICIES §2.3, §5.4), so
they are read in a second pass when one does (``reads_service_accounts``)."""

_SERVICE_ACCOUNT_FIELD: Final = "serviceAccountSelector"
_SERVICE_ACCOUNT_KEY_PREFIX: Final = "pcsa."
"""Selector keys of the endpoint view's service-account labels (CLUSTER-POLICIES §5.4)."""


def reads_service_accounts(kind: Kind, value: object) -> bool:
    """Whether an object of ``kind`` reads service-account labels: a Calico
    policy (staged ones included) with a field named
    ``serviceAccountSelector``, or a string that names a ``pcsa.`` key. Read
    from the parsed value, so no spelling of the key in the text hides it."""
    return kind in CALICO_POLICIES and _names_service_accounts(value)


def _names_service_accounts(value: object) -> bool:
    if isinstance(value, dict):
        return any(
            key == _SERVICE_ACCOUNT_FIELD or _names_service_accounts(item)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_names_service_accounts(item) for item in value)
    return isinstance(value, str) and _SERVICE_ACCOUNT_KEY_PREFIX in value


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
CONTROLLER_WORKLOADS: Final = frozenset(kind.name for kind in WORKLOAD_KINDS)
"""The workload kinds read for a second reason: one whose pod runs the
agent-sandbox controller is always read, for the controller's version
(AGENT-SANDBOX §8, DESIGN §12). Upstream ships the controller as a
Deployment, and an early release chart as a StatefulSet; any kind that makes
pods may run it. Only an object whose text names ``CONTROLLER_IMAGE_NAME``
is read, and one that cannot be parsed is skipped unreported. Every other
object of these kinds is read only when a ``workload:`` declaration names
the kind (issue 17)."""
CONTROLLER_IMAGE_NAME: Final = "agent-sandbox-controller"
"""The last path segment of the controller's container image."""

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
    CLUSTER_NETWORK_POLICY,
    CALICO_GLOBAL_NETWORK_POLICY,
    CALICO_NETWORK_POLICY,
    CALICO_STAGED_GLOBAL_NETWORK_POLICY,
    CALICO_STAGED_NETWORK_POLICY,
    CALICO_STAGED_KUBERNETES_NETWORK_POLICY,
    CALICO_TIER,
    CALICO_NETWORK_SET,
    CALICO_GLOBAL_NETWORK_SET,
    CILIUM_CIDR_GROUP,
    *CATCH_ALL_KINDS,
    *WORKLOAD_KINDS,
    CLUSTER_ROLE,
    CLUSTER_ROLE_BINDING,
    SERVICE_ACCOUNT,
)
"""Every kind the tool knows: those the check reads, in the order DESIGN
§2.1 lists them, then the kinds of CLUSTER-POLICIES §2.1 and §7, then the
workload kinds (read when a declaration names them), then those only
``generate`` writes."""
READ_KINDS: Final = tuple(kind for kind in KINDS if kind.read and not kind.workload)
"""The kinds the check always reads (workload kinds only when declared)."""

ENFORCEABLE: Final[Mapping[str, tuple[Kind, ...]]] = {
    "AdminNetworkPolicy": (ADMIN_NETWORK_POLICY,),
    "BaselineAdminNetworkPolicy": (BASELINE_ADMIN_NETWORK_POLICY,),
    "ClusterNetworkPolicy": (CLUSTER_NETWORK_POLICY,),
    "Calico": (CALICO_GLOBAL_NETWORK_POLICY, CALICO_NETWORK_POLICY),
    "Cilium": (CILIUM_NETWORK_POLICY, CILIUM_CLUSTERWIDE_NETWORK_POLICY),
}
"""The words of the declaration's ``cluster.enforces``, and the policy kinds
each one says the cluster enforces (CLUSTER-POLICIES §12.4)."""
ENFORCES_WORDS: Final = tuple(ENFORCEABLE)

CONFIG_MAP_NAME: Final = "agent-sandbox-config"
"""The controller's ConfigMap the check reads (AGENT-SANDBOX.md §7)."""
CILIUM_CONFIG_MAP_NAME: Final = "cilium-config"
CILIUM_CONFIG_NAMESPACE: Final = "kube-system"
"""Cilium's ConfigMap, read for ``enable-policy: never`` (CLUSTER-POLICIES §7)."""
CONFIG_MAP_NAMES: Final = (CONFIG_MAP_NAME, CILIUM_CONFIG_MAP_NAME)
"""The only ConfigMaps the check reads."""

CATCH_ALL_SUFFIXES: Final = ("NetworkPolicy",)
CATCH_ALL_NAMES: Final = frozenset({"EgressFirewall", "EgressNetworkPolicy"})
"""Kind names that fail closed in any group the table does not handle (§7)."""
CATCH_ALL_GROUPS: Final = (_POLICY_API, "networking.gke.io")
"""Groups any of whose kinds may be a policy (§2.1, §7): the loader keeps
their objects whatever the kind."""


def is_policy_like(name: str) -> bool:
    """Whether a kind name fails closed in a group the table does not handle (§7)."""
    return name.endswith(CATCH_ALL_SUFFIXES) or name in CATCH_ALL_NAMES


class ReadKindNames(frozenset[str]):
    """The names of the kinds the check reads, with every policy-like name
    (§7) a member too: the loader keeps an object whose name is in it and
    leaves the rest to ``identify``."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (isinstance(name, str) and is_policy_like(name))


CALICO_POLICIES: Final = tuple(
    kind for kind in KINDS if kind.group == _CALICO and kind.decision is Decision.REACH
)
"""The Calico policy kinds, staged ones included (CLUSTER-POLICIES §5)."""
RELEVANT_KINDS: Final = ReadKindNames(kind.name for kind in READ_KINDS)
"""The names of every kind the check reads; every other kind is counted and skipped."""
CLUSTER_KINDS: Final = frozenset(kind.key for kind in READ_KINDS if kind.scope is Scope.CLUSTER)
"""Keys of the kinds the check reads whose objects have no namespace."""
POLICY_KINDS: Final = frozenset(kind.key for kind in KINDS if kind.network_policy)
"""Keys of the Kubernetes kinds that bound traffic, whose unreadable copy must
fail the check closed (SEMANTICS §17.7). Not the declared ``egress.policy.kind``
values, which are ``lint.decision.constants.EGRESS_POLICY_KINDS``."""
UNION_POLICY_KINDS: Final = frozenset(kind.key for kind in KINDS if kind.decision is Decision.UNION)
"""Policies the union reads (SEMANTICS §5.1, §17.3)."""
REACH_POLICY_KINDS: Final = POLICY_KINDS - UNION_POLICY_KINDS
"""Policies only reach reads: an unreadable one fails reach closed."""
POLICY_KIND_NAMES: Final = frozenset(kind.name for kind in KINDS if kind.network_policy)
"""The names of the policy kinds, for reading a kind from text that did not parse."""


def policy_key_of_name(name: str) -> str:
    """The key a policy kind named ``name`` is taken for when its apiVersion
    cannot be read: the union's kind of that name, else the only one."""
    kinds = [kind for kind in KINDS if kind.network_policy and kind.name == name]
    union = [kind for kind in kinds if kind.decision is Decision.UNION]
    return (union or kinds)[0].key if kinds else name


TYPED_POLICY_LISTS: Final = frozenset(kind.list_kind for kind in KINDS if kind.listed_by_host)
"""Lists whose non-object items are still policies of the listed kind (§5.1)."""
JUDGED_POLICY_KINDS: Final = tuple(kind.name for kind in KINDS if kind.decision is Decision.UNION)
"""Policies whose rules the union reads and judges, in ``KINDS`` order."""


def _policy_groups() -> Mapping[str, str]:
    suspects: dict[str, str] = {}
    for kind in KINDS:
        if kind.network_policy:
            suspects.setdefault(kind.group, kind.key)
            for api_version in kind.other_api_versions:
                suspects.setdefault(api_version.rpartition("/")[0], kind.key)
    return suspects


POLICY_GROUPS: Final = _policy_groups()
"""API groups that serve a policy kind, and the kind an object of the group
without a readable kind is taken for: the group's first policy kind in
``KINDS``, which is its namespaced one where it has one."""


def relevant_kinds(workload_kinds: Iterable[str] = ()) -> frozenset[str]:
    """The kinds to keep: ``RELEVANT_KINDS`` and the workload kinds the
    declarations name (issue 17)."""
    named = set(workload_kinds)
    # A ReadKindNames again: `|` on the frozenset subclass returns a plain one.
    return ReadKindNames(
        RELEVANT_KINDS | {kind.name for kind in WORKLOAD_KINDS if kind.name in named}
    )


def _by_name() -> Mapping[str, tuple[Kind, ...]]:
    found: dict[str, list[Kind]] = {}
    # Workload kinds too: the loader keeps them only when declared; and
    # ServiceAccounts, which it keeps only on a second pass (``lint.intake``).
    for kind in (kind for kind in KINDS if kind.read or kind is SERVICE_ACCOUNT):
        found.setdefault(kind.name, []).append(kind)
    return {name: tuple(kinds) for name, kinds in found.items()}


_BY_NAME: Final = _by_name()
_BY_KEY: Final = {kind.key: kind for kind in KINDS}
_EXACT_GROUPS: Final = {
    name: frozenset(
        api_version.rpartition("/")[0]
        for kind in kinds
        if kind.exact
        for api_version in kind.api_versions
    )
    for name, kinds in _BY_NAME.items()
}


def kind_by_key(key: str) -> Kind | None:
    """The table's entry filed under ``key``."""
    return _BY_KEY.get(key)


def is_listed(kind: Kind) -> bool:
    """Whether ``kind`` is the table's own entry, not one ``identify`` made."""
    return _BY_KEY.get(kind.key) is kind


def identify(api_version: object, name: str) -> Kind | None:
    """The kind an object of this ``apiVersion`` and ``kind`` is (see the
    module docstring), or None when the check does not read it. Answers
    for text apiVersions are kept: the inventory asks once per document."""
    if api_version is not None and not isinstance(api_version, str):
        return _identified(api_version, name)
    key = (api_version, name)
    if key in _IDENTIFIED:
        return _IDENTIFIED[key]
    found = _identified(api_version, name)
    if len(_IDENTIFIED) < _MEMO_LIMIT:
        _IDENTIFIED[key] = found
    return found


_IDENTIFIED: Final[dict[tuple[str | None, str], Kind | None]] = {}
_MEMO_LIMIT: Final = 4096
"""Answers ``identify`` keeps: hostile input can name any number of kinds."""


def _identified(api_version: object, name: str) -> Kind | None:
    group, version = _split(api_version)
    candidates = _BY_NAME.get(name, ())
    for kind in candidates:
        if kind.exact and _exactly(kind, api_version, group):
            return kind
    for kind in candidates:
        if not kind.exact and group not in _EXACT_GROUPS[name]:
            return kind
    if group in CATCH_ALL_GROUPS or is_policy_like(name):
        return _made_catch_all(group, version, name)
    return None


def _exactly(kind: Kind, api_version: object, group: str) -> bool:
    if not kind.versions and not kind.other_api_versions:
        return group == kind.group
    return api_version in kind.api_versions


def _split(api_version: object) -> tuple[str, str]:
    if not isinstance(api_version, str):
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def _made_catch_all(group: str, version: str, name: str) -> Kind:
    """A catch-all entry for an object of a kind the table does not name.
    Its scope is unknown: ``lint.inventory`` files it in the namespace it
    names, else with the cluster's objects, a candidate for every namespace."""
    return Kind(
        name,
        group,
        (version,) if version else (),
        Scope.CLUSTER,
        "",
        network_policy=True,
        decision=Decision.CATCH_ALL,
        exact=True,
    )
