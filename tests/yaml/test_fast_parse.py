"""The yaml_rs fast path (``fast_parse``): whatever it vouches for is exactly
what the slow path builds, on the real corpus, on a generated tree and on
every case a gate or a walk rule exists for; and ``load()`` gives the same
result without yaml_rs.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml_rs
from hypothesis import given, settings
from hypothesis import strategies as st

import lint.loading.loader as loader_module
import lint.yaml.fast_parse as fast_parse_module
from lint.loading import LoadResult, load
from lint.loading.split import split_stream
from lint.yaml.fast_parse import fast_value
from lint.yaml.parse import parse_yaml
from tests.bench_tree import generate_tree
from tests.loading.helpers import load_text, strictly_equal
from tests.loading.reference import assert_agrees
from tests.yaml.fast_check import Tally, check_chunk, check_stream

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"
HEADER = "kind: NetworkPolicy\napiVersion: networking.k8s.io/v1\nmetadata:\n  name: web\n"

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present")


@pytest.fixture(scope="module")
def bench_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench")
    generate_tree(root, namespaces=1)
    return root


def check_load(root: Path) -> Tally:
    """``check_chunk`` on every document ``load()`` parses under ``root``."""
    tally = Tally()
    original = loader_module._load_chunk

    def checked(stream: Any, chunk: Any, reading: Any) -> None:
        piece = stream.text[chunk.start : chunk.end]
        if len(piece) <= reading.limits.max_document_size:
            tally.read += 1
            tally.vouched += check_chunk(stream.layout, piece, chunk, reading.limits)
        original(stream, chunk, reading)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loader_module, "_load_chunk", checked)
        load([str(root)])
    return tally


def load_without_yaml_rs(paths: list[str]) -> LoadResult:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_parse_module, "yaml_rs", None)
        return load(paths)


def assert_same_result(fast: LoadResult, slow: LoadResult) -> None:
    assert fast == slow
    for ours, theirs in zip(fast.documents, slow.documents, strict=True):
        assert strictly_equal(ours.value, theirs.value), (ours.file, ours.line)


# ---- the whole corpus and a generated tree ---------------------------------


@pytest.mark.slow
@needs_corpus
def test_corpus_documents_agree() -> None:
    tally = check_load(CORPUS)
    assert tally.read > 1000
    assert tally.vouched > 0.8 * tally.read


@pytest.mark.slow
@needs_corpus
def test_corpus_loads_the_same_without_yaml_rs() -> None:
    assert_same_result(load([str(CORPUS)]), load_without_yaml_rs([str(CORPUS)]))


def test_bench_tree_documents_agree_and_most_are_vouched(bench_tree: Path) -> None:
    tally = check_load(bench_tree)
    assert tally.read > 200
    # A gate that refused everything would pass every other test.
    assert tally.vouched > 0.9 * tally.read


def test_bench_tree_loads_the_same_without_yaml_rs(bench_tree: Path) -> None:
    assert_same_result(load([str(bench_tree)]), load_without_yaml_rs([str(bench_tree)]))


def test_without_yaml_rs_nothing_is_vouched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_parse_module, "yaml_rs", None)
    assert fast_value("a: 1\n", 100) is None


def test_the_module_imports_without_yaml_rs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml_rs", None)  # import yaml_rs now fails
    try:
        importlib.reload(fast_parse_module)
        assert fast_parse_module.yaml_rs is None
        assert fast_value("a: 1\n", 100) is None  # the loader's reference too
    finally:
        monkeypatch.undo()
        importlib.reload(fast_parse_module)
    assert fast_value("a: 1\n", 100) == {"a": 1}


# ---- each gate and walk rule -------------------------------------------------

# (lines after HEADER, the top-level key read, its value through load(),
# whether the fast path vouches). Each refused case reads wrongly without
# its gate or rule; each vouched one guards against a gate that is too wide.
CASES: list[tuple[str, str, Any, bool]] = [
    # YAML 1.1 words that YAML 1.2 leaves as strings (walk: resolve_plain).
    ("a: yes\n", "a", True, False),
    ("a: off\n", "a", False, False),
    ("a: [x, y]\n", "a", ["x", True], False),
    ("on: x\n", "true", "x", False),
    ("y: 1\n", "true", 1, False),
    # Quoted: a string for both, proved by yaml_rs resolving the plain form.
    ('a: "53"\n', "a", "53", True),
    ("a: 'true'\n", "a", "true", True),
    ('a: "1.20"\n', "a", "1.20", True),
    ('"80": x\n', "80", "x", True),
    # yaml_rs does not resolve `yes`, so a quoted one proves nothing alone;
    # the text does: it holds `yes` nowhere a plain scalar could be.
    ("a: 'yes'\n", "a", "yes", True),
    # Leading zeros: octal or float for go-yaml, decimal for yaml_rs.
    ("a: 010\n", "a", 8, False),
    ("a: -010\n", "a", -8, False),
    ("a: 08\n", "a", 8.0, False),
    ("a: 0_10\n", "a", 8, False),
    ("a: [+_010]\n", "a", [8], False),
    ("a: {b: 0440}\n", "a", {"b": 288}, False),
    ("a: 0_b1\n", "a", 1, False),  # yaml_rs: a string; go-yaml: 1 (walk)
    ("name: np-0106\n", "name", "np-0106", True),
    ("a: 10.0.0.0/8\n", "a", "10.0.0.0/8", True),
    ("a: 2024-01-21T19:20:05Z\n", "a", "2024-01-21T19:20:05Z", True),
    ("uid: 08a0299b\n", "uid", "08a0299b", True),
    ("a: 0\n", "a", 0, True),
    # Underscores and dots: yaml_rs drops underscores where go-yaml does not.
    ("a: _1\n", "a", "_1", False),
    ("a: ._5\n", "a", "._5", False),
    ("a: .5_\n", "a", ".5_", False),
    ("a: .5\n", "a", 0.5, False),
    ("a: 1_000\n", "a", 1000, True),
    ("a: x_1\n", "a", "x_1", True),
    # Number forms both read alike.
    ("a: -0x1F\n", "a", -31, True),
    ("a: 0o17\n", "a", 15, True),
    ("a: 0b101\n", "a", 5, True),
    ("a: 1e3\n", "a", 1000.0, True),
    ("a: 1.\n", "a", 1.0, True),
    ("a: -0.0\n", "a", -0.0, True),
    ("a: =\n", "a", "=", True),
    ("a: inf\n", "a", "inf", True),
    ("a: TRUE\n", "a", True, True),
    ("a: Null\n", "a", None, True),
    # Ints past int64, infinities and NaN (walk).
    ("a: 9223372036854775807\n", "a", 2**63 - 1, True),
    ("a: 12345678901234567890\n", "a", 12345678901234567890, False),
    ("a: -9223372036854775809\n", "a", -9223372036854775809.0, False),
    ("a: 0xFFFFFFFFFFFFFFFFFF\n", "a", "0xFFFFFFFFFFFFFFFFFF", False),
    ("a: 1e400\n", "a", "1e400", False),
    ("a: .inf\n", "a", float("inf"), False),
    ("a: .nAn\n", "a", ".nAn", False),
    # Node properties and merges (text gates).
    ('a: "*"\n', "a", "*", True),
    ("a: '*.example.com'\n", "a", "*.example.com", True),
    ("b: &x 1\na: *x\n", "a", 1, False),
    ("a: !!str 12\n", "a", "12", False),
    ("a: ! 12\n", "a", "12", False),
    ("<<: {a: 1}\n", "a", 1, False),
    # Text yaml_rs reads differently.
    ("a: b\tc\n", "a", "b\tc", False),
    ("a: é\n", "a", "é", False),
    ('a: "x\\ty\\u00e9"\n', "a", "x\ty\u00e9", True),
    ("a: |\n  x\n  y\n", "a", "x\ny\n", True),
    ("a: >-\n  x\n\n  y\n", "a", "x\ny", True),
    ("a: |\n", "a", "", False),  # an empty block scalar at the end (walk)
    ("a: >\n\n", "a", "", False),
    ("a: |+\n\n", "a", "\n", False),  # the same "\n", refused all the same
    ("a: x\n  y\n", "a", "x y", True),
    ("a: b c\n", "a", "b c", True),
    ("a b: c\n", "a b", "c", False),  # a key that may span lines in flow
    ("a: {b: c, d: [e, f]}\n", "a", {"b": "c", "d": ["e", "f"]}, True),
    ("a: {? b}\n", "a", {"b": None}, True),
    ('a: {"b":c}\n', "a", {"b": "c"}, True),
    ("a: {?b: 1}\n", "a", {"b": 1}, False),  # libyaml: '?' is an indicator
    ("a: '|x'\n", "a", "|x", False),
]


@pytest.mark.parametrize(("lines", "key", "expected", "vouched"), CASES)
def test_case(lines: str, key: str, expected: Any, vouched: bool, tree: Path) -> None:
    text = HEADER + lines
    assert (fast_value(text, 100) is not None) == vouched
    result = load_text(tree, text)
    assert result.problems == ()
    (document,) = result.documents
    assert strictly_equal(document.value[key], expected)
    assert check_stream(text).vouched == vouched


# Text libyaml refuses and yaml_rs would read: the fast path must refuse it.
REFUSED: list[str] = [
    "a: b\x01c\n",
    "a: b\x7fc\n",
    'a: "b\x0cc"\n',
    "a: {b:}\n",
    "a: [b:]\n",
    "a: {b:, c: d}\n",
    "a: [|]\n",
    "a: {b: |\n  x\n}\n",
    "a: [>x]\n",
    "a: {?}\n",
    "a: {b\n  : c}\n",
    'a: {"b"\n  : c}\n',
    'a: {"b\n  c": d}\n',
    "a: {b\n  c: d}\n",
    'a: {"b\\\n  c": d}\n',
    "a: {::}\n",
    ": b\n",
    "x: [a, b]\n[c]: d\n",
]


@pytest.mark.parametrize("lines", REFUSED)
def test_refused_by_libyaml_is_never_vouched(lines: str, tree: Path) -> None:
    text = HEADER + lines
    yaml_rs.loads(text, parse_datetime=False)  # which yaml_rs reads
    assert fast_value(text, 100) is None
    result = load_text(tree, text)
    assert result.documents == ()
    assert [p.severity for p in result.problems] == ["error"]


def test_lone_cr_is_not_vouched() -> None:
    # libyaml breaks the line there, yaml_rs does not.
    assert fast_value("a: b\rc: d\n", 100) is None
    assert fast_value("a: b\r\nc: d\r\n", 100) == {"a": "b", "c": "d"}


def test_block_scalar_at_the_end_without_a_line_break() -> None:
    # yaml_rs adds the missing final line break, libyaml does not.
    assert fast_value("a: |\n  x", 100) is None
    assert fast_value("a: |\r\n  x", 100) is None
    assert parse_yaml("a: |\n  x").value == {"a": "x"}
    # Without a block scalar header, the missing line break changes nothing.
    assert fast_value("a: x|y\nb: x", 100) == {"a": "x|y", "b": "x"}


@pytest.mark.parametrize(
    ("text", "vouched"),
    [
        ("a: |\n  x\nb: z", True),  # the block scalar ends before the last line
        ("a: |\n  x\nb: [c, {d: e}]", True),
        ("a: |-\n  x", True),  # stripped: no line break to add
        ("a: |\n  x\nb: ''", True),
        ("a: |\n  x\nb: {}", True),
        ("a: |\n  x\n# end", False),  # it ends with a line break either way: not told apart
        ("a: >\n  x\n  y", False),
        ("a: |+\n  x\n", True),
        ("a: |+\n  x\n  ", False),
        ("a:\n- b: 1\n- |\n  x", False),
        ("b: [1]\na:\n  c:\n    d: |2\n      x", False),
    ],
)
def test_without_a_final_line_break_the_last_scalar_decides(text: str, vouched: bool) -> None:
    """Only the last scalar of a text can be a block scalar running to its
    end: the text is vouched for unless yaml_rs read that one as a string
    ending in a line break (which check_stream holds against libyaml)."""
    assert (fast_value(text, 100) is not None) == vouched
    assert check_stream(text).vouched == vouched


def test_repeated_key_is_left_to_the_slow_path(tree: Path) -> None:
    text = HEADER + "a: 1\na: 2\n"
    assert fast_value(text, 100) is None
    result = load_text(tree, text)
    assert result.documents[0].value["a"] == 2
    assert [p.severity for p in result.problems] == ["warning"]


def test_directive_is_left_to_the_slow_path() -> None:
    assert fast_value("%YAML 1.1\n---\na: 1\n", 100) is None


def test_depth_limit_is_left_to_the_slow_path() -> None:
    nested = "".join(" " * level + "a:\n" for level in range(5)) + "     b\n"
    assert fast_value(nested, 4) is None
    assert fast_value(nested, 5) == {"a": {"a": {"a": {"a": {"a": "b"}}}}}
    flow = "[" * 8 + "]" * 8 + "\n"
    assert fast_value(flow, 7) is None
    assert fast_value(flow, 8) is not None


@pytest.mark.parametrize(
    "text",
    [
        "- " * 20_000 + "x\n",
        "".join(" " * n + "k:\n" for n in range(0, 20_000, 50)),
        "a:\n" + " " * 150 + "b: c\n",
        "? " * 80 + "- " * 80 + "x\n",
    ],
)
def test_deep_text_never_reaches_yaml_rs(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # yaml_rs recurses per block level and crashes the process near ten
    # thousand levels; text that could nest that deep is never handed to it.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("yaml_rs was called")

    monkeypatch.setattr(fast_parse_module.yaml_rs, "loads", refuse)
    assert fast_value(text, 100) is None


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("kind: A\n", 1),
        ("# c\n\n---\n# d\n\nkind: A\n", 6),
        ("--- {kind: A}\n", 1),
        ("--- # c\n- a\n", 2),
        ("\n  [a,\n  b]\n", 2),
        ("kind: A\r\nb: c\r\n", 1),
    ],
)
def test_first_content_line_is_the_slow_paths(text: str, line: int) -> None:
    # check_stream asserts the fast line is the slow path's.
    assert check_stream(text) == Tally(read=1, vouched=1)
    (chunk,) = split_stream(text)
    assert chunk.content is not None
    assert chunk.line_at(text, chunk.content) == line


def test_list_items_keep_their_lines(tree: Path) -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- kind: NetworkPolicy\n  metadata: {name: a}\n"
        "\n"
        "- kind: NetworkPolicy\n  metadata:\n    name: b\n"
    )
    assert fast_value(text, 100) is not None
    fast = load_text(tree, text)
    assert [d.line for d in fast.documents] == [4, 7]
    assert_same_result(fast, load_without_yaml_rs(["m.yaml"]))
    assert_agrees(fast, "m.yaml", text)


# ---- scalars, token by token -------------------------------------------------

# Characters plain numbers, words and yaml_rs's own number forms are made of.
_TOKEN_ALPHABET = "_+-.0123456789xXoObBeEiInNfFaAtTrRuUlLsSyY~"
_NUMBER_ALPHABET = "_+-.019xobe"
_CONTEXTS = ("a: {}\n", "{}: a\n", "- [{}]\n", '{{"k":{}}}\n')


def _tokens() -> Iterator[str]:
    for size in (1, 2):
        yield from map("".join, itertools.product(_TOKEN_ALPHABET, repeat=size))
    for size in (3, 4):
        yield from map("".join, itertools.product(_NUMBER_ALPHABET, repeat=size))


@pytest.mark.slow
def test_every_short_token_agrees_where_vouched() -> None:
    tally = Tally()
    for token in _tokens():
        for context in _CONTEXTS:
            tally.add(check_stream(context.format(token)))
    assert tally.vouched > 0.8 * tally.read


@settings(max_examples=300, deadline=None)
@given(token=st.text(alphabet=_TOKEN_ALPHABET + "#:,[]{}'\" ", min_size=1, max_size=12))
def test_random_tokens_agree_where_vouched(token: str) -> None:
    for context in _CONTEXTS:
        check_stream(context.format(token))


@settings(max_examples=300, deadline=None)
@given(
    mantissa=st.text(alphabet="0123456789", min_size=1, max_size=40),
    point=st.integers(min_value=0, max_value=40),
    exponent=st.one_of(st.none(), st.integers(min_value=-400, max_value=400)),
)
def test_long_decimals_read_alike(mantissa: str, point: int, exponent: int | None) -> None:
    # Both read decimal floats correctly rounded, however long the mantissa.
    number = mantissa[:point] + "." + mantissa[point:]
    if exponent is not None:
        number += f"e{exponent}"
    check_stream(f"a: {number}\nb: -{number}\n")


# ---- sharing: one object per key and per recent string ----------------------


def test_vouched_documents_share_their_keys_and_strings() -> None:
    text = (
        "kind: NetworkPolicy\nmetadata: {name: a}\nspec:\n"
        "  policyTypes: [Egress]\n  egress:\n  - ports: [{protocol: TCP, port: 53}]\n"
    )
    first, second = fast_value(text, 100), fast_value(text.replace("name: a", "name: b"), 100)
    assert isinstance(first, dict) and isinstance(second, dict)
    # The values are yaml_rs's, key order included...
    assert strictly_equal(first, yaml_rs.loads(text, parse_datetime=False))
    # ...built from the same key and string objects.
    first_port = first["spec"]["egress"][0]["ports"][0]
    second_port = second["spec"]["egress"][0]["ports"][0]
    pairs = [
        (next(iter(first)), next(iter(second))),
        (next(iter(first_port)), next(iter(second_port))),
        (first["kind"], second["kind"]),
        (first["spec"]["policyTypes"][0], second["spec"]["policyTypes"][0]),
        (first_port["protocol"], second_port["protocol"]),
    ]
    assert all(ours is theirs for ours, theirs in pairs)
    assert first["metadata"]["name"] != second["metadata"]["name"]


@pytest.mark.parametrize("word", ["y", "on", "|x", "No"])
def test_a_string_that_reads_otherwise_is_refused_every_time(word: str) -> None:
    """Only strings that read the same are remembered for sharing, so a
    remembered string is known to agree: one that does not is refused
    however often it comes, as a value and as an item."""
    quoted = fast_value(HEADER + f"a: '{word}'\n", 100)  # a quoted '|x' is fine
    for _ in range(3):
        assert fast_value(HEADER + f"a: {word}\nb: ok\n", 100) is None
        assert fast_value(HEADER + f"a: [ok, {word}]\n", 100) is None
    assert (fast_value(HEADER + f"a: '{word}'\n", 100) is None) == (quoted is None)


@pytest.mark.parametrize(
    ("lines", "vouched"),
    [
        ("# Egress — see the README → below\na: b\n", True),
        ("a: |\n  # — kept, as the block's text\n  x\n", True),
        ('a: "x\n  # \u2013 folded in"\n', True),
        ("a:\n  # café, \u2018quoted\u2019\n  b: c\n", True),
        ("a: b  # — after a value\n", False),  # not a comment line
        ("a: café\n", False),
        ("# a\u00a0non-breaking space\na: b\n", False),  # blank for yaml_rs
        ("# a line\u2028separator\na: b\n", False),  # a line break for libyaml
        ("# a\ufeffbyte order mark\na: b\n", False),
    ],
)
def test_non_ascii_text_only_on_comment_lines(lines: str, vouched: bool) -> None:
    """Dashes, quotes, arrows and Latin letters on comment lines leave a
    document to yaml_rs (check_stream holds its value and line against
    libyaml's); anything else non-ASCII leaves it to libyaml."""
    text = HEADER + lines
    assert (fast_value(text, 100) is not None) == vouched
    assert check_stream(text).vouched == vouched


@pytest.mark.parametrize(
    ("lines", "vouched"),
    [
        ("a: 'y'\nb: \"yes\"\nc: ['on', \"n\"]\n", True),  # four words, each quoted
        ("a: 'y'\nb: x-y\nc: \"a y\"\nd: 'y z'\n", True),  # inside other scalars
        ("a: 'y'\nb: y\n", False),  # also plain: true for go-yaml
        ("a: 'y'\nb: [x,y]\n", False),
        ('a: "y"\nb: {"c":y}\n', False),
        ("a: 'y'\nb: |\n  y\n", False),  # a block scalar: refused all the same
        ("a: 'y'  # y\n", False),  # a comment: refused all the same
        ("'y': 1\n", False),  # a key is never let through
        ("a: ['y', 'yes', 'on', 'n', 'off']\n", False),  # past the number of words tried
    ],
)
def test_a_word_only_quoted_in_the_text_is_a_string(lines: str, vouched: bool) -> None:
    """A word go-yaml resolves when plain (``y``, ``yes``) is vouched for
    when the text holds it nowhere a plain scalar could (check_stream holds
    the value against libyaml's)."""
    text = HEADER + lines
    assert (fast_value(text, 100) is not None) == vouched
    assert check_stream(text).vouched == vouched


_GATE_PIECES = [
    "&a",
    "*",
    "!t",
    '"*"',
    "'&'",
    "a*b",
    " ",
    "\n",
    ":",
    " :",
    "\n:",
    "[",
    "{",
    ",",
    "-",
    "x",
    "é",
    "\t",
]


@settings(max_examples=1_000, deadline=None)
@given(st.lists(st.sampled_from(_GATE_PIECES), max_size=16).map("".join))
def test_the_gates_searches_find_what_one_search_of_the_whole_text_finds(text: str) -> None:
    """An anchor, alias or tag is searched for one character at a time, and a
    ':' opening a line only in a text holding '\\n:' or ' :': each answers
    as the single pattern it stands for."""
    prop = re.compile(rf"[&*!]{fast_parse_module._token_start(1)}").search(text) is not None
    per_character = any(
        start in text and pattern.search(text) is not None
        for start, pattern in fast_parse_module._PROPERTIES
    )
    assert per_character == prop
    opens_line = re.search(r"\n[ ]*:", text) is not None
    searched = (" :" in text or "\n:" in text) and (
        fast_parse_module._VALUE_OPENS_LINE.search(text) is not None
    )
    assert searched == opens_line
