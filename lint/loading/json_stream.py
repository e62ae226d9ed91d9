"""Streams apimachinery reads as a sequence of JSON values.

``YAMLOrJSONDecoder`` peeks at the first 4,096 bytes: when they start, past
Go's whitespace, with ``{``, the stream is decoded with Go's JSON decoder,
value after value, with nothing or JSON whitespace between them. When a
value fails to decode after at most one value, the decoder eats whitespace
up to and through the next newline and reads the rest as YAML; after two or
more, it stops with the error. (kubernetes/apimachinery
``pkg/util/yaml/decoder.go``; docs/yaml.md names the commit.)

libyaml reads ``{...}`` then ``{...}`` on the next line as a syntax error,
so such a stream must be cut here, not by ``split``. ``json_stream`` answers
only when apimachinery's reading differs from one YAML stream's.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import msgspec

from lint.loading.split import GO_SPACES

PEEK: Final = 4096
"""Bytes ``NewYAMLOrJSONDecoder`` is given to peek at by kubectl and Argo CD."""
_JSON_SPACE: Final = re.compile(r"[ \t\r\n]*")
_YAML_BLANKS: Final = frozenset(" \t\r\n")


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_refuse)


class JsonStream(msgspec.Struct, frozen=True):
    """The spans of the values read as JSON; ``rest`` is where reading goes
    on as YAML, or where it stops when ``stopped`` says why."""

    values: tuple[tuple[int, int], ...]
    rest: int | None
    stopped: str | None = None


def json_stream(text: str) -> JsonStream | None:
    """How apimachinery reads ``text``, when it does not read it as the one
    YAML stream the loader would otherwise cut; None when it does."""
    lead = len(text) - len(text.lstrip(GO_SPACES))
    if text[lead : lead + 1] != "{" or len(text[:lead].encode("utf-8", "surrogatepass")) >= PEEK:
        return None
    values: list[tuple[int, int]] = []
    position = 0
    failure: str | None = None
    while True:
        position = _JSON_SPACE.match(text, position).end()  # type: ignore[union-attr]
        if position == len(text):
            break
        try:
            _, end = _DECODER.raw_decode(text, position)
        except RecursionError:
            failure = "the value is nested too deeply"
            break
        except json.JSONDecodeError as error:
            failure = error.msg
            break
        except ValueError as error:  # NaN or Infinity
            failure = str(error)
            break
        values.append((position, end))
        position = end
    if failure is None:
        if len(values) == 1 and _yaml_reads_alike(text, values[0]):
            return None
        return JsonStream(tuple(values), None)
    if len(values) > 1:
        return JsonStream(tuple(values), position, failure)
    rest = _eat_whitespace(text, values[0][1] if values else 0)
    if not values and all(char in _YAML_BLANKS for char in text[:rest]):
        return None  # YAML from the start, as libyaml reads it anyway
    return JsonStream(tuple(values), rest)


def _yaml_reads_alike(text: str, span: tuple[int, int]) -> bool:
    """Whether libyaml reads the one JSON value at ``span`` as the value
    itself: only spaces and line breaks around it. A tab before it, which
    Go's JSON decoder skips, is a token libyaml refuses at a line's start."""
    start, end = span
    return not text[:start].strip(" \r\n") and not text[end:].strip(" \r\n")


def _eat_whitespace(text: str, start: int) -> int:
    """``consumeWhitespace``: Go spaces up to and through the first newline."""
    position = start
    while position < len(text) and text[position] in GO_SPACES:
        position += 1
        if text[position - 1] == "\n":
            break
    return position
