"""One document through libyaml and the JSON-shaped builder."""

from __future__ import annotations

from typing import Any

import pytest

from lint.loading.limits import DEFAULT_LIMITS
from lint.yaml.parse import ParseFailure, parse_json, parse_yaml

VALUES: list[tuple[str, Any]] = [
    ("a: 1\nb: yes\nc: 0777\nd: 2024-01-01\n", {"a": 1, "b": True, "c": 511, "d": "2024-01-01"}),
    ("a: \"yes\"\nb: '0777'\nc: |\n  on\n", {"a": "yes", "b": "0777", "c": "on\n"}),
    ("port: 1e2\nname: on\n", {"port": 100.0, "name": True}),
    ("empty:\nnil: ~\n", {"empty": None, "nil": None}),
    ("- a\n- [1, 2]\n- {b: c}\n", ["a", [1, 2], {"b": "c"}]),
    ("just text\n", "just text"),
    # Keys resolve like values, then become strings (sigs.k8s.io/yaml).
    ("80: http\non: x\n1.5: z\ny: 1\nn: 2\n", {"80": "http", "true": 1, "1.5": "z", "false": 2}),
    # Explicit standard tags.
    (
        "a: !!str 12\nb: !!int '0x10'\nc: !!float 1\nd: !!bool 'on'\ne: !!null ''\n",
        {"a": "12", "b": 16, "c": 1.0, "d": True, "e": None},
    ),
    # The non-specific tag makes a string, even where libyaml says "plain".
    (
        'a: ! 12\nb: &x ! yes\n! on: ! "on"\nc: [! 1, 2]\n',
        {"a": "12", "b": "yes", "on": "on", "c": ["1", 2]},
    ),
    ("! <<: x\n", {"<<": "x"}),
    ("!!map {a: !!seq [1]}\n", {"a": [1]}),
    # Anchors, aliases and merge keys, applied in document order (go-yaml v2).
    ("base: &b {p: 1, q: 2}\nuse: *b\n", {"base": {"p": 1, "q": 2}, "use": {"p": 1, "q": 2}}),
    ("b: &b {p: 1, q: 2}\nm: {<<: *b, q: 3}\n", {"b": {"p": 1, "q": 2}, "m": {"p": 1, "q": 3}}),
    ("b: &b {x: 1}\nm: {x: 0, <<: *b}\n", {"b": {"x": 1}, "m": {"x": 1}}),
    (
        "p: &p {x: 1}\nq: &q {x: 2, z: 3}\nm: {<<: [*p, *q]}\n",
        {"p": {"x": 1}, "q": {"x": 2, "z": 3}, "m": {"x": 1, "z": 3}},
    ),
    ('"<<": {x: 1}\n', {"<<": {"x": 1}}),  # a quoted << is an ordinary key
]


@pytest.mark.parametrize(("text", "expected"), VALUES)
def test_values(text: str, expected: Any) -> None:
    assert parse_yaml(text).value == expected


def test_empty_document_has_no_value() -> None:
    parsed = parse_yaml("# nothing\n")
    assert parsed.value is None
    assert parsed.root is None


def test_content_line_is_zero_based_in_the_text() -> None:
    assert parse_yaml("---\n# c\n\nkind: A\n").line == 3


def test_repeated_key_keeps_the_last_value_and_is_recorded() -> None:
    parsed = parse_yaml("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n")
    assert parsed.value == {"a": 3, "b": {"c": 2}}
    assert sorted(parsed.duplicates) == [(3, "c"), (4, "a")]


def test_keys_set_by_a_merge_are_not_repeats() -> None:
    parsed = parse_yaml("b: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n")
    assert parsed.value["m"] == {"x": 2}
    assert parsed.duplicates == ()


def test_repeated_explicit_key_after_a_merge_is_recorded() -> None:
    parsed = parse_yaml("b: &b {x: 1}\nm:\n  z: 1\n  <<: *b\n  z: 2\n")
    assert parsed.duplicates == ((4, "z"),)


FAILURES = [
    ("a: !!timestamp 2024-01-01\n", 0, "timestamp"),
    ("a: !!binary aGVsbG8\n", 0, "base64"),
    ("a: !!timestamp 2024-01-01\n", 0, "timestamp"),
    ("a:\n  b: !!binary /w==\n", 1, "UTF-8"),
    ("a: !!int abc\n", 0, "int"),
    ("a: !!bool 1\n", 0, "bool"),
    ("? [1]\n: 2\n", 0, "scalar"),
    ("~: 1\n", 0, "member name"),
    ("a: 1\nb: [1, 2\n", 2, "flow sequence"),
    ("a: 1\n b: 2\n", 1, "mapping values"),
    ("a: *nowhere\n", 0, "undefined alias"),
    ("a: &a [*a]\n", 0, "contains it"),
    ("m: {<<: [1]}\n", 0, "merge"),
    ("m: {<<: 1}\n", 0, "merge"),
    ("a: \x01\n", 0, "character"),
    ("a: 1\n---\nb: 2\n", 1, "single document"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), FAILURES)
def test_refused_documents_name_line_and_reason(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_yaml(text)
    assert caught.value.line == line
    assert fragment in caught.value.message


def test_alias_bomb_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 8):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    with pytest.raises(ParseFailure) as caught:
        parse_yaml("\n".join(lines) + "\n")
    assert f"{DEFAULT_LIMITS.max_alias_expansion:,}" in caught.value.message


def test_shared_aliases_below_the_limit_are_built() -> None:
    parsed = parse_yaml("a: &a [1, 2]\nb: [*a, *a]\n")
    assert parsed.value == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


def test_deep_nesting_is_a_failure_not_a_crash() -> None:
    with pytest.raises(ParseFailure):
        parse_yaml("[" * 5000 + "]" * 5000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": [1, 2.5, true, null, "x"]}', {"a": [1, 2.5, True, None, "x"]}),
        ('{"a": 1, "a": 2}', None),  # repeated keys go to the YAML reader
        ('{"a": NaN}', None),
        ('{"a": "\\ud800"}', None),  # a lone surrogate: left to YAML, which refuses it
        ('{"a": "\\ud83d\\ude00"}', {"a": "\U0001f600"}),
        ("a: 1", None),
        ("", None),
    ],
)
def test_parse_json(text: str, expected: Any) -> None:
    assert parse_json(text) == expected


def _nested(levels: int) -> str:
    """JSON nesting ``levels`` collections, mappings and lists in turn."""
    text = "1"
    for level in range(levels):
        text = f'{{"a": {text}}}' if level % 2 else f"[{text}]"
    return text


@pytest.mark.parametrize("levels", [1, 2, 9, 10, 11])
@pytest.mark.parametrize("beside", ["", '"x", [], {}, '])
def test_json_past_the_depth_limit_goes_to_the_yaml_reader(levels: int, beside: str) -> None:
    # The deep branch sits after shallow ones, in a list in a mapping.
    text = f'{{"s": 1, "deep": [{beside}{_nested(levels)}]}}'
    assert (parse_json(text, max_depth=12) is None) == (levels + 2 > 12)
    assert (parse_json(_nested(levels), max_depth=10) is None) == (levels > 10)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # go-yaml v2 (kubernetes-sigs/yaml goyaml.v2/decode.go, resolve.go):
        # a tag it does not resolve leaves the scalar's text ...
        ("kind: !k8s NetworkPolicy\n", {"kind": "NetworkPolicy"}),
        ("a: !custom 1\n", {"a": "1"}),
        ("a: !!python/object:os.system x\n", {"a": "x"}),
        # ... !!binary is its decoded bytes (line breaks ignored) ...
        ("kind: !!binary TmV0d29ya1BvbGljeQ==\n", {"kind": "NetworkPolicy"}),
        ("a: !!binary |\n  aGVs\n  bG8=\n", {"a": "hello"}),
        # ... and a collection's tag is ignored.
        ("a: !!set {x}\n", {"a": {"x": None}}),
        ("a: !k8s [1]\n", {"a": [1]}),
        ("!k8s {kind: NetworkPolicy}\n", {"kind": "NetworkPolicy"}),
    ],
)
def test_tags_read_as_go_yaml_v2_reads_them(text: str, value: object) -> None:
    assert parse_yaml(text).value == value
