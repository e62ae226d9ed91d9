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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FilePath

from lint.decision.values import JSON
from lint.declarations.discovery import display_name
from lint.declarations.errors import DeclarationError
from lint.declarations.reading import Citation, parse_yaml, read_text

_STRUCTURED_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class HostList:
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
    text = read_text(path, shown, cited)
    if path.suffix.lower() in _STRUCTURED_SUFFIXES:
        return _structured(text, shown, cited)
    return _plain_lines(text, shown)


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
