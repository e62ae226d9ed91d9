"""Field paths: the ``sandboxes[0].egress.policy.exceptCidrs`` notation.

A path is a tuple of keys (mapping keys are strings, list indices ints).
Text form: identifiers are joined with dots, indices are ``[i]`` and any key
that is not a plain identifier is a JSON string in brackets, as in
``ciliumNarrowing.hostPorts["github.com"]`` (the form the translation uses
for refusal fields, SEMANTICS.md §2.3 N3).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TypeAlias

Key: TypeAlias = str | int
Path: TypeAlias = tuple[Key, ...]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_INDEX = re.compile(r"\[([0-9]+)\]", re.ASCII)


def format_path(parts: Path) -> str:
    """Render a key tuple as a field path."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text


def join_path(prefix: str, suffix: str) -> str:
    """Append a field path in text form to another one."""
    if not prefix:
        return suffix
    if not suffix or suffix.startswith("["):
        return prefix + suffix
    return f"{prefix}.{suffix}"


def parse_path(text: str) -> Path:
    """Read a field path back into keys.

    Parsing stops at the first piece it cannot read, so a malformed tail
    still yields its readable prefix (used only to find a line).
    """
    parts: list[Key] = []
    position = 0
    while position < len(text):
        if parts and text.startswith(".", position):
            position += 1
        piece = _next_key(text, position)
        if piece is None:
            break
        key, position = piece
        parts.append(key)
    return tuple(parts)


def _next_key(text: str, position: int) -> tuple[Key, int] | None:
    """The key written at ``position`` and where it ends, if readable."""
    if identifier := _IDENTIFIER.match(text, position):
        return identifier.group(), identifier.end()
    if index := _INDEX.match(text, position):
        return int(index.group(1)), index.end()
    if not text.startswith('["', position):
        return None
    try:
        key, end = json.JSONDecoder().raw_decode(text, position + 1)
    except json.JSONDecodeError:
        return None
    if not isinstance(key, str) or not text.startswith("]", end):
        return None
    return key, end + 1


def line_of(lines: Mapping[Path, int], path: Path) -> int:
    """The line of the deepest node along ``path`` that exists."""
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return 1
