"""docs/yaml.md states how scalars and keys are read; its tables are checked
here against the loader, so the page cannot drift from the code."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from lint.yaml.parse import ParseFailure, parse_yaml
from tests.yaml.fast_check import check_stream

PAGE = Path(__file__).resolve().parents[2] / "docs" / "yaml.md"
_ROW = re.compile(r"^\| `(?P<yaml>[^`]+)` \| (?:`(?P<json>[^`]+)`|(?P<word>problem)) \|", re.M)


def table(section: str) -> list[tuple[str, str | None]]:
    text = PAGE.read_text()
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    rows = _ROW.finditer(text, start, len(text) if end < 0 else end)
    return [(row["yaml"], row["json"]) for row in rows]


def same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(actual, float) and math.isnan(actual)
    return type(actual) is type(expected) and actual == expected


@pytest.mark.parametrize(("source", "documented"), table("Scalars"))
def test_scalar_table(source: str, documented: str | None) -> None:
    assert documented is not None
    value = parse_yaml(f"v: {source}\n").value["v"]
    assert same(value, json.loads(documented))


@pytest.mark.parametrize(("source", "documented"), table("Mapping keys"))
def test_key_table(source: str, documented: str | None) -> None:
    if documented is None:
        with pytest.raises(ParseFailure):
            parse_yaml(source + "\n")
        return
    (key,) = parse_yaml(source + "\n").value
    assert key == json.loads(documented)


def test_the_tables_are_not_empty() -> None:
    assert len(table("Scalars")) >= 15
    assert len(table("Mapping keys")) >= 4


@pytest.mark.parametrize(
    "text",
    [f"v: {source}\n" for source, _ in table("Scalars")]
    + [source + "\n" for source, _ in table("Mapping keys")],
)
def test_the_fast_path_reads_every_row_alike(text: str) -> None:
    # Where yaml_rs vouches for a row, its value is the table's (check_stream
    # compares it with the slow path the tables are checked against).
    check_stream(text)
