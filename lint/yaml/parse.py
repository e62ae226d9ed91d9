"""Parsing one YAML document with libyaml into a JSON-shaped value.

libyaml composes the node tree (``composer``), and ``construct.Builder``
turns it into dicts and lists with the Kubernetes scalar rules.
``docs/dependencies.md`` has the measurements behind this choice.
"""

from __future__ import annotations

import json
from typing import Any, Final

import msgspec
import yaml
from yaml.nodes import Node

from lint.yaml.bounds import DEFAULT_BOUNDS, MAX_DEPTH, DocumentBounds
from lint.yaml.composer import COMPOSER, READER_OFFSETS_IN_BYTES, compose_first, compose_single
from lint.yaml.construct import Builder, BuildError, check_expansion, too_deep

_LIBYAML_DEPTH: Final = "exceeded maximum nesting depth"


class ParseFailure(Exception):
    """Text that is not one readable document; ``line`` is 0-based in it."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class ParsedDocument(msgspec.Struct, frozen=True):
    """A document's value and node tree, with the keys it repeated.

    Lines are 0-based in the parsed text. ``root`` is None for an empty
    document.
    """

    value: Any
    root: Node | None
    line: int
    duplicates: tuple[tuple[int, str], ...]


def compose(text: str, composer: type = COMPOSER, max_depth: int = MAX_DEPTH) -> Node | None:
    """The node tree of the single document in ``text``, with line marks."""
    try:
        return compose_single(text, composer)
    except yaml.MarkedYAMLError as error:
        message = _describe(error)
        if _LIBYAML_DEPTH in message:  # libyaml's own bound, 1,000 levels
            message = too_deep(max_depth)
        raise ParseFailure(_mark_line(error), message) from None
    except RecursionError:  # the pure-Python composer recurses per level
        raise ParseFailure(0, too_deep(max_depth)) from None
    except yaml.reader.ReaderError as error:
        raise ParseFailure(_reader_line(text, error, composer), _describe(error)) from None
    except yaml.YAMLError as error:
        raise ParseFailure(0, _describe(error)) from None


def parse_yaml(
    text: str, composer: type = COMPOSER, limits: DocumentBounds = DEFAULT_BOUNDS
) -> ParsedDocument:
    """Parse the one document in ``text`` (which may be empty)."""
    return _built(text, compose(text, composer, limits.max_depth), limits)


def parse_first_yaml(text: str, limits: DocumentBounds = DEFAULT_BOUNDS) -> ParsedDocument | None:
    """The first document of ``text`` that ``parse_yaml`` refused, when the
    refusal lies past that document's end: what go-yaml, and so kubectl,
    reads from such text (``compose_first``). None when the first document
    is itself unreadable, or empty."""
    try:
        root = compose_first(text)
    except (yaml.YAMLError, RecursionError):
        return None
    if root is None:
        return None
    try:
        return _built(text, root, limits)
    except ParseFailure:
        return None


def _built(text: str, root: Node | None, limits: DocumentBounds) -> ParsedDocument:
    """The value of a composed document, with the Kubernetes scalar rules."""
    if root is None:
        return ParsedDocument(None, None, 0, ())
    shared = "&" in text
    builder = Builder(
        shared=shared, tagged_text=text if "!" in text else None, max_depth=limits.max_depth
    )
    try:
        if shared and "*" in text:
            check_expansion(root, limits.max_alias_expansion, limits.max_depth)
        value = builder.build(root)
    except BuildError as error:
        raise ParseFailure(error.node.start_mark.line, error.message) from None
    except RecursionError:
        raise ParseFailure(root.start_mark.line, too_deep(limits.max_depth)) from None
    duplicates = tuple((node.start_mark.line, key) for node, key in builder.duplicates)
    return ParsedDocument(value, root, root.start_mark.line, duplicates)


def parse_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The value of a JSON text, or None when it is not plain JSON.

    Non-standard constants (NaN, Infinity) and repeated keys are not plain
    JSON; such text goes to the YAML reader, which reports them as YAML does.
    So does JSON nested deeper than ``max_depth``, so that the problem names
    the line where the limit is passed.
    """
    try:
        value = json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return None
    if "\\u" in text and _has_lone_surrogate(value):
        return None  # libyaml refuses those escapes, and no encoder can write them
    if _deeper_than(value, max_depth):
        return None
    return value


def _deeper_than(value: Any, max_depth: int) -> bool:
    """Whether ``value`` nests more than ``max_depth`` collections; one
    level at a time, so that depth never costs recursion and each level's
    collections are gathered by a comprehension. ``value`` is what
    ``json.loads`` built: its collections are plain dicts and lists."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return True
        inner: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            inner += [child for child in children if type(child) is dict or type(child) is list]
        level = inner
    return False


def _has_lone_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("repeated key")
    return result


def _refuse(constant: str) -> Any:
    raise ValueError(constant)


def node_end_line(node: Node) -> int:
    """The 0-based line where the node's content ends. A block collection's
    end mark sits at the start of the next token, so a mark at column 0
    belongs to the line before."""
    mark = node.end_mark
    if mark.column == 0 and mark.line > node.start_mark.line:
        return int(mark.line) - 1
    return int(mark.line)


def _mark_line(error: yaml.MarkedYAMLError) -> int:
    mark = error.problem_mark or error.context_mark
    return 0 if mark is None else int(mark.line)


def _reader_line(text: str, error: yaml.reader.ReaderError, composer: type) -> int:
    if composer is COMPOSER and READER_OFFSETS_IN_BYTES:
        return text.encode("utf-8", "surrogatepass")[: error.position].count(b"\n")
    return text.count("\n", 0, error.position)


def _describe(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        parts = [error.context, error.problem]
        text = ": ".join(part for part in parts if part)
        if error.problem_mark is not None:
            text += f" (column {error.problem_mark.column + 1})"
        return text or "invalid YAML"
    if isinstance(error, yaml.reader.ReaderError):
        return f"unacceptable character {error.character!r}: {error.reason}"
    return str(error).splitlines()[0] if str(error) else "invalid YAML"
