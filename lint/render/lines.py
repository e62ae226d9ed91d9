"""The template line of a finding in a rendered chart (issue 13, item 6).

Helm cannot say which template line produced a rendered line (INTEGRATIONS
§4.1). What can be known is which *document* of the template file a
rendered document came from: Helm renders a template's documents in order,
so the k-th rendered document whose ``# Source:`` names a file is the k-th
object document of that file, when the file has as many as were rendered.
The finding's line is then looked for inside that document only, never in
another object's:

0. the two documents aligned line by line: a line the template writes as
   it is maps to that line; a line between two aligned ones maps to the one
   template line between them that renders to it, else to the one line
   there that writes lines of its own (an ``include``, ``template`` or
   ``range`` action: a rule a helper writes sits on the line that includes
   it, never on a like-looking line of another rule);
1. a template line that reads the same as the rendered line, nearest the
   rendered line's offset in the document;
2. else a template line that renders to it, its ``{{ ... }}`` actions read
   as "any text" (``cidr: {{ .Values.cidr }}`` for ``cidr: 0.0.0.0/0``);
3. else the document's first line in the template.

When the template's documents cannot be paired with the rendered ones (a
``range`` or an ``if`` around ``---``), the answer is the template file's
first line, unless the file rendered this one object only: then any line
of the file is this object's or no object's, and the search runs over the
whole file. A template that cannot be read keeps the offset guess for a
lone object and line 1 otherwise.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.loading.rendered import RenderedInput, chart_file
from lint.loading.split import Chunk, split_stream
from lint.report.model import Culprit, Location, Report

_OBJECT_START: Final = re.compile(r"^(?:apiVersion|kind)\s*:", re.MULTILINE)
_ACTION: Final = re.compile(r"\{\{.*?\}\}")


class _Document(msgspec.Struct, frozen=True):
    """One document of a text: its first and last line, and its content's
    first line (1-based)."""

    first: int
    last: int
    content: int


class RenderedDocument(msgspec.Struct, frozen=True):
    """Where a rendered line sits: its document, that document's place among
    the rendered documents from the same template (``ordinal`` of ``count``)."""

    document: _Document
    ordinal: int
    count: int


# A rendered file is asked about once per finding in it; a large one holds
# thousands. Each text is cut and split into lines once per report
# (``template_lines`` clears the caches; ``str`` caches its hash, so a
# lookup is cheap).
@functools.lru_cache(maxsize=16)
def _documents(text: str) -> tuple[tuple[Chunk, _Document, str | None], ...]:
    """Each document of ``text`` with its ``# Source:`` path, if any."""
    chunks = [c for c in split_stream(text) if c.content is not None]
    documents = []
    for chunk in chunks:
        assert chunk.content is not None
        last = chunk.line + text.count("\n", chunk.start, max(chunk.start, chunk.stop - 1))
        document = _Document(chunk.line, last, chunk.line_at(text, chunk.content))
        documents.append((chunk, document, chunk.source(text)))
    return tuple(documents)


@functools.lru_cache(maxsize=16)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines())


def rendered_document(text: str, line: int) -> RenderedDocument | None:
    """The rendered document holding ``line``, and its rank among those
    with its ``# Source:``; None outside every document with a source."""
    documents = _documents(text)
    found = next(
        ((d, src) for _, d, src in documents if d.first <= line <= d.last and d.content <= line),
        None,
    )
    if found is None or found[1] is None:
        return None
    document, source = found
    same = [d for _, d, src in documents if src == source]
    return RenderedDocument(document, same.index(document), len(same))


def template_line(rendered: str, line: int, template: str | None) -> int | None:
    """The template line for rendered ``line`` (see the module docstring);
    None when the line is in no document with a ``# Source:``."""
    where = rendered_document(rendered, line)
    if where is None:
        return None
    offset = line - where.document.content
    if template is None:
        return offset + 1 if where.count == 1 else 1
    lines = _lines(template)
    span = _template_span(template, where)
    if span is None:
        return 1
    rendered_lines = _lines(rendered)
    wanted = rendered_lines[line - 1].strip() if line <= len(rendered_lines) else ""
    first_wanted = rendered_lines[where.document.content - 1].strip()
    aligned = _aligned(rendered_lines, where.document, lines, span, line)
    if aligned is not None:
        return aligned
    guess = span.content + offset
    for matches in (_same_text(wanted), _renders_to(wanted)):
        found = _nearest(lines, span, guess, matches)
        if found is not None:
            return found
    start = _nearest(lines, span, span.content, _same_text(first_wanted))
    return start if start is not None else span.content


def _aligned(
    rendered: Sequence[str],
    document: _Document,
    template: Sequence[str],
    span: _Document,
    line: int,
) -> int | None:
    """The template line of rendered ``line`` by aligning the two documents
    line by line (blanks and indentation aside): a line the template writes
    as it is maps to that line; a line between two aligned ones comes from
    the template lines between them: the one that renders to it, else the
    one line there that includes a helper or loops (an ``include``,
    ``template`` or ``range`` action). None when neither tells."""
    first = document.content
    ours = [text.strip() for text in rendered[first - 1 : document.last]]
    theirs = [text.strip() for text in template[span.content - 1 : span.last]]
    if not 0 <= line - first < len(ours):
        return None
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    before, after = (-1, -1), (len(ours), len(theirs))
    for block in matcher.get_matching_blocks():
        if block.a <= line - first < block.a + block.size and ours[line - first]:
            return span.content + block.b + (line - first - block.a)
        if block.size and block.a + block.size <= line - first:
            before = (block.a + block.size - 1, block.b + block.size - 1)
        elif block.size and block.a > line - first and after[0] == len(ours):
            after = (block.a, block.b)
    between = range(before[1] + 1, after[1])
    wanted = ours[line - first]
    renders = [n for n in between if _renders_to(wanted)(theirs[n])]
    if len(renders) == 1:
        return span.content + renders[0]
    actions = [n for n in between if _EXPANDS.search(theirs[n])]
    if len(actions) == 1:
        return span.content + actions[0]
    return None


_EXPANDS: Final = re.compile(r"\{\{-?\s*(?:include|template|range)\b")
"""A template action that writes lines of its own: a helper, or a loop."""


def _template_span(template: str, where: RenderedDocument) -> _Document | None:
    """The template document the rendered one came from; the whole file
    when it rendered this one object only; None when that cannot be told."""
    documents = [d for _, d, _ in _documents(template)]
    objects = [d for d in documents if _OBJECT_START.search(_text_of(template, d)) is not None]
    for candidates in (objects, documents):
        if len(candidates) == where.count:
            return candidates[where.ordinal]
    if where.count == 1 and documents:
        return _Document(1, documents[-1].last, documents[0].content)
    return None


def _text_of(text: str, document: _Document) -> str:
    lines = _lines(text)
    return "\n".join(lines[document.first - 1 : document.last])


Matcher = Callable[[str], bool]


def _same_text(wanted: str) -> Matcher:
    return lambda text: bool(wanted) and text.strip() == wanted


def _renders_to(wanted: str) -> Matcher:
    """A template line whose actions, read as any text, give ``wanted``."""

    def matches(text: str) -> bool:
        stripped = text.strip()
        if not wanted or "{{" not in stripped:
            return False
        pieces = [re.escape(piece) for piece in _ACTION.split(stripped)]
        return re.fullmatch(".*".join(pieces), wanted, re.DOTALL) is not None

    return matches


def _nearest(lines: Sequence[str], span: _Document, guess: int, matches: Matcher) -> int | None:
    found = [
        n for n in range(span.first, span.last + 1) if n <= len(lines) and matches(lines[n - 1])
    ]
    if not found:
        return None
    return min(found, key=lambda number: (abs(number - guess), number))


# --- the pass over a report --------------------------------------------------------


def template_lines(
    report: Report,
    streams: Callable[[str], str | None],
    chart_root: str | None = None,
) -> Report:
    """The report with each finding from a rendered chart placed on its
    template line. ``streams`` gives the text of a report file (the
    rendered stream) by name; ``chart_root`` maps raw ``# Source:`` paths
    to files (``--helm-chart-root``), otherwise sources are read as named."""
    texts: dict[str, str | None] = {}

    def text_of(name: str, read: Callable[[str], str | None]) -> str | None:
        if name not in texts:
            texts[name] = read(name)
        return texts[name]

    def placed(location: Location) -> Location:
        if location.source is None:
            return location
        rendered = text_of(f"r:{location.file}", lambda _: streams(location.file))
        if rendered is None:
            return location
        path = chart_file(location.source, chart_root)
        template = text_of(f"t:{path}", lambda _: _read(path))
        line = template_line(rendered, location.line, template)
        return location if line is None else replace(location, source_line=line)

    def rules_placed(culprit: Culprit | None) -> Culprit | None:
        if culprit is None or not culprit.rules:
            return culprit
        rules = tuple(
            rule if rule.location is None else replace(rule, location=placed(rule.location))
            for rule in culprit.rules
        )
        return replace(culprit, rules=rules)

    try:
        findings = tuple(
            replace(
                f,
                location=placed(f.location),
                related=tuple(placed(r) for r in f.related),
                culprit=rules_placed(f.culprit),
            )
            for f in report.findings
        )
    finally:
        # The texts were cut once for this report; a rendered stream can be
        # large, so none of them is kept past it.
        _documents.cache_clear()
        _lines.cache_clear()
    return replace(report, findings=findings)


def stream_reader(stdin: bytes | None, stdin_name: str) -> Callable[[str], str | None]:
    """Read a report file's text: ``stdin`` (a render's output or standard
    input) by its name, any other from disk."""

    def read(name: str) -> str | None:
        if stdin is not None and name == (
            stdin.name if isinstance(stdin, RenderedInput) else stdin_name
        ):
            return bytes(stdin).decode("utf-8", "replace")
        return _read(name)

    return read


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
