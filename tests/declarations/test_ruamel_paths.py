"""The declaration file's two ruamel paths read alike: text that
``composed_alike`` vouches for, composed by the C parser and built by the
round-trip constructor, gives the value, the types and the line of every key
and item that the pure-Python round-trip parser gives; everything else, and
every error, goes to the round-trip parser itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.resolver import VersionedResolver

from lint.declarations import ruamel_loader
from lint.declarations.ruamel_loader import (
    composed_alike,
    load,
    load_composed_in_c,
    load_round_trip,
)
from lint.yaml.tags import BOOL_TAG, INT_TAG, NULL_TAG, STR_TAG
from tests.bench_tree import generate_tree

REPO = Path(__file__).resolve().parents[2]


def _shape(value: Any) -> Any:
    """The value with its exact types and the lines and columns of every
    container, key and item, for comparing two readings. (The position of an
    empty value differs between the two parsers; reading never uses it.)"""
    if isinstance(value, CommentedMap):
        items = [(_shape(k), _shape(v)) for k, v in value.items()]
        return (
            "map",
            value.lc.line,
            value.lc.col,
            sorted(((k, p[:2]) for k, p in (value.lc.data or {}).items()), key=repr),
            items,
        )
    if isinstance(value, CommentedSeq):
        items = [_shape(v) for v in value]
        return (
            "seq",
            value.lc.line,
            value.lc.col,
            sorted((i, p[:2]) for i, p in (value.lc.data or {}).items()),
            items,
        )
    return (type(value).__name__, repr(value))


def _outcome(read: Any, text: str) -> Any:
    try:
        return ("value", _shape(read(text)))
    except (YAMLError, RecursionError) as error:
        return ("error", type(error).__name__)


def _assert_alike(text: str) -> None:
    assert composed_alike(text), text
    round_trip = _outcome(load_round_trip, text)
    if round_trip[0] == "error":
        # Errors are always worded by the round-trip parser: load() falls back.
        assert _outcome(load, text) == round_trip
        return
    assert _outcome(load_composed_in_c, text) == round_trip, text


def _declaration_files() -> list[Path]:
    found = sorted(REPO.glob("fixtures/**/.egress-lint.yaml"))
    found += sorted(REPO.glob("docs/**/*.yaml"))
    return found


@pytest.mark.parametrize("path", _declaration_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_declaration_file_in_the_repository_reads_alike(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if composed_alike(text):
        _assert_alike(text)
    else:
        assert _outcome(load, text) == _outcome(load_round_trip, text)


def test_the_bench_declaration_file_reads_alike(tmp_path: Path) -> None:
    generate_tree(tmp_path, namespaces=3)
    _assert_alike((tmp_path / ".egress-lint.yaml").read_text(encoding="utf-8"))


_SCALARS = st.sampled_from(
    [
        "x",
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "~",
        "null",
        "Null",
        "true",
        "False",
        "0",
        "-0",
        "017",
        "0o17",
        "0x1f",
        "0b101",
        "1_000",
        "1e2",
        "1.5e-3",
        ".5",
        "-.inf",
        ".NaN",
        "1:30",
        "2001-01-01",
        "2001-12-14t21:59:43.10-05:00",
        "'quoted'",
        '"dq \\u00e9"',
        "'it''s'",
        "a b",
        "a:b",
        "-x",
        "?x",
        "*.pypi.org",
        "'*.pypi.org'",
        "api.github.com",
        "10.0.0.0/8",
        "[]",
        "{}",
        "[a, b]",
        "{a: 1}",
        "''",
        '""',
        "#not",
        "'#q'",
        "|-\n  lit",
        ">\n  folded",
        "é",
        "日本",
    ]
)
_KEYS = st.sampled_from(["a", "b", "template", "egress", "policy", "kind", "on", "1", "'k'"])


def _block(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return " {}"
        return "".join(f"\n{pad}{k}:{_block(v, indent + 2)}" for k, v in value.items())
    if isinstance(value, list):
        if not value:
            return " []"
        return "".join(f"\n{pad}-{_block(v, indent + 2)}" for v in value)
    return f" {value}".replace("\n", "\n" + pad + "  ")


_TREES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(tree=st.dictionaries(_KEYS, _TREES, min_size=1, max_size=5))
def test_generated_documents_read_alike(tree: dict[str, Any]) -> None:
    text = _block(tree, 0).lstrip("\n") + "\n"
    if composed_alike(text):
        _assert_alike(text)


@settings(max_examples=200, deadline=None)
@given(tree=st.dictionaries(_KEYS, _TREES, min_size=1, max_size=5))
def test_generated_flow_documents_read_alike(tree: dict[str, Any]) -> None:
    text = json.dumps(tree, ensure_ascii=False) + "\n"
    _assert_alike(text)


@pytest.mark.parametrize(
    "text",
    [
        "%YAML 1.1\n---\nk: yes\n",
        "# c\n%YAML 1.1\n---\nk: on\n",
        "a: !\nb: ! ''\n",
        "a:\tb\n",
        "a: b\r\nc: d\r\n",
        "a: 'x\x85y'\n",
        "a: \ud800\n",
        "\ufeffa: 1\n",
    ],
)
def test_text_the_c_parser_reads_differently_goes_to_the_round_trip_parser(text: str) -> None:
    assert not composed_alike(text)
    with mock.patch.object(ruamel_loader, "load_composed_in_c") as fast:
        assert _outcome(load, text) == _outcome(load_round_trip, text)
    fast.assert_not_called()


@pytest.mark.slow
@pytest.mark.parametrize("depth", [65, 199, 500, 2_000])
def test_deep_trees_are_left_to_the_round_trip_parser(depth: int) -> None:
    """Past 64 levels the C-composed nodes are not built; what the
    round-trip parser makes of the text (a tree, or RecursionError) stands."""
    for text in (
        "[" * depth + "]" * depth,
        "".join("  " * i + "a:\n" for i in range(depth)) + "  " * depth + "x\n",
    ):
        assert _outcome(load, text) == _outcome(load_round_trip, text)


def test_text_too_deep_for_the_c_parser_never_reaches_it() -> None:
    text = "[" * 40_000 + "]" * 40_000
    assert not composed_alike(text)  # the C parser would crash the process


def test_the_c_path_is_taken_for_a_plain_file() -> None:
    text = "version: 1\nsandboxes:\n  - template: t\n    egress: {policy: {kind: deny-all}}\n"
    with mock.patch.object(ruamel_loader, "load_round_trip", side_effect=AssertionError):
        value = load(text)
    assert value["sandboxes"][0].lc.line == 2
    assert value["sandboxes"][0]["egress"].lc.key("policy") == (3, 13)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_nested = st.recursive(
    st.sampled_from(["a", "b-c", "?", 1, None]),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(st.sampled_from(["k", "l-m", "n"]), inner, min_size=1, max_size=3),
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_nested, st.sampled_from([False, None, True]), st.sampled_from([2, 4]))
def test_the_nesting_bound_is_never_below_the_depth(
    value: object, flow: bool | None, indent: int
) -> None:
    """The C parser is trusted only below the bound, so it must never
    under-count: block, flow and mixed styles, and compact sequences."""
    text = yaml.safe_dump(value, default_flow_style=flow, indent=indent)
    assert ruamel_loader._nesting_bound(text) >= _depth(yaml.safe_load(text))


@pytest.mark.parametrize("entries", [1_500, 8_000])
def test_a_long_declaration_file_takes_the_c_path(entries: int) -> None:
    """Thousands of entries nest five levels deep. Up to about 2,000
    flow mappings the quick bound says so; past it (each flow bracket counts
    there) the C parser's events count the depth, and the file still goes
    to the C parser, not to the pure-Python one."""
    entry = (
        "  - template: tpl-{0}\n    namespace: team\n    egress: {{policy: {{kind: deny-all}}}}\n"
    )
    text = "version: 1\nsandboxes:\n" + "".join(entry.format(i) for i in range(entries))
    assert text.count("\n") > 4_000  # the earlier bound counted every line
    assert composed_alike(text)
    assert ruamel_loader._nesting_depth(text) == 5
    with mock.patch.object(ruamel_loader, "load_round_trip", side_effect=AssertionError):
        value = load(text)
    assert len(value["sandboxes"]) == entries


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("a: 1\n", 1),
        ("[[[[1]]]]\n", 4),
        ("a: [b, {c: [d]}]\n", 4),
        ("a: '[[[{{{'\n", 1),
        ("- - - a\n", 3),
        ("a: 1\n---\n[[b]]\n", 2),
        ("", 0),
    ],
)
def test_the_event_count_is_the_depth(text: str, depth: int) -> None:
    assert ruamel_loader._nesting_depth(text) == depth


def test_text_the_events_cannot_read_counts_past_the_bound() -> None:
    assert ruamel_loader._nesting_depth("a: [\n") > ruamel_loader._C_NESTING_BOUND


def test_many_flow_levels_are_still_too_deep_by_the_events() -> None:
    """Past the quick bound, the events still refuse a text that nests
    deeper than the C composer may go."""
    depth = ruamel_loader._C_NESTING_BOUND + 1
    text = "[" * depth + "]" * depth
    assert ruamel_loader._nesting_depth(text) == depth
    assert not composed_alike(text)


@settings(max_examples=200, deadline=None)
@given(_nested, st.sampled_from([False, None, True]), st.sampled_from([2, 4]))
def test_the_event_count_is_the_depth_of_any_tree(
    value: object, flow: bool | None, indent: int
) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, indent=indent)
    assert ruamel_loader._nesting_depth(text) == _depth(yaml.safe_load(text))


def test_the_c_path_looks_the_tag_table_up_once_per_document() -> None:
    """The table of implicit tags is the same for every scalar of a
    document the C parser composes; asking for it per scalar cost half of
    the composing time."""
    asked = []
    stock: Any = VersionedResolver.processing_version  # a property

    def counted(resolver: VersionedResolver) -> Any:
        asked.append(1)
        return stock.fget(resolver)

    text = "".join(f"k{i}: [v, {i}, true, null]\n" for i in range(50))
    with mock.patch.object(VersionedResolver, "processing_version", property(counted)):
        node = ruamel_loader.compose_in_c(text)
    assert node is not None
    assert [item.tag for item in node.value[-1][1].value] == [STR_TAG, INT_TAG, BOOL_TAG, NULL_TAG]
    assert len(asked) == 1
    assert _outcome(load_composed_in_c, text) == _outcome(load_round_trip, text)
