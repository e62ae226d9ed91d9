"""``load_declarations``: the declaration file, read, checked and resolved.

The steps, each of which may raise :class:`DeclarationError`: read the
file; parse it (one YAML document, no duplicate keys); check its structure
(``structure``, and the pydantic models for what it does not vouch for:
they word the errors); then, entry by entry, merge ``defaults``, read
``allowedHostsFile``, and translate the egress configuration exactly as the
sandbox host would, so that every refusal of SEMANTICS.md §2 stops the run
as a usage error (§17.8) naming the field path and file:line.
"""

from __future__ import annotations

from pathlib import Path as FilePath

import msgspec

from lint.decision.model import ConfigRefusal, Translation
from lint.decision.translation import translate, translate_allow, with_selector
from lint.decision.values import JSON
from lint.declarations.discovery import display_name
from lint.declarations.entries import (
    DeclarationNote,
    Declarations,
    DeclaredSandbox,
    HostName,
    IngressCheck,
)
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path, join_path, line_of, parse_path
from lint.declarations.hosts_file import HostList, read_hosts_file
from lint.declarations.merging import MergedEgress, merge_egress
from lint.declarations.notes import entry_notes
from lint.declarations.reading import Citation, SourceTree, parse_yaml, read_text
from lint.declarations.renders import declared_renders
from lint.declarations.scoping import Scope, default_environments, entry_environments
from lint.declarations.structure import CheckedFile, SandboxEntry, checked_structure

_DEFAULT_NAMESPACE = "default"


def load_declarations(
    path: FilePath, *, namespace_override: str | None, environment: str | None = None
) -> Declarations:
    """Load the declaration file at ``path``, with the entries judged in
    the ``renders:`` environment ``environment`` (None: in no environment,
    every entry; issue 28). Every entry is checked all the same."""
    shown = display_name(path)
    tree = parse_yaml(read_text(path, shown, Citation(shown)), shown)
    model = _validate(tree)
    renders = declared_renders(model.renders, tree, path.parent)
    scope = Scope(tuple(render.name for render in renders), environment)
    inherited = default_environments(tree, scope)
    loader = _EntryLoader(tree, path.parent, namespace_override, model.default_namespace)
    scoped: list[tuple[DeclaredSandbox, SandboxEntry, tuple[str, ...] | None]] = []
    entries, notes = [], []
    for index, sandbox in enumerate(model.sandboxes):
        environments = entry_environments(tree, index, sandbox, scope, inherited)
        entry, entry_notes_found = loader.load(index, sandbox, scope.namespace(sandbox.namespace))
        scoped.append((entry, sandbox, environments))
        if scope.includes(environments):
            entries.append(entry)
            notes.extend(entry_notes_found)
    if not scope.names:
        _refuse_duplicates([(entry, entry.namespace) for entry in entries])
    for name in scope.names:
        # Each environment on its own, with the namespaces the entries take
        # there: entries of different environments may expect one object.
        there = Scope(scope.names, name)
        _refuse_duplicates(
            [
                (entry, loader.namespace(there.namespace(sandbox.namespace)))
                for entry, sandbox, within in scoped
                if there.includes(within)
            ]
        )
    return Declarations(
        file=shown,
        default_namespace=model.default_namespace,
        defaults_applied=False,
        entries=tuple(entries),
        namespace_override=namespace_override,
        notes=tuple(notes),
        lines=tree.lines,
        renders=renders,
        namespaces={name: dict(labels) for name, labels in model.namespaces.items()},
        controller_version=model.controller_version,
        enforces=model.enforces,
    )


def _validate(tree: SourceTree) -> CheckedFile:
    if tree.value is None:
        raise DeclarationError(
            path="",
            file=tree.file,
            line=1,
            message="the declaration file is empty; it needs `version: 1` and a "
            "`sandboxes` list (see docs/declarations.md)",
        )
    checked = checked_structure(tree.value)
    if checked is not None:
        return checked
    # Only now pydantic: its models take the file or word the first error.
    from lint.declarations.schema_errors import validated  # noqa: PLC0415

    return validated(tree)


class _Resolved(msgspec.Struct, frozen=True):
    """One entry's egress, lines and allowlist file while it is resolved."""

    merged: MergedEgress
    hosts: HostList | None


class _EntryLoader:
    def __init__(
        self,
        tree: SourceTree,
        base: FilePath,
        namespace_override: str | None,
        default_namespace: str | None,
    ) -> None:
        self._tree = tree
        self._base = base
        self._namespace_override = namespace_override
        self._default_namespace = default_namespace

    def load(
        self, index: int, sandbox: SandboxEntry, namespace: str | None
    ) -> tuple[DeclaredSandbox, list[DeclarationNote]]:
        """Entry ``index``, in ``namespace`` (its own in this run, if any)."""
        prefix = f"sandboxes[{index}]"
        target = self._target(index, sandbox)
        host = self._host(index, sandbox)
        merged = merge_egress(self._tree.value, self._tree.lines, index)
        resolved = self._with_hosts_file(merged, prefix)
        self._check_intent(index, resolved.merged)
        self._check_host(index, sandbox, host, resolved.merged)
        namespace = self.namespace(namespace)
        translation = self._translate(resolved, target, namespace, prefix, host)
        if host == "none":
            # The selector is the pods' own labels, known once the manifests
            # are read (lint.declarations.declared); no host reads it back.
            translation = with_selector(translation, dict(sandbox.pod_labels))
        entry = DeclaredSandbox(
            index=index,
            template=target,
            namespace=namespace,
            external=sandbox.external,
            pod_labels=dict(sandbox.pod_labels),
            paths=tuple(dict.fromkeys(sandbox.paths)) if sandbox.paths else None,
            egress=resolved.merged.egress,
            ingress=_ingress(sandbox, host),
            translation=translation,
            file=self._tree.file,
            line=self._tree.lines[("sandboxes", index)],
            lines=resolved.merged.lines,
            host=host,
            workload=sandbox.workload,
            expect=sandbox.expect,
        )
        return entry, entry_notes(entry.egress, prefix, entry.file, entry.line_of)

    def _entry_error(self, index: int, field: Path, message: str) -> DeclarationError:
        """An error at a field of entry ``index`` (``()`` is the entry itself)."""
        parts: Path = ("sandboxes", index, *field)
        line = line_of(self._tree.lines, parts)
        return DeclarationError(
            path=format_path(parts),
            file=self._tree.file,
            line=line,
            message=message,
            excerpt=self._tree.excerpt(line),
        )

    def _target(self, index: int, sandbox: SandboxEntry) -> str:
        """The name of the entry's one target: a template or a workload."""
        if sandbox.template is None and sandbox.workload is None:
            raise self._entry_error(index, ("template",), "is required")
        if sandbox.template is not None and sandbox.workload is not None:
            raise self._entry_error(
                index,
                ("workload",),
                "an entry declares one target: `template: <SandboxTemplate>` or "
                "`workload: {kind: Deployment, name: <name>}` (also StatefulSet, "
                "DaemonSet, ReplicaSet, Job, CronJob, Pod), not both",
            )
        if sandbox.workload is not None and sandbox.paths and "pooled" in sandbox.paths:
            raise self._entry_error(
                index,
                ("paths",),
                "a workload's pods are its own, never out of a SandboxWarmPool: "
                "the only path is `direct`",
            )
        if sandbox.workload is not None:
            return sandbox.workload.name
        assert sandbox.template is not None
        return sandbox.template

    def _host(self, index: int, sandbox: SandboxEntry) -> HostName:
        """The entry's ``host``, else ``defaults.host``, else ``none`` for a
        workload and ``namzu`` for a template. The namzu host makes pods from
        SandboxTemplates only."""
        defaults = self._tree.value.get("defaults")
        inherited = defaults.get("host") if isinstance(defaults, dict) else None
        host: HostName = (
            sandbox.host or inherited or ("none" if sandbox.workload is not None else "namzu")
        )
        if sandbox.workload is not None and host == "namzu":
            where: Path = ("host",) if sandbox.host is not None else ("workload",)
            raise self._entry_error(
                index,
                where,
                f"host is namzu, but the namzu host only creates pods from "
                f"SandboxTemplates, never from a {sandbox.workload.kind}; set `host: none` "
                "for a workload"
                + ("" if sandbox.host is not None else " (namzu is inherited from `defaults`)"),
            )
        return host

    def _check_intent(self, index: int, merged: MergedEgress) -> None:
        """At most one of ``policy`` and ``allow`` (neither is refused by the
        translation, as before); ``allowHosts`` only with ``allow``."""
        egress = merged.egress
        lines = merged.lines

        def error(field: str, message: str) -> DeclarationError:
            parts: Path = ("egress", field)
            line = line_of(lines, parts)
            return DeclarationError(
                path=format_path(("sandboxes", index, *parts)),
                file=self._tree.file,
                line=line,
                message=message,
                excerpt=self._tree.excerpt(line),
            )

        if "policy" in egress and "allow" in egress:
            raise error(
                "allow",
                "egress declares both `policy` and `allow`; declare exactly one intent",
            )
        if "allowHosts" in egress and "allow" not in egress:
            raise error(
                "allowHosts",
                "allowHosts goes with `allow`; write `allow: []` for hosts only",
            )

    def _check_host(
        self, index: int, sandbox: SandboxEntry, host: HostName, merged: MergedEgress
    ) -> None:
        """What ``host: none`` refuses: the namzu host's own settings."""
        if host == "namzu":
            if sandbox.expect is not None:
                raise self._entry_error(
                    index,
                    ("expect",),
                    "expect names the policy object of a `host: none` entry; the namzu "
                    "host reads back its own named object (networkPolicyName)",
                )
            return
        for field in ("profile", "profileLabelKey", "perSandbox"):
            if field in merged.egress:
                line = line_of(merged.lines, ("egress", field))
                inherited = " (inherited from `defaults`)" if field in merged.inherited else ""
                raise DeclarationError(
                    path=format_path(("sandboxes", index, "egress", field)),
                    file=self._tree.file,
                    line=line,
                    message=f"{field} is a setting of the namzu host, and this entry says "
                    f"`host: none`{inherited}; nothing would apply it. Remove it, or "
                    "name the policy object with `expect: {kind, name}`",
                    excerpt=self._tree.excerpt(line),
                )
        if merged.egress.get("verify") == "named-object-only" and sandbox.expect is None:
            line = line_of(merged.lines, ("egress", "verify"))
            raise DeclarationError(
                path=format_path(("sandboxes", index, "egress", "verify")),
                file=self._tree.file,
                line=line,
                message="verify is named-object-only, but a `host: none` entry without "
                "`expect` names no object, so nothing would be checked",
                excerpt=self._tree.excerpt(line),
            )

    def namespace(self, own: str | None) -> str:
        """Entry, then ``--namespace``, then ``defaultNamespace`` (DESIGN §2.1)."""
        return own or self._namespace_override or self._default_namespace or _DEFAULT_NAMESPACE

    def _with_hosts_file(self, merged: MergedEgress, prefix: str) -> _Resolved:
        policy = merged.egress.get("policy")
        if not isinstance(policy, dict) or "allowedHostsFile" not in policy:
            return _Resolved(merged, None)
        key_path = ("egress", "policy", "allowedHostsFile")
        cited = Citation(
            self._tree.file,
            line_of(merged.lines, key_path),
            join_path(prefix, "egress.policy.allowedHostsFile"),
        )
        if "allowedHosts" in policy:
            raise self._error(cited, "set either allowedHosts or allowedHostsFile, not both")
        replaced = {key: value for key, value in policy.items() if key != "allowedHostsFile"}
        name = policy["allowedHostsFile"]
        if name is None:  # null: no file, as if the key were absent
            return _Resolved(_replace_policy(merged, replaced, merged.lines), None)
        hosts = read_hosts_file(name, self._base, cited)
        replaced["allowedHosts"] = list(hosts.hosts)
        # Hosts from the file are located at the key that names the file.
        hosts_path = ("egress", "policy", "allowedHosts")
        lines = {**merged.lines, hosts_path: cited.line}
        lines.update({(*hosts_path, i): cited.line for i in range(len(hosts.hosts))})
        return _Resolved(_replace_policy(merged, replaced, lines), hosts)

    def _translate(
        self, resolved: _Resolved, template: str, namespace: str, prefix: str, host: HostName
    ) -> Translation:
        egress = resolved.merged.egress
        try:
            if "allow" in egress:
                # host: none takes the cluster's own forms in allowHosts (issue 28).
                return translate_allow(egress, template, namespace, cluster_forms=host == "none")
            return translate(egress, template, namespace)
        except ConfigRefusal as refusal:
            raise self._refusal_error(refusal, resolved, prefix) from None

    def _refusal_error(
        self, refusal: ConfigRefusal, resolved: _Resolved, prefix: str
    ) -> DeclarationError:
        field = refusal.field.removeprefix("config.egress").removeprefix(".")
        parts = ("egress", *parse_path(field))
        line = line_of(resolved.merged.lines, parts)
        return DeclarationError(
            path=join_path(join_path(prefix, "egress"), field),
            file=self._tree.file,
            line=line,
            message=refusal.message + _provenance(parts, resolved),
            error_class=refusal.error_class,
            excerpt=self._tree.excerpt(line),
        )

    def _error(self, cited: Citation, message: str) -> DeclarationError:
        return DeclarationError(
            path=cited.path,
            file=cited.file,
            line=cited.line,
            message=message,
            excerpt=self._tree.excerpt(cited.line),
        )


def _replace_policy(
    merged: MergedEgress, policy: dict[str, JSON], lines: dict[Path, int]
) -> MergedEgress:
    return MergedEgress({**merged.egress, "policy": policy}, merged.inherited, lines)


def _ingress(sandbox: SandboxEntry, host: HostName) -> IngressCheck | None:
    """Absent: checked with the default engine, except under ``host: none``,
    where no sandbox host connects to an agent port; ``unverified``: not
    checked (SEMANTICS.md §1.5)."""
    if sandbox.ingress is None:
        return IngressCheck() if host == "namzu" else None
    if sandbox.ingress == "unverified":
        return None
    return sandbox.ingress


def _provenance(parts: tuple[str | int, ...], resolved: _Resolved) -> str:
    """Where a refused value really comes from, when not from the entry."""
    notes = []
    if len(parts) > 1 and parts[1] in resolved.merged.inherited:
        notes.append(f"`{parts[1]}` is inherited from `defaults`")
    hosts = resolved.hosts
    if hosts is not None and parts[1:3] == ("policy", "allowedHosts") and len(parts) > 3:
        position = parts[3]
        if isinstance(position, int) and position < len(hosts.lines):
            notes.append(f"the entry is {hosts.file}:{hosts.lines[position]}")
    return f" ({'; '.join(notes)})" if notes else ""


def _refuse_duplicates(entries: list[tuple[DeclaredSandbox, str]]) -> None:
    """Two entries that expect the same named policy object in the same
    namespace (each given with its namespace in the environment checked)
    contradict each other: one object cannot equal two translations
    (SEMANTICS.md §12), and equal ones are redundant."""
    seen: dict[tuple[str, str, str], DeclaredSandbox] = {}
    for entry, namespace in entries:
        expected = entry.translation
        if not expected.named:
            continue  # `host: none`: no host reads an object back by name
        key = (namespace, expected.kind, expected.name)
        first = seen.setdefault(key, entry)
        if first is not entry:
            raise DeclarationError(
                path=entry.field_prefix,
                file=entry.file,
                line=entry.line,
                message=f"expects the same {expected.kind} {expected.name!r} in namespace "
                f"{namespace!r} as {first.field_prefix} (line {first.line}); "
                "declare each named policy once (merge the entries, or give one a "
                "profile or a networkPolicyName)",
            )
