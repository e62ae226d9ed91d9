"""The declaration layer: ``.egress-lint.yaml``, what each sandbox may reach.

The file uses the sandbox host's own ``config.egress`` vocabulary (DESIGN
§2.2, SEMANTICS.md §1). It is read with ruamel.yaml (``reading``,
``ruamel_loader``). Loading it checks the structure, merges ``defaults``,
reads ``allowedHostsFile`` and runs the host's own validation through the
translation; any problem is a :class:`DeclarationError` naming the field
path and file:line (a usage error, exit 2). Each entry becomes one
:class:`DeclaredSandbox`, made once with its translation; ``declared``
turns the file, or its absence, into the run's declared sandboxes. The
format is documented in ``docs/declarations.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lint.declarations.discovery import (
    DECLARATION_FILE_NAME,
    declaration_file_for,
    find_declaration_file,
)
from lint.declarations.entries import (
    AcquisitionPath,
    DeclarationNote,
    Declarations,
    DeclaredSandbox,
    IngressCheck,
)
from lint.declarations.errors import DeclarationError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DECLARATION_FILE_NAME",
    "AcquisitionPath",
    "DeclarationError",
    "DeclarationNote",
    "Declarations",
    "DeclaredSandbox",
    "IngressCheck",
    "declaration_file_for",
    "find_declaration_file",
    "load_declarations",
]


def load_declarations(
    path: Path | None, *, namespace_override: str | None, environment: str | None = None
) -> Declarations:
    """Load the declaration file at ``path``, with the entries of the
    ``renders:`` environment ``environment`` (None: every entry). None
    means there is no file:
    the result has ``defaults_applied`` set and no entries (SEMANTICS
    §17.5). The pydantic models and ruamel.yaml are
    imported only when a file is there to read: a run without one, and
    every ``--version``, should not pay for them at start-up."""
    if path is None:
        return Declarations(None, None, True, (), namespace_override)
    from lint.declarations.loading import load_declarations as load_file  # noqa: PLC0415

    return load_file(path, namespace_override=namespace_override, environment=environment)
