"""Bounds on what a report quotes from the input (issue 15, item 5).

A value quoted from the input (a raw peer, a selector, a name, a detail
that embeds them) can be as long as the input lets it be, and aliases let
622 bytes of YAML expand to a peer of 3 MB. The reports a person reads
(text, SARIF, GitHub annotations, Markdown) cap every such value with
``capped``: its first ``QUOTE_LIMIT`` characters, an ellipsis and its size,
``…(12,345 bytes)``. ``bounded`` applies the cap to each whitespace-free
run of a message (compact JSON has no blanks, so a quoted peer is one run)
and then to the message as a whole, so a message of many short quotes is
bounded too.

The JSON report keeps every detail as REPORT.md specifies it. Its total
size is bounded instead, by ``--max-report-bytes`` (``fit_document``): past
the bound, strings are capped, then trailing entries of its lists left
out, and a ``truncated`` member says what was done, so the report stays
valid JSON and only gains a field. docs/limits.md describes both bounds.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from json.encoder import encode_basestring
from typing import Any, Final

import msgspec

from lint.report.escaping import COMMAND, neutralise

QUOTE_LIMIT: Final = 200
"""Characters of one quoted value a text, SARIF, GitHub or Markdown message keeps."""
MESSAGE_LIMIT: Final = 16_000
"""Characters of one whole message those formats keep: room for a long
list of places (a duplicate-object finding names every copy; the longest in
the shared corpus has 5,190 characters), not for a peer expanded by aliases
into many short quoted strings."""
ELLIPSIS: Final = "…"

DEFAULT_MAX_REPORT_BYTES: Final = 64 * 2**20
"""``--max-report-bytes``: the largest JSON report written, in UTF-8 bytes."""
MIN_MAX_REPORT_BYTES: Final = 64 * 2**10
"""The smallest bound the flag takes: room for the report's skeleton."""

_RUN: Final = re.compile(r"\S+")


def capped(value: str, limit: int = QUOTE_LIMIT) -> str:
    """``value`` itself when it has at most ``limit`` characters; else its
    first ``limit``, an ellipsis and its whole size in UTF-8 bytes."""
    if len(value) <= limit:
        return value
    size = len(value.encode("utf-8", "surrogatepass"))
    return f"{value[:limit]}{ELLIPSIS}({size:,} bytes)"


def bounded(message: str) -> str:
    """A message with every quoted value in it capped (``capped``): each
    run of characters without a blank, then the whole message at
    ``MESSAGE_LIMIT``. Linear in the message's length."""
    if len(message) <= QUOTE_LIMIT:
        return message
    runs = _RUN.sub(lambda run: capped(run.group()), message)
    return capped(runs, MESSAGE_LIMIT)


# The lists a truncated JSON report shortens, most wanted first: the
# findings decide the exit status; the rest are left out after them.
_KEPT_FIRST: Final = ("findings", "parseErrors", "sandboxes")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class Encoded(msgspec.Struct, frozen=True):
    """A top-level list whose entries come already capped and encoded, so
    ``fit_document`` neither builds nor walks them: ``measures()`` gives each
    entry's UTF-8 size and its count of capped strings, and ``chunks(count)``
    the text of the first ``count`` entries with the commas between them.
    A report's sandboxes come so (``JsonWriter.members``): their examined
    entries are capped and encoded once each, however many share them."""

    measures: Callable[[], Iterable[tuple[int, int]]]
    chunks: Callable[[int], Iterable[str]]


Members = Sequence[tuple[str, Any]]
"""A JSON object as its members in order; a list member is a ``list`` or an
``Encoded``."""

_Cut = dict[str, tuple[Callable[[int], Iterable[str]], list[int]]]
"""Each top-level list: what writes its first entries, and their sizes."""


def fit_document(members: Members, size: int, limit: int) -> tuple[Iterator[str], dict[str, Any]]:
    """The JSON report of ``members`` (``size`` UTF-8 bytes written
    compactly with a newline, past ``limit``) cut to fit ``limit``, as
    chunks, and what was done to fit it (its ``truncated`` member).

    First every string longer than ``QUOTE_LIMIT`` is capped; if that is
    not enough, each top-level list keeps the entries that fit, findings
    first. A report whose skeleton alone is past the limit is written as
    that skeleton. Each list is gone through entry by entry, to count and
    measure the capped entries and then to write those kept: memory stays
    that of one entry and of the sizes, whatever the size of the report
    (an ``Encoded`` list adds what it keeps of its entries' capped texts).
    """
    counter = [0]
    skeleton: dict[str, Any] = {}
    lists: _Cut = {}
    for key, value in members:
        if isinstance(value, list | Encoded):
            lists[key] = _measured(value, counter)
            skeleton[key] = []
        else:
            skeleton[key] = capped_strings(value, counter)
    truncated: dict[str, Any] = {
        "maxReportBytes": limit,
        "reportBytes": size,
        "cappedStrings": counter[0],
        "omitted": {},
    }
    skeleton["truncated"] = truncated
    kept = {key: len(sizes) for key, (_, sizes) in lists.items()}
    if _filled_size(skeleton, lists, kept) <= limit:
        return _written(skeleton, lists, kept), truncated
    order: list[str] = [key for key in _KEPT_FIRST if key in lists]
    order += [key for key in lists if key not in order]
    for key in order:
        kept[key] = 0
        truncated["omitted"][key] = len(lists[key][1])
    for key in order:
        sizes = lists[key][1]
        kept[key] = _prefix(sizes, limit - _filled_size(skeleton, lists, kept))
        truncated["omitted"][key] = len(sizes) - kept[key]
    truncated["omitted"] = {k: n for k, n in truncated["omitted"].items() if n}
    return _written(skeleton, lists, kept), truncated


def _measured(
    value: list[Any] | Encoded, counter: list[int]
) -> tuple[Callable[[int], Iterable[str]], list[int]]:
    """A list's writer and the sizes of its entries capped, their capped
    strings added to ``counter``."""
    if isinstance(value, Encoded):
        measures = list(value.measures())
        counter[0] += sum(count for _, count in measures)
        return value.chunks, [size for size, _ in measures]
    sizes = [report_size(_encode(capped_strings(item, counter))) for item in value]
    return _capped_chunks(value), sizes


def _capped_chunks(items: list[Any]) -> Callable[[int], Iterator[str]]:
    """What writes the first entries of a list of JSON values, each capped
    again as it is written: one capped entry is held at a time."""

    def chunks(count: int) -> Iterator[str]:
        for number, item in enumerate(itertools.islice(items, count)):
            text = _encode(capped_strings(item, [0]))
            yield f",{text}" if number else text

    return chunks


def _filled_size(skeleton: dict[str, Any], lists: _Cut, kept: dict[str, int]) -> int:
    """The bytes of the document with the first ``kept`` entries of each list."""
    size = report_size(_encode(skeleton) + "\n")
    for key, count in kept.items():
        size += sum(lists[key][1][:count]) + max(count - 1, 0)
    return size


def _written(skeleton: dict[str, Any], lists: _Cut, kept: dict[str, int]) -> Iterator[str]:
    """The document, compact, with its lists' first ``kept`` entries: the
    bytes ``_encode`` writes for the whole value, capped."""
    for index, (key, value) in enumerate(skeleton.items()):
        yield f"{',' if index else '{'}{encode_basestring(key)}:"
        if key not in lists:
            yield _encode(value)
            continue
        yield "["
        yield from lists[key][0](kept[key])
        yield "]"
    yield "}\n"


def truncation_note(truncated: dict[str, Any]) -> str:
    """What standard error says when the JSON report was truncated."""
    omitted = truncated["omitted"]
    left_out = ", ".join(f"{n:,} {key}" for key, n in omitted.items())
    return (
        f"egress-lint: the JSON report ({truncated['reportBytes']:,} bytes) is past "
        f"--max-report-bytes ({truncated['maxReportBytes']:,}): "
        f"{truncated['cappedStrings']:,} long strings were capped"
        + (f" and {left_out} left out" if left_out else "")
        + '; its "truncated" member says so'
    )


def capped_strings(value: Any, counter: list[int]) -> Any:
    """A JSON value with every string in it longer than ``QUOTE_LIMIT``
    capped (``capped``), each such string counted in ``counter``; the keys
    of its objects are kept as they are."""
    if isinstance(value, str):
        if len(value) > QUOTE_LIMIT:
            counter[0] += 1
            return capped(value)
        return value
    if isinstance(value, list):
        return [capped_strings(item, counter) for item in value]
    if isinstance(value, dict):
        return {key: capped_strings(item, counter) for key, item in value.items()}
    return value


def _prefix(sizes: list[int], budget: int) -> int:
    """How many leading entries of these sizes fit in ``budget`` bytes (with their commas)."""
    used = 0
    for count, size in enumerate(sizes):
        used += size + (1 if count else 0)
        if used > budget:
            return count
    return len(sizes)


def report_size(text: str) -> int:
    """UTF-8 bytes of JSON ``text`` as the command line writes it, made
    safe to show (``lint.report.escaping``: ``##[`` and raw DEL, C1 and
    bidirectional controls written as escapes); ASCII with none of them
    (most reports) without encoding it."""
    if text.isascii() and COMMAND not in text and "\x7f" not in text:
        return len(text)
    return len(neutralise(text, "json").encode("utf-8", "surrogatepass"))
