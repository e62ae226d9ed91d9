"""Finding the declaration file, and naming files the way reports do."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

DECLARATION_FILE_NAME = ".egress-lint.yaml"


def find_declaration_file(start: Path) -> Path | None:
    """The nearest ``.egress-lint.yaml`` in ``start`` or one of its parents
    (DESIGN §2.2). ``start`` may be a file, in which case the search begins in
    its directory. Returns None when no directory up to the root has one."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / DECLARATION_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def display_name(path: Path) -> str:
    """``path`` relative to the current directory with ``/`` separators, as
    every report names files (REPORT.md). A path on another drive stays
    absolute."""
    try:
        relative = os.path.relpath(os.path.abspath(path))
    except ValueError:
        relative = os.path.abspath(path)
    return relative.replace(os.sep, "/")


def declaration_file_for(paths: Sequence[str], config: Path | None) -> Path | None:
    """The file given with ``--config``, else the nearest one upward from the
    first checked path (so ``egress-lint check fixtures/demo`` finds the
    demo's file), else upward from the current directory."""
    if config is not None:
        return config
    starts = []
    first = next((p for p in paths if p != "-"), None)
    if first is not None:
        start = Path(first).resolve()
        starts.append(start if start.is_dir() else start.parent)
    starts.append(Path.cwd())
    return next(filter(None, map(find_declaration_file, starts)), None)
