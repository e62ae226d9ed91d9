"""A plain file read straight from its nodes (``plain_nodes``) reads as the
round-trip constructor and ``reading``'s copy read it: the same values of
the same types, the same line for every key and item, in the same order;
and every file it does not vouch for, with every error, is read by them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.declarations import reading
from lint.declarations.errors import DeclarationError
from lint.declarations.plain_nodes import PlainTree, plain_tree
from lint.declarations.ruamel_loader import compose_in_c, load
from tests.bench_tree import generate_tree
from tests.declarations.test_ruamel_paths import _KEYS, _TREES, _block, _declaration_files

REPO = Path(__file__).resolve().parents[2]


def _typed(value: Any) -> Any:
    """The value with the exact type of every part (True is not 1)."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _reading(text: str) -> Any:
    """What ``parse_yaml`` makes of ``text``: its value, lines in order, or
    its error."""
    try:
        tree = reading.parse_yaml(text, "f.yaml")
    except DeclarationError as error:
        return ("error", error.path, error.line, error.message, error.excerpt)
    return ("tree", _typed(tree.value), list(tree.lines.items()))


def _full_reading(text: str) -> Any:
    """The same, with the reading straight from the nodes turned off."""
    with mock.patch.object(reading, "plain_tree", lambda node: None):
        return _reading(text)


def _assert_alike(text: str) -> None:
    assert _reading(text) == _full_reading(text), text


@pytest.mark.parametrize("path", _declaration_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_declaration_file_in_the_repository_reads_alike(path: Path) -> None:
    _assert_alike(path.read_text(encoding="utf-8"))


def test_the_bench_declaration_file_is_read_straight_from_its_nodes(tmp_path: Path) -> None:
    generate_tree(tmp_path, namespaces=3)
    text = (tmp_path / ".egress-lint.yaml").read_text(encoding="utf-8")
    assert isinstance(load(text, plain=plain_tree), PlainTree)
    _assert_alike(text)


@settings(max_examples=300, deadline=None)
@given(tree=st.dictionaries(_KEYS, _TREES, min_size=1, max_size=5))
def test_generated_documents_read_alike(tree: dict[str, Any]) -> None:
    _assert_alike(_block(tree, 0).lstrip("\n") + "\n")


@settings(max_examples=200, deadline=None)
@given(tree=st.dictionaries(_KEYS, _TREES, min_size=1, max_size=5))
def test_generated_flow_documents_read_alike(tree: dict[str, Any]) -> None:
    _assert_alike(json.dumps(tree, ensure_ascii=False) + "\n")


PLAIN = [
    "a: x\nb: [1, -2, +3, 007, true, False, null, ~, '', 'q', \"d\"]\n",
    "- a\n- {b: c}\n- - d\n",
    "just text\n",
    "k: |\n  line\n  two\n",
    "a: &x [1]\nb: *x\n",  # an alias reads as a copy, lines and all
    "a: &x 1\nb: *x\n",
    "? |\n  a key\n  on lines\n: v\n",
    "? a long\n  key\n: [v,\n  w]\n",
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_files_are_read_straight_from_their_nodes(text: str) -> None:
    node = compose_in_c(text)
    assert node is not None
    assert plain_tree(node) is not None
    _assert_alike(text)


NOT_PLAIN = [
    "a: 1.5\n",
    "a: 1e2\n",
    "a: 0x1f\n",
    "a: 0o17\n",
    "a: 1_000\n",
    "a: 2001-01-01\n",
    "a: >\n  folded\n  text\n",
    "a: 1\na: 2\n",
    "base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n",
    "1: a\n",
    "true: a\n",
    "null: a\n",
    "[a]: b\n",
    "a: &x [*x]\n",
    "a: &x {b: *x}\n",
    "a: =\n",
    "a: " + "9" * 5_000 + "\n",
    "[" * 65 + "]" * 65 + "\n",
]


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_other_files_are_left_to_the_full_reading(text: str) -> None:
    node = compose_in_c(text)
    assert node is not None
    assert plain_tree(node) is None
    _assert_alike(text)


def test_the_deepest_plain_nesting_is_the_c_path_s() -> None:
    """63 brackets and the scalar inside are 64 levels: still built from
    the nodes, as the C path builds them; one more is not."""
    node = compose_in_c("[" * 63 + "x" + "]" * 63 + "\n")
    assert node is not None and plain_tree(node) is not None
    deeper = compose_in_c("[" * 64 + "x" + "]" * 64 + "\n")
    assert deeper is not None and plain_tree(deeper) is None
