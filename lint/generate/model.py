"""The values that cross the generate layer: where an object's intent was
declared, and one object to write. Generation works from the run's
declared sandboxes (``lint.declarations.DeclaredSandbox``)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox


class Source(msgspec.Struct, frozen=True):
    """Where the intent behind an object was declared. ``where`` is
    ``file:line (sandboxes[i])``, or, when no declaration file exists and
    the default applies (``defaulted``), the SandboxTemplate's ``file:line``."""

    where: str
    template: str
    profile: str | None
    defaulted: bool = False
    kind: str = "SandboxTemplate"
    """The declared target's kind: ``template`` names a workload otherwise."""


def source_of(sandbox: DeclaredSandbox) -> Source:
    """The provenance a generated object's header names for ``sandbox``."""
    return Source(
        sandbox.where, sandbox.template, sandbox.profile, sandbox.defaulted, sandbox.target_kind
    )


class GeneratedObject(msgspec.Struct, frozen=True):
    """One manifest to write. ``namespace`` is None for cluster-scoped kinds;
    ``facts`` are what the template's header explains."""

    kind: str
    name: str
    namespace: str | None
    manifest: dict[str, JSON]
    template: str
    facts: Mapping[str, JSON]
    sources: tuple[Source, ...]


class GenerateError(Exception):
    """Declarations that cannot be generated together (two different objects
    under one kind and name). A usage error: exit 2."""
