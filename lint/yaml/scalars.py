"""Plain scalars as Kubernetes reads them.

The API server's YAML decoder is ``sigs.k8s.io/yaml`` over a fork of go-yaml
v2 (INTEGRATIONS.md §4.4). Its resolver, reproduced here, keeps the YAML 1.1
booleans (``yes``, ``on``, ``y`` ...) and leading-zero octals, reads ``1e2``
as a float, has no sexagesimal numbers, and leaves timestamps as strings when
the target is untyped, which is how manifests reach JSON. ``docs/yaml.md``
has the table.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, Final

_NAN = math.nan
_INF = math.inf

_WORDS: Final[dict[str, Any]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"), True),
    **dict.fromkeys(("on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE"), False),
    **dict.fromkeys(("off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), _NAN),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), _INF),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -_INF),
}
# First characters for which go-yaml looks a plain scalar up in its table only.
_WORD_STARTS: Final = frozenset("yYnNtTfFoO~")
_NUMBER_STARTS: Final = frozenset("+-0123456789")
RESOLVING_STARTS: Final = _WORD_STARTS | _NUMBER_STARTS | {"."}
"""First characters of the non-empty plain scalars that may resolve to
something other than their own text; any other one is a string."""

# strconv.ParseInt(s, 0, 64) syntax: sign, then a base prefix or a bare 0 for octal.
_GO_INT: Final = re.compile(
    r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[bB]([01]+)|0[oO]([0-7]+)|0([0-7]+)|([1-9][0-9]*|0))"
)
_GO_FLOAT: Final = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT: Final = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
_BINARY: Final = re.compile(r"[+-]?[01]+")

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_UINT64_MAX: Final = 2**64 - 1


def resolve_plain(text: str) -> Any:
    """The value of an untagged plain scalar (go-yaml v2 ``resolve``)."""
    if not text:
        return None
    first = text[0]
    if first in _WORD_STARTS:
        return _WORDS.get(text, text)
    if first == ".":
        return _dot_number(text)
    if first in _NUMBER_STARTS:
        word = _WORDS.get(text, _WORDS)
        return _number(text) if word is _WORDS else word
    return text


def _dot_number(text: str) -> Any:
    word = _WORDS.get(text, _WORDS)
    if word is not _WORDS:
        return word
    if _DOT_FLOAT.fullmatch(text):
        value = float(text)
        if not math.isinf(value):
            return value
    return text


def _number(text: str) -> Any:
    plain = text.replace("_", "")
    integer = _go_int(plain)
    if integer is not None:
        return integer
    if _GO_FLOAT.fullmatch(plain):
        value = float(plain)
        # strconv.ParseFloat reports overflow as an error, so the text stays.
        if not math.isinf(value):
            return value
    if plain.startswith("0b") and _BINARY.fullmatch(plain[2:]):
        return _in_int64(int(plain[2:], 2), text)
    if plain.startswith("-0b") and _BINARY.fullmatch(plain[3:]):
        negated = _in_int64(int(plain[3:], 2), text)
        return -negated if isinstance(negated, int) else text
    return text


def _go_int(plain: str) -> int | None:
    """strconv.ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64)."""
    match = _GO_INT.fullmatch(plain)
    if match is None:
        return None
    sign, hexa, binary, octal_o, octal, decimal = match.groups()
    if hexa is not None:
        magnitude = int(hexa, 16)
    elif binary is not None:
        magnitude = int(binary, 2)
    elif octal_o is not None or octal is not None:
        magnitude = int(octal_o or octal, 8)
    else:
        magnitude = int(decimal)
    value = -magnitude if sign == "-" else magnitude
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if not sign and value <= _UINT64_MAX:
        return value
    return None


def _in_int64(value: int, text: str) -> int | str:
    return value if _INT64_MIN <= value <= _INT64_MAX else text


def mapping_key(value: Any) -> str | None:
    """The JSON member name sigs.k8s.io/yaml gives a scalar key, or None for a
    key it refuses (null, a list, a mapping, or an integer past int64)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if _INT64_MIN <= value <= _INT64_MAX else None
    if isinstance(value, float):
        return _go_float32_text(value)
    return None


def _go_float32_text(value: float) -> str:
    """strconv.FormatFloat(v, 'g', -1, 32), with go-yaml's names for the
    non-finite values."""
    try:
        single = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        single = math.copysign(_INF, value)
    if math.isnan(single):
        return ".nan"
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    digits, exponent = _shortest_float32_digits(abs(single))
    sign = "-" if single < 0 else ""
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest_float32_digits(value: float) -> tuple[str, int]:
    """The fewest significant digits that read back as the same float32, and
    the decimal exponent of the first one."""
    for precision in range(1, 10):
        text = f"{value:.{precision - 1}e}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value:
            break
    mantissa, exponent = text.split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exponent)
