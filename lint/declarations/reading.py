"""Reading a YAML (or JSON) file into plain data plus a line for every node.

The declaration file is small, so it is loaded with ruamel.yaml's round-trip
loader (configured in ``ruamel_loader``), which records where every key and
list item starts. The tree is then copied into plain JSON-shaped values
(dict, list, str, int, float, bool, None) for the rest of the tool, and the
positions are kept apart in a mapping from key tuple to 1-based line. A
plain file skips both steps: ``plain_nodes`` builds the same values and
lines straight from the nodes the C parser composed.
``docs/dependencies.md`` has the cost of this choice.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path as FilePath
from typing import Any, Final, NoReturn

import msgspec
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarbool import ScalarBoolean

from lint.decision.values import JSON
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path
from lint.declarations.plain_nodes import PlainTree, plain_tree
from lint.declarations.ruamel_loader import SELF_REFERENCE, Unsupported, load
from lint.yaml.tags import STR_TAG, TIMESTAMP_TAG

# The line breaks ruamel.yaml counts between tokens.
_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")

# Slips in a few of ruamel.yaml's syntax-error texts, worded as this file's
# errors were before ruamel read it again.
_REWORDED: Final = (
    (re.compile(r"\bhexdecimal\b"), "hexadecimal"),
    (re.compile(r"expected '>' but found"), "expected '>', but found"),
    (re.compile(r"but found \(('[^']*'),\)"), r"but found \1"),  # a token name as a tuple
)


class SourceTree(msgspec.Struct, frozen=True):
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
    rows = _LINE_BREAK.split(text)
    if rows[-1] == "":
        rows.pop()  # a final line break ends the last line
    if 1 <= line <= len(rows):
        return rows[line - 1]
    return None


class Citation(msgspec.Struct, frozen=True):
    """Where a file was named: the place to blame when it cannot be read."""

    file: str
    line: int = 1
    path: str = ""


def read_text(path: FilePath, name: str, cited: Citation, *, max_size: int | None = None) -> str:
    """Read a UTF-8 file (a byte-order mark is allowed) that reports call
    ``name``, at most ``max_size`` bytes of it when given. A file that cannot
    be read, or is longer, is blamed on ``cited``; bytes that are not UTF-8
    are blamed on the file itself, at their line."""
    try:
        with path.open("rb") as stream:
            data = stream.read() if max_size is None else stream.read(max_size + 1)
    except OSError as error:
        reason = error.strerror or str(error)
        message = f"cannot read {name}: {reason}"
        raise DeclarationError(
            path=cited.path, file=cited.file, line=cited.line, message=message
        ) from error
    if max_size is not None and len(data) > max_size:
        message = f"cannot read {name}: it is over the limit of {max_size:,} bytes"
        raise DeclarationError(path=cited.path, file=cited.file, line=cited.line, message=message)
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
        node = load(text, plain=plain_tree)
    except MarkedYAMLError as error:
        raise _syntax_error(error, text, display) from error
    except YAMLError as error:
        raise _yaml_error(str(error), display) from error
    except RecursionError:
        raise _yaml_error("the document is nested too deeply", display) from None
    if isinstance(node, PlainTree):  # a plain file, read straight from its nodes
        return SourceTree(display, node.value, node.lines, text)
    lines: dict[Path, int] = {(): _start_line(node)}
    converter = _Converter(display, text, lines)
    return SourceTree(display, converter.plain(node, ()), lines, text)


def _yaml_error(reason: str, display: str) -> DeclarationError:
    return DeclarationError(path="", file=display, line=1, message=f"YAML error: {reason}")


def _syntax_error(error: MarkedYAMLError, text: str, display: str) -> DeclarationError:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark is not None else 1
    pieces = [piece for piece in (error.context, error.problem) if piece]
    reason = ", ".join(str(piece).strip() for piece in pieces) or "invalid YAML"
    for slip, wording in _REWORDED:
        reason = slip.sub(wording, reason)
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
                self._fail(path, _SELF_REFERENCE)
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
        positions = node.lc.data or {}
        result: dict[str, JSON] = {}
        for key, value in node.items():
            position = positions.get(key)
            # Keys merged in with `<<` have no position of their own.
            key_line = int(position[0]) + 1 if position else own_line
            name = _string_key(key)
            if name is None:
                self._fail(path, _key_problem(key), key_line)
            child = (*path, name)
            self._lines[child] = key_line
            result[name] = self.plain(value, child)
        return result

    def _sequence(self, node: CommentedSeq, path: Path) -> list[JSON]:
        own_line = self._lines[path]
        positions = node.lc.data or {}
        result: list[JSON] = []
        for index, value in enumerate(node):
            child = (*path, index)
            position = positions.get(index)
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
        if isinstance(node, TaggedScalar) and str(node.tag) == STR_TAG:
            return str(node.value)
        return self._fail(path, _unsupported(node))

    def _fail(self, path: Path, message: str, line: int | None = None) -> NoReturn:
        if line is None:
            line = self._lines.get(path, 1)
        raise DeclarationError(
            path=format_path(path),
            file=self._display,
            line=line,
            message=message,
            excerpt=source_line(self._text, line),
        )


_SELF_REFERENCE: Final = "refers to itself through a YAML alias"


def _string_key(key: Any) -> str | None:
    """The key as a string, when it is one (``!!str 5`` is)."""
    if isinstance(key, str):
        return str(key)
    if isinstance(key, TaggedScalar) and str(key.tag) == STR_TAG:
        return str(key.value)
    return None


def _key_problem(key: Any) -> str:
    if isinstance(key, TaggedScalar):
        shown = str(key.value)
        return f"the key {shown!r} has the YAML tag {key.tag}, which this file does not support"
    if isinstance(key, Unsupported) and key.tag != TIMESTAMP_TAG:
        return f"the key has the YAML tag {key.tag}, which this file does not support"
    if isinstance(key, ScalarBoolean):
        key = bool(key)
    return f"the key {key!r} is not a string; quote it"


def _unsupported(node: Any) -> str:
    if node is SELF_REFERENCE:
        return _SELF_REFERENCE
    if isinstance(node, datetime.date) or (
        isinstance(node, Unsupported) and node.tag == TIMESTAMP_TAG
    ):
        return "is a YAML date or timestamp, which JSON has no type for; quote it"
    if isinstance(node, TaggedScalar | Unsupported):
        return f"has the YAML tag {node.tag}, which this file does not support"
    if isinstance(node, bytes):
        return "is YAML binary data, which this file does not support"
    return f"is a YAML value of type {type(node).__name__}, which JSON has no type for"
