"""Checking the yaml_rs fast path against the slow path, one chunk at a time.

Whenever ``fast_value`` vouches for a document, the slow path must read the
same text without an error or a repeated key, build a strictly equal value,
and put the document on the line the loader gives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lint.loading.limits import DEFAULT_LIMITS, LoadLimits
from lint.loading.split import Chunk, split_stream
from lint.yaml.fast_parse import fast_value
from lint.yaml.parse import ParseFailure, parse_yaml
from tests.loading.helpers import strictly_equal


@dataclass
class Tally:
    """How many documents were read, and how many the fast path vouched for."""

    read: int = 0
    vouched: int = 0

    def add(self, other: Tally) -> None:
        self.read += other.read
        self.vouched += other.vouched


def check_chunk(layout: str, piece: str, chunk: Chunk, limits: LoadLimits = DEFAULT_LIMITS) -> bool:
    """Assert the fast path agrees with the slow one on ``piece``, the text
    of ``chunk`` (``layout`` is the stream it was cut from); whether it
    vouched."""
    fast = fast_value(piece, limits.max_depth)
    if fast is None:
        return False
    try:
        slow = parse_yaml(piece, limits=limits)
    except ParseFailure as failure:
        raise AssertionError(f"fast path read what libyaml refuses: {piece!r}") from failure
    assert slow.duplicates == (), piece
    assert strictly_equal(fast, slow.value), piece
    assert chunk.content is not None, piece
    assert chunk.line_at(layout, chunk.content) == chunk.line + slow.line, piece
    return True


def check_stream(text: str, limits: LoadLimits = DEFAULT_LIMITS) -> Tally:
    """``check_chunk`` on every document of a stream the loader would parse."""
    tally = Tally()
    for chunk in split_stream(text):
        if chunk.problem is None and chunk.content is not None:
            tally.read += 1
            tally.vouched += check_chunk(text, text[chunk.start : chunk.end], chunk, limits)
    return tally


def check_streams(texts: Iterable[str]) -> Tally:
    tally = Tally()
    for text in texts:
        tally.add(check_stream(text))
    return tally
