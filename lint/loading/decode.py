"""Bytes to text, the way a YAML reader detects its encoding.

UTF-8 is the norm; a UTF-8 byte order mark is dropped. UTF-16 and UTF-32 are
accepted only with their byte order mark, as libyaml does for UTF-16. Anything
else is reported, never guessed: UTF-16 without a mark is recognised only to
say so, and to sniff the policies it holds so that they fail closed.
"""

from __future__ import annotations

import codecs

import msgspec

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class DecodeFailure(msgspec.Struct, frozen=True):
    """Why the bytes are not text; ``line`` is where the first bad byte sits."""

    message: str
    line: int


def decode(data: bytes) -> str | DecodeFailure:
    """The text of ``data``, or why it cannot be read."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_with(data, encoding)
    unmarked = _unmarked_utf16(data)
    if unmarked is not None:
        # Valid UTF-8 (ASCII and NULs), but no YAML reader takes it.
        return DecodeFailure(
            f"this looks like {unmarked.upper()} without a byte order mark; save the file as UTF-8",
            1,
        )
    return _decode_with(data, "utf-8")


def _unmarked_utf16(data: bytes) -> str | None:
    """The UTF-16 byte order of text whose first characters are ASCII with a
    zero byte beside each, as UTF-16 text saved without a mark is."""
    head = data[:256]
    if len(head) < 4 or len(head) % 2 or b"\x00" not in head:
        return None
    if not any(head[1::2]) and all(head[0::2]):
        return "utf-16-le"
    if not any(head[0::2]) and all(head[1::2]):
        return "utf-16-be"
    return None


def _decode_with(data: bytes, encoding: str) -> str | DecodeFailure:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return DecodeFailure(
            f"not valid {encoding.removesuffix('-sig').upper()}: byte {error.start} "
            f"(line {line}) cannot be decoded; save the file as UTF-8",
            line,
        )


def decode_leniently(data: bytes) -> str:
    """Text good enough to sniff a kind from undecodable bytes."""
    unmarked = _unmarked_utf16(data)
    if unmarked is not None:
        return data.decode(unmarked, "replace")
    return data.decode("latin-1")
