"""The plain value and lines of a plain file, straight from its nodes.

``reading`` builds a file's value in two steps: ruamel's round-trip
constructor makes a tree of its own types from the C-composed nodes, then
that tree is copied into plain values with a line for every key and item.
For a file that uses nothing beyond mappings with string keys, lists,
strings, decimal integers, booleans and nulls, both steps together give
what :func:`plain_tree` builds from the nodes in one walk, a fifth of the
time (23 ms and 5 ms against 5 ms on the 400-entry bench file). Anything
else (another tag, a merge key, a repeated key, a huge integer, nesting past
what the C path builds) returns None, and the two steps read the file as
before, with their errors. ``tests/declarations/test_plain_nodes.py`` holds
the two readings equal.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.decision.values import JSON
from lint.declarations.fieldpaths import Path
from lint.declarations.ruamel_loader import BUILT_ALIKE_HEIGHT
from lint.yaml.tags import BOOL_TAG, INT_TAG, MAP_TAG, NULL_TAG, SEQ_TAG, STR_TAG


class PlainTree(msgspec.Struct, frozen=True):
    """A document's plain value, and the 1-based line of every node, keyed
    as ``reading.SourceTree.lines`` is."""

    value: JSON
    lines: dict[Path, int]


class _NotPlain(Exception):
    """The nodes use more than this walk builds."""


_DECIMAL: Final = re.compile(r"[-+]?[0-9]+")
"""The integers the constructor turns into ``sign * int(digits)``: no
underscores, no 0x, 0o or 0b prefix (those keep their own types)."""
_BOOLS: Final = {"true": True, "false": False}


def plain_tree(root: Node) -> PlainTree | None:
    """``root``'s value and lines as the round-trip constructor and
    ``reading``'s copy make them, or None when the nodes use more."""
    is_collection = isinstance(root, MappingNode | SequenceNode)
    lines: dict[Path, int] = {(): root.start_mark.line + 1 if is_collection else 1}
    try:
        value = _plain(root, (), lines, BUILT_ALIKE_HEIGHT)
    except _NotPlain:
        return None
    return PlainTree(value, lines)


def _plain(node: Node, path: Path, lines: dict[Path, int], room: int) -> JSON:
    """``room`` counts the levels left, as ``ruamel_loader._nests_within``
    does: a node graph nested deeper (or one that holds itself through an
    alias) is left to the full reading."""
    if room <= 0:
        raise _NotPlain
    tag = node.ctag
    if tag.handle is not None:
        raise _NotPlain
    kind = tag.suffix
    if kind == MAP_TAG and isinstance(node, MappingNode):
        return _mapping(node, path, lines, room)
    if kind == SEQ_TAG and isinstance(node, SequenceNode):
        result: list[JSON] = []
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines[child] = item.start_mark.line + 1
            result.append(_plain(item, child, lines, room - 1))
        return result
    if isinstance(node, ScalarNode):
        return _scalar(kind, node)
    raise _NotPlain


def _mapping(node: MappingNode, path: Path, lines: dict[Path, int], room: int) -> JSON:
    result: dict[str, JSON] = {}
    for key_node, value_node in node.value:
        key_tag = key_node.ctag
        if not (
            isinstance(key_node, ScalarNode)
            and key_tag.handle is None
            and key_tag.suffix == STR_TAG
            and key_node.style != ">"
        ):
            raise _NotPlain  # a merge key, a key of another type
        name: str = key_node.value
        if name in result:
            raise _NotPlain  # the full reading refuses it, worded by ruamel
        child = (*path, name)
        lines[child] = key_node.start_mark.line + 1
        result[name] = _plain(value_node, child, lines, room - 1)
    return result


def _scalar(kind: str, node: ScalarNode) -> JSON:
    text: str = node.value
    if kind == STR_TAG and node.style != ">":
        # (A folded scalar is left out: the constructor removes the marks
        # the pure-Python scanner leaves at its folds.)
        return text
    if kind == NULL_TAG:
        return None
    if kind == BOOL_TAG and text.lower() in _BOOLS:
        return _BOOLS[text.lower()]
    if kind == INT_TAG and _DECIMAL.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts
            raise _NotPlain from None
    raise _NotPlain
