"""Edge cases of ``parse_yaml`` that ruamel.yaml's stock round-trip loader
crashes on or reads oddly, and how the configured one reads them; and where
ruamel's reading differs from the libyaml-based reader it replaced
(``docs/yaml.md``, "The declaration file")."""

from __future__ import annotations

import warnings

import pytest

from lint.declarations import DeclarationError
from lint.declarations.reading import parse_yaml
from tests.declarations.test_reading_semantics import Lines


def refusal(text: str) -> DeclarationError:
    with pytest.raises(DeclarationError) as caught:
        parse_yaml(text, "f.yaml")
    return caught.value


def syntax(reason: str) -> str:
    return f"YAML syntax error: {reason}"


def tag(name: str) -> str:
    return f"has the YAML tag {name}, which this file does not support"


# Each of these raised a Python exception from the first reader.
CONSTRUCTION_FAILURES: list[tuple[str, int, str]] = [
    ("a: !!int x\n", 1, 'failed to construct int from "x"'),
    ("a: !!int\n", 1, 'failed to construct int from ""'),
    ("a: 0x_\n", 1, 'failed to construct int from "0x_"'),
    ("a:\n  - -_\n", 2, 'failed to construct int from "-_"'),
    ("a: !!float x\n", 1, 'failed to construct float from "x"'),
    ("a: [1, ._]\n", 1, 'failed to construct float from "._"'),
    ("a: !!bool x\n", 1, 'failed to construct bool from "x"'),
]


@pytest.mark.parametrize(("text", "line", "reason"), CONSTRUCTION_FAILURES)
def test_text_a_tag_or_pattern_claims_but_cannot_build_is_an_error(
    text: str, line: int, reason: str
) -> None:
    error = refusal(text)
    assert (error.path, error.line, error.message) == ("", line, syntax(reason))
    assert error.excerpt == text.splitlines()[line - 1]


@pytest.mark.parametrize(
    ("text", "kind"), [("<<: !c {a: 1}\n", "mapping"), ("<<: !c [a]\n", "sequence")]
)
def test_a_tag_on_a_merged_collection_is_refused(text: str, kind: str) -> None:
    # The first reader crashed on the one and ignored the tag of the other.
    error = refusal(text)
    assert (error.path, error.line) == ("", 1)
    assert error.message == syntax(
        f"while constructing a mapping, the {kind} to merge has the YAML tag !c, "
        "which is not supported"
    )


@pytest.mark.parametrize(
    ("text", "path", "line", "message"),
    [
        # An impossible date is still meant as a date.
        (
            "a: 2024-13-45\n",
            "a",
            1,
            "is a YAML date or timestamp, which JSON has no type for; quote it",
        ),
        ("2024-13-45: 1\n", "", 1, "the key '2024-13-45' is not a string; quote it"),
        # A self-reference below the root is refused too (it read as null).
        ("a: &x [*x]\n", "a[0]", 1, "refers to itself through a YAML alias"),
        ("a: &x {b: {c: *x}}\n", "a.b.c", 1, "refers to itself through a YAML alias"),
        # A tag on a collection is refused like one on a scalar (it was ignored).
        ("a: !custom {b: 1}\n", "a", 1, tag("!custom")),
        ("a: !custom [1]\n", "a", 1, tag("!custom")),
        ("a: !!str {b: 1}\n", "a", 1, tag("tag:yaml.org,2002:str")),
        ("a: !!set {b}\n", "a", 1, tag("tag:yaml.org,2002:set")),
        ("a: !!omap [b: 1]\n", "a", 1, tag("tag:yaml.org,2002:omap")),
        ("a: !!pairs [b: 1]\n", "a", 1, tag("tag:yaml.org,2002:pairs")),
        # A tagged key names its tag.
        ("!c a: 1\n", "", 1, "the key 'a' has the YAML tag !c, which this file does not support"),
        ("? !c [a]\n: 1\n", "", 1, "the key has the YAML tag !c, which this file does not support"),
        # An anchored boolean key shows as the boolean it is (it showed as 1).
        ("&a true: x\n", "", 1, "the key True is not a string; quote it"),
    ],
)
def test_values_that_are_refused(text: str, path: str, line: int, message: str) -> None:
    error = refusal(text)
    assert (error.path, error.line, error.message) == (path, line, message)


@pytest.mark.parametrize(
    ("text", "value", "lines"),
    [
        # A mapping made only of merged keys (it crashed).
        ("m:\n  <<: {x: 1}\n", {"m": {"x": 1}}, {(): 1, ("m",): 1, ("m", "x"): 1}),
        ("b: &b {x: 1}\nm: {<<: *b}\n", {"b": {"x": 1}, "m": {"x": 1}}, None),
        # Merging a mapping into itself adds nothing.
        ("&x {a: 1, <<: *x}\n", {"a": 1}, {(): 1, ("a",): 1}),
        ("a: &x {<<: *x}\n", {"a": {}}, {(): 1, ("a",): 1}),
        # `!!str` makes a string key, as it makes a string value.
        ("!!str 5: x\n", {"5": "x"}, {(): 1, ("5",): 1}),
        # An empty node tagged `!` is null, as an empty plain node is.
        ("a: !\nb: ! ''\n", {"a": None, "b": None}, {(): 1, ("a",): 1, ("b",): 2}),
        # Directives: YAML 1.3 reads as 1.2; unknown directives are ignored.
        ("%YAML 1.3\n---\na: yes\n", {"a": "yes"}, {(): 3, ("a",): 3}),
        ("%FOO bar\n---\na: yes\n", {"a": "yes"}, {(): 3, ("a",): 3}),
    ],
)
def test_values_that_read(text: str, value: object, lines: Lines | None) -> None:
    tree = parse_yaml(text, "f.yaml")
    assert tree.value == value
    if lines is not None:
        assert tree.lines == lines


# Where ruamel's reading differs from the libyaml-based reader's.


@pytest.mark.parametrize("text", ["a:\tb\n", "a: b\t\n", "a: 1 \t\n"])
def test_a_tab_between_tokens_is_a_syntax_error(text: str) -> None:
    # libyaml took the tab as a separator; ruamel's scanner refuses it.
    error = refusal(text)
    assert (error.path, error.line) == ("", 1)
    assert error.message == syntax(
        "while scanning for the next token, found character '\\t' that cannot start any token"
    )


def test_a_bare_document_after_an_end_marker_is_another_document() -> None:
    # YAML 1.2 allows it; libyaml refused the bare text after `...`.
    error = refusal("a: 1\n...\nb\n")
    assert (error.path, error.line) == ("", 3)
    assert error.message == syntax(
        "expected a single document in the stream, but found another document"
    )


def test_a_root_block_scalar_may_start_at_column_0() -> None:
    # YAML 1.2 allows it; libyaml refused it.
    assert parse_yaml("|\nx\n", "f.yaml").value == "x\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a: !<tag\n", "while parsing a tag, expected '>', but found '\\n'"),
        (
            'a: "\\xZZ"\n',
            "while scanning a double-quoted scalar, "
            "expected escape sequence of 2 hexadecimal numbers, but found 'Z'",
        ),
        ("{a: 1}}\n", "expected '<document start>', but found '}'"),
    ],
)
def test_syntax_errors_keep_their_wording(text: str, reason: str) -> None:
    # ruamel writes "expected '>' but", "hexdecimal" and ('}',) here.
    error = refusal(text)
    assert (error.line, error.message) == (1, syntax(reason))


def test_an_empty_key_is_a_null_key() -> None:
    # libyaml refused the line as a syntax error; ruamel reads a null key.
    error = refusal(": x\n")
    assert (error.path, error.line, error.message) == (
        "",
        1,
        "the key None is not a string; quote it",
    )


def test_an_anchor_name_may_hold_a_dot() -> None:
    # YAML 1.2 allows it; libyaml refused it.
    assert parse_yaml("&a.b x\n", "f.yaml").value == "x"


def test_only_cr_and_lf_count_as_line_breaks() -> None:
    # ruamel does not count NEL (U+0085) as a line break; the excerpt splits
    # the text as ruamel counts, so the two agree.
    error = refusal("a: 'x\x85y'\nb: !custom 1\n")
    assert (error.path, error.line, error.excerpt) == ("b", 2, "b: !custom 1")


def test_a_lone_surrogate_is_an_unacceptable_character() -> None:
    error = refusal("a: \ud800\n")
    assert (error.path, error.line) == ("", 1)
    assert error.message.startswith("YAML error: unacceptable character #xd800")


@pytest.mark.slow
@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_deep_nesting_is_an_error_not_a_crash(depth: int) -> None:
    error = refusal("[" * depth + "]" * depth)
    assert (error.path, error.line) == ("", 1)
    assert error.message == "YAML error: the document is nested too deeply"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A YAML 1.1 float without a dot, and a reused anchor: ruamel warns.
        ("%YAML 1.1\n---\nk: 1e2\n", {"k": 100.0}),
        ("a: &x 1\nb: &x 2\nc: *x\n", {"a": 1, "b": 2, "c": 2}),
    ],
)
def test_ruamel_warnings_never_reach_the_user(text: str, value: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_yaml(text, "f.yaml").value == value
