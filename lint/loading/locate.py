"""The exact line of a field inside one loaded document.

Only documents that produce findings need this, so it re-parses that one
document with line marks instead of making every load pay for them
(DESIGN §7).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.loading.construct import PLAIN_TAG
from lint.loading.documents import LoadedDocument
from lint.loading.parse import ParseFailure, compose
from lint.loading.scalars import mapping_key, resolve_plain


def locate(document: LoadedDocument, path: Sequence[str | int]) -> int:
    """The 1-based line of the deepest node along ``path`` that exists.

    A string step names a mapping key (its line is the key's), an integer
    step a list position (its line is the item's). ``("spec", "egress", 2)``
    gives the line of the third egress rule. Without any matching step, or
    when the text cannot be parsed again, it is ``document.line``.
    """
    steps: list[str | int] = list(path)
    if document.list_index is not None:
        steps = ["items", document.list_index, *steps]
    node = _root(document.text)
    line = document.line
    for step in steps:
        if node is None:
            break
        found = _step(node, step)
        if found is None:
            break
        node, at = found
        line = document.text_line + at
    return line


@lru_cache(maxsize=64)
def _root(text: str) -> Node | None:
    """The node tree of a document's text; a finding often locates several
    fields of the same document."""
    try:
        return compose(text)
    except ParseFailure:
        return None


def _step(node: Node, step: str | int) -> tuple[Node, int] | None:
    if isinstance(step, int) and type(node) is SequenceNode:
        if 0 <= step < len(node.value):
            item: Node = node.value[step]
            return item, int(item.start_mark.line)
        return None
    if isinstance(step, str) and type(node) is MappingNode:
        found: tuple[Node, int] | None = None
        for key, value in _applied_pairs(node, depth=0):
            if _key_text(key) == step:
                found = value, int(key.start_mark.line)
        return found
    return None


def _applied_pairs(node: Node, depth: int) -> Iterator[tuple[Node, Node]]:
    """Key and value nodes in the order they are applied, merges expanded
    where they stand (as ``construct`` applies them); the last one of a key
    is the one read."""
    for key, value in node.value:
        if not (type(key) is ScalarNode and key.tag is PLAIN_TAG and key.value == "<<"):
            yield key, value
            continue
        if depth > 32:  # an alias cycle; the loader refused it already
            continue
        sources = value.value if type(value) is SequenceNode else [value]
        for source in reversed(sources):
            if type(source) is MappingNode:
                yield from _applied_pairs(source, depth + 1)


def _key_text(key: Node) -> str | None:
    if type(key) is not ScalarNode:
        return None
    if key.tag is PLAIN_TAG:
        return mapping_key(resolve_plain(key.value))
    return str(key.value)
