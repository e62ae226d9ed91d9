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
size is bounded instead, by ``--max-report-bytes`` (``fit_json``): past the
bound, strings are capped, then trailing entries of its lists left out,
and a ``truncated`` member says what was done, so the report stays valid
JSON and only gains a field. docs/limits.md describes both bounds.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

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


def fit_json(text: str, limit: int) -> tuple[str, dict[str, Any] | None]:
    """The JSON report ``text`` (one value and a newline), within ``limit``
    UTF-8 bytes, and what was done to fit it (None when it already fits).

    First every string longer than ``QUOTE_LIMIT`` is capped; if that is
    not enough, each top-level list keeps the entries that fit, findings
    first. The ``truncated`` member added says so. A report whose skeleton
    alone is past the limit is written as that skeleton."""
    size = _size(text)
    if size <= limit:
        return text, None
    document = json.loads(text)
    counter = [0]
    document = _capped_strings(document, counter)
    truncated: dict[str, Any] = {
        "maxReportBytes": limit,
        "reportBytes": size,
        "cappedStrings": counter[0],
        "omitted": {},
    }
    document["truncated"] = truncated
    fitted = _encode(document) + "\n"
    if _size(fitted) <= limit:
        return fitted, truncated
    lists = [key for key in _KEPT_FIRST if isinstance(document.get(key), list)]
    lists += [k for k, v in document.items() if isinstance(v, list) and k not in lists]
    full = {key: document[key] for key in lists}
    for key in lists:
        document[key] = []
        truncated["omitted"][key] = len(full[key])
    budget = limit - _size(_encode(document) + "\n")
    for key in lists:
        kept = _prefix(full[key], budget)
        document[key] = full[key][:kept]
        truncated["omitted"][key] = len(full[key]) - kept
        budget = limit - _size(_encode(document) + "\n")
    truncated["omitted"] = {k: n for k, n in truncated["omitted"].items() if n}
    return _encode(document) + "\n", truncated


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


def _capped_strings(value: Any, counter: list[int]) -> Any:
    if isinstance(value, str):
        if len(value) > QUOTE_LIMIT:
            counter[0] += 1
            return capped(value)
        return value
    if isinstance(value, list):
        return [_capped_strings(item, counter) for item in value]
    if isinstance(value, dict):
        return {key: _capped_strings(item, counter) for key, item in value.items()}
    return value


def _prefix(items: list[Any], budget: int) -> int:
    """How many leading entries fit in ``budget`` bytes (with their commas)."""
    used = 0
    for count, item in enumerate(items):
        used += _size(_encode(item)) + (1 if count else 0)
        if used > budget:
            return count
    return len(items)


def _size(text: str) -> int:
    """UTF-8 bytes of ``text``; ASCII (most reports) without encoding it."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
