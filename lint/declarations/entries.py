"""What a loaded declaration file gives the rest of the tool.

Frozen values, built once by ``load_declarations``. The egress
configuration is the plain camelCase ``config.egress`` value the sandbox
host would hold (SEMANTICS.md §1.1), already checked by the translation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

import msgspec

from lint.decision.constants import DEFAULT_AGENT_PORT
from lint.decision.frozen import equal_without
from lint.decision.model import Translation
from lint.decision.values import JSON
from lint.declarations.fieldpaths import Path, line_of, parse_path

if TYPE_CHECKING:
    from lint.declarations.renders import DeclaredRender

AcquisitionPath = Literal["direct", "pooled", "warm"]
EngineName = Literal["core", "cilium"]


class IngressCheck(msgspec.Struct, frozen=True):
    """The agent-port check of one entry (SEMANTICS.md §1.5). ``engine``
    None means: the egress engine, else ``core``."""

    agent_port: int = DEFAULT_AGENT_PORT
    engine: EngineName | None = None


HostName = Literal["namzu", "none"]


class Workload(msgspec.Struct, frozen=True):
    """A declared target that is not a SandboxTemplate: a Deployment,
    StatefulSet, DaemonSet, ReplicaSet, Job, CronJob or Pod (issue 17)."""

    kind: str
    name: str


class ExpectedObject(msgspec.Struct, frozen=True):
    """The one policy object a ``host: none`` entry names with ``expect``."""

    kind: str
    name: str


class DeclarationNote(msgspec.Struct, frozen=True):
    """Something worth saying about a declaration that is not an error, for
    example a ``verify`` value that is neither of the two known ones."""

    path: str
    file: str
    line: int
    message: str


class DeclaredSandbox(msgspec.Struct, frozen=True):
    """One declared sandbox, resolved once: what ``check``, ``explain`` and
    ``generate`` all work from.

    It comes from an entry of ``sandboxes`` (``index`` is its position), or,
    when there is no declaration file, from a SandboxTemplate found in the
    manifests, checked as ``deny-all`` under ``core`` with ``host: none``
    (SEMANTICS.md §17.5, issue 25; ``index`` None, see
    ``lint.declarations.declared``).

    ``namespace`` is resolved (entry, else ``--namespace``, else
    ``defaultNamespace``, else ``default``). ``paths`` None means the
    acquisition paths are chosen automatically (DESIGN §2.3). ``egress`` has
    ``defaults`` merged under it and ``allowedHostsFile`` replaced by
    ``policy.allowedHosts``. ``ingress`` None means ``unverified``.
    ``translation`` is the reference manifest the egress translates to.
    ``file`` and ``line`` say where it was declared: the entry, or the
    template a default was made for (``source`` is then that template's
    ``# Source:`` path, when Helm rendered it).
    """

    index: int | None
    template: str
    namespace: str
    external: bool
    pod_labels: dict[str, str]
    paths: tuple[AcquisitionPath, ...] | None
    egress: dict[str, JSON]
    ingress: IngressCheck | None
    translation: Translation
    file: str
    line: int
    source: str | None = None
    lines: Mapping[Path, int] = msgspec.field(default_factory=dict)
    host: HostName = "namzu"
    """Who creates the pods: the namzu host (its template label, profiles,
    the named object it reads back) or ``none`` (issue 17)."""
    workload: Workload | None = None
    """The workload whose pods are declared; ``template`` is then its name."""
    expect: ExpectedObject | None = None
    """Under ``host: none``, the policy object that must exist and stay inside."""

    # What is declared, not where in the file each field is written.
    __eq__ = equal_without("lines")
    __hash__ = None  # type: ignore[assignment]  # it holds dicts: never hashed

    @property
    def target_kind(self) -> str:
        """The kind of the declared target: ``SandboxTemplate`` or the workload's."""
        return "SandboxTemplate" if self.workload is None else self.workload.kind

    @property
    def defaulted(self) -> bool:
        """True when no declaration file exists and the default applies."""
        return self.index is None

    @property
    def field_prefix(self) -> str:
        """This entry's own field path, ``sandboxes[<index>]``."""
        return f"sandboxes[{self.index}]"

    @property
    def where(self) -> str:
        """``file:line (sandboxes[i])``, or ``file:line`` of the template a
        default was made for."""
        located = f"{self.file}:{self.line}"
        return located if self.defaulted else f"{located} ({self.field_prefix})"

    def line_of(self, path: str) -> int:
        """The line of a field inside this entry, for example
        ``egress.policy.exceptCidrs`` or ``egress.ciliumNarrowing.hostPorts["a.b"]``.
        A field that is not written gives the line of its nearest written
        parent (for ``egress`` fields taken from ``defaults``, the line in
        ``defaults``; for hosts read from ``allowedHostsFile``, that key)."""
        return line_of(self.lines, parse_path(path)) if self.lines else self.line

    @property
    def profile(self) -> str | None:
        """The declared profile (SEMANTICS.md §14), when it is a string."""
        profile = self.egress.get("profile")
        return profile if isinstance(profile, str) else None

    @property
    def engine(self) -> EngineName:
        """The egress engine (SEMANTICS.md §1.1, default ``core``)."""
        return "cilium" if self.egress.get("engine") == "cilium" else "core"

    @property
    def verify(self) -> str:
        """``verify`` as written (SEMANTICS.md §1.1, default ``union``). A
        value that is neither known one is kept, and noted (``notes.py``)."""
        verify = self.egress.get("verify")
        return verify if isinstance(verify, str) else "union"

    @property
    def union_verified(self) -> bool:
        """False only for ``verify: named-object-only`` (SEMANTICS.md §1.1)."""
        return self.verify != "named-object-only"

    @property
    def agent_port(self) -> int | None:
        """The agent port whose ingress is checked, None when unverified."""
        return None if self.ingress is None else self.ingress.agent_port

    @property
    def ingress_engine(self) -> EngineName | None:
        """The ingress engine (SEMANTICS.md §1.5), None when unverified."""
        if self.ingress is None:
            return None
        return self.ingress.engine or self.engine


class Declarations(msgspec.Struct, frozen=True):
    """A loaded declaration file, or the defaults when there is none.

    ``file`` is relative to the current directory with ``/`` separators.
    ``default_namespace`` is the file's ``defaultNamespace`` as written (None
    when absent); ``object_namespace`` gives the namespace for manifest
    objects without one. ``defaults_applied`` is True when no file was found:
    every SandboxTemplate is then checked as ``deny-all`` under ``core``
    with ``host: none`` (SEMANTICS.md §17.5, issue 25) and ``entries`` is
    empty.
    """

    file: str | None
    default_namespace: str | None
    defaults_applied: bool
    entries: tuple[DeclaredSandbox, ...]
    namespace_override: str | None = None
    notes: tuple[DeclarationNote, ...] = ()
    lines: Mapping[Path, int] = msgspec.field(default_factory=dict)
    renders: tuple[DeclaredRender, ...] = ()
    """The file's ``renders:`` environments (``renders.py``)."""
    namespaces: Mapping[str, Mapping[str, str]] = msgspec.field(default_factory=dict)
    """``namespaces:``: labels of namespaces managed elsewhere (CLUSTER-POLICIES §11 Q3)."""
    controller_version: str | None = None
    """``agentSandbox.version``, as written (DESIGN §12)."""
    enforces: frozenset[str] | None = None
    """``cluster.enforces``: the policy kinds the cluster is declared to
    enforce (None: not declared, the manifests' evidence decides)."""

    # What is declared, not where in the file each field is written.
    __eq__ = equal_without("lines")
    __hash__ = None  # type: ignore[assignment]  # it holds dicts: never hashed

    @property
    def object_namespace(self) -> str:
        """``--namespace``, else ``defaultNamespace``, else ``default``
        (DESIGN §2.1)."""
        return self.namespace_override or self.default_namespace or "default"

    def line_of(self, path: str) -> int:
        """The line of any field path in the file, such as
        ``sandboxes[1].egress.policy`` or ``defaultNamespace``."""
        return line_of(self.lines, parse_path(path)) if self.lines else 1
