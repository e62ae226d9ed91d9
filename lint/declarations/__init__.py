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
from lint.declarations.loading import load_declarations

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
