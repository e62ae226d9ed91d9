"""Which declaration ``explain --template T [--profile P] [--namespace NS]``
is about: one entry of the declaration file, or, with no file, the default
``deny-all`` intent for a SandboxTemplate found in the manifests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lint.checks.candidates import location_of
from lint.checks.runner import DEFAULT_EGRESS
from lint.decision.model import Translation
from lint.decision.translation import translate
from lint.decision.values import JSON
from lint.declarations import Declarations, SandboxDeclaration
from lint.inventory import Inventory
from lint.kinds import SANDBOX_TEMPLATE


class SelectionError(Exception):
    """No declaration, or more than one, fits the options: a usage error."""


@dataclass(frozen=True)
class Chosen:
    """The one declared sandbox explain reports on."""

    template: str
    namespace: str
    profile: str | None
    egress: Mapping[str, JSON]
    translation: Translation
    pod_labels: Mapping[str, str]
    paths: tuple[str, ...] | None
    declared_at: str
    defaulted: bool = False


def choose(
    declarations: Declarations,
    inventory: Inventory,
    template: str,
    profile: str | None,
    namespace: str | None,
) -> Chosen:
    if declarations.defaults_applied:
        return _default(inventory, template, profile, namespace)
    entries = [
        entry
        for entry in declarations.entries
        if entry.template == template and namespace in (None, entry.namespace)
    ]
    if not entries:
        declared = sorted({f"{e.template} ({e.namespace})" for e in declarations.entries})
        raise SelectionError(
            f"{declarations.file} declares no sandbox for template {template!r}"
            + (f" in namespace {namespace!r}" if namespace else "")
            + f"; declared: {', '.join(declared) or 'none'}"
        )
    matching = [entry for entry in entries if entry.profile == profile]
    if not matching:
        profiles = sorted(repr(e.profile) if e.profile else "no profile" for e in entries)
        raise SelectionError(
            f"template {template!r} has no declaration with profile {profile!r}; "
            f"its declarations have: {', '.join(profiles)} (use --profile)"
        )
    if len(matching) > 1:
        namespaces = ", ".join(entry.namespace for entry in matching)
        raise SelectionError(
            f"template {template!r} is declared in several namespaces ({namespaces}); "
            "pick one with --namespace"
        )
    return _declared(matching[0])


def _declared(entry: SandboxDeclaration) -> Chosen:
    return Chosen(
        template=entry.template,
        namespace=entry.namespace,
        profile=entry.profile,
        egress=entry.egress,
        translation=entry.translation,
        pod_labels=dict(entry.pod_labels),
        paths=entry.paths,
        declared_at=f"{entry.file}:{entry.line} ({entry.field_prefix})",
    )


def _default(
    inventory: Inventory, template: str, profile: str | None, namespace: str | None
) -> Chosen:
    """No declaration file: the template is checked as deny-all under core
    (SEMANTICS §17.5), in the namespace it is found in."""
    if profile is not None:
        raise SelectionError("there is no declaration file, so no profile is declared")
    found = [
        obj
        for obj in inventory.all_of_kind(SANDBOX_TEMPLATE.name)
        if obj.name == template and obj.namespace is not None and namespace in (None, obj.namespace)
    ]
    if not found:
        raise SelectionError(
            f"there is no declaration file and no SandboxTemplate {template!r} in the manifests"
        )
    namespaces = sorted({obj.namespace for obj in found if obj.namespace is not None})
    if len(namespaces) > 1:
        raise SelectionError(
            f"SandboxTemplate {template!r} is in several namespaces ({', '.join(namespaces)}); "
            "pick one with --namespace"
        )
    where = location_of(found[-1])
    return Chosen(
        template=template,
        namespace=namespaces[0],
        profile=None,
        egress=DEFAULT_EGRESS,
        translation=translate(DEFAULT_EGRESS, template, namespaces[0]),
        pod_labels={},
        paths=None,
        declared_at=f"{where.file}:{where.line} (no declaration file: default deny-all)",
        defaulted=True,
    )
