"""What ``parse_yaml`` reads from the declaration file, pinned case by case.

The declaration file is read as YAML 1.2 with the core schema (the reading
ruamel.yaml's round-trip loader gave it first): these tables fix every
scalar form, tag, merge and line rule, and the exact text of the errors, so
that a change of parser cannot change what a file means.
"""

from __future__ import annotations

import math

import pytest

from lint.declarations import DeclarationError
from lint.declarations.reading import parse_yaml

Lines = dict[tuple[str | int, ...], int]


def value_of(scalar: str) -> object:
    value = parse_yaml(f"k: {scalar}\n", "f.yaml").value
    assert isinstance(value, dict)
    return value["k"]


def refusal(text: str) -> DeclarationError:
    with pytest.raises(DeclarationError) as caught:
        parse_yaml(text, "f.yaml")
    assert caught.value.file == "f.yaml"
    return caught.value


# --- plain scalars: the YAML 1.2 core schema ----------------------------------------

PLAIN_SCALARS: list[tuple[str, object]] = [
    # Booleans: only the three spellings of true and false.
    ("true", True),
    ("True", True),
    ("TRUE", True),
    ("false", False),
    ("False", False),
    ("FALSE", False),
    ("tRue", "tRue"),
    ("yes", "yes"),
    ("no", "no"),
    ("on", "on"),
    ("off", "off"),
    ("y", "y"),
    ("n", "n"),
    ("Yes", "Yes"),
    ("NO", "NO"),
    # Null.
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("nULL", "nULL"),
    ("~", None),
    ("", None),
    # Integers: decimal (a leading zero is not octal), 0o, 0x, 0b, underscores.
    ("0", 0),
    ("00", 0),
    ("0777", 777),
    ("09", 9),
    ("0_9", 9),
    ("+5", 5),
    ("-5", -5),
    ("+0", 0),
    ("-0", 0),
    ("1_000", 1000),
    ("1__0", 10),
    ("1_", 1),
    ("_1", "_1"),
    ("0o17", 15),
    ("0O17", "0O17"),
    ("0o8", "0o8"),
    ("0x1F", 31),
    ("0x1f", 31),
    ("-0x1F", -31),
    ("0X1F", "0X1F"),
    ("0b101", 5),
    ("0B1", "0B1"),
    ("0b2", "0b2"),
    ("0x", "0x"),
    ("0o", "0o"),
    ("0b", "0b"),
    ("1:30", "1:30"),
    ("190:20:30", "190:20:30"),
    # Floats: a dot or an exponent; `.5e2` needs a signed exponent.
    ("1.5", 1.5),
    ("1.", 1.0),
    ("08.5", 8.5),
    ("1_0.5", 10.5),
    ("1.0_0", 1.0),
    ("0.0", 0.0),
    ("1e2", 100.0),
    ("1E2", 100.0),
    ("1e+2", 100.0),
    ("1e-2", 0.01),
    ("1.e2", 100.0),
    ("-1e2", -100.0),
    ("+1e2", 100.0),
    ("12e03", 12000.0),
    ("1.5e", "1.5e"),
    (".5", 0.5),
    ("+.5", 0.5),
    ("-.5", -0.5),
    (".5e2", ".5e2"),
    (".5e+2", 50.0),
    ("1:30.5", "1:30.5"),
    (".inf", math.inf),
    (".Inf", math.inf),
    (".INF", math.inf),
    ("-.inf", -math.inf),
    ("+.inf", math.inf),
    ("inf", "inf"),
    ("-.nan", "-.nan"),
    ("nan", "nan"),
    # Dates need both dashes and two-digit month and day; others are strings.
    ("2024-1-1", "2024-1-1"),
    ("21:59:43.10", "21:59:43.10"),
    # Plain text.
    ("a.example.com", "a.example.com"),
    ("10.0.0.0/8", "10.0.0.0/8"),
    ("-- b", "-- b"),
    ("=x", "=x"),
    ("<<x", "<<x"),
]


@pytest.mark.parametrize(("scalar", "expected"), PLAIN_SCALARS)
def test_plain_scalar(scalar: str, expected: object) -> None:
    value = value_of(scalar)
    assert value == expected
    assert type(value) is type(expected)


def test_negative_zero_keeps_its_sign() -> None:
    value = value_of("-0.0")
    assert value == 0.0 and math.copysign(1.0, value) < 0  # type: ignore[arg-type]


@pytest.mark.parametrize("scalar", [".nan", ".NaN", ".NAN"])
def test_not_a_number(scalar: str) -> None:
    value = value_of(scalar)
    assert isinstance(value, float) and math.isnan(value)


QUOTED_AND_BLOCK: list[tuple[str, object]] = [
    ('"5"', "5"),
    ("'yes'", "yes"),
    ('"true"', "true"),
    ("''", ""),
    ('"~"', "~"),
    ("'it''s'", "it's"),
    ('"a\\"b"', 'a"b'),
    ('"\\/"', "/"),
    ('"\\x41\\u0042\\U00000043"', "ABC"),
    ('"\\N\\_\\L\\P\\e\\ \\t\\0"', "\x85\xa0\u2028\u2029\x1b \t\x00"),
    ("|\n  text\n", "text\n"),
    ("|-\n  text\n", "text"),
    (">\n  fold\n  ed\n", "fold ed\n"),
    ("!!str", ""),
    ("!!str 5", "5"),
    ("!!str true", "true"),
    ("!<tag:yaml.org,2002:str> 5", "5"),
    # The non-specific tag `!` leaves a scalar, even a quoted one, to the schema.
    ("! 5", 5),
    ('! "5"', 5),
    ("! yes", "yes"),
]


@pytest.mark.parametrize(("scalar", "expected"), QUOTED_AND_BLOCK)
def test_quoted_block_and_string_tagged_scalars(scalar: str, expected: object) -> None:
    value = value_of(scalar)
    assert value == expected
    assert type(value) is type(expected)


EXPLICIT_TAGS: list[tuple[str, object]] = [
    ("!!int 5", 5),
    ('!!int "5"', 5),
    ('!!int " 5"', 5),
    ("!!int +0x_1", 1),
    ("!!int 0o10", 8),
    ("!!int 0777", 777),
    ("!<tag:yaml.org,2002:int> 5", 5),
    ("!!float 5", 5.0),
    ("!!float 1_0", 10.0),
    ("!!float inf", math.inf),
    ("!!bool yes", True),
    ("!!bool On", True),
    ("!!bool n", False),
    ("!!bool false", False),
    ("!!null x", None),
    ("!!null 0", None),
]


@pytest.mark.parametrize(("scalar", "expected"), EXPLICIT_TAGS)
def test_scalars_with_a_core_tag(scalar: str, expected: object) -> None:
    value = value_of(scalar)
    assert value == expected
    assert type(value) is type(expected)


def test_a_float_tag_reads_nan_without_a_dot() -> None:
    value = value_of("!!float -nan")
    assert isinstance(value, float) and math.isnan(value)


def test_explicit_map_and_seq_tags_are_plain_collections() -> None:
    value = parse_yaml("a: !!map {b: 1}\nc: !!seq [1]\n", "f.yaml").value
    assert value == {"a": {"b": 1}, "c": [1]}


def test_aliases_repeat_the_anchored_value() -> None:
    tree = parse_yaml("a: &x 1\nb: *x\nc: &l [p, q]\nd: *l\n", "f.yaml")
    assert tree.value == {"a": 1, "b": 1, "c": ["p", "q"], "d": ["p", "q"]}
    assert isinstance(tree.value, dict)
    assert tree.value["c"] is not tree.value["d"]


def test_empty_values_and_flow_collections() -> None:
    text = "a:\nb: [a, ]\nc: {x: , y}\nd: []\ne: {}\n"
    assert parse_yaml(text, "f.yaml").value == {
        "a": None,
        "b": ["a"],
        "c": {"x": None, "y": None},
        "d": [],
        "e": {},
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x\n", "x"),
        ("5\n", 5),
        ("---\n5\n", 5),
        ('"a"\n', "a"),
        ("[a]\n", ["a"]),
        ("--- |\n  text\n", "text\n"),
    ],
)
def test_the_root_may_be_any_node(text: str, expected: object) -> None:
    assert parse_yaml(text, "f.yaml").value == expected


def test_quoted_keys_are_strings() -> None:
    text = "\"5\": a\n'true': b\n? |\n  c\n: d\n? e\n: f\n'<<': {g: 1}\n=: h\n"
    assert parse_yaml(text, "f.yaml").value == {
        "5": "a",
        "true": "b",
        "c\n": "d",
        "e": "f",
        "<<": {"g": 1},
        "=": "h",
    }


# --- the %YAML 1.1 directive switches to the YAML 1.1 rules --------------------------

YAML_1_1: list[tuple[str, object]] = [
    ("yes", True),
    ("No", False),
    ("on", True),
    ("OFF", False),
    ("y", True),
    ("n", False),
    ("0777", 511),
    ("09", "09"),
    ("0o17", "0o17"),
    ("0x1F", 31),
    ("0b11", 3),
    ("1_000", 1000),
    ("1:30", 90),
    ("1:30.5", 90.5),
    (".5", 0.5),
    ("-.5", "-.5"),
    ("~", None),
    ("true", True),
    ("2020-01-01x", "2020-01-01x"),
]


@pytest.mark.parametrize(("scalar", "expected"), YAML_1_1)
def test_a_yaml_1_1_directive_selects_the_1_1_schema(scalar: str, expected: object) -> None:
    value = parse_yaml(f"# head\n%YAML 1.1\n---\nk: {scalar}\n", "f.yaml").value
    assert value == {"k": expected}
    assert isinstance(value, dict) and type(value["k"]) is type(expected)


def test_a_yaml_1_2_directive_keeps_the_core_schema() -> None:
    tree = parse_yaml("%YAML 1.2\n---\nk: yes\n", "f.yaml")
    assert tree.value == {"k": "yes"}
    assert tree.lines == {(): 3, ("k",): 3}


# --- merge keys ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Own keys first, in order, then merged keys not already present.
        ("b: &b {x: 1, z: 9}\nm: {z: 1, <<: *b, y: 2}\n", {"z": 1, "y": 2, "x": 1}),
        # In a merge list, earlier mappings win.
        ("m: {<<: [{x: 1}, {x: 2, y: 3}], y: 0}\n", {"y": 0, "x": 1}),
        # A merged mapping brings its own merged keys.
        ("a: &a {p: 1}\nb: &b {<<: *a, q: 2}\nm: {<<: *b, r: 3}\n", {"r": 3, "q": 2, "p": 1}),
        # An explicitly tagged merge key merges too.
        ("m:\n  !!merge <<: {x: 1}\n  y: 2\n", {"y": 2, "x": 1}),
        # Merging an empty mapping adds nothing.
        ("m: {x: 0, <<: {}}\n", {"x": 0}),
    ],
)
def test_merge_keys(text: str, expected: object) -> None:
    value = parse_yaml(text, "f.yaml").value
    assert isinstance(value, dict)
    assert value["m"] == expected


def test_merged_keys_are_located_at_the_merging_mapping() -> None:
    tree = parse_yaml("base: &b\n  x:\n    deep: 1\n  w: 0\nm:\n  y: 2\n  <<: *b\n", "f.yaml")
    assert tree.value == {
        "base": {"x": {"deep": 1}, "w": 0},
        "m": {"y": 2, "x": {"deep": 1}, "w": 0},
    }
    assert tree.lines[("m",)] == 5
    assert tree.lines[("m", "y")] == 6
    assert tree.lines[("m", "x")] == 5
    assert tree.lines[("m", "w")] == 5
    # Inside a merged value, lines are those of its definition.
    assert tree.lines[("m", "x", "deep")] == 3


# --- lines ----------------------------------------------------------------------------

LINE_CASES: list[tuple[str, Lines]] = [
    (
        "# comment\n\n---\na: 1\nb:\n  - x\n  -\n    y: 2\n  - - z\n",
        {
            (): 4,
            ("a",): 4,
            ("b",): 5,
            ("b", 0): 6,
            ("b", 1): 8,
            ("b", 1, "y"): 8,
            ("b", 2): 9,
            ("b", 2, 0): 9,
        },
    ),
    (
        "a: {x: 1,\n  y: [p,\n    q]}\n",
        {(): 1, ("a",): 1, ("a", "x"): 1, ("a", "y"): 2, ("a", "y", 0): 2, ("a", "y", 1): 3},
    ),
    (
        "a: &m\n  k: 1\nb: *m\nc:\n  - &i\n    v: 1\n  - *i\n",
        {
            (): 1,
            ("a",): 1,
            ("a", "k"): 2,
            ("b",): 3,
            ("b", "k"): 2,
            ("c",): 4,
            ("c", 0): 5,
            ("c", 0, "v"): 6,
            ("c", 1): 5,
            ("c", 1, "v"): 6,
        },
    ),
    (
        "a: |\n  one\n  two\nb: >-\n  three\nc: 'multi\n  line'\nd: 1\n",
        {(): 1, ("a",): 1, ("b",): 4, ("c",): 6, ("d",): 8},
    ),
    (
        "? complex\n: 1\n? |\n  k\n: 2\n",
        {(): 1, ("complex",): 1, ("k\n",): 3},
    ),
    ("a: 1\r\nb: 2\r\n", {(): 1, ("a",): 1, ("b",): 2}),
    ("\n\n  - a\n  - b\n", {(): 3, (0,): 3, (1,): 4}),
    ("\n\nscalar\n", {(): 1}),
    ("", {(): 1}),
    ("# only a comment\n", {(): 1}),
    ("--- !!map\na: 1\n", {(): 1, ("a",): 2}),
]


@pytest.mark.parametrize(("text", "expected"), LINE_CASES)
def test_lines(text: str, expected: Lines) -> None:
    assert parse_yaml(text, "f.yaml").lines == expected


# --- errors: exact path, line and message ---------------------------------------------


def syntax(reason: str) -> str:
    return f"YAML syntax error: {reason}"


def constructing(reason: str) -> str:
    return syntax(f"while constructing a mapping, {reason}")


def duplicate(key: str, value: str, original: str) -> str:
    return constructing(
        f'found duplicate key "{key}" with value "{value}" (original value: "{original}")'
    )


SINGLE = "expected a single document in the stream, but found another document"
DATE = "is a YAML date or timestamp, which JSON has no type for; quote it"
BINARY = "is YAML binary data, which this file does not support"


def tag(name: str) -> str:
    return f"has the YAML tag {name}, which this file does not support"


def key(shown: str) -> str:
    return f"the key {shown} is not a string; quote it"


ERRORS: list[tuple[str, str, int, str]] = [
    # Duplicate keys, with the values as the reader shows them.
    ("a: 1\nb: 2\na: 3\n", "", 3, duplicate("a", "3", "1")),
    ("a: 1\na: 1e2\n", "", 2, duplicate("a", "100.0", "1")),
    ("a: 1\na: 0x1F\n", "", 2, duplicate("a", "31", "1")),
    ("a: 1\na: ~\n", "", 2, duplicate("a", "None", "1")),
    ("a: 1\na: .nan\n", "", 2, duplicate("a", "nan", "1")),
    ("a: 1\na: |\n  lit\n", "", 2, duplicate("a", "lit\n", "1")),
    ("a: 1\na: 'it''s'\n", "", 2, duplicate("a", "it's", "1")),
    ("a: [1]\na: 1\n", "", 2, duplicate("a", "1", "[1]")),
    (
        "a: 1\na: {b: 1.5, c: [x, 1e2, 'q']}\n",
        "",
        2,
        duplicate("a", "{'b': 1.5, 'c': ['x', 100.0, 'q']}", "1"),
    ),
    ("a: 1\na: 2020-01-01\n", "", 2, duplicate("a", "2020-01-01", "1")),
    ("a: 1\na: !custom x\n", "", 2, duplicate("a", "x", "1")),
    ('a: 1\n"a": 2\n', "", 2, duplicate("a", "2", "1")),
    ("a: 1\n! a: 2\n", "", 2, duplicate("a", "2", "1")),
    ("&k a: 1\n*k : 2\n", "", 1, duplicate("a", "2", "1")),
    ("x:\n  a: 1\n  b: {c: 1, c: 2}\n", "", 3, duplicate("c", "2", "1")),
    # Keys compare as the values they are: 1, 1.0 and true are one key.
    ("1: a\ntrue: b\n", "", 2, duplicate("True", "b", "a")),
    ("1: a\n1.0: b\n", "", 2, duplicate("1.0", "b", "a")),
    (".nan: 1\n.nan: 2\n", "", 2, duplicate("nan", "2", "1")),
    # A duplicate is reported before a value JSON cannot hold.
    ("a: 2020-01-01\na: 1\n", "", 2, duplicate("a", "1", "2020-01-01")),
    # Merge keys.
    (
        "a: {<<: 1}\n",
        "",
        1,
        constructing("expected a mapping or list of mappings for merging, but found scalar"),
    ),
    ("a: {<<: [1]}\n", "", 1, constructing("expected a mapping for merging, but found scalar")),
    (
        "a:\n  <<: [{x: 1},\n    [y]]\n",
        "",
        3,
        constructing("expected a mapping for merging, but found sequence"),
    ),
    ("a:\n  <<: {x: 1}\n  <<: {y: 1}\n", "", 3, constructing('found duplicate merge key "<<"')),
    # The first merge key is read before a second one is refused.
    (
        "a:\n  <<: [1]\n  <<: [1]\n",
        "",
        2,
        constructing("expected a mapping for merging, but found scalar"),
    ),
    ("a:\n  <<: {b: 1, b: 2}\n  <<: {c: 1}\n", "", 2, duplicate("b", "2", "1")),
    # Merge keys are read before the mapping's own keys.
    (
        "a:\n  b: 1\n  b: 2\n  <<: 3\n",
        "",
        4,
        constructing("expected a mapping or list of mappings for merging, but found scalar"),
    ),
    # Several documents.
    ("a: 1\n---\nb: 2\n", "", 2, syntax(SINGLE)),
    ("--- a\n--- b\n", "", 2, syntax(SINGLE)),
    ("x: 1\n---\n", "", 2, syntax(SINGLE)),
    # Syntax.
    ("a: *missing\n", "", 1, syntax("found undefined alias 'missing'")),
    ("a: 1\n  b: 2\n", "", 2, syntax("mapping values are not allowed here")),
    (
        "a: 1\nb: [1\nc: 2\n",
        "",
        3,
        syntax("while parsing a flow sequence, expected ',' or ']', but got ':'"),
    ),
    (
        "a: [1, 2",
        "",
        1,
        syntax("while parsing a flow sequence, expected ',' or ']', but got '<stream end>'"),
    ),
    (
        "- a\nb: 1\n",
        "",
        2,
        syntax("while parsing a block collection, expected <block end>, but found '?'"),
    ),
    ("'abc\n", "", 2, syntax("while scanning a quoted scalar, found unexpected end of stream")),
    (
        "a: @x\n",
        "",
        1,
        syntax(
            "while scanning for the next token, found character '@' that cannot start any token"
        ),
    ),
    (
        "a: 1 # c\n b: 2\n",
        "",
        2,
        syntax(
            "while parsing a block mapping, expected <block end>, but found '<block mapping start>'"
        ),
    ),
    (
        'key: "\\q"\n',
        "",
        1,
        syntax("while scanning a double-quoted scalar, found unknown escape character 'q'"),
    ),
    (
        "a: [, ]\n",
        "",
        1,
        syntax("while parsing a flow node, expected the node content, but found ','"),
    ),
    ("]\n", "", 1, syntax("while parsing a block node, expected the node content, but found ']'")),
    # Core tags whose node is not of their type.
    ("a: !!timestamp x\n", "", 1, syntax('failed to construct timestamp from "x"')),
    ("a: !!map x\n", "", 1, syntax("expected a mapping node, but found scalar")),
    ("a: !!seq {b: 1}\n", "", 1, syntax("expected a sequence node, but found mapping")),
    ("a: !!int [1]\n", "", 1, syntax("expected a scalar node, but found sequence")),
    ("a: !!null {}\n", "", 1, syntax("expected a scalar node, but found mapping")),
    # Values JSON has no type for.
    ("a:\n  when: 2024-01-01\n", "a.when", 2, DATE),
    ("a: 2001-12-14t21:59:43.10-05:00\n", "a", 1, DATE),
    ("a: 2001-12-14 21:59:43.10\n", "a", 1, DATE),
    ("a: !!timestamp 2001-12-14\n", "a", 1, DATE),
    ("a:\n  - !!binary aGVsbG8=\n", "a[0]", 2, BINARY),
    ('a: !!binary "$$"\n', "a", 1, BINARY),
    ("a: !custom x\n", "a", 1, tag("!custom")),
    ("a: !!python/none x\n", "a", 1, tag("tag:yaml.org,2002:python/none")),
    ("a: <<\n", "a", 1, tag("tag:yaml.org,2002:merge")),
    ("a: =\n", "a", 1, tag("tag:yaml.org,2002:value")),
    ("a: !!value 1\n", "a", 1, tag("tag:yaml.org,2002:value")),
    ("%TAG !e! tag:example.com,2000:\n---\na: !e!foo 1\n", "a", 3, tag("tag:example.com,2000:foo")),
    ("%TAG !! tag:example.com,2000:\n---\na: !!str 1\n", "a", 3, tag("tag:example.com,2000:str")),
    # Keys that are not strings.
    ("a:\n  b: 1\n  3: x\n", "a", 3, key("3")),
    ("a:\n  ~: x\n", "a", 2, key("None")),
    ("true: a\n", "", 1, key("True")),
    ("1e2: x\n", "", 1, key("100.0")),
    (".inf: x\n", "", 1, key("inf")),
    ("0x1F: x\n", "", 1, key("31")),
    ("007: x\n", "", 1, key("7")),
    ("!!float 5: x\n", "", 1, key("5.0")),
    ("! 5: x\n", "", 1, key("5")),
    ("2020-01-01: x\n", "", 1, key("datetime.date(2020, 1, 1)")),
    ("!!binary aGk=: y\n", "", 1, key("b'hi'")),
    ("? [a, 1]\n: x\n", "", 1, key("('a', 1)")),
    ("x: 1\n? [a]\n: y\n", "", 2, key("('a',)")),
    # A self-referencing alias.
    ("&x [*x]\n", "[0]", 1, "refers to itself through a YAML alias"),
]


@pytest.mark.parametrize(("text", "path", "line", "message"), ERRORS)
def test_error(text: str, path: str, line: int, message: str) -> None:
    error = refusal(text)
    assert (error.path, error.line, error.message) == (path, line, message)
    rows = text.splitlines()
    assert error.excerpt == (rows[line - 1] if line <= len(rows) else None)


def test_a_character_yaml_does_not_allow_is_an_error_on_line_one() -> None:
    error = refusal("a: 1\nb: \x01\n")
    assert (error.path, error.line, error.excerpt) == ("", 1, None)
    assert error.message == (
        "YAML error: unacceptable character #x0001: special characters are not allowed\n"
        '  in "<unicode string>", position 8'
    )
