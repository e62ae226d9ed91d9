"""Reading a YAML (or JSON) file into plain data plus a line for every node.

The declaration file is small, so it is loaded with ruamel.yaml's round-trip
loader, which records where every key and list item starts. The tree is
then copied into plain JSON-shaped values (dict, list, str, int, float, bool,
None) for the rest of the tool, and the positions are kept apart in a
mapping from key tuple to 1-based line.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarbool import ScalarBoolean

from lint.decision.values import JSON
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path

_STRING_TAG = "tag:yaml.org,2002:str"


@dataclass(frozen=True)
class SourceTree:
    """A loaded file: its plain value and the 1-based line of every node.

    ``lines[()]`` is the line of the root; ``lines[("a", 0)]`` the line of
    item 0 of key ``a`` (for a key, the line where the key is written).
    ``text`` keeps the source so errors can quote a line.
    """

    file: str
    value: JSON
    lines: dict[Path, int]
    text: str

    def excerpt(self, line: int) -> str | None:
        """The source text of a 1-based line, without its line break."""
        return source_line(self.text, line)


def source_line(text: str, line: int) -> str | None:
    """The 1-based ``line`` of ``text``, or None when it does not exist."""
    rows = text.splitlines()
    if 1 <= line <= len(rows):
        return rows[line - 1]
    return None


@dataclass(frozen=True)
class Citation:
    """Where a file was named: the place to blame when it cannot be read."""

    file: str
    line: int = 1
    path: str = ""


def read_text(path: FilePath, name: str, cited: Citation) -> str:
    """Read a UTF-8 file (a byte-order mark is allowed) that reports call
    ``name``. A file that cannot be read is blamed on ``cited``; bytes that
    are not UTF-8 are blamed on the file itself, at their line."""
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        message = f"cannot read {name}: {reason}"
        raise DeclarationError(
            path=cited.path, file=cited.file, line=cited.line, message=message
        ) from error
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad_line = data.count(b"\n", 0, error.start) + 1
        raise DeclarationError(
            path=cited.path, file=name, line=bad_line, message="the file is not valid UTF-8"
        ) from error


def parse_yaml(text: str, display: str) -> SourceTree:
    """Parse one YAML document. Syntax errors, duplicate keys, several
    documents, non-string keys and values JSON has no type for (dates,
    binary, custom tags) are declaration errors with their line."""
    loader = YAML(typ="rt")
    loader.allow_duplicate_keys = False
    try:
        node = loader.load(text)
    except MarkedYAMLError as error:
        raise _syntax_error(error, text, display) from error
    except YAMLError as error:
        raise DeclarationError(
            path="", file=display, line=1, message=f"YAML error: {error}"
        ) from error
    lines: dict[Path, int] = {(): _start_line(node)}
    converter = _Converter(display, text, lines)
    return SourceTree(display, converter.plain(node, ()), lines, text)


def _syntax_error(error: MarkedYAMLError, text: str, display: str) -> DeclarationError:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark is not None else 1
    pieces = [piece for piece in (error.context, error.problem) if piece]
    reason = ", ".join(str(piece).strip() for piece in pieces) or "invalid YAML"
    return DeclarationError(
        path="",
        file=display,
        line=line,
        message=f"YAML syntax error: {reason}",
        excerpt=source_line(text, line),
    )


def _start_line(node: Any) -> int:
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        return int(lc.line) + 1
    return 1


class _Converter:
    """Copies a round-trip tree into plain values, recording lines."""

    def __init__(self, display: str, text: str, lines: dict[Path, int]) -> None:
        self._display = display
        self._text = text
        self._lines = lines
        self._open: set[int] = set()

    def plain(self, node: Any, path: Path) -> JSON:
        if isinstance(node, CommentedMap | CommentedSeq):
            if id(node) in self._open:
                self._fail(path, "refers to itself through a YAML alias")
            self._open.add(id(node))
            try:
                if isinstance(node, CommentedMap):
                    return self._mapping(node, path)
                return self._sequence(node, path)
            finally:
                self._open.discard(id(node))
        return self._scalar(node, path)

    def _mapping(self, node: CommentedMap, path: Path) -> dict[str, JSON]:
        own_line = self._lines[path]
        result: dict[str, JSON] = {}
        for key, value in node.items():
            position = node.lc.data.get(key)
            # Keys merged in with `<<` have no position of their own.
            key_line = int(position[0]) + 1 if position else own_line
            if not isinstance(key, str):
                self._fail(path, f"the key {key!r} is not a string; quote it", key_line)
            child = (*path, str(key))
            self._lines[child] = key_line
            result[str(key)] = self.plain(value, child)
        return result

    def _sequence(self, node: CommentedSeq, path: Path) -> list[JSON]:
        own_line = self._lines[path]
        result: list[JSON] = []
        for index, value in enumerate(node):
            child = (*path, index)
            position = node.lc.data.get(index)
            self._lines[child] = int(position[0]) + 1 if position else own_line
            result.append(self.plain(value, child))
        return result

    def _scalar(self, node: Any, path: Path) -> JSON:
        if node is None or isinstance(node, bool):
            return node
        if isinstance(node, ScalarBoolean):
            return bool(node)
        if isinstance(node, int):
            return int(node)
        if isinstance(node, float):
            return float(node)
        if isinstance(node, str):
            return str(node)
        if isinstance(node, TaggedScalar) and str(node.tag) == _STRING_TAG:
            return str(node.value)
        return self._fail(path, _unsupported(node))

    def _fail(self, path: Path, message: str, line: int | None = None) -> Any:
        if line is None:
            line = self._lines.get(path, 1)
        raise DeclarationError(
            path=format_path(path),
            file=self._display,
            line=line,
            message=message,
            excerpt=source_line(self._text, line),
        )


def _unsupported(node: Any) -> str:
    if isinstance(node, datetime.date):
        return "is a YAML date or timestamp, which JSON has no type for; quote it"
    if isinstance(node, TaggedScalar):
        return f"has the YAML tag {node.tag}, which this file does not support"
    if isinstance(node, bytes):
        return "is YAML binary data, which this file does not support"
    return f"is a YAML value of type {type(node).__name__}, which JSON has no type for"
