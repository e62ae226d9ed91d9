"""From a composed YAML node tree to a JSON-shaped value.

This replaces PyYAML's constructor: it is faster, because it builds plain
dicts and lists in one recursive pass, and it is narrower, because it only
builds what JSON can hold. Tags are read as go-yaml v2 reads them (the fork
in kubernetes-sigs/yaml, ``goyaml.v2/decode.go``): a tag on a mapping or a
sequence is ignored, an unknown tag on a scalar leaves its text, and
``!!binary`` is its decoded bytes, which must be UTF-8 text here. Mapping keys become
strings the way sigs.k8s.io/yaml makes them; a repeated key keeps its last
value and is recorded; a merge key (``<<``) is applied in place, in document
order, as go-yaml v2 applies it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any, Final

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.yaml.bounds import MAX_DEPTH
from lint.yaml.scalars import RESOLVING_STARTS, mapping_key, resolve_plain
from lint.yaml.tags import (
    BINARY_TAG,
    BOOL_TAG,
    FLOAT_TAG,
    INT_TAG,
    NULL_TAG,
    PLAIN_TAG,
    STR_TAG,
    TIMESTAMP_TAG,
)

# Plain keys that may resolve to something else, and '<' for the merge key.
_RESOLVING_KEY_STARTS: Final = RESOLVING_STARTS | {"<"}
# Node properties ahead of a scalar whose tag is the non-specific `!`.
_NON_SPECIFIC_TAG: Final = re.compile(r"(?:&[^ \t\r\n]+[ \t\r\n]+)?!(?=[ \t\r\n])")


_RESOLVED_TAGS: Final = frozenset({INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG, TIMESTAMP_TAG})
"""Scalar tags go-yaml v2 resolves (``resolvableTag``), besides ``!!str``."""


class BuildError(Exception):
    """A node that has no JSON value; ``node`` locates it."""

    def __init__(self, node: Node, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.message = message


class Builder:
    """Builds one document. ``shared`` must be set when the text has anchors,
    so that aliased nodes are built once and cycles are refused. Nesting
    deeper than ``max_depth`` collections is refused."""

    def __init__(
        self, *, shared: bool, tagged_text: str | None = None, max_depth: int = MAX_DEPTH
    ) -> None:
        self.duplicates: list[tuple[Node, str]] = []
        self._depth = 0
        self._max_depth = max_depth
        self._memo: dict[int, Any] | None = {} if shared else None
        self._open: set[int] = set()
        # libyaml reports a scalar with the non-specific tag `!` as plain;
        # go-yaml reads it as a string. The text tells them apart, and it is
        # only kept when it holds a `!` at all.
        self._tagged_text = tagged_text

    def build(self, node: Node) -> Any:
        """The JSON-shaped value of ``node``."""
        kind = type(node)
        if kind is ScalarNode:
            tag = node.tag
            if tag is PLAIN_TAG:
                if self._tagged_text is not None and self._is_text(node):
                    return node.value
                return resolve_plain(node.value)
            if tag is STR_TAG:
                return node.value
            return _tagged_scalar(node)
        if self._memo is not None:
            return self._shared(node)
        if kind is MappingNode:
            return self._mapping(node)
        return self._sequence(node)

    def _shared(self, node: Node) -> Any:
        memo = self._memo
        assert memo is not None
        identity = id(node)
        if identity in memo:
            return memo[identity]
        if identity in self._open:
            raise BuildError(node, "an alias refers to a collection that contains it")
        self._open.add(identity)
        value = self._mapping(node) if type(node) is MappingNode else self._sequence(node)
        self._open.discard(identity)
        memo[identity] = value
        return value

    def _enter(self, node: Node) -> None:
        self._depth += 1
        if self._depth > self._max_depth:
            raise BuildError(node, too_deep(self._max_depth))

    def _mapping(self, node: Node) -> dict[str, Any]:
        # go-yaml v2 ignores the tag of a collection: `!k8s {kind: X}` is a mapping.
        self._enter(node)
        result: dict[str, Any] = {}
        explicit: set[str] | None = None
        build = self.build
        inline = self._tagged_text is None
        # The plain scalar cases are inlined: this loop runs for every key
        # and value of every document.
        for key_node, value_node in node.value:
            plain = key_node.tag is PLAIN_TAG and (inline or not self._is_text(key_node))
            if not plain:
                key = self._key(key_node)
            else:
                key = key_node.value
                if not key or key[0] in _RESOLVING_KEY_STARTS:
                    if key == "<<":
                        explicit = set(result) if explicit is None else explicit
                        self._merge(result, value_node)
                        continue
                    key = _plain_key(key_node)
            if key in result and (explicit is None or key in explicit):
                self.duplicates.append((key_node, key))
            if explicit is not None:
                explicit.add(key)
            if inline and value_node.tag is PLAIN_TAG and type(value_node) is ScalarNode:
                text = value_node.value
                resolves = not text or text[0] in RESOLVING_STARTS
                result[key] = resolve_plain(text) if resolves else text
            else:
                result[key] = build(value_node)
        self._depth -= 1
        return result

    def _is_text(self, node: Node) -> bool:
        """Whether a scalar libyaml calls plain is quoted or tagged ``!``."""
        if getattr(node, "style", None):  # quoted or block: a string
            return True
        text = self._tagged_text
        return text is not None and _NON_SPECIFIC_TAG.match(text, node.start_mark.index) is not None

    def _key(self, node: Node) -> str:
        """A key that is not an untagged plain scalar."""
        if type(node) is not ScalarNode:
            raise BuildError(node, "a mapping key must be a scalar")
        if node.tag is PLAIN_TAG:  # tagged `!` or quoted: its text
            return str(node.value)
        key = mapping_key(self.build(node))
        if key is None:
            raise BuildError(node, f"the key {node.value!r} cannot be a JSON member name")
        return key

    def _merge(self, result: dict[str, Any], node: Node) -> None:
        merged = self.build(node)
        sources = merged if isinstance(merged, list) else [merged]
        # Earlier mappings in a merge list take precedence (go-yaml v2).
        for source in reversed(sources):
            if not isinstance(source, dict):
                raise BuildError(node, "a merge key (<<) needs a mapping or a list of mappings")
            result.update(source)

    def _sequence(self, node: Node) -> list[Any]:
        self._enter(node)
        build = self.build
        result = [build(item) for item in node.value]
        self._depth -= 1
        return result


def _plain_key(node: Node) -> str:
    key = mapping_key(resolve_plain(node.value))
    if key is None:
        raise BuildError(node, f"the key {node.value!r} cannot be a JSON member name")
    return key


def _tagged_scalar(node: Node) -> Any:
    """A scalar with an explicit tag: go-yaml resolves the text and demands
    that the result be of the tagged type (an integer may become a float)."""
    tag, text = node.tag, node.value
    if tag == STR_TAG:
        return text
    if tag == BINARY_TAG:
        return _binary_text(node)
    if tag not in _RESOLVED_TAGS:
        return text  # go-yaml v2: a tag it does not resolve leaves the text
    value = resolve_plain(text)
    if tag == INT_TAG and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tag == FLOAT_TAG and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if tag == BOOL_TAG and isinstance(value, bool):
        return value
    if tag == NULL_TAG and value is None:
        return None
    if tag in (INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG):
        raise BuildError(node, f"cannot read {text!r} as {tag.rsplit(':', 1)[-1]}")
    raise BuildError(node, f"the tag {tag} is not supported")


def _binary_text(node: Node) -> str:
    """``!!binary``: base64 as Go's ``StdEncoding`` reads it (line breaks
    ignored, padding required), and the bytes as UTF-8 text."""
    encoded = node.value.replace("\r", "").replace("\n", "")
    try:
        data = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise BuildError(node, "!!binary value contains invalid base64 data") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BuildError(node, "!!binary value is not UTF-8 text, so it cannot be read") from None


def too_deep(max_depth: int) -> str:
    """The problem message for a document nested past the depth limit."""
    return f"the document is nested deeper than {max_depth} levels (raise it with --max-depth)"


def check_expansion(root: Node, max_values: int, max_depth: int) -> None:
    """Refuse a tree whose aliases expand past ``max_values`` values or
    ``max_depth`` levels, counting a shared node at each use, without
    expanding anything: each node's size and height are computed once."""
    sizes: dict[int, tuple[int, int]] = {}
    on_path: set[int] = set()

    def measure(node: Node, depth: int) -> tuple[int, int]:
        """Expanded size and height of ``node``, which sits at ``depth``."""
        if type(node) is ScalarNode:
            return 1, 0
        identity = id(node)
        if identity not in sizes:
            if depth > max_depth:
                raise BuildError(node, too_deep(max_depth))
            if identity in on_path:
                raise BuildError(node, "an alias refers to a collection that contains it")
            on_path.add(identity)
            sizes[identity] = _measure_children(node, depth, measure, max_values)
            on_path.discard(identity)
        size, height = sizes[identity]
        if size > max_values:
            raise BuildError(node, f"aliases expand to more than {max_values:,} values")
        if depth + height - 1 > max_depth:
            raise BuildError(node, too_deep(max_depth))
        return size, height

    measure(root, 1)


def _measure_children(
    node: Node,
    depth: int,
    measure: Callable[[Node, int], tuple[int, int]],
    max_values: int,
) -> tuple[int, int]:
    children = node.value if type(node) is SequenceNode else _flatten(node.value)
    total, height = 1, 0
    for child in children:
        size, child_height = measure(child, depth + 1)
        total += size
        height = max(height, child_height)
        if total > max_values:
            break
    return total, height + 1


def _flatten(pairs: list[tuple[Node, Node]]) -> list[Node]:
    return [node for pair in pairs for node in pair]
