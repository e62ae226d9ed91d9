"""The values that cross the generate layer: where intent was declared,
one declaration reduced to what generation needs, and one object to write."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lint.decision.model import Translation
from lint.decision.values import JSON


@dataclass(frozen=True, slots=True)
class Source:
    """Where the intent behind an object was declared. ``where`` is
    ``file:line (sandboxes[i])``, or, when no declaration file exists and
    the default applies (``defaulted``), the SandboxTemplate's ``file:line``."""

    where: str
    template: str
    profile: str | None
    defaulted: bool = False


@dataclass(frozen=True)
class Intent:
    """One declaration, reduced to what generation needs. ``agent_port`` is
    None when the entry's ingress is ``unverified``."""

    source: Source
    namespace: str
    egress: Mapping[str, JSON]
    translation: Translation
    agent_port: int | None


@dataclass(frozen=True)
class GeneratedObject:
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
