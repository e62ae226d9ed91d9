"""Reading YAML into plain values with lines (reading.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.declarations import DeclarationError
from lint.declarations.reading import Citation, parse_yaml, read_text
from tests.declarations.conftest import dedent


def parse(text: str) -> tuple[object, dict[tuple[str | int, ...], int]]:
    tree = parse_yaml(dedent(text), "f.yaml")
    return tree.value, tree.lines


def test_values_are_plain_json_types() -> None:
    value, _ = parse(
        """
        hex: 0x1F
        under: 1_000
        float: 1.50
        flag: &t true
        again: *t
        quoted: "5"
        forced: !!str 5
        block: |
          text
        none: ~
        """
    )
    assert value == {
        "hex": 31,
        "under": 1000,
        "float": 1.5,
        "flag": True,
        "again": True,
        "quoted": "5",
        "forced": "5",
        "block": "text\n",
        "none": None,
    }
    assert isinstance(value, dict)
    # Subclasses from the round-trip loader must not leak: an anchored
    # boolean would otherwise be an int subclass that reads as a number.
    assert {type(v) for v in value.values()} == {int, float, bool, str, type(None)}


def test_yaml_1_2_leaves_yes_and_on_as_strings() -> None:
    value, _ = parse("a: yes\nb: on\nc: 'no'\n")
    assert value == {"a": "yes", "b": "on", "c": "no"}


def test_every_key_and_item_has_its_line() -> None:
    _, lines = parse(
        """
        top: 1
        nested:
          inner: [a,
            b]
          list:
            - x
            - y: 2
        """
    )
    assert lines[()] == 1
    assert lines[("top",)] == 1
    assert lines[("nested",)] == 2
    assert lines[("nested", "inner")] == 3
    assert lines[("nested", "inner", 0)] == 3
    assert lines[("nested", "inner", 1)] == 4
    assert lines[("nested", "list", 0)] == 6
    assert lines[("nested", "list", 1)] == 7
    assert lines[("nested", "list", 1, "y")] == 7


def test_merged_keys_take_the_line_of_the_key_holding_their_mapping() -> None:
    value, lines = parse(
        """
        base: &b {x: 1}
        m:
          <<: *b
          y: 2
        """
    )
    assert value == {"base": {"x": 1}, "m": {"y": 2, "x": 1}}
    assert lines[("m", "y")] == 4
    assert lines[("m", "x")] == 2


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("a: 1\nb: [1\nc: 2\n", 3, "YAML syntax error"),
        ("a: 1\n  b: 2\n", 2, "YAML syntax error"),
        ("a: 1\nb: 2\na: 3\n", 3, 'duplicate key "a"'),
        ("a: 1\n---\nb: 2\n", 2, "single document"),
        ("a: *missing\n", 1, "YAML syntax error"),
    ],
)
def test_syntax_problems_are_errors_at_their_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(DeclarationError) as caught:
        parse_yaml(text, "f.yaml")
    error = caught.value
    assert (error.file, error.line, error.path) == ("f.yaml", line, "")
    assert fragment in error.message


@pytest.mark.parametrize(
    ("text", "path", "line", "fragment"),
    [
        ("a:\n  when: 2024-01-01\n", "a.when", 2, "date or timestamp"),
        ("a:\n  - !!binary aGVsbG8=\n", "a[0]", 2, "binary"),
        ("a: !custom x\n", "a", 1, "tag"),
        ("a:\n  b: 1\n  3: x\n", "a", 3, "key 3 is not a string"),
        ("a:\n  ~: x\n", "a", 2, "key None is not a string"),
    ],
)
def test_values_json_cannot_hold_are_errors(text: str, path: str, line: int, fragment: str) -> None:
    with pytest.raises(DeclarationError) as caught:
        parse_yaml(text, "f.yaml")
    error = caught.value
    assert (error.path, error.line) == (path, line)
    assert fragment in error.message
    assert error.excerpt == text.splitlines()[line - 1]


def test_a_self_referencing_alias_is_an_error_not_a_crash() -> None:
    with pytest.raises(DeclarationError) as caught:
        parse_yaml("&x [*x]\n", "f.yaml")
    assert "itself" in caught.value.message


def test_empty_and_comment_only_documents_give_none() -> None:
    assert parse_yaml("", "f.yaml").value is None
    assert parse_yaml("# only a comment\n", "f.yaml").value is None


def test_read_text_accepts_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert read_text(path, "x.yaml", Citation("x.yaml")) == "a: 1\n"


def test_read_text_names_the_line_of_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(b"a: 1\nb: \xff\n")
    with pytest.raises(DeclarationError) as caught:
        read_text(path, "x.yaml", Citation("decl.yaml", 7, "p"))
    assert (caught.value.file, caught.value.line) == ("x.yaml", 2)
    assert "UTF-8" in caught.value.message


def test_read_text_blames_a_missing_file_on_the_citation(tmp_path: Path) -> None:
    with pytest.raises(DeclarationError) as caught:
        read_text(tmp_path / "nope.txt", "nope.txt", Citation("decl.yaml", 7, "x.y"))
    error = caught.value
    assert (error.file, error.line, error.path) == ("decl.yaml", 7, "x.y")
    assert "cannot read nope.txt" in error.message
