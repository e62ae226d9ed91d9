"""``policy.allowedHostsFile``: an allowlist kept in its own file.

Offline, the linter runs no resolver code, so a ``resolver`` (or
``static``) policy may name a file holding the host list (SEMANTICS.md
§17.6, DESIGN §2.2). The path is relative to the declaration file.

Two formats, chosen by extension:

- ``.yaml``, ``.yml``, ``.json``: one YAML or JSON list. Its items are
  passed on as written, so a non-string item is refused by the host grammar
  (SEMANTICS.md §2.7 H1) like any other.
- anything else: plain text, one host per line. ``#`` starts a comment,
  surrounding whitespace is removed and blank lines are skipped.

The file is confined: it must resolve, symbolic links included, inside the
declaration file's directory tree, be a regular file, and be no larger than
the limit on one manifest file. So a declaration cannot make the linter
read ``/proc/self/environ``, ``/etc/passwd`` or ``/dev/zero``, and an error
about a file it refused quotes nothing from it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path as FilePath
from typing import Final

import msgspec

from lint.decision.values import JSON
from lint.declarations.discovery import display_name
from lint.declarations.errors import DeclarationError
from lint.declarations.reading import Citation, parse_yaml, read_text
from lint.loading.limits import DEFAULT_LIMITS, describe_size

_STRUCTURED_SUFFIXES = (".yaml", ".yml", ".json")
MAX_HOSTS_FILE_SIZE: Final = DEFAULT_LIMITS.max_file_size
"""The hosts file is read up to the default limit on one manifest file."""


class HostList(msgspec.Struct, frozen=True):
    """The hosts read from a file, with the line each one is on."""

    file: str
    hosts: tuple[JSON, ...]
    lines: tuple[int, ...]


def read_hosts_file(name: str, base: FilePath, cited: Citation) -> HostList:
    """Read the allowlist file ``name`` (relative to directory ``base``).
    Errors are declaration errors: a missing file is blamed on ``cited`` (the
    ``allowedHostsFile`` key), a malformed one on its own line."""
    path = base / name
    shown = display_name(path)
    refusal = _confinement(path, base)
    if refusal is not None:
        raise DeclarationError(
            path=cited.path,
            file=cited.file,
            line=cited.line,
            message=f"cannot read {shown}: {refusal}",
        )
    text = read_text(path, shown, cited, max_size=MAX_HOSTS_FILE_SIZE)
    if path.suffix.lower() in _STRUCTURED_SUFFIXES:
        return _structured(text, shown, cited)
    return _plain_lines(text, shown)


def _confinement(path: FilePath, base: FilePath) -> str | None:
    """Why the hosts file may not be read, if it may not."""
    root = os.path.realpath(base)
    target = os.path.realpath(path)
    if target != root and not target.startswith(root.rstrip(os.sep) + os.sep):
        return (
            "allowedHostsFile must name a file inside the declaration file's "
            "directory (symbolic links included)"
        )
    try:
        status = os.stat(target)
    except OSError as error:
        return error.strerror or type(error).__name__
    if not stat.S_ISREG(status.st_mode):
        return "it is not a regular file"
    if status.st_size > MAX_HOSTS_FILE_SIZE:
        return f"it is over the {describe_size(MAX_HOSTS_FILE_SIZE)} limit on one file"
    return None


def _structured(text: str, shown: str, cited: Citation) -> HostList:
    try:
        tree = parse_yaml(text, shown)
    except DeclarationError as error:
        raise error.at_path(cited.path) from error
    if not isinstance(tree.value, list):
        raise DeclarationError(
            path=cited.path,
            file=shown,
            line=tree.lines[()],
            message="the hosts file must hold one YAML or JSON list of hosts",
            excerpt=tree.excerpt(tree.lines[()]),
        )
    lines = tuple(tree.lines[(index,)] for index in range(len(tree.value)))
    return HostList(shown, tuple(tree.value), lines)


def _plain_lines(text: str, shown: str) -> HostList:
    hosts: list[str] = []
    lines: list[int] = []
    for number, row in enumerate(text.splitlines(), start=1):
        host = row.split("#", 1)[0].strip()
        if host:
            hosts.append(host)
            lines.append(number)
    return HostList(shown, tuple(hosts), tuple(lines))
