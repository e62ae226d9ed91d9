"""The exact line of a field inside one loaded document.

Only documents that produce findings need this, so it re-parses that one
document with line marks instead of making every load pay for them
(DESIGN §7). The cost stays bounded on large input: an item of a list is
re-parsed from its own lines when they hold it alone, node trees are cached
within a size budget, and each answer is remembered.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Final

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.loading.documents import LoadedDocument
from lint.loading.limits import MIB
from lint.yaml.parse import ParseFailure, compose, parse_yaml
from lint.yaml.scalars import mapping_key, resolve_plain
from lint.yaml.tags import PLAIN_TAG

Step = str | int


def locate(document: LoadedDocument, path: Sequence[Step]) -> int:
    """The 1-based line of the deepest node along ``path`` that exists.

    A string step names a mapping key (its line is the key's), an integer
    step a list position (its line is the item's). ``("spec", "egress", 2)``
    gives the line of the third egress rule. Without any matching step, or
    when the text cannot be parsed again, it is ``document.line``.
    """
    steps = tuple(path)
    key = (document.text, document.text_line, document.line, document.list_index, steps)
    line = _ANSWERS.get(key)
    if line is None:
        line = _ANSWERS.put(key, _locate(document, steps))
    return line


def _locate(document: LoadedDocument, path: tuple[Step, ...]) -> int:
    if document.list_index is not None:
        item = _item_root(document)
        if item is not None:
            return _walk(item, document.line, document.line, path)
        path = ("items", document.list_index, *path)
    return _walk(_NODES.root(document.text), document.text_line, document.line, path)


def _walk(node: Node | None, offset: int, line: int, path: tuple[Step, ...]) -> int:
    """The line of the deepest step found from ``node``, whose text starts on
    line ``offset``; ``line`` when no step is found."""
    for step in path:
        if node is None:
            break
        found = _step(node, step)
        if found is None:
            break
        node, at = found
        line = offset + at
    return line


def _item_root(document: LoadedDocument) -> Node | None:
    """The node tree of a list item parsed from its own lines, so that a
    large list is not parsed again for each of its items. None when those
    lines do not hold exactly that item (a flow list, items sharing a line,
    an alias to another item): the item must read back to its own value."""
    first_line = document.line - document.text_line
    lines = document.text.split("\n")[first_line : document.end_line - document.text_line + 1]
    if not lines:
        return None
    first = lines[0]
    indent = len(first) - len(first.lstrip(" "))
    if first[indent : indent + 2] == "- ":
        lines[0] = " " * (indent + 2) + first[indent + 2 :]
    lines[-1] = lines[-1].rstrip().removesuffix(",")  # a JSON list's separator
    try:
        parsed = parse_yaml("\n".join(lines) + "\n")
    except ParseFailure:
        return None
    return parsed.root if parsed.value == document.value else None


class _NodeCache:
    """Node trees of recently located documents, least recently used first
    out, within a budget of text characters; the latest one always stays, so
    locating several fields of one large document parses it once."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._held = 0
        self._trees: OrderedDict[str, Node | None] = OrderedDict()

    def root(self, text: str) -> Node | None:
        if text in self._trees:
            self._trees.move_to_end(text)
            return self._trees[text]
        tree = _quiet_compose(text)
        self._trees[text] = tree
        self._held += len(text)
        while self._held > self._budget and len(self._trees) > 1:
            dropped, _ = self._trees.popitem(last=False)
            self._held -= len(dropped)
        return tree


class _Answers:
    """Lines already located, so that a path asked for again (by every
    sandbox a policy is judged for) costs nothing."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lines: OrderedDict[tuple[object, ...], int] = OrderedDict()

    def get(self, key: tuple[object, ...]) -> int | None:
        return self._lines.get(key)

    def put(self, key: tuple[object, ...], line: int) -> int:
        self._lines[key] = line
        if len(self._lines) > self._size:
            self._lines.popitem(last=False)
        return line


_ANSWERS: Final = _Answers(4096)

NODE_CACHE_BUDGET: Final = 16 * MIB
"""Text whose node trees ``locate`` keeps; a node tree takes about fifty
times the memory of its text."""

_NODES: Final = _NodeCache(NODE_CACHE_BUDGET)


def _quiet_compose(text: str) -> Node | None:
    try:
        return compose(text)
    except ParseFailure:
        return None


def _step(node: Node, step: Step) -> tuple[Node, int] | None:
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
