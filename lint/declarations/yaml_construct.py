"""Building the declaration file's YAML nodes into values.

This is the first of two steps; the second (``reading``) copies the result
into plain JSON values with a line for every path and refuses what JSON
cannot hold. Building follows the order in which the file was always read,
so that of two problems the same one is reported: in each mapping the
merge keys (``<<``) come first, then the own keys in order, each value
built before its key is checked for a duplicate. Keys compare as the values
they are (``1``, ``1.0`` and ``true`` are one key).

An alias builds to the very object built for its anchor, so a collection
that contains itself becomes a cycle, which the second step refuses.
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.declarations.yaml_compose import UnreadableYaml, syntax_error
from lint.declarations.yaml_scalars import (
    MAP_TAG,
    MERGE_TAG,
    PLAIN_TAG,
    SCALAR_ONLY_TAGS,
    SEQ_TAG,
    VALUE_TAG,
    Foreign,
    ScalarError,
    YamlVersion,
    scalar_value,
)


class BuiltMapping(dict[Any, Any]):
    """A built mapping: its own keys in order, then the merged ones.
    ``key_lines`` holds the 1-based line of each own key; merged keys have
    none."""

    __slots__ = ("key_lines",)

    def __init__(self) -> None:
        super().__init__()
        self.key_lines: dict[Any, int] = {}


class BuiltSequence(list[Any]):
    """A built sequence; ``item_lines`` holds the 1-based line of each item."""

    __slots__ = ("item_lines",)

    def __init__(self) -> None:
        super().__init__()
        self.item_lines: list[int] = []


class MappingKey(tuple[Any, ...]):
    """A mapping used as a key: hashable, shown as the reader always showed it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ordereddict({list(self)!r})"


def build(root: Node, version: YamlVersion, *, shared: bool) -> Any:
    """The value of ``root``: :class:`BuiltMapping`, :class:`BuiltSequence`, JSON
    scalars and :class:`Foreign` scalars. ``shared`` must be set when the
    text has anchors. Raises :class:`UnreadableYaml`."""
    return _Builder(version, shared=shared).build(root)


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 1


_KINDS = {ScalarNode: "scalar", SequenceNode: "sequence", MappingNode: "mapping"}


def _kind(node: Node) -> str:
    """What a node is, in the words of the reader's messages."""
    return _KINDS[type(node)]


class _Builder:
    def __init__(self, version: YamlVersion, *, shared: bool) -> None:
        self._version = version
        self._built: dict[int, Any] | None = {} if shared else None

    def build(self, node: Node) -> Any:
        kind = type(node)
        if kind is ScalarNode:
            return self._scalar(node)
        if self._built is not None:
            found = self._built.get(id(node))
            if found is not None:
                return found
        if kind is MappingNode:
            return self._mapping(node) if node.tag == MAP_TAG else self._tagged(node)
        return self._sequence(node) if node.tag == SEQ_TAG else self._tagged(node)

    def _scalar(self, node: Node) -> Any:
        try:
            return scalar_value(node.tag, node.value, self._version)
        except ScalarError as error:
            raise syntax_error(error.reason, _line(node)) from None

    def _tagged(self, node: Node) -> Foreign:
        """A collection with a tag other than its own kind's."""
        tag = node.tag
        if tag in SCALAR_ONLY_TAGS:
            raise syntax_error(f"expected a scalar node, but found {_kind(node)}", _line(node))
        if tag in (MAP_TAG, SEQ_TAG):
            kind = "mapping" if tag == MAP_TAG else "sequence"
            raise syntax_error(f"expected a {kind} node, but found {_kind(node)}", _line(node))
        return Foreign(tag, "")

    def _remember(self, node: Node, value: Any) -> None:
        if self._built is not None:
            self._built[id(node)] = value

    def _sequence(self, node: Node) -> BuiltSequence:
        result = BuiltSequence()
        self._remember(node, result)
        lines = result.item_lines
        for item in node.value:
            result.append(self.build(item))
            lines.append(_line(item))
        return result

    def _mapping(self, node: Node) -> BuiltMapping:
        result = BuiltMapping()
        self._remember(node, result)
        merges = [pair for pair in node.value if _is_merge_key(pair[0])]
        sources = self._merge_sources(merges) if merges else []
        key_lines = result.key_lines
        for key_node, value_node in node.value:
            if merges and _is_merge_key(key_node):
                continue
            key = self._key(key_node)
            value = self.build(value_node)
            if key in result:
                raise _duplicate(key, value, result[key], _line(key_node))
            result[key] = value
            key_lines[key] = _line(key_node)
        for source in sources:
            for key, value in list(source.items()):
                result.setdefault(key, value)
        return result

    def _merge_sources(self, merges: list[tuple[Node, Node]]) -> list[BuiltMapping]:
        """The mappings the ``<<`` key merges in, earliest first (it wins).
        The first ``<<`` is built before a second one is refused."""
        sources = self._merged_values(merges[0][1])
        if len(merges) > 1:
            raise _constructing('found duplicate merge key "<<"', merges[1][0])
        return sources

    def _merged_values(self, node: Node) -> list[BuiltMapping]:
        if type(node) is MappingNode:
            return [self._merged(node, self.build(node))]
        if type(node) is not SequenceNode:
            message = f"expected a mapping or list of mappings for merging, but found {_kind(node)}"
            raise _constructing(message, node)
        built = self._merged(node, self.build(node))
        sources = []
        for item_node, item in zip(node.value, built, strict=True):
            if type(item_node) is not MappingNode:
                message = f"expected a mapping for merging, but found {_kind(item_node)}"
                raise _constructing(message, item_node)
            sources.append(self._merged(item_node, item))
        return sources

    def _merged(self, node: Node, built: Any) -> Any:
        """``built``, unless a tag made it something other than its node."""
        if isinstance(built, Foreign):
            kind = _kind(node)
            message = f"the {kind} to merge has the YAML tag {node.tag}, which is not supported"
            raise _constructing(message, node)
        return built

    def _key(self, node: Node) -> Any:
        """A key as the value it is. ``=`` is the string it reads as; dates
        and binary data are their Python values, so that messages show
        them as the reader always did."""
        if type(node) is ScalarNode:
            tag = node.tag
            if tag == VALUE_TAG or (tag == PLAIN_TAG and node.value == "="):
                return node.value
            value = self._scalar(node)
            if isinstance(value, Foreign) and value.value is not None:
                return value.value
            return value
        return _frozen(self.build(node))


def _is_merge_key(node: Node) -> bool:
    tag = node.tag
    return tag == MERGE_TAG or (tag == PLAIN_TAG and node.value == "<<")


def _frozen(value: Any) -> Any:
    """A collection used as a key, made hashable."""
    if isinstance(value, BuiltMapping):
        return MappingKey((key, _frozen(item)) for key, item in value.items())
    if isinstance(value, BuiltSequence):
        return tuple(_frozen(item) for item in value)
    return value


def _constructing(reason: str, node: Node) -> UnreadableYaml:
    return syntax_error(f"while constructing a mapping, {reason}", _line(node))


def _duplicate(key: Any, value: Any, original: Any, line: int) -> UnreadableYaml:
    return syntax_error(
        f'while constructing a mapping, found duplicate key "{key}" with value '
        f'"{value}" (original value: "{original}")',
        line,
    )
