"""The repository root a render is confined to, and the check that a path
stays inside it.

The root is the git work tree holding the declaration file: the nearest
directory upward that has a ``.git`` entry (a directory, or the file a
linked work tree or a submodule has). git itself is never run: the
repository under check may configure it to run programs. Without a work
tree the root is the declaration file's directory (the current directory
when there is no declaration file); ``--root DIR`` names it outright.
"""

from __future__ import annotations

import os
from pathlib import Path

from lint.loading.files import display_name


class RenderRefused(Exception):
    """A render refused before its tool runs: a path outside the root, or a
    remote reference without ``--allow-remote-render``. A usage error for
    ``--helm`` and ``--kustomize``; a failed environment under ``renders:``."""


def repository_root(declaration: Path | None, given: Path | None = None) -> Path:
    """The resolved root: ``given`` (``--root``), else the work tree of the
    declaration file (of the current directory when there is none), else
    that file's directory (the current directory)."""
    if given is not None:
        return Path(os.path.realpath(given))
    start = Path(os.path.realpath(declaration.parent if declaration is not None else Path.cwd()))
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return start


def inside(path: str | Path, root: Path) -> bool:
    """Whether ``path``, every symbolic link on the way resolved, is ``root``
    or below it."""
    resolved = os.path.realpath(path)
    text = str(root)
    return resolved == text or resolved.startswith(text.rstrip(os.sep) + os.sep)


def confine(path: str | Path, root: Path, what: str) -> None:
    """Raise RenderRefused unless ``path`` resolves inside ``root``;
    ``what`` says what the path is for (``the values file``)."""
    if not inside(path, root):
        shown = path if isinstance(path, str) else display_name(path)
        raise RenderRefused(
            f"{what} {shown} resolves to {os.path.realpath(path)}, outside the repository "
            f"root {root}: a render reads nothing outside it (name another root with --root)"
        )
