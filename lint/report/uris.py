"""SARIF artifact locations (SARIF 2.1.0 §3.4, §3.10; INTEGRATIONS.md §1.1).

A report names files as paths relative to the current directory with ``/``
separators. SARIF wants URI references (RFC 3986), so every byte outside
the unreserved set (letters, digits, ``-``, ``.``, ``_``, ``~``) and ``/``
is percent-encoded as UTF-8: a space is ``%20``, ``#`` would otherwise
start a fragment and ``%`` an escape, and a ``:`` in the first segment
would read as a scheme.

A path inside the current directory stays a relative reference: code
scanning matches it against the repository's files. A path that leaves it
(``../``) or is absolute becomes an absolute ``file://`` URI, which SARIF
allows in place of a ``uriBaseId`` and which never climbs with ``../``.
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Final
from urllib.parse import quote

_DRIVE: Final = re.compile(r"^[A-Za-z]:/")


def percent_encoded(path: str, safe: str = "/") -> str:
    """``path`` with every character but the unreserved ones and ``safe``
    percent-encoded (RFC 3986 §2.1, §2.3); non-ASCII as its UTF-8 bytes."""
    return quote(path, safe=safe, encoding="utf-8", errors="backslashreplace")


def artifact_uri(path: str, cwd: str | None = None) -> str:
    """The ``artifactLocation.uri`` of a report path: a relative reference
    when the path lies inside ``cwd`` (the current directory by default),
    otherwise an absolute ``file://`` URI."""
    posix = path.replace("\\", "/")
    if not (_DRIVE.match(posix) or posixpath.isabs(posix)):
        normal = posixpath.normpath(posix)
        if normal != ".." and not normal.startswith("../"):
            return percent_encoded(posix)
        base = (cwd or os.getcwd()).replace("\\", "/")
        posix = posixpath.join(base, normal)
    absolute = posixpath.normpath(posix)
    # file:///C:/x for a drive path, file:///x for a POSIX one (RFC 8089 §2).
    # A ``:`` after the scheme is a path character (a drive's, say).
    return "file:///" + percent_encoded(absolute.lstrip("/"), safe="/:")
