"""``load()``: from paths to the documents the check reads.

The work per file is: decode, cut into documents (``split``), skip the ones
whose text proves them irrelevant (``sniff``), parse the rest one by one
(with yaml_rs when ``fast_parse`` can vouch for the value, else ``parse``),
and open list wrappers (``lists``). One broken document never costs the rest
of its file.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec
from yaml.nodes import Node

from lint.kinds import (
    CATCH_ALL_GROUPS,
    CONFIG_MAP,
    CONFIG_MAP_NAMES,
    CONTROLLER_IMAGE_NAME,
    CONTROLLER_WORKLOADS,
    RELEVANT_KINDS,
)
from lint.loading.decode import DecodeFailure, decode, decode_leniently
from lint.loading.documents import LoadedDocument, LoadProblem, LoadResult
from lint.loading.files import SourceFile, read_inputs, read_source
from lint.loading.json_stream import JsonStream, json_stream
from lint.loading.kinds import is_list_kind
from lint.loading.limits import DEFAULT_LIMITS, LoadLimits, describe_size
from lint.loading.lists import Harvest, harvest
from lint.loading.rendered import chart_file
from lint.loading.shares import harvest_inputs
from lint.loading.sniff import (
    UNUSUAL_BREAKS,
    certain_kind,
    has_unusual_breaks,
    may_name_config_map,
    may_run_controller,
    suspect_policy,
)
from lint.loading.split import Chunk, kube_separators, split_marked, split_stream
from lint.parallel.lifetime import collector_paused
from lint.yaml.fast_parse import fast_value
from lint.yaml.parse import ParseFailure, compose, parse_first_yaml, parse_json, parse_yaml

_FIRST_NON_BLANK: Final = re.compile(r"\S")
UNRENDERED_HINT: Final = (
    "it looks like an unrendered template: check the output of `helm template` "
    "or `kustomize build` instead"
)


def load(
    paths: Sequence[str],
    *,
    stdin: bytes | None = None,
    relevant_kinds: frozenset[str] = RELEVANT_KINDS,
    limits: LoadLimits = DEFAULT_LIMITS,
    jobs: int = 1,
    meanwhile: Callable[[], object] | None = None,
) -> LoadResult:
    """Read every manifest under ``paths`` (DESIGN §2.1).

    A path is a directory (walked recursively), a file, or ``-`` for
    ``stdin`` (read from the process when not given). Documents come in file
    order, then by position in the file. Input past ``limits`` is not read
    and becomes a problem (``docs/limits.md``). With ``jobs`` above 1, a
    large input is loaded on that many processes, with the same result
    (``shares``); this process then calls ``meanwhile`` once, after the
    children start on the first files and before it takes any itself.
    """
    documents: list[LoadedDocument] = []
    problems: list[LoadProblem] = []
    skipped: Counter[str] = Counter()
    files = size = 0
    load_one = functools.partial(load_file, relevant=relevant_kinds, limits=limits)
    with collector_paused():
        for entry in harvest_inputs(read_inputs(paths, stdin, limits), load_one, jobs, meanwhile):
            if isinstance(entry, LoadProblem):
                problems.append(entry)
                continue
            _, found = entry
            if found.size is not None:
                files += 1
                size += found.size
            documents += found.documents
            problems += found.problems
            skipped.update(found.skipped)
    return LoadResult(
        documents=tuple(documents),
        problems=tuple(problems),
        skipped=dict(sorted(skipped.items())),
        files=files,
        bytes=size,
    )


def load_file(
    source: SourceFile, relevant: frozenset[str], limits: LoadLimits = DEFAULT_LIMITS
) -> Harvest:
    """The documents, problems and skipped kinds of one file, read here
    when the walk left its bytes to the process that loads it."""
    into = Harvest()
    read = read_source(source)
    if isinstance(read, LoadProblem):
        into.problems.append(read)
        return into
    source = read
    into.size = len(source.data)
    text = decode(source.data)
    if isinstance(text, DecodeFailure):
        into.problems += _undecodable(source, text)
        return into
    reading = _Reading(relevant, limits, into)
    if source.name.lower().endswith(".json") and _load_json(source.name, text, reading):
        return into
    values = json_stream(text)
    if values is None:
        _load_stream(source, text, reading)
    else:
        _load_json_stream(source, text, values, reading)
    return into


class _Reading(msgspec.Struct, frozen=True):
    """What every document of one file is read with, and where it goes."""

    relevant: frozenset[str]
    limits: LoadLimits
    into: Harvest
    rules: dict[str, int] = msgspec.field(default_factory=dict)
    """``_skip``'s rule for each kind met, worked out once (``relevant``
    answers in Python)."""


def _load_json(name: str, text: str, reading: _Reading) -> bool:
    """Read a plain JSON file; False when the text needs the YAML reader
    (which also applies the document size limit to it)."""
    if len(text) > reading.limits.max_document_size:
        return False
    value = parse_json(text, reading.limits.max_depth)
    if value is None:
        return False
    into, relevant = reading.into, reading.relevant
    first = _FIRST_NON_BLANK.search(text)
    if first is None:
        return True
    line = text.count("\n", 0, first.start()) + 1
    end_line = text.count("\n", 0, len(text.rstrip())) + 1
    document = LoadedDocument(name, line, end_line, 0, value, text=text, text_line=1)
    harvest(document, relevant, lambda: _quiet_compose(text), into)
    return True


class _Stream(msgspec.Struct, frozen=True):
    """A file's text, and the same text with every line break libyaml
    honours written as a newline: offsets agree, and lines and comments are
    read from ``layout``."""

    name: str
    text: str
    layout: str
    chart_root: str | None = None
    """Where ``# Source:`` paths are mapped to (``SourceFile.chart_root``)."""


def _load_stream(
    source: SourceFile, text: str, reading: _Reading, first_line: int = 1, first_index: int = 0
) -> None:
    """Cut ``text`` as apimachinery cuts it and read each document.
    ``first_line`` and ``first_index`` place text that follows a file's
    JSON values."""
    # libyaml also breaks lines at a lone CR, NEL, LS and PS. Such files are
    # cut on a copy where those read as newlines, and never sniffed.
    unusual = has_unusual_breaks(text)
    if unusual:
        text = kube_separators(text)  # which may blank such a break out
        unusual = has_unusual_breaks(text)
        layout = UNUSUAL_BREAKS.sub("\n", text) if unusual else text
        chunks = split_stream(layout)
    else:
        text, chunks = _cut(text)
        layout = text
    stream = _Stream(source.name, text, layout, source.chart_root)
    into = reading.into
    mentions = _Mentions(stream.layout)
    shifted = first_line != 1 or first_index != 0
    for chunk in chunks:
        if shifted:
            chunk.line += first_line - 1
            chunk.index += first_index
        if chunk.content is None and chunk.problem is None:
            continue
        if chunk.problem is not None:
            into.problems.append(_stream_problem(stream, chunk))
        elif unusual or not _skip(stream.layout, chunk, reading, mentions):
            _load_chunk(stream, chunk, reading)


def _cut(text: str) -> tuple[str, list[Chunk]]:
    """``text`` with apimachinery's separators written as libyaml's
    (``kube_separators``), and its chunks, for a text whose line breaks are
    all LF or CRLF (the rewrite writes only spaces, so it stays such a text).
    The rewrite searches the text only when the cut met a line that starts
    with ``---`` and goes on, and the text is cut again only if it changed."""
    chunks, marked = split_marked(text)
    if marked:
        rewritten = kube_separators(text)
        if rewritten is not text:
            return rewritten, split_stream(rewritten)
    return text, chunks


def _load_json_stream(source: SourceFile, text: str, values: JsonStream, reading: _Reading) -> None:
    """A stream apimachinery decodes as JSON values (``json_stream``): each
    value is a document; what follows is read as YAML, or is a problem where
    the decoder stops."""
    name = source.name
    stream = _Stream(name, text, text, source.chart_root)
    for index, (start, end) in enumerate(values.values):
        line = text.count("\n", 0, start) + 1
        chunk = Chunk(index, start, start, end, end, line, start, None)
        _load_json_value(stream, chunk, reading)
    if values.rest is None:
        return
    line = text.count("\n", 0, values.rest) + 1
    rest = text[values.rest :]
    if values.stopped is None:
        _load_stream(source, rest, reading, line, len(values.values))
        return
    kind, namespace = suspect_policy(rest)
    message = (
        f"not read: after {len(values.values)} JSON values, this is not JSON "
        f"({values.stopped}), and kubectl stops reading the stream here"
    )
    reading.into.problems.append(LoadProblem(name, line, message, kind, namespace))


def _load_json_value(stream: _Stream, chunk: Chunk, reading: _Reading) -> None:
    piece = stream.text[chunk.start : chunk.end]
    if len(piece) > reading.limits.max_document_size:
        reading.into.problems.append(_oversized(stream, chunk, piece, reading.limits))
        return
    value = parse_json(piece, reading.limits.max_depth)
    if value is None:
        _load_chunk(stream, chunk, reading)  # the YAML reader names the problem
        return
    end_line = chunk.line + piece.count("\n")
    document = LoadedDocument(
        stream.name, chunk.line, end_line, chunk.index, value, text=piece, text_line=chunk.line
    )
    harvest(document, reading.relevant, lambda: _quiet_compose(piece), reading.into)


class _Mentions:
    """What a file's text mentions anywhere, each found once per file, when
    a document of it first asks: a document can mention only what its file
    does, so the per-document searches of ``_skip`` run only in files that
    mention their words at all, and a file none of whose documents asks
    (every one parsed, or of a kind read whole) is never searched. Each is
    worked out when first read."""

    def __init__(self, text: str) -> None:
        self._text = text

    @functools.cached_property
    def catch_all_group(self) -> bool:
        return any(group in self._text for group in CATCH_ALL_GROUPS)

    @functools.cached_property
    def controller_image(self) -> bool:
        # An escape sequence can spell any word.
        return "\\" in self._text or CONTROLLER_IMAGE_NAME in self._text

    @functools.cached_property
    def config_map_name(self) -> bool:
        text = self._text
        return "\\" in text or any(name in text for name in CONFIG_MAP_NAMES)


_PARSE, _CONTROLLER, _CONFIG_MAP, _OTHER = range(4)
"""What ``_skip`` does with a document of a kind (``_rule``): parse it; parse
it when it may run the controller; when it may name a ConfigMap the check
reads; skip it, unless it belongs to a catch-all group."""


def _rule(kind: str, relevant: frozenset[str]) -> int:
    if is_list_kind(kind):
        return _PARSE
    if kind in CONTROLLER_WORKLOADS and kind not in relevant:
        return _CONTROLLER
    if kind in relevant:
        return _CONFIG_MAP if kind == CONFIG_MAP.name else _PARSE
    return _OTHER


def _skip(text: str, chunk: Chunk, reading: _Reading, mentions: _Mentions) -> bool:
    """Count and skip a document whose text settles that it is not read."""
    kind = certain_kind(text, chunk)
    if kind is None:
        return False
    rules = reading.rules
    rule = rules.get(kind)
    if rule is None:
        rule = rules[kind] = _rule(kind, reading.relevant)
    if rule == _PARSE:
        return False
    if rule == _CONTROLLER and mentions.controller_image and may_run_controller(text, chunk):
        return False
    if rule == _CONFIG_MAP and mentions.config_map_name and may_name_config_map(text, chunk):
        return False
    if mentions.catch_all_group and any(
        text.find(group, chunk.start, chunk.end) >= 0 for group in CATCH_ALL_GROUPS
    ):
        return False  # any kind of these groups may be a policy: parse it
    reading.into.skipped[kind] += 1
    return True


def _load_chunk(stream: _Stream, chunk: Chunk, reading: _Reading) -> None:
    piece = stream.text[chunk.start : chunk.end]
    if len(piece) > reading.limits.max_document_size:
        reading.into.problems.append(_oversized(stream, chunk, piece, reading.limits))
        return
    value = fast_value(piece, reading.limits.max_depth)
    if value is None:
        _parse_chunk(stream, chunk, piece, reading)
        return
    # yaml_rs vouched for the value (``fast_parse``): the document has no
    # problem, and its root starts on its first content line. The node
    # tree is only composed for a list wrapper, whose items need lines.
    assert chunk.content is not None  # a document with a value has content
    document = _document(stream, chunk, piece, chunk.line_at(stream.layout, chunk.content), value)
    harvest(document, reading.relevant, lambda: _quiet_compose(piece), reading.into)


def _parse_chunk(stream: _Stream, chunk: Chunk, piece: str, reading: _Reading) -> None:
    """The slow path: libyaml and our builder, with errors, repeated keys
    and the node tree."""
    into = reading.into
    try:
        parsed = parse_yaml(piece, limits=reading.limits)
    except ParseFailure as failure:
        kind = certain_kind(stream.layout, chunk)
        if kind in CONTROLLER_WORKLOADS and kind not in reading.relevant:
            # Read only for a version; an unreadable one was never a policy.
            into.skipped[kind] += 1
            return
        first = parse_first_yaml(piece, limits=reading.limits)
        if first is None:
            line = chunk.line + failure.line
            into.problems.append(_parse_problem(stream.name, line, piece, failure))
            return
        into.problems.append(_past_first_problem(stream.name, chunk.line, piece, failure))
        parsed = first
    into.problems += [
        LoadProblem(
            stream.name,
            chunk.line + line,
            f"the key {key!r} is repeated in this mapping; its last value is the one read",
            severity="warning",
        )
        for line, key in parsed.duplicates
    ]
    document = _document(stream, chunk, piece, chunk.line + parsed.line, parsed.value)
    harvest(document, reading.relevant, lambda: parsed.root, into)


def _document(stream: _Stream, chunk: Chunk, piece: str, line: int, value: Any) -> LoadedDocument:
    source = chunk.source(stream.layout)
    if source is not None and stream.chart_root is not None:
        source = chart_file(source, stream.chart_root)
    return LoadedDocument(
        file=stream.name,
        line=line,
        end_line=chunk.last_content_line(stream.layout),
        index=chunk.index,
        value=value,
        source=source,
        text=piece,
        text_line=chunk.line,
    )


def _oversized(stream: _Stream, chunk: Chunk, piece: str, limits: LoadLimits) -> LoadProblem:
    """A document too long to parse; what its text names as a policy still
    fails closed (SEMANTICS §17.7)."""
    kind, namespace = suspect_policy(piece)
    where = chunk.start if chunk.content is None else chunk.content
    message = (
        f"not read: the document is {len(piece):,} characters long, over the "
        f"{describe_size(limits.max_document_size)} limit on one document "
        "(raise it with --max-document-size)"
    )
    return LoadProblem(stream.name, chunk.line_at(stream.layout, where), message, kind, namespace)


def _parse_problem(name: str, line: int, piece: str, failure: ParseFailure) -> LoadProblem:
    kind, namespace = suspect_policy(piece)
    message = failure.message
    if "{{" in piece:
        message += f"; {UNRENDERED_HINT}"
    return LoadProblem(name, line, message, kind, namespace)


PAST_FIRST_DOCUMENT: Final = (
    "kubectl reads the document before this line and ignores the rest up to "
    "the next '---', as egress-lint does"
)


def _past_first_problem(
    name: str, first_line: int, piece: str, failure: ParseFailure
) -> LoadProblem:
    """A refusal past the end of a document that is read all the same, as
    go-yaml reads it (``parse_first_yaml``). Only the text from the refusal
    on can hide a policy kubectl would not apply, so only it is sniffed."""
    rest = piece[_offset_of_line(piece, failure.line) :]
    kind, namespace = suspect_policy(rest)
    message = f"{failure.message}; {PAST_FIRST_DOCUMENT}"
    return LoadProblem(name, first_line + failure.line, message, kind, namespace)


def _offset_of_line(text: str, line: int) -> int:
    """The offset where the 0-based ``line`` of ``text`` starts."""
    offset = 0
    for _ in range(line):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return len(text)
    return offset


def _stream_problem(stream: _Stream, chunk: Chunk) -> LoadProblem:
    where = chunk.start if chunk.content is None else chunk.content
    kind, namespace = suspect_policy(stream.text[chunk.start : chunk.end])
    line = chunk.line_at(stream.layout, where)
    return LoadProblem(stream.name, line, chunk.problem or "", kind, namespace)


def _undecodable(source: SourceFile, failure: DecodeFailure) -> list[LoadProblem]:
    """One problem for the file, and one more for each further policy the
    bytes seem to hold, so every namespace they touch fails closed."""
    text = decode_leniently(source.data)
    problems: list[LoadProblem] = []
    seen: set[tuple[str | None, str | None]] = set()
    for chunk in split_stream(text):
        suspect = suspect_policy(text[chunk.start : chunk.end])
        if suspect[0] is None or suspect in seen:
            continue
        seen.add(suspect)
        where = chunk.start if chunk.content is None else chunk.content
        line = chunk.line_at(text, where) if problems else 1
        problems.append(LoadProblem(source.name, line, failure.message, *suspect))
    return problems or [LoadProblem(source.name, 1, failure.message)]


def _quiet_compose(text: str) -> Node | None:
    try:
        return compose(text)
    except ParseFailure:
        return None
