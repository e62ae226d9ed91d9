"""Scalars of the declaration file: what a plain or tagged text means.

The file is read as YAML 1.2 with the core schema, extended the way the
file was always read (ruamel.yaml's round-trip loader, the project's first
reader): ``0b`` and ``0o`` integers, ``_`` between digits, ``.5`` floats,
timestamps, and the merge (``<<``) and value (``=``) keys. A leading zero
is not octal, and ``yes``, ``on``, ``y`` are strings. A ``%YAML 1.1``
directive selects the YAML 1.1 rules of the same reader instead (``yes`` and
``on`` booleans, leading-zero octals, sexagesimal numbers).

Plain scalars are matched against the patterns that start with their first
character, in a fixed order, then built. Values JSON has no type for (dates,
binary data, unknown tags) are built as :class:`Foreign`, for the caller to
refuse with a path; text that a tag or pattern claims but that cannot be
built is a :class:`ScalarError`.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

YamlVersion: TypeAlias = tuple[int, int]

YAML_1_1: Final[YamlVersion] = (1, 1)
YAML_1_2: Final[YamlVersion] = (1, 2)

_CORE = "tag:yaml.org,2002:"
PLAIN_TAG: Final = "!plain"
"""The composer's tag for an untagged plain scalar (or one tagged ``!``)."""
STR_TAG: Final = _CORE + "str"
MAP_TAG: Final = _CORE + "map"
SEQ_TAG: Final = _CORE + "seq"
MERGE_TAG: Final = _CORE + "merge"
VALUE_TAG: Final = _CORE + "value"
NULL_TAG: Final = _CORE + "null"
BOOL_TAG: Final = _CORE + "bool"
INT_TAG: Final = _CORE + "int"
FLOAT_TAG: Final = _CORE + "float"
TIMESTAMP_TAG: Final = _CORE + "timestamp"
BINARY_TAG: Final = _CORE + "binary"

SCALAR_ONLY_TAGS: Final = frozenset(
    {NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, TIMESTAMP_TAG, BINARY_TAG}
)
"""Core tags whose node must be a scalar."""


class ScalarError(Exception):
    """Text that its tag or its pattern claims but that cannot be built."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True, eq=False)
class Foreign:
    """A value JSON has no type for. ``value`` is the Python value where
    there is one (a date, bytes), shown in messages; None otherwise. Two
    of them are never equal (as keys, each is its own)."""

    tag: str
    text: str
    value: object = None

    def __str__(self) -> str:
        return self.text if self.value is None else str(self.value)

    def __repr__(self) -> str:
        return repr(self.text) if self.value is None else repr(self.value)


NAN: Final = math.nan
"""The one not-a-number ``.nan`` reads as: equal keys are one object."""

_BOOLEANS: Final = {
    "yes": True,
    "no": False,
    "y": True,
    "n": False,
    "true": True,
    "false": False,
    "on": True,
    "off": False,
}

_BOOL_1_2 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_BOOL_1_1 = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE"
    r"|on|On|ON|off|Off|OFF)$"
)
_FLOAT_1_2 = re.compile(
    r"""^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_FLOAT_1_1 = re.compile(
    r"""^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    |\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_INT_1_2 = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+)$")
_INT_1_1 = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0?[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_MERGE = re.compile(r"^(?:<<)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TIMESTAMP = re.compile(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
    (?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)
_VALUE = re.compile(r"^(?:=)$")
# The parts of a timestamp, once a pattern or a tag says it is one.
_TIMESTAMP_PARTS = re.compile(
    r"""^(?P<year>[0-9]{4})-(?P<month>[0-9][0-9]?)-(?P<day>[0-9][0-9]?)
    (?:(?:[Tt]|[ \t]+)(?P<hour>[0-9][0-9]?):(?P<minute>[0-9][0-9]):(?P<second>[0-9][0-9])
    (?:\.(?P<fraction>[0-9]*))?
    (?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)
    (?::(?P<tz_minute>[0-9][0-9]))?))?)?$""",
    re.X,
)

_Patterns: TypeAlias = dict[str, list[tuple[str, re.Pattern[str]]]]


def _by_first_character(table: list[tuple[str, re.Pattern[str], tuple[str, ...]]]) -> _Patterns:
    """Index the patterns by the characters a match can start with (``""``
    for the empty scalar), keeping the table's order: the first pattern
    that matches decides."""
    index: _Patterns = {}
    for tag, pattern, starts in table:
        for start in starts:
            index.setdefault(start, []).append((tag, pattern))
    return index


_DIGITS = tuple("0123456789")
_NUMBER_STARTS = ("-", "+", *_DIGITS)
_SHARED_PATTERNS = [
    (MERGE_TAG, _MERGE, ("<",)),
    (NULL_TAG, _NULL, ("~", "n", "N", "")),
    (TIMESTAMP_TAG, _TIMESTAMP, _DIGITS),
    (VALUE_TAG, _VALUE, ("=",)),
]
_PATTERNS: Final[dict[YamlVersion, _Patterns]] = {
    YAML_1_2: _by_first_character(
        [
            (BOOL_TAG, _BOOL_1_2, tuple("tTfF")),
            (FLOAT_TAG, _FLOAT_1_2, (".", *_NUMBER_STARTS)),
            (INT_TAG, _INT_1_2, _NUMBER_STARTS),
            *_SHARED_PATTERNS,
        ]
    ),
    YAML_1_1: _by_first_character(
        [
            (BOOL_TAG, _BOOL_1_1, tuple("yYnNtTfFoO")),
            (FLOAT_TAG, _FLOAT_1_1, (".", *_NUMBER_STARTS)),
            (INT_TAG, _INT_1_1, _NUMBER_STARTS),
            *_SHARED_PATTERNS,
        ]
    ),
}


def plain_tag(text: str, version: YamlVersion) -> str:
    """The tag a plain scalar resolves to (``STR_TAG`` when no pattern matches)."""
    for tag, pattern in _PATTERNS[version].get(text[:1], ()):
        if pattern.match(text):
            return tag
    return STR_TAG


def scalar_value(tag: str, text: str, version: YamlVersion) -> object:
    """The value of a scalar node: a JSON scalar, or :class:`Foreign`.

    Raises :class:`ScalarError` when ``text`` is not of the tagged type.
    """
    if tag == PLAIN_TAG:
        tag = plain_tag(text, version)
        if tag == STR_TAG:
            return text
    if tag == STR_TAG:
        return text
    build = _BUILDERS.get(tag)
    if build is not None:
        return build(text, version)
    if tag in (MAP_TAG, SEQ_TAG):
        kind = "mapping" if tag == MAP_TAG else "sequence"
        raise ScalarError(f"expected a {kind} node, but found scalar")
    return Foreign(tag, text)


def _null(text: str, version: YamlVersion) -> None:
    return None


def _bool(text: str, version: YamlVersion) -> bool:
    value = _BOOLEANS.get(text.lower())
    if value is None:
        raise ScalarError(f'failed to construct bool from "{text}"')
    return value


def _int(text: str, version: YamlVersion) -> int:
    try:
        return _read_int(text, version)
    except (ValueError, IndexError):
        raise ScalarError(f'failed to construct int from "{text}"') from None


def _read_int(text: str, version: YamlVersion) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    base = {"0b": 2, "0x": 16, "0o": 8}.get(digits[:2])
    if base is not None:
        return sign * int(digits[2:], base)
    if version == YAML_1_1 and len(digits) > 1 and digits[0] == "0":
        return sign * int(digits, 8)
    if version == YAML_1_1 and ":" in digits:
        return sign * int(_sexagesimal(digits, int))
    return sign * int(digits)


def _float(text: str, version: YamlVersion) -> float:
    try:
        return _read_float(text, version)
    except (ValueError, IndexError):
        raise ScalarError(f'failed to construct float from "{text}"') from None


def _read_float(text: str, version: YamlVersion) -> float:
    digits = text.replace("_", "").lower()
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    if digits == ".inf":
        return sign * math.inf
    if digits == ".nan":
        return NAN
    if version == YAML_1_1 and ":" in digits:
        return sign * float(_sexagesimal(digits, float))
    return sign * float(digits)


def _sexagesimal(digits: str, read: Callable[[str], float]) -> float:
    """``1:30`` is 90: base-60 places, in YAML 1.1 only. Summed from the
    last place up, so a float comes out exactly as it always did."""
    total: float = 0
    weight = 1
    for place in reversed(digits.split(":")):
        total += read(place) * weight
        weight *= 60
    return total


def _timestamp(text: str, version: YamlVersion) -> Foreign:
    parts = _TIMESTAMP_PARTS.match(text)
    if parts is None:
        raise ScalarError(f'failed to construct timestamp from "{text}"')
    try:
        value: object = _date_or_time(parts)
    except ValueError:  # 2024-13-45 is still meant as a date
        value = None
    return Foreign(TIMESTAMP_TAG, text, value)


def _date_or_time(parts: re.Match[str]) -> datetime.date:
    year, month, day = (int(parts[name]) for name in ("year", "month", "day"))
    if parts["hour"] is None:
        return datetime.date(year, month, day)
    fraction = (parts["fraction"] or "")[:6].ljust(6, "0")
    zone = None
    if parts["tz"]:
        offset = datetime.timedelta(
            hours=int(parts["tz_hour"] or 0), minutes=int(parts["tz_minute"] or 0)
        )
        zone = datetime.timezone(-offset if parts["tz_sign"] == "-" else offset, parts["tz"])
    return datetime.datetime(
        year,
        month,
        day,
        int(parts["hour"]),
        int(parts["minute"]),
        int(parts["second"]),
        int(fraction),
        zone,
    )


def _binary(text: str, version: YamlVersion) -> Foreign:
    try:
        data = text.encode("ascii")
    except UnicodeEncodeError as error:
        raise ScalarError(f"failed to convert base64 data into ascii: {error!s}") from None
    try:
        return Foreign(BINARY_TAG, text, base64.decodebytes(data))
    except binascii.Error as error:
        raise ScalarError(f"failed to decode base64 data: {error!s}") from None


_BUILDERS: Final[dict[str, Callable[[str, YamlVersion], object]]] = {
    NULL_TAG: _null,
    BOOL_TAG: _bool,
    INT_TAG: _int,
    FLOAT_TAG: _float,
    TIMESTAMP_TAG: _timestamp,
    BINARY_TAG: _binary,
}
