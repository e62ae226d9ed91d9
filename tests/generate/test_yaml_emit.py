"""The YAML writer (SEMANTICS §3.8): strings that any YAML version would
read as another type are quoted, values keep their types and key order, and
values with no faithful form are refused rather than written wrong."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.generate.yaml_emit import EmitError, dump_document, is_bare_string, scalar
from tests.generate.conftest import READERS, exact


def _wrapped(value: Any) -> dict[str, Any]:
    # The project loader keeps documents of the kinds it is asked for.
    return {"kind": "NetworkPolicy", "value": value}


def _reads_back(value: Any) -> None:
    document = _wrapped(value)
    text = dump_document(document)
    for name, read in READERS.items():
        assert [exact(v) for v in read(text)] == [exact(document)], (name, text)


# Strings some reader would take for a number, boolean, null, date, alias,
# tag, comment, flow collection or mapping if they were written bare.
AMBIGUOUS = [
    "53",
    "443",
    "0",
    "-1",
    "+1",
    "1e2",
    "1E2",
    "1.5",
    ".5",
    "0o17",
    "0x1F",
    "0b101",
    "017",
    "1_000",
    "1:20",
    "12:30:00",
    "2024-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "on",
    "On",
    "ON",
    "off",
    "yes",
    "Yes",
    "no",
    "NO",
    "y",
    "Y",
    "n",
    "N",
    "true",
    "False",
    "null",
    "Null",
    "NULL",
    "~",
    "",
    ".inf",
    "-.Inf",
    ".nan",
    "=",
    "<<",
    "*",
    "*.pypi.org",
    "&a",
    "!tag",
    "%x",
    "@x",
    "`x",
    "|",
    ">",
    "#x",
    "a #b",
    "a: b",
    "a:",
    "-",
    "- x",
    "? x",
    "[a]",
    "{a}",
    "a,b",
    "'q'",
    '"q"',
    " lead",
    "trail ",
    "::/0",
    "::1/128",
]
BARE = [
    "api.github.com",
    "namzu-task",
    "sandbox.namzu.ai/template",
    "k8s:k8s-app",
    "k8s:io.kubernetes.pod.namespace",
    "0.0.0.0/0",
    "10.0.0.0/8",
    "fc00::/7",
    "2001:db8::/32",
    "networking.k8s.io/v1",
    "TCP",
    "Egress",
]


@pytest.mark.parametrize("text", AMBIGUOUS)
def test_ambiguous_strings_are_quoted_and_stay_strings(text: str) -> None:
    assert not is_bare_string(text)
    assert scalar(text)[0] in "\"'"
    _reads_back(text)
    _reads_back({text: text})


@pytest.mark.parametrize("text", BARE)
def test_plain_names_stay_bare_and_readable(text: str) -> None:
    assert scalar(text) == text
    _reads_back(text)


@pytest.mark.parametrize(
    "text",
    [
        "line one\nline two",
        "ends with a newline\n",
        "quotes \"inside\" and 'out'\nand a \\ backslash",
        "first\n\n  indented after a blank",
        "\nstarts with a newline",
        "two trailing\n\n",
        " leading space\nsecond",
        "spaces only line\n   \nafter",
        "tab\tinside\nsecond",
        "a\u2028b",
        "a\x85b",
        "\ufeffbom",
        "bell\x07",
        "nul\x00",
        "astral \U0001f600",
        "é accents",
        "back\\slash",
        "it's",
    ],
)
def test_text_with_breaks_and_odd_characters_reads_back(text: str) -> None:
    _reads_back(text)


def test_multi_line_text_becomes_a_literal_block() -> None:
    assert dump_document({"e": "a &&\n  b"}) == "e: |-\n  a &&\n    b\n"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (53, "53"),
        (1.5, "1.5"),
        (53.0, "53.0"),
        (1e20, "1.0e+20"),
        (-0.5, "-0.5"),
    ],
)
def test_scalars_keep_their_types(value: Any, expected: str) -> None:
    assert scalar(value) == expected
    _reads_back(value)


def test_key_order_and_nesting_are_kept() -> None:
    value = {"z": 1, "a": [{"b": [], "c": {}}, [1, [2, 3]], {}], "0": "x", "m": {"y": [[]]}}
    _reads_back(value)
    assert dump_document(value).splitlines()[:3] == ["z: 1", "a:", "  - b: []"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, object(), b"bytes", {1: "a"}])
def test_values_without_a_faithful_form_are_refused(bad: Any) -> None:
    with pytest.raises(EmitError):
        dump_document({"v": bad} if not isinstance(bad, dict) else bad)


def test_a_document_must_be_a_mapping() -> None:
    with pytest.raises(EmitError):
        dump_document(["a"])  # type: ignore[arg-type]


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_reads_back_exactly(value: Any) -> None:
    """SEMANTICS §3.8: whatever the engine builds, every reader gets it back
    with the same types and key order."""
    _reads_back(value)
