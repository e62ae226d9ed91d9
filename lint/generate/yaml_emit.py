"""A small block-style YAML writer for JSON-shaped values (SEMANTICS §3.8).

``generate`` must write manifests that re-parse to exactly the values the
engine built: same key order, same types. General-purpose emitters decide
quoting with the resolver of one YAML version, while the files are read by
YAML 1.1 readers (PyYAML, go-yaml v2) as well as YAML 1.2 ones (ruamel). So
this writer emits a string bare only when it is unambiguous under both:
everything else is double-quoted, and ``"53"``, ``"on"``, ``"1e2"``,
``"0o17"`` or ``"*.pypi.org"`` stay strings whatever reads them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Final

from lint.decision.values import JSON

INDENT: Final = 2

# Letters, digits and a few separators. A colon never starts or ends a bare
# scalar ("::/0" and "a:" are quoted), so it is never read as a mapping
# indicator; inside one ("k8s:k8s-app", "fc00::/7") it is plain text.
_BARE: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._/:-]*[A-Za-z0-9._/-])?", re.ASCII)
# Words some YAML version reads as a boolean or null (case-insensitively, to
# cover YES, Off, NULL, ...).
_RESERVED_WORDS: Final = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
# Characters a double-quoted scalar must escape: YAML 1.1 line breaks, the
# byte-order mark, and every non-printable character.
_NAMED_ESCAPES: Final = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\x00": "\\0",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


class EmitError(ValueError):
    """A value that has no faithful YAML form here (NaN, a non-string key, a
    type JSON does not have)."""


def dump_document(value: Mapping[str, JSON]) -> str:
    """One mapping as block YAML, ending with a newline."""
    if not isinstance(value, Mapping):
        raise EmitError("a manifest must be a mapping")
    if not value:
        return "{}\n"
    return "".join(line + "\n" for line in _mapping_lines(value, 0))


def is_bare_string(text: str) -> bool:
    """True when ``text`` can be written without quotes and every YAML 1.1
    and 1.2 reader still reads it as this same string.

    A bare scalar must start with a letter, except that a digit start is
    allowed when the text holds a ``/`` (``10.0.0.0/8``): no YAML number,
    timestamp or sexagesimal form contains one.
    """
    if not _BARE.fullmatch(text) or text.lower() in _RESERVED_WORDS:
        return False
    return text[0].isalpha() or "/" in text


def quote(text: str) -> str:
    """A quoted YAML scalar that reads back as exactly ``text``: double
    quotes, or single quotes when that avoids escaping a ``"`` or ``\\``
    (CEL expressions hold many), escapes only where a character needs one."""
    if all(_plain_char(char) for char in text) and ('"' in text or "\\" in text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(char) for char in text) + '"'


def _plain_char(char: str) -> bool:
    """A character that stands for itself inside a quoted or block scalar:
    printable, and not a line break or tab in either YAML version."""
    return char not in _NAMED_ESCAPES.keys() - {"\\", '"'} and _printable(ord(char))


def _escape(char: str) -> str:
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    if _printable(code):
        return char
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _printable(code: int) -> bool:
    """YAML's printable set, less the byte-order mark."""
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


def scalar(value: JSON) -> str:
    """The inline form of a scalar value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return value if is_bare_string(value) else quote(value)
    raise EmitError(f"a {type(value).__name__} value has no JSON type")


def _float(value: float) -> str:
    """A float that both YAML versions read back as a float: YAML 1.1 wants a
    dot in the mantissa, so ``1e+20`` becomes ``1.0e+20``."""
    if not math.isfinite(value):
        raise EmitError(f"{value} has no JSON form")
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _key(key: JSON) -> str:
    if not isinstance(key, str):
        raise EmitError(f"a mapping key must be a string, not {key!r}")
    return scalar(key)


def _literal_lines(text: str) -> list[str] | None:
    """The lines of a multi-line string as a ``|-`` or ``|`` block, or None
    when a block could not carry it exactly (then it is double-quoted)."""
    if "\n" not in text or not all(_plain_char(c) for c in text.replace("\n", "")):
        return None
    keep_final_newline = text.endswith("\n")
    body = text[:-1] if keep_final_newline else text
    lines = body.split("\n")
    if body.endswith("\n") or not lines[0] or lines[0][0] in " \t":
        return None
    if any(line.strip(" \t") == "" and line for line in lines):
        return None
    indicator = "|" if keep_final_newline else "|-"
    return [indicator, *lines]


def _value_lines(prefix: str, value: JSON, indent: int) -> list[str]:
    """``prefix`` (``key:`` or ``-``) followed by the value, inline when it
    is a scalar or empty, on the next lines otherwise."""
    pad = " " * indent
    if isinstance(value, Mapping):
        if not value:
            return [f"{prefix} {{}}"]
        return [prefix, *_mapping_lines(value, indent + INDENT)]
    if isinstance(value, list | tuple):
        if not value:
            return [f"{prefix} []"]
        return [prefix, *_sequence_lines(value, indent + INDENT)]
    if isinstance(value, str):
        block = _literal_lines(value)
        if block is not None:
            inner = pad + " " * INDENT
            return [f"{prefix} {block[0]}", *(inner + line if line else "" for line in block[1:])]
    return [f"{prefix} {scalar(value)}"]


def _mapping_lines(mapping: Mapping[str, JSON], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for key, value in mapping.items():
        lines.extend(_value_lines(f"{pad}{_key(key)}:", value, indent))
    return lines


def _sequence_lines(items: Sequence[JSON], indent: int) -> list[str]:
    """Each item after ``- ``; a non-empty mapping or list starts on the
    dash's own line (``- name: x``), its later lines indented under it."""
    pad = " " * indent
    lines: list[str] = []
    for item in items:
        inner = _nested_lines(item, indent + INDENT)
        if inner:
            lines.append(f"{pad}- {inner[0].lstrip(' ')}")
            lines.extend(inner[1:])
        else:
            lines.extend(_value_lines(f"{pad}-", item, indent))
    return lines


def _nested_lines(item: JSON, indent: int) -> list[str]:
    """The lines of a non-empty mapping or list item; [] for anything else."""
    if isinstance(item, Mapping) and item:
        return _mapping_lines(item, indent)
    if isinstance(item, list | tuple) and item:
        return _sequence_lines(item, indent)
    return []
