"""The shape of ``.egress-lint.yaml``, as pydantic models.

These models check structure only: which keys exist (unknown keys are
refused everywhere) and the types of the fields the linter itself reads
(version, template, namespaces, podLabels, paths, ingress, engine, verify).
The contents the sandbox host validates itself (policy details, narrowing,
per-sandbox settings, profile) are typed ``Any`` here and judged by the
translation, so a refusal reads the way the host words it (SEMANTICS.md §2).

Validated models are never turned back into data: the egress configuration
handed on is the file's own plain value, so absent and null stay distinct
(SEMANTICS.md §0.1). Defaults below therefore only make a field optional.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag
from pydantic.alias_generators import to_camel

from lint.declarations.entries import ExpectedObject, IngressCheck, Workload
from lint.declarations.structure import CheckedFile, RenderEntry, SandboxEntry

AcquisitionPath = Literal["direct", "pooled", "warm"]
Engine = Literal["core", "cilium"]
NonEmpty = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel, frozen=True)


def _object_tag(value: Any) -> str:
    return "mapping" if isinstance(value, dict) else "value"


_Model = TypeVar("_Model", bound=_Strict)

ObjectOrValue = Annotated[
    Annotated[_Model, Tag("mapping")] | Annotated[Any, Tag("value")],
    Discriminator(_object_tag),
]
"""A field checked as the model when it is a mapping and passed through
untouched otherwise: the translation refuses wrong types in its own words."""


class DnsNamesModel(_Strict):
    """``dnsNames`` written as an object (SEMANTICS.md §1.3)."""

    namespace: Any = None
    cluster_domain: Any = None
    search_suffixes: Any = None


class NarrowingModel(_Strict):
    """``ciliumNarrowing`` and ``perSandbox.narrowing`` (SEMANTICS.md §1.3)."""

    ports: Any = None
    host_ports: Any = None
    dns_names: ObjectOrValue[DnsNamesModel] = None
    tls_server_names: Any = None
    tls_ports: Any = None


class PerSandboxModel(_Strict):
    """``perSandbox`` (SEMANTICS.md §1.4)."""

    engine: Any = None
    admission_policy_name: Any = None
    admission_policy_binding_name: Any = None
    label_key: Any = None
    narrowing: ObjectOrValue[NarrowingModel] = None


class PolicyModel(_Strict):
    """``policy`` (SEMANTICS.md §1.2). ``allowedHostsFile`` is the linter's
    own addition: a file holding the allowlist (DESIGN §2.2)."""

    kind: str
    except_cidrs: Any = None
    allowed_hosts: Any = None
    allowed_hosts_file: NonEmpty | None = None


class EgressModel(_Strict):
    """``egress`` and ``defaults``: the host's ``config.egress`` (SEMANTICS.md
    §1.1). ``policy`` is optional here because ``defaults`` may supply it.
    ``allow`` and ``allowHosts`` are the linter's own form beside ``policy``
    (issue 17), checked by ``lint.decision.allow_rules``."""

    policy: PolicyModel | None = None
    allow: Any = None
    allow_hosts: Any = None
    engine: Engine = "core"
    verify: str = "union"
    network_policy_name: str | None = None
    cilium_narrowing: ObjectOrValue[NarrowingModel] = None
    profile: Any = None
    profile_label_key: Any = None
    per_sandbox: ObjectOrValue[PerSandboxModel] = None


class IngressModel(_Strict):
    """``ingress`` as a mapping (SEMANTICS.md §1.5)."""

    agent_port: int = Field(default=1024, ge=1, le=65535)
    engine: Engine | None = None


def _ingress_tag(value: Any) -> str:
    return "mapping" if isinstance(value, dict) else "unverified"


IngressField = Annotated[
    Annotated[IngressModel, Tag("mapping")] | Annotated[Literal["unverified"], Tag("unverified")],
    Discriminator(_ingress_tag),
]


Host = Literal["namzu", "none"]
WorkloadKind = Literal[
    "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"
]


Environments = Annotated[list[NonEmpty], Field(min_length=1)]
"""``environments``: the ``renders:`` environments an entry belongs to."""


def _namespace_tag(value: Any) -> str:
    return "mapping" if isinstance(value, dict) else "name"


NamespaceField = Annotated[
    Annotated[dict[NonEmpty, NonEmpty], Field(min_length=1), Tag("mapping")]
    | Annotated[NonEmpty, Tag("name")],
    Discriminator(_namespace_tag),
]
"""An entry's ``namespace``: one name, or one per ``renders:`` environment."""


class DefaultsModel(EgressModel):
    """``defaults``: every ``egress`` field, the entries' default ``host``
    and the ``renders:`` environments they belong to."""

    host: Host | None = None
    environments: Environments | None = None


class WorkloadModel(_Strict):
    """``workload``: a target that is not a SandboxTemplate (issue 17)."""

    kind: WorkloadKind
    name: NonEmpty


class ExpectModel(_Strict):
    """``expect``: the one policy object a ``host: none`` entry names."""

    kind: Literal["NetworkPolicy", "CiliumNetworkPolicy"]
    name: NonEmpty


class SandboxModel(_Strict):
    """One entry of ``sandboxes``: a ``template`` or a ``workload``."""

    template: NonEmpty | None = None
    workload: WorkloadModel | None = None
    host: Host | None = None
    expect: ExpectModel | None = None
    namespace: NamespaceField | None = None
    environments: Environments | None = None
    external: bool = False
    pod_labels: dict[str, str] = Field(default_factory=dict)
    paths: Annotated[list[AcquisitionPath], Field(min_length=1)] | None = None
    egress: EgressModel | None = None
    ingress: IngressField | None = None


class RenderModel(_Strict):
    """One entry of ``renders``: an environment to render and check (DESIGN
    §11). Which of ``helm`` and ``kustomize`` is given, and that the Helm
    flags come only with ``helm``, is checked in ``renders.py``."""

    name: NonEmpty
    helm: NonEmpty | None = None
    kustomize: NonEmpty | None = None
    values: list[NonEmpty] | None = None
    set_values: list[NonEmpty] | None = Field(default=None, alias="set")
    release: NonEmpty | None = None
    namespace: NonEmpty | None = None
    kube_version: NonEmpty | None = None
    api_versions: list[NonEmpty] | None = None


class NamespaceModel(_Strict):
    """One entry of ``namespaces``: the labels of a Namespace managed
    outside the checked manifests (CLUSTER-POLICIES §2.3, §11 Q3)."""

    labels: dict[str, str] = Field(default_factory=dict)


class AgentSandboxModel(_Strict):
    """``agentSandbox``: the controller as deployed (DESIGN §12)."""

    version: NonEmpty | None = None


EnforcedKind = Literal[
    "AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy", "Calico", "Cilium"
]
"""The words of ``cluster.enforces`` (``lint.decision.tiers.credit.ENFORCES_WORDS``)."""


class ClusterModel(_Strict):
    """``cluster``: what the cluster enforces, which decides which policy
    kinds' Deny rules count (``lint.decision.tiers.credit``)."""

    enforces: list[EnforcedKind] | None = None


class DeclarationFileModel(_Strict):
    """The whole file."""

    version: Literal[1]
    default_namespace: NonEmpty | None = None
    namespaces: dict[NonEmpty, NamespaceModel] = Field(default_factory=dict)
    defaults: DefaultsModel | None = None
    renders: list[RenderModel] | None = None
    agent_sandbox: AgentSandboxModel | None = None
    cluster: ClusterModel | None = None
    sandboxes: Annotated[list[SandboxModel], Field(min_length=1)]


def as_checked(model: DeclarationFileModel) -> CheckedFile:
    """The values of a file these models took, in the shape
    ``structure.checked_structure`` gives them (a property holds the two
    equal wherever both take a file)."""
    return CheckedFile(
        sandboxes=tuple(_sandbox_entry(sandbox) for sandbox in model.sandboxes),
        default_namespace=model.default_namespace,
        namespaces={name: dict(entry.labels) for name, entry in model.namespaces.items()},
        renders=None if model.renders is None else tuple(map(_render_entry, model.renders)),
        controller_version=model.agent_sandbox.version if model.agent_sandbox else None,
        enforces=(
            frozenset(model.cluster.enforces)
            if model.cluster is not None and model.cluster.enforces is not None
            else None
        ),
    )


def _sandbox_entry(sandbox: SandboxModel) -> SandboxEntry:
    ingress = sandbox.ingress
    return SandboxEntry(
        template=sandbox.template,
        workload=(
            None
            if sandbox.workload is None
            else Workload(sandbox.workload.kind, sandbox.workload.name)
        ),
        host=sandbox.host,
        expect=(
            None
            if sandbox.expect is None
            else ExpectedObject(sandbox.expect.kind, sandbox.expect.name)
        ),
        namespace=sandbox.namespace,
        environments=None if sandbox.environments is None else tuple(sandbox.environments),
        external=sandbox.external,
        pod_labels=dict(sandbox.pod_labels),
        paths=None if sandbox.paths is None else tuple(sandbox.paths),
        ingress=(
            ingress
            if ingress is None or ingress == "unverified"
            else IngressCheck(ingress.agent_port, ingress.engine)
        ),
    )


def _render_entry(render: RenderModel) -> RenderEntry:
    def listed(values: list[str] | None) -> tuple[str, ...] | None:
        return None if values is None else tuple(values)

    return RenderEntry(
        name=render.name,
        helm=render.helm,
        kustomize=render.kustomize,
        values=listed(render.values),
        set_values=listed(render.set_values),
        release=render.release,
        namespace=render.namespace,
        kube_version=render.kube_version,
        api_versions=listed(render.api_versions),
    )
