"""SARIF artifact locations (SARIF 2.1.0 §3.4, §3.10, §3.14.14; INTEGRATIONS.md §1.1).

A report names files as paths relative to the current directory with ``/``
separators. SARIF wants URI references (RFC 3986), so every byte outside
the unreserved set (letters, digits, ``-``, ``.``, ``_``, ``~``) and ``/``
is percent-encoded as UTF-8: a space is ``%20``, ``#`` would otherwise
start a fragment and ``%`` an escape, and a ``:`` in the first segment
would read as a scheme.

Every location is a relative reference with a ``uriBaseId``, never an
absolute ``file://`` URI, so no path of the machine that ran the check is
written and the log's bytes do not depend on where the checkout lives. A
path inside the current directory (an absolute one included) is relative
to ``%SRCROOT%``, the name code scanning resolves against the checkout; the
log leaves its value to the reader. A path outside it belongs to an
*outside root*: the directory beside the current directory, or beside one
of its ancestors, that holds it (``../other/`` for ``../other/a/b.yaml``).
Each distinct root is one more base, ``INPUT1``, ``INPUT2``… in the sorted
order of the roots, defined in ``originalUriBaseIds`` as a reference
relative to ``%SRCROOT%``.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import quote

import msgspec

SRCROOT: Final = "%SRCROOT%"
_SRCROOT_DESCRIPTION: Final = (
    "The working directory egress-lint ran in (the repository's root in code scanning)."
)


def percent_encoded(path: str, safe: str = "/") -> str:
    """``path`` with every character but the unreserved ones and ``safe``
    percent-encoded (RFC 3986 §2.1, §2.3); non-ASCII as its UTF-8 bytes."""
    return quote(path, safe=safe, encoding="utf-8", errors="backslashreplace")


def _placed(path: str, cwd: str) -> tuple[str | None, str]:
    """``path`` as (outside root, path below it): the root is None for a
    path inside ``cwd``, whose path is then relative to ``cwd``."""
    posix = path.replace("\\", "/")
    if posixpath.isabs(posix):
        posix = posixpath.relpath(posixpath.normpath(posix), cwd)
    normal = posixpath.normpath(posix)
    if normal != ".." and not normal.startswith("../"):
        # As written: a report path inside the directory keeps its bytes.
        return None, posix
    parts = normal.split("/")
    climbs = parts.count("..")
    rest = parts[climbs:]
    # The root is the directory the climb lands beside; a file right in an
    # ancestor (``../x.yaml``) has that ancestor as its root.
    root = parts[: climbs + (1 if len(rest) > 1 else 0)]
    return "/".join(root) + "/", "/".join(parts[len(root) :]) or "."


class UriBases(msgspec.Struct, frozen=True):
    """The URI bases of one SARIF run: the outside roots of its paths, in
    sorted order, and the directory the paths are relative to."""

    cwd: str
    roots: tuple[str, ...]

    def location(self, path: str) -> dict[str, str]:
        """The ``artifactLocation`` of a report path: its ``uri`` relative
        to its base, and the base's ``uriBaseId``."""
        root, below = _placed(path, self.cwd)
        base = SRCROOT if root is None else f"INPUT{self.roots.index(root) + 1}"
        return {"uri": percent_encoded(below), "uriBaseId": base}

    def definitions(self) -> dict[str, dict[str, Any]]:
        """``run.originalUriBaseIds``: ``%SRCROOT%`` left to the reader, and
        each outside root relative to it (a base's URI ends with ``/``)."""
        bases: dict[str, dict[str, Any]] = {
            SRCROOT: {"description": {"text": _SRCROOT_DESCRIPTION}}
        }
        for index, root in enumerate(self.roots, start=1):
            bases[f"INPUT{index}"] = {"uri": percent_encoded(root), "uriBaseId": SRCROOT}
        return bases


def uri_bases(paths: Iterable[str], cwd: str | None = None) -> UriBases:
    """The bases for report ``paths`` relative to ``cwd`` (the current
    directory by default)."""
    base = (cwd or os.getcwd()).replace("\\", "/")
    roots = {_placed(path, base)[0] for path in paths}
    return UriBases(base, tuple(sorted(root for root in roots if root is not None)))
