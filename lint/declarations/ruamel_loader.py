"""ruamel.yaml's round-trip loader, configured for the declaration file.

The round-trip loader gives every mapping key and sequence item its line
(``.lc``), which is why it reads this file. It reads YAML 1.2 (YAML 1.1 after
a ``%YAML 1.1`` directive). Where the stock loader raises a Python exception
or quietly loses part of the text, this one turns the node into something
``reading`` can report with its path and line:

- text a tag or a pattern claims but that cannot be built (``!!int x``,
  ``0x_``) is a construction error, worded like ruamel's own;
- an impossible date (``2024-13-45``) and a collection with a tag (``!c {}``,
  ``!!set``, ``!!omap``, ``!!pairs``, ``!!str [1]``) become :class:`Unsupported`;
- an alias to a collection still being built (``a: &x [*x]``) becomes
  :data:`SELF_REFERENCE` instead of null, and merging such a collection into
  itself adds nothing;
- a merged collection with a tag is refused by name;
- a ``%YAML 1.3`` (or later minor) directive reads as YAML 1.2.

``docs/yaml.md`` lists where this reading differs from the Kubernetes one.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any, Final

import msgspec
from ruamel.yaml import YAML
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]
from ruamel.yaml.error import YAMLError, YAMLWarning
from ruamel.yaml.events import (
    MappingEndEvent,
    MappingStartEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scanner import RoundTripScanner

from lint.yaml.tags import (
    BOOL_TAG,
    FLOAT_TAG,
    INT_TAG,
    MAP_TAG,
    MERGE_TAG,
    OMAP_TAG,
    PAIRS_TAG,
    SEQ_TAG,
    SET_TAG,
    STR_TAG,
    TIMESTAMP_TAG,
)


class Unsupported(msgspec.Struct, frozen=True, eq=False):
    """A node JSON has no type for: its tag, and its text when it is a
    scalar. Two of them are never equal (as keys, each is its own)."""

    tag: str
    text: str = ""

    def __repr__(self) -> str:
        return repr(self.text)


class _SelfReference:
    """What an alias to a collection still being built reads as."""

    def __repr__(self) -> str:
        return "<self-reference>"


SELF_REFERENCE: Final = _SelfReference()


_SCANNED_ALIKE: Final = re.compile(
    r"[^!\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*"
)
_DIRECTIVE: Final = re.compile(r"^%", re.MULTILINE)


def composed_alike(text: str) -> bool:
    """Whether ruamel's C parser (libyaml, from ruamel.yaml.clib) composes
    ``text`` exactly as its pure-Python round-trip parser does: there is no
    ``%`` directive (the C parser does not hand the YAML version to the
    resolver), no ``!`` (the two build some tags differently, ``a: !`` for
    one), none of the characters the two count or refuse differently (tabs,
    CR, NEL and the Unicode line and paragraph separators, other control
    characters, surrogates, non-characters, a byte-order mark), and no
    nesting deep enough to endanger the C parser's stack.
    ``tests/declarations/test_ruamel_paths.py`` holds the two readings equal."""
    return (
        _SCANNED_ALIKE.fullmatch(text) is not None
        and _DIRECTIVE.search(text) is None
        and (_nesting_bound(text) <= _C_NESTING_BOUND or _nesting_depth(text) <= _C_NESTING_BOUND)
    )


_C_NESTING_BOUND: Final = 8_000
"""The C composer recurses once per level of nesting, below Python's own
recursion check, and crashes the process at about 30,000 levels."""
BUILT_ALIKE_HEIGHT: Final = 64
"""Trees at most this deep are built from C-composed nodes. The pure parser
gives up (RecursionError) at about 200 block or 490 flow levels; a deeper
tree is left to it, so that it fails exactly as before. Declaration files
nest about 8 levels deep."""


def _nesting_bound(text: str) -> int:
    """More than the depth any document of ``text`` can nest to.

    A flow collection opens at a bracket, and holds at most one implicit
    mapping level more (``[a: [b: c]]``). A block collection starts at a
    column; a nested one starts further right, except a sequence that is a
    mapping's value, which may share its column. The columns where block
    collections start are lines' indentations, or follow the ``-`` and
    ``?`` indicators (and a mapping after them) on one line. So along any
    path, block levels are at most twice the distinct indentations times the
    collections one line can start. (The earlier bound counted every line,
    which sent any declaration file of more than a few thousand lines to the
    pure-Python parser.)"""
    flow = text.count("[") + text.count("{")
    indents: set[int] = set()
    indicators = 0
    for line in text.split("\n"):
        indents.add(len(line) - len(line.lstrip(" ")))
        indicators = max(indicators, line.count("-") + line.count("?"))
    return 2 * flow + 2 * len(indents) * (indicators + 2) + 2


def _nesting_depth(text: str) -> int:
    """How deep the collections of ``text`` nest, counted from the C
    parser's events; past the bound when the text does not parse.

    ``_nesting_bound`` counts every bracket as a level, so a file with
    thousands of one-line flow mappings (``policy: {kind: deny-all}``) is
    past it while five levels deep. The event parser keeps its levels on the
    heap and cannot crash; it is a fifth of the cost of composing, and asked
    only when the quick bound fails."""
    parser = CParser(text)
    depth = deepest = 0
    try:
        while True:
            change = _DEPTH_CHANGE.get(type(parser.get_event()))
            if change is None:
                continue
            if not change:
                return deepest
            depth += change
            deepest = max(deepest, depth)
    except YAMLError:
        return _C_NESTING_BOUND + 1
    finally:
        parser.dispose()


_DEPTH_CHANGE: Final[dict[type, int]] = {
    MappingStartEvent: 1,
    SequenceStartEvent: 1,
    MappingEndEvent: -1,
    SequenceEndEvent: -1,
    StreamEndEvent: 0,
}
"""How each event changes the depth of nesting; 0 ends the stream."""


def _nests_within(node: Node, levels: int, heights: dict[int, int]) -> bool:
    """Whether no path down ``node``'s graph (aliases share nodes) is longer
    than ``levels``. ``heights`` remembers the nodes already measured, so an
    alias is measured once; a node that contains itself never fits."""
    if levels <= 0:
        return False
    if isinstance(node, ScalarNode):
        return True
    known = heights.get(id(node))
    if known is not None:
        return known <= levels
    children = (
        node.value
        if isinstance(node, SequenceNode)
        else [part for pair in node.value for part in pair]
    )
    if not all(_nests_within(child, levels - 1, heights) for child in children):
        return False
    heights[id(node)] = 1 + max((heights.get(id(c), 1) for c in children), default=0)
    return True


def load(text: str, *, plain: Callable[[Node], object | None] | None = None) -> Any:
    """The one document of ``text`` as ruamel's round-trip tree.

    Raises ruamel's ``YAMLError`` for text that is not one document, and
    ``RecursionError`` for text nested too deeply for its recursive parser.

    The round-trip parser is pure Python, about ten times slower than the
    C one (270 ms against 25 ms on the 400-entry bench file), so text the C
    parser composes alike is composed there and only built by the
    round-trip constructor. Any error is left to the round-trip parser, so
    every message is worded by it.

    ``plain``, when given, is offered the C-composed nodes first: what it
    returns, unless None, is returned instead of the round-trip tree
    (``reading`` builds the plain values of a plain file straight from them).
    """
    with warnings.catch_warnings():
        # ruamel warns on standard error about YAML 1.1 floats without a
        # dot (`1e2`) and reused anchors; both read as the tables say.
        warnings.simplefilter("ignore", YAMLWarning)
        if composed_alike(text):
            try:
                node = compose_in_c(text)
                built = None if node is None or plain is None else plain(node)
                return built if built is not None else build_composed(node, text)
            except (YAMLError, RecursionError):
                pass
        return load_round_trip(text)


def load_round_trip(text: str) -> Any:
    """``text`` parsed by the pure-Python round-trip parser, then built."""
    return _round_trip_loader().load(text)


def load_composed_in_c(text: str) -> Any:
    """``text`` composed by the C parser, then built by the round-trip
    constructor, which takes each key's and item's line from the nodes."""
    return build_composed(compose_in_c(text), text)


def build_composed(node: Node | None, text: str) -> Any:
    """The C-composed ``node`` of ``text`` built by the round-trip
    constructor (``text`` itself read by the round-trip parser when the
    nodes nest too deeply)."""
    if node is None:  # no document, or only comments
        return None
    if not _nests_within(node, BUILT_ALIKE_HEIGHT, {}):
        return load_round_trip(text)
    return _Constructor(loader=_round_trip_loader()).construct_document(node)


def compose_in_c(text: str) -> Node | None:
    """The node graph of the one document of ``text``, composed by the C
    parser (None when there is no document)."""
    composer = YAML(typ="safe", pure=False)
    composer.Resolver = _CResolver
    node: Node | None = composer.compose(text)
    return node


class _CResolver(VersionedResolver):
    """ruamel's resolver, with its table of implicit tags looked up once
    per document instead of once per scalar. The lookup asks for the YAML
    version being read, which the C parser never hands over (so it is always
    the default), and finds that out through two caught AttributeErrors each
    time: half the time of composing the bench file (27 ms of 51 ms)."""

    @property
    def versioned_resolver(self) -> Any:
        table = self.__dict__.get("_table")
        if table is None:
            table = self.__dict__["_table"] = super().versioned_resolver
        return table


def _round_trip_loader() -> YAML:
    loader = YAML(typ="rt")
    loader.Scanner = _Scanner
    loader.Constructor = _Constructor
    loader.allow_duplicate_keys = False
    return loader


class _Scanner(RoundTripScanner):
    """The round-trip scanner, reading a later YAML 1.x as YAML 1.2, as the
    YAML 1.2 specification asks, where ruamel fails an assertion."""

    def scan_yaml_directive_value(self, start_mark: Any) -> Any:
        major, minor = super().scan_yaml_directive_value(start_mark)
        if major == 1 and minor > 2:
            self.yaml_version = (1, 2)
        return self.yaml_version


class _Constructor(RoundTripConstructor):
    """The round-trip constructor, made total: see the module docstring."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        if node in self.recursive_objects and node not in self.constructed_objects:
            return SELF_REFERENCE
        return super().construct_object(node, deep)

    def flatten_mapping(self, node: MappingNode) -> Any:
        for index, (key_node, value_node) in enumerate(node.value):
            if key_node.tag == MERGE_TAG:
                # Only the first merge key: a second one is refused as such.
                node.value[index] = (key_node, self._mergeable(node, value_node))
                break
        return super().flatten_mapping(node)

    def _mergeable(self, node: MappingNode, source: Node) -> Node:
        """``source`` as it may be merged: a mapping still being built (the
        mapping itself, or one around it) adds nothing."""
        if isinstance(source, SequenceNode):
            _refuse_tagged(node, source, SEQ_TAG)
            items = [self._mergeable(node, item) for item in source.value]
            return SequenceNode(SEQ_TAG, items, source.start_mark, source.end_mark)
        if isinstance(source, MappingNode):
            _refuse_tagged(node, source, MAP_TAG)
            if source in self.recursive_objects and source not in self.constructed_objects:
                return MappingNode(MAP_TAG, [], source.start_mark, source.end_mark)
        return source

    def construct_yaml_timestamp(self, node: Node, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except ValueError:  # 2024-13-45 is still meant as a date
            return Unsupported(TIMESTAMP_TAG, node.value)

    def construct_yaml_str(self, node: Node) -> Any:
        if not isinstance(node, ScalarNode):
            return Unsupported(STR_TAG)
        return super().construct_yaml_str(node)

    def construct_unknown(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            return super().construct_unknown(node)
        return _refuse_collection(self, node)


def _refuse_tagged(node: MappingNode, source: Node, plain_tag: str) -> None:
    tag = str(source.tag)
    if tag != plain_tag:
        kind = "mapping" if isinstance(source, MappingNode) else "sequence"
        raise ConstructorError(
            "while constructing a mapping",
            node.start_mark,
            f"the {kind} to merge has the YAML tag {tag}, which is not supported",
            source.start_mark,
        )


def _guarded(kind: str, build: Callable[[Any, Node], Any]) -> Callable[[Any, Node], Any]:
    """``build``, with the Python errors of text it cannot read turned into
    a construction error at the node."""

    def guarded(constructor: Any, node: Node) -> Any:
        try:
            return build(constructor, node)
        except (ValueError, IndexError, KeyError):
            problem = f'failed to construct {kind} from "{node.value}"'
            raise ConstructorError(None, None, problem, node.start_mark) from None

    return guarded


def _refuse_collection(constructor: Any, node: Node) -> Unsupported:
    """A collection whose tag JSON has no type for (and the tags that only
    mean such collections), left for ``reading`` to refuse with its path."""
    return Unsupported(str(node.tag))


for _tag, _kind, _build in (
    (INT_TAG, "int", RoundTripConstructor.construct_yaml_int),
    (FLOAT_TAG, "float", RoundTripConstructor.construct_yaml_float),
    (BOOL_TAG, "bool", RoundTripConstructor.construct_yaml_bool),
):
    _Constructor.add_constructor(_tag, _guarded(_kind, _build))
for _tag in (SET_TAG, OMAP_TAG, PAIRS_TAG):
    _Constructor.add_constructor(_tag, _refuse_collection)
_Constructor.add_constructor(TIMESTAMP_TAG, _Constructor.construct_yaml_timestamp)
_Constructor.add_constructor(STR_TAG, _Constructor.construct_yaml_str)
_Constructor.add_constructor(None, _Constructor.construct_unknown)
