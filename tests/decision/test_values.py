"""JSON-shaped value helpers (SEMANTICS.md §0.1-§0.5, §2.3, §7.2)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.values import (
    ABSENT,
    JS_WHITESPACE,
    UNREADABLE,
    _deep_equal,
    compact_json,
    deep_equal,
    format_number,
    is_integer,
    is_number,
    is_object,
    js_items,
    js_key_order,
    js_number,
    js_trim,
    read_list,
    render_labels,
)

# --- §0.1 values -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [({}, True), ({"a": 1}, True), ([], False), (None, False), ("x", False), (0, False)],
)
def test_is_object(value: Any, expected: bool) -> None:
    assert is_object(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (53, True),
        (53.0, True),
        (-1.5, True),
        (math.nan, True),
        (True, False),  # bool is a subclass of int, but never a number
        (False, False),
        ("53", False),
        (None, False),
    ],
)
def test_is_number(value: Any, expected: bool) -> None:
    assert is_number(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (53, True),
        (53.0, True),  # 53.0 is an integer
        (-7, True),
        (0.0, True),
        (53.5, False),
        (math.inf, False),
        (-math.inf, False),
        (math.nan, False),
        (True, False),
        ("53", False),
        (10**400, False),  # a double cannot hold it: Infinity in the reference
    ],
)
def test_is_integer(value: Any, expected: bool) -> None:
    assert is_integer(value) is expected


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        ({}, None),  # absent
        ({"k": None}, None),  # null reads as absent
        ({"k": []}, []),
        ({"k": [1, "a"]}, [1, "a"]),
        ({"k": "a"}, UNREADABLE),
        ({"k": {}}, UNREADABLE),
        ({"k": 0}, UNREADABLE),
        ({"k": False}, UNREADABLE),
        ({"k": ""}, UNREADABLE),
    ],
)
def test_read_list(container: dict[str, Any], expected: Any) -> None:
    assert read_list(container, "k") == expected


def test_read_list_returns_the_list_itself() -> None:
    items = [1]
    assert read_list({"k": items}, "k") is items


# --- §2.3 trimming -----------------------------------------------------------------

JS_TRIMMED = [
    "\t", "\n", "\v", "\f", "\r", " ", "\u00a0", "\u1680", "\u2000", "\u2005", "\u200a",
    "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff",
]  # fmt: skip
NOT_JS_WHITESPACE = ["\u001c", "\u001d", "\u001e", "\u001f", "\u0085", "\u180e", "\u200b"]


@pytest.mark.parametrize("char", JS_TRIMMED)
def test_js_trim_strips_javascript_whitespace(char: str) -> None:
    assert js_trim(f"{char}a b{char}{char}") == "a b"


@pytest.mark.parametrize("char", NOT_JS_WHITESPACE)
def test_js_trim_keeps_what_javascript_keeps(char: str) -> None:
    # Python's str.strip() would remove U+001C-U+001F and U+0085.
    assert js_trim(f"{char}a{char}") == f"{char}a{char}"


def test_js_whitespace_is_exactly_the_javascript_set() -> None:
    assert set(JS_WHITESPACE) == set(JS_TRIMMED) | {
        "\u2001", "\u2002", "\u2003", "\u2004", "\u2006", "\u2007", "\u2008", "\u2009",
    }  # fmt: skip


# --- §7.2 Number() --------------------------------------------------------------------

NUMBER_TABLE = [
    # the §7.2 table, row by row
    ("", 0.0, True),
    ("   ", 0.0, True),
    (" 53 ", 53.0, True),
    ("\t53\n", 53.0, True),
    ("0x35", 53.0, True),
    ("0o65", 53.0, True),
    ("0b110101", 53.0, True),
    ("1e2", 100.0, True),
    ("53.0", 53.0, True),
    ("053", 53.0, True),  # leading zeros are decimal
    ("+53", 53.0, True),
    ("-53", -53.0, True),
    ("53.5", 53.5, False),
    ("https", math.nan, False),
    ("1_000", math.nan, False),
    ("-0x35", math.nan, False),
    ("0x", math.nan, False),
    ("53n", math.nan, False),
    ("1e400", math.inf, False),
    ("Infinity", math.inf, False),
]


@pytest.mark.parametrize(("text", "expected", "integer"), NUMBER_TABLE)
def test_js_number_table(text: str, expected: float, integer: bool) -> None:
    result = js_number(text)
    if math.isnan(expected):
        assert math.isnan(result)
    else:
        assert result == expected
    assert is_integer(result) is integer


MORE_NUMBERS = [
    ("0X35", 53.0),
    ("0O65", 53.0),
    ("0B110101", 53.0),
    ("0xFf", 255.0),
    ("+Infinity", math.inf),
    ("-Infinity", -math.inf),
    (".5", 0.5),
    ("5.", 5.0),
    ("5.e1", 50.0),
    ("+.5e+1", 5.0),
    ("1E-1", 0.1),
    ("-0", 0.0),
    ("\ufeff53\ufeff", 53.0),  # U+FEFF is JavaScript whitespace
    ("\u3000\u202f53\u2028", 53.0),
    ("0x" + "f" * 300, math.inf),  # too big for a double, as JavaScript rounds it
]


@pytest.mark.parametrize(("text", "expected"), MORE_NUMBERS)
def test_js_number_more(text: str, expected: float) -> None:
    assert js_number(text) == expected


NOT_NUMBERS = [
    "inf", "-inf", "nan", "NaN", "infinity", "INFINITY", "+-Infinity", "--53", "+-53",
    "+0x35", "0x1_0", "0b2", "0o8", "0xg", "1e", "e5", ".", "+", "-", "1.2.3", "1 2",
    "53px", "Infinity1", "0x35 x",
    "\u001c53",  # U+001C is not JavaScript whitespace
    "53\u0085",  # nor is U+0085
    "\u200b53",
    "\u0665\u0663",  # Arabic-Indic digits
    "\uff15\uff13",  # fullwidth digits
    "5\u0663",
    "1e\u0661",
]  # fmt: skip


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_js_number_nan(text: str) -> None:
    assert math.isnan(js_number(text))


# --- number text (§0.1) ---------------------------------------------------------------

NUMBER_TEXT = [
    (53, "53"),
    (53.0, "53"),
    (-0.0, "0"),
    (0, "0"),
    (-53.0, "-53"),
    (0.5, "0.5"),
    (53.25, "53.25"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (10**21, "1e+21"),
    (1.5e300, "1.5e+300"),
    (1e-6, "0.000001"),
    (1e-5, "0.00001"),
    (1e-7, "1e-7"),
    (-2.5e-8, "-2.5e-8"),
    (0.1 + 0.2, "0.30000000000000004"),
    (math.nan, "NaN"),
    (math.inf, "Infinity"),
    (-math.inf, "-Infinity"),
]


@pytest.mark.parametrize(("value", "expected"), NUMBER_TEXT)
def test_format_number(value: float, expected: str) -> None:
    assert format_number(value) == expected


# --- §0.3 key order and compact JSON -------------------------------------------------


def test_key_order_example() -> None:
    value = {"b": 1, "10": 2, "a": 3, "2": 4}
    assert js_key_order(value) == ["2", "10", "b", "a"]
    assert js_items(value) == [("2", 4), ("10", 2), ("b", 1), ("a", 3)]
    assert compact_json(value) == '{"2":4,"10":2,"b":1,"a":3}'


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["x", "0", "y"], ["0", "x", "y"]),
        (["01", "1"], ["1", "01"]),  # a leading zero is not canonical
        (["-1", "1"], ["1", "-1"]),  # nor is a sign
        (["4294967295", "4294967294"], ["4294967294", "4294967295"]),  # past the last index
        (["1.0", "+1", " 1"], ["1.0", "+1", " 1"]),
        (["\u0661", "1"], ["1", "\u0661"]),  # only ASCII digits
        (["100", "9", "10"], ["9", "10", "100"]),  # numeric, not text, order
    ],
)
def test_js_key_order(keys: list[str], expected: list[str]) -> None:
    assert js_key_order(keys) == expected


COMPACT = [
    ({"a": [1, 2.0, "x"]}, '{"a":[1,2,"x"]}'),
    ({"port": 53.0}, '{"port":53}'),
    ({"a": None}, '{"a":null}'),  # null members kept
    ({"a": ABSENT, "b": 1}, '{"b":1}'),  # absent members omitted
    ([math.nan, math.inf, -math.inf], "[null,null,null]"),
    ([True, False], "[true,false]"),
    ({"k": "é ü 日本"}, '{"k":"é ü 日本"}'),  # non-ASCII kept
    ('a"b\\c', '"a\\"b\\\\c"'),
    ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
    ("\x01\x1f", '"\\u0001\\u001f"'),
    ("\u2028", '"\u2028"'),
    ("\ud800", '"\\ud800"'),  # a lone surrogate is escaped
    ({"n": {"2": [], "1": {}}}, '{"n":{"1":{},"2":[]}}'),
    ({"small": 1e-7}, '{"small":1e-7}'),
]


@pytest.mark.parametrize(("value", "expected"), COMPACT)
def test_compact_json(value: Any, expected: str) -> None:
    assert compact_json(value) == expected


# --- §0.4 equality ---------------------------------------------------------------------

EQUAL = [
    (53, 53.0, True),
    (53.0, 53, True),
    (True, 1, False),
    (1, True, False),
    (False, 0, False),
    (True, True, True),
    (53, "53", False),
    ("53", "53", True),
    (None, None, True),
    (None, ABSENT, False),  # absent and null are different
    (ABSENT, None, False),
    (ABSENT, {}, False),
    (None, {}, False),
    (None, [], False),
    (None, 0, False),
    ([], {}, False),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # key order does not matter
    ({"a": 1}, {"a": 1, "b": None}, False),  # a null member is not an absent one
    ([1, 2], [2, 1], False),  # list order does
    ([1, 2], [1, 2, 3], False),
    ({"a": [{"b": 53}]}, {"a": [{"b": 53.0}]}, True),
    ({"a": [{"b": 53}]}, {"a": [{"b": "53"}]}, False),
    (math.nan, math.nan, True),  # as the reference does
    (0, -0.0, False),  # as the reference does
    (0, 0.0, True),
]


@pytest.mark.parametrize(("left", "right", "expected"), EQUAL)
def test_deep_equal(left: Any, right: Any, expected: bool) -> None:
    assert deep_equal(left, right) is expected


# --- §0.5 label sets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, "(none)"),
        ({"b": "2", "a": "1"}, "a=1, b=2"),
        ({"app": "web", "App": "x"}, "App=x, app=web"),
        # UTF-16 order: U+1F600 is a surrogate pair (0xD83D...) and sorts before U+FF5E,
        # whereas code-point order would put it after.
        ({"\uff5e": "1", "\U0001f600": "2"}, "\U0001f600=2, \uff5e=1"),
    ],
)
def test_render_labels(labels: dict[str, str], expected: str) -> None:
    assert render_labels(labels) == expected


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.sampled_from([0.0, -0.0, 1.0, 2.5, math.nan, math.inf])
    | st.sampled_from(["", "a", "1", "True"])
)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "1"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _reordered(value: Any) -> Any:
    """The same value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@settings(max_examples=500, deadline=None)
@given(left=_json, right=_json, alike=st.sampled_from(["independent", "same", "reordered"]))
def test_deep_equal_asks_the_text_first_and_answers_the_same(
    left: Any, right: Any, alike: str
) -> None:
    """``deep_equal`` answers at C speed when both values are written alike;
    its answer is always the structural comparison's."""
    if alike == "same":
        right = left
    elif alike == "reordered":
        right = _reordered(left)
    assert deep_equal(left, right) is _deep_equal(left, right)
