"""The JSON report's truncation as issue 15 wrote it (``fit_json`` at
``f5d521f``): the whole text decoded, capped and cut in memory. Kept here,
unchanged, as the reference ``lint.report.bounded.fit_document`` is held
to: the streamed report must cut a report to the same bytes. One change
since: a size is that of the text as the command line writes it, made
safe to show (issue 26: ``##[`` and raw DEL, C1 and bidirectional controls
written as escapes)."""

from __future__ import annotations

import json
from typing import Any

from lint.report.bounded import QUOTE_LIMIT, capped
from lint.report.escaping import neutralise

_KEPT_FIRST = ("findings", "parseErrors", "sandboxes")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def fit_json(text: str, limit: int) -> tuple[str, dict[str, Any] | None]:
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
    used = 0
    for count, item in enumerate(items):
        used += _size(_encode(item)) + (1 if count else 0)
        if used > budget:
            return count
    return len(items)


def _size(text: str) -> int:
    return len(neutralise(text, "json").encode("utf-8", "surrogatepass"))
