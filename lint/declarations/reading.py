"""Reading a YAML (or JSON) file into plain data plus a line for every node.

libyaml composes the file into nodes that carry their line
(``yaml_compose``), ``yaml_construct`` builds them into values with the
file's own scalar rules (``yaml_scalars``: YAML 1.2, core schema), and the
tree is then copied here into plain JSON-shaped values (dict, list, str,
int, float, bool, None), with the positions kept apart in a mapping from
key tuple to 1-based line. ``docs/dependencies.md`` has the measurements
behind this choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from lint.decision.values import JSON
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path
from lint.declarations.yaml_compose import UnreadableYaml, compose
from lint.declarations.yaml_construct import BuiltMapping, BuiltSequence, build
from lint.declarations.yaml_scalars import BINARY_TAG, TIMESTAMP_TAG, Foreign


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
    try:
        return _parse(text, display)
    except UnreadableYaml as error:
        raise _unreadable(error, text, display) from error
    except RecursionError:
        too_deep = UnreadableYaml(1, "YAML error: the document is nested too deeply")
        raise _unreadable(too_deep, text, display) from None


def _parse(text: str, display: str) -> SourceTree:
    composed = compose(text)
    root = composed.root
    built = None if root is None else build(root, composed.version, shared="&" in text)
    lines: dict[Path, int] = {(): _root_line(root)}
    value = _Converter(display, text, lines).plain(built, ())
    return SourceTree(display, value, lines, text)


def _unreadable(error: UnreadableYaml, text: str, display: str) -> DeclarationError:
    return DeclarationError(
        path="",
        file=display,
        line=error.line,
        message=error.message,
        excerpt=source_line(text, error.line) if error.quoted else None,
    )


def _root_line(root: Any) -> int:
    """The root collection's line; a scalar or empty document is at line 1."""
    if root is None or root.id == "scalar":
        return 1
    return int(root.start_mark.line) + 1


class _Converter:
    """Copies a built tree into plain values, recording lines."""

    def __init__(self, display: str, text: str, lines: dict[Path, int]) -> None:
        self._display = display
        self._text = text
        self._lines = lines
        self._open: set[int] = set()

    def plain(self, node: Any, path: Path) -> JSON:
        kind = type(node)
        if kind is BuiltMapping or kind is BuiltSequence:
            if id(node) in self._open:
                self._fail(path, "refers to itself through a YAML alias")
            self._open.add(id(node))
            try:
                if kind is BuiltMapping:
                    return self._mapping(node, path)
                return self._sequence(node, path)
            finally:
                self._open.discard(id(node))
        if node is None or kind is str or kind is int or kind is float or kind is bool:
            return node
        return self._fail(path, _unsupported(node))

    def _mapping(self, node: BuiltMapping, path: Path) -> dict[str, JSON]:
        own_line = self._lines[path]
        key_lines = node.key_lines
        result: dict[str, JSON] = {}
        for key, value in node.items():
            # Keys merged in with `<<` have no position of their own.
            key_line = key_lines.get(key, own_line)
            if type(key) is not str:
                self._fail(path, _key_problem(key), key_line)
            child = (*path, key)
            self._lines[child] = key_line
            result[key] = self.plain(value, child)
        return result

    def _sequence(self, node: BuiltSequence, path: Path) -> list[JSON]:
        item_lines = node.item_lines
        result: list[JSON] = []
        for index, value in enumerate(node):
            child = (*path, index)
            self._lines[child] = item_lines[index]
            result.append(self.plain(value, child))
        return result

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


def _key_problem(key: Any) -> str:
    if isinstance(key, Foreign) and key.tag not in (TIMESTAMP_TAG, BINARY_TAG):
        shown = f" {key.text!r}" if key.text else ""
        return f"the key{shown} has the YAML tag {key.tag}, which this file does not support"
    return f"the key {key!r} is not a string; quote it"


def _unsupported(node: Any) -> str:
    if isinstance(node, Foreign):
        if node.tag == TIMESTAMP_TAG:
            return "is a YAML date or timestamp, which JSON has no type for; quote it"
        if node.tag == BINARY_TAG:
            return "is YAML binary data, which this file does not support"
        return f"has the YAML tag {node.tag}, which this file does not support"
    return f"is a YAML value of type {type(node).__name__}, which JSON has no type for"
