"""Which declared sandbox ``explain --template T [--profile P] [--namespace NS]``
is about: one entry of the declaration file, or, with no file, the default
``deny-all`` sandbox of a SandboxTemplate found in the manifests."""

from __future__ import annotations

from collections.abc import Sequence

from lint.declarations import Declarations, DeclaredSandbox


class SelectionError(Exception):
    """No declared sandbox, or more than one, fits the options: a usage error."""


def choose(
    declarations: Declarations,
    sandboxes: Sequence[DeclaredSandbox],
    template: str | None,
    profile: str | None,
    namespace: str | None,
    *,
    workload: tuple[str, str] | None = None,
) -> DeclaredSandbox:
    """The one declared sandbox the options name (``sandboxes`` is the run's
    list, ``lint.intake``): by ``template`` (a SandboxTemplate or a
    workload, by name), or by ``workload`` (kind, name). Raises
    SelectionError."""
    if workload is not None:
        return _workload(sandboxes, workload, profile, namespace)
    if template is None:
        raise SelectionError("give --template NAME or --workload KIND/NAME")
    fitting = [
        sandbox
        for sandbox in sandboxes
        if sandbox.template == template and namespace in (None, sandbox.namespace)
    ]
    if declarations.defaults_applied:
        return _default(fitting, template, profile)
    if not fitting:
        declared = sorted({f"{s.template} ({s.namespace})" for s in sandboxes})
        raise SelectionError(
            f"{declarations.file} declares no sandbox for template {template!r}"
            + (f" in namespace {namespace!r}" if namespace else "")
            + f"; declared: {', '.join(declared) or 'none'}"
        )
    matching = [sandbox for sandbox in fitting if sandbox.profile == profile]
    if not matching:
        profiles = sorted(repr(s.profile) if s.profile else "no profile" for s in fitting)
        raise SelectionError(
            f"template {template!r} has no declaration with profile {profile!r}; "
            f"its declarations have: {', '.join(profiles)} (use --profile)"
        )
    if len(matching) > 1:
        namespaces = ", ".join(sandbox.namespace for sandbox in matching)
        raise SelectionError(
            f"template {template!r} is declared in several namespaces ({namespaces}); "
            "pick one with --namespace"
        )
    return matching[0]


def _workload(
    sandboxes: Sequence[DeclaredSandbox],
    workload: tuple[str, str],
    profile: str | None,
    namespace: str | None,
) -> DeclaredSandbox:
    """The declared workload entry (``workload:``) of that kind and name; a
    kind is matched regardless of case (``deployment/api``)."""
    kind, name = workload
    fitting = [
        sandbox
        for sandbox in sandboxes
        if sandbox.workload is not None
        and sandbox.workload.kind.lower() == kind.lower()
        and sandbox.template == name
        and namespace in (None, sandbox.namespace)
        and profile in (None, sandbox.profile)
    ]
    if not fitting:
        declared = sorted(
            f"{s.workload.kind}/{s.template} ({s.namespace})"
            for s in sandboxes
            if s.workload is not None
        )
        raise SelectionError(
            f"no workload {kind}/{name} is declared"
            + (f" in namespace {namespace!r}" if namespace else "")
            + f"; declared workloads: {', '.join(declared) or 'none'}"
        )
    if len(fitting) > 1:
        namespaces = ", ".join(sorted(sandbox.namespace for sandbox in fitting))
        raise SelectionError(
            f"workload {kind}/{name} is declared in several namespaces ({namespaces}); "
            "pick one with --namespace"
        )
    return fitting[0]


def _default(
    fitting: Sequence[DeclaredSandbox], template: str, profile: str | None
) -> DeclaredSandbox:
    """No declaration file: the template's default sandbox, in the one
    namespace it is found in."""
    if profile is not None:
        raise SelectionError("there is no declaration file, so no profile is declared")
    if not fitting:
        raise SelectionError(
            f"there is no declaration file and no SandboxTemplate {template!r} in the manifests"
        )
    if len(fitting) > 1:
        namespaces = ", ".join(sorted(sandbox.namespace for sandbox in fitting))
        raise SelectionError(
            f"SandboxTemplate {template!r} is in several namespaces ({namespaces}); "
            "pick one with --namespace"
        )
    return fitting[0]


def declared_at(sandbox: DeclaredSandbox) -> str:
    """Where the sandbox was declared, as explain reports it."""
    if sandbox.defaulted:
        return f"{sandbox.where} (no declaration file: default deny-all)"
    return sandbox.where
