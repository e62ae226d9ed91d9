"""JSON-shaped values as the reference reads them (SEMANTICS.md §0).

The reference is JavaScript reading JSON. These helpers reproduce the parts of
that behaviour a Python port gets wrong by default: booleans are not numbers,
object keys that look like array indices sort first, trimming uses the
JavaScript whitespace set, and ``Number()`` has its own string grammar.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from enum import Enum
from json.encoder import encode_basestring
from typing import Any, Final, TypeAlias

JSON: TypeAlias = Any
"""A JSON-shaped value: dict, list, str, int, float, bool or None."""


class _Unreadable(Enum):
    UNREADABLE = "unreadable"

    def __repr__(self) -> str:
        return "UNREADABLE"


UNREADABLE: Final = _Unreadable.UNREADABLE
"""Marker returned by readers when a value has the wrong type (§0.1)."""

Unreadable: TypeAlias = _Unreadable


class _Absent(Enum):
    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent.ABSENT
"""Marker for a key that is not there, as distinct from a null value (§0.1).
Read a field with ``mapping.get(key, ABSENT)``."""

Absent: TypeAlias = _Absent

# JavaScript's String.prototype.trim whitespace: WhiteSpace and LineTerminator.
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_object(value: JSON) -> bool:
    """An object is a mapping: never a list, never null (§0.1)."""
    return isinstance(value, dict)


def is_number(value: JSON) -> bool:
    """A number is an int or a float, never a bool (§0.1)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_integer(value: JSON) -> bool:
    """A finite number with no fractional part (§0.1)."""
    if not is_number(value):
        return False
    # An int too large for a double would be Infinity in the reference.
    return _is_finite(value) and float(value).is_integer()


def read_list(container: Mapping[str, JSON], key: str) -> list[JSON] | Unreadable | None:
    """The list reader (§0.1): absent or null gives None, a list gives the
    list, any other value gives UNREADABLE."""
    value = container.get(key)
    if value is None:
        return None
    if isinstance(value, list):
        return value
    return UNREADABLE


def js_trim(text: str) -> str:
    """``String.prototype.trim`` (§2.3): strip the JavaScript whitespace set."""
    return text.strip(JS_WHITESPACE)


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_PREFIXED = {
    "0x": (re.compile(r"[0-9a-fA-F]+", re.ASCII), 16),
    "0o": (re.compile(r"[0-7]+", re.ASCII), 8),
    "0b": (re.compile(r"[01]+", re.ASCII), 2),
}


def js_number(text: str) -> float:
    """JavaScript ``Number(text)`` for a string (§7.2). NaN when it does not
    parse. Integral results are still floats; use :func:`is_integer`."""
    body = js_trim(text)
    if body == "":
        return 0.0
    prefix = body[:2].lower()
    if prefix in _PREFIXED:
        pattern, base = _PREFIXED[prefix]
        digits = body[2:]
        return _prefixed_value(digits, base) if pattern.fullmatch(digits) else math.nan
    unsigned = body.lstrip("+-")
    if unsigned == "Infinity" and len(body) - len(unsigned) <= 1:
        return -math.inf if body.startswith("-") else math.inf
    if _DECIMAL.fullmatch(body):
        return float(body)
    return math.nan


def _prefixed_value(digits: str, base: int) -> float:
    """A hex, octal or binary literal as a double; JavaScript gives
    Infinity where Python's ``float()`` of a huge int would raise."""
    try:
        return float(int(digits, base))
    except OverflowError:
        return math.inf


def format_number(value: int | float) -> str:
    """Render a number as JavaScript's ``String(number)`` does (§0.1):
    integral values have no fraction (``53``, never ``53.0``), ``-0`` is
    ``0``, and exponents appear only from 1e21 up and below 1e-6."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**21:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    return sign + _format_positive(*_shortest_digits(abs(number)))


def _shortest_digits(number: float) -> tuple[str, int]:
    """The shortest round-trip digits of a positive finite double, and the
    position ``n`` of the decimal point (value = 0.digits x 10^n)."""
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    stripped = digits.lstrip("0")
    point = len(whole) + int(exponent or "0") - (len(digits) - len(stripped))
    return stripped.rstrip("0"), point


def _format_positive(digits: str, point: int) -> str:
    """ECMAScript Number::toString layout for ``0.digits x 10^point``."""
    count = len(digits)
    if count <= point <= 21:
        return digits + "0" * (point - count)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    exponent = point - 1
    mantissa = digits[0] + ("." + digits[1:] if count > 1 else "")
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


_INDEX_KEY = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_MAX_INDEX: Final = 4294967294


def _is_index_key(key: str) -> bool:
    return bool(_INDEX_KEY.fullmatch(key)) and int(key) <= _MAX_INDEX


def js_key_order(keys: Iterable[str]) -> list[str]:
    """Object key order in JavaScript (§0.3, quirk Q10): canonical array-index
    keys first in ascending numeric order, then the rest in insertion order."""
    ordered = list(keys)
    if not _may_hold_index(ordered):
        return ordered
    indices = sorted((k for k in ordered if _is_index_key(k)), key=int)
    return indices + [k for k in ordered if not _is_index_key(k)]


def js_items(mapping: Mapping[str, JSON]) -> list[tuple[str, JSON]]:
    """The (key, value) pairs of an object in JavaScript key order."""
    if not _may_hold_index(mapping):
        return list(mapping.items())
    return [(key, mapping[key]) for key in js_key_order(mapping)]


def _may_hold_index(keys: Iterable[object]) -> bool:
    """Whether a key starts with a digit: almost no real key does, and only
    those can be indices. A plain loop, not any() over a generator: this
    runs for every selector read."""
    for key in keys:  # noqa: SIM110
        if isinstance(key, str) and key[:1].isdigit():
            return True
    return False


def compact_json(value: JSON) -> str:
    """``JSON.stringify`` of a value (§0.3): no whitespace, index-like keys
    first, numbers as JavaScript writes them (``53``, never ``53.0``), NaN
    and infinities as null, absent members omitted."""
    if value is None or value is ABSENT:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return format_number(value) if _is_finite(value) else "null"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        members = js_items({str(key): item for key, item in value.items()})
        shown = [(key, item) for key, item in members if item is not ABSENT]
        return "{" + ",".join(f"{_json_string(k)}:{compact_json(v)}" for k, v in shown) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(compact_json(item) for item in value) + "]"
    # A value JSON has no type for (a date, say): render its text so details
    # stay readable.
    return _json_string(str(value))


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _json_string(text: str) -> str:
    # json.dumps escapes what JSON.stringify does once non-ASCII is kept, except
    # lone surrogates, which well-formed JSON.stringify writes as \uXXXX. Its
    # string escaper is called directly: json.dumps with ensure_ascii=False
    # makes a new encoder for every call.
    quoted = encode_basestring(text)
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", quoted)


def _is_finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def deep_equal(left: JSON, right: JSON) -> bool:
    """Strict structural equality (§0.4): JSON types must match, numbers
    compare by value, object key order does not matter.

    Two values written alike (the same ``repr``: the same types, values
    and key order) are equal: that is asked first, at C speed, as the
    values compared (a named object and its translation) mostly match."""
    return repr(left) == repr(right) or _deep_equal(left, right)


def _deep_equal(left: JSON, right: JSON) -> bool:
    if is_number(left) or is_number(right):
        return is_number(left) and is_number(right) and _number_equal(left, right)
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, dict) or isinstance(right, dict):
        if not (isinstance(left, dict) and isinstance(right, dict)):
            return False
        if left.keys() != right.keys():
            return False
        return all(_deep_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) or isinstance(right, list):
        if not (isinstance(left, list) and isinstance(right, list)):
            return False
        return len(left) == len(right) and all(
            _deep_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return type(left) is type(right) and bool(left == right)


def _number_equal(left: int | float, right: int | float) -> bool:
    if _is_nan(left) and _is_nan(right):
        return True
    if left == 0 and right == 0:
        return math.copysign(1.0, left) == math.copysign(1.0, right)
    return left == right


def _is_nan(value: int | float) -> bool:
    return isinstance(value, float) and math.isnan(value)


def render_labels(labels: Mapping[str, str]) -> str:
    """A label set in messages (§0.5): ``key=value`` sorted by UTF-16 code
    unit and joined with ``, ``; ``(none)`` when empty."""
    if not labels:
        return "(none)"
    pairs = [f"{key}={value}" for key, value in labels.items()]
    return ", ".join(sorted(pairs, key=lambda s: s.encode("utf-16-be")))
