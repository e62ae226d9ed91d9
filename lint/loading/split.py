"""Cutting a YAML stream into documents without parsing it.

A line that starts with ``---`` or ``...`` followed by a blank or the end of
the line is a document marker. YAML forbids that text at column 0 inside any
scalar, so the cut is exact, and it gives every document's first line for free
(INTEGRATIONS.md §5.1). The same pass reads Helm's ``# Source:`` comments,
which the YAML parser drops (§4.1), and notes each document's column-0
``kind:`` lines and any column-0 line that is not a plain key, for the kind
sniff (``sniff.py``).

kubectl and Argo CD cut a stream with apimachinery's ``YAMLReader``, whose
separator is a line starting with ``---`` followed by nothing but Go's
``unicode.IsSpace`` characters, or by a comment (docs/yaml.md has the
sources and the table). ``kube_separators`` rewrites every such line that
libyaml would not read as a bare marker (``---`` + U+00A0, + a form feed,
``---#x``) into ``---`` and spaces, offsets kept, before the cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

# A column-0 line the kind sniff can vouch for: blank, comment, a plain
# `identifier:` key, or an entry of a block sequence that a key opened. An
# `items:` key is not one: kubectl opens any object with `items` as a list,
# whatever its kind (lists.py), so such a document is always parsed.
_PLAIN_KEY_LINE: Final = (
    r"(?:[ \t\r\n#]|\Z|(?!items:)[A-Za-z_][A-Za-z0-9_.\-/]*:(?:[ \t]|\r?\n|\r?\Z)"
    r"|-(?:[ \t]|\r?\n|\r?\Z))"
)
# Every pattern starts at the newline before a line, so the regex engine
# jumps from newline to newline instead of trying every offset. The
# lookahead turns down an indented, blank or comment line, most lines of a
# manifest, in one step instead of trying each case on it (a third of the
# scan's time).
_LINE_EVENTS: Final = re.compile(
    r"\n(?=[^ \t\r\n#])(?:(---|\.\.\.)(?=[ \t\r\n]|\Z)([^\n]*)"
    r"|kind:([^\n]*)"
    r"|()(?!" + _PLAIN_KEY_LINE + r"))"
)
_MARKER_EVENT, _KIND_EVENT, _OTHER_EVENT = 2, 3, 4  # Match.lastindex of each case
_SOURCE: Final = re.compile(r"^# Source: ([^\n]*)", re.M)
# A line holding something other than blanks, a comment or a directive.
_CONTENT: Final = re.compile(r"^[ \t]*(?:[^ \t\r\n#%]|(?<=[ \t])%)", re.M)
_BARE_REST: Final = re.compile(r"[ \t]*(?:#[^\n]*)?")
_MARKED_LINE: Final = re.compile(r"\n---[^\n]")

GO_SPACES: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""The characters Go's ``unicode.IsSpace`` accepts, which ``strings.TrimSpace``
and ``bytes.TrimLeftFunc(..., unicode.IsSpace)`` strip."""
# A column-0 line starting with `---` with more after it, up to its newline.
# What libyaml already reads as a bare marker line: blanks, or blanks and a
# comment, with no line break of its own inside.
_LIBYAML_BARE: Final = re.compile(r"[ \t]*\r?|[ \t]+#[^\r\x85\u2028\u2029]*\r?")

STRAY_CONTENT = "a document after '...' must begin with '---'"
STRAY_END = "'...' ends a document that was never started"


@dataclass(slots=True)  # not frozen: a frozen __init__ is slow at this volume
class Chunk:
    """One document's share of a stream.

    ``text[start:end]`` is what the parser gets. ``text[body:stop]`` is the
    document without its bare ``---`` line and without a closing ``...`` line.
    ``content`` is the offset of the first content line, None for an empty or
    comment-only document. ``line`` is the 1-based line of ``start``.
    ``kind_lines`` holds the text after each column-0 ``kind:`` and the offset
    where that line ends; ``plain_keys`` says every other column-0 line of the
    body is a blank, a comment, a plain key or a sequence entry.
    """

    index: int
    start: int
    body: int
    stop: int
    end: int
    line: int
    content: int | None
    inherited_source: str | None
    """The Source of comment-only documents just before this one."""
    kind_lines: tuple[tuple[str, int], ...] = ()
    plain_keys: bool = False
    problem: str | None = None
    """Why libyaml would refuse the stream at this document, when it would."""

    def source(self, text: str) -> str | None:
        """The Helm template this document came from: its own ``# Source:``
        comment above the content, else one inherited from the split form."""
        if self.content is None:
            return None
        return _first_source(text, self.start, self.content) or self.inherited_source

    def line_at(self, text: str, offset: int) -> int:
        """The 1-based line of ``offset``, which lies inside this chunk."""
        return self.line + text.count("\n", self.start, offset)

    def last_content_line(self, text: str) -> int:
        """The 1-based line of the document's last content line."""
        if self.content is None:
            return self.line
        end = self.stop
        while end > self.content:
            begin = max(text.rfind("\n", self.content, end - 1) + 1, self.content)
            if _CONTENT.match(text, begin, end):
                return self.line_at(text, begin)
            end = begin
        return self.line_at(text, self.content)


@dataclass(slots=True)
class _Segment:
    """Text between two markers, as the scan collects it."""

    start: int
    marker: int | None = None  # offset of the opening '---'
    body: int = 0
    stop: int = -1  # end of the document proper
    end: int = -1  # end including a closing '...' line
    kinds: list[tuple[str, int]] = field(default_factory=list)
    plain_keys: bool = True

    def absorb(self, earlier: _Segment) -> None:
        """Take over the comments and directives that came before '---'."""
        self.start = earlier.start
        self.plain_keys = self.plain_keys and earlier.plain_keys


def marked_lines(text: str) -> Iterator[tuple[int, int]]:
    """Where the rest of each line that starts with ``---`` and goes on
    lies: (start, stop) offsets after the marker, up to the line's ``\n``.
    The same lines as ``^---([^\n]+)`` under ``re.M``, found from a literal
    ``\n---`` prefix, which the regex engine searches for in C: a multi-line
    regex scan of every byte cost a tenth of the 16 MB bench tree's check,
    and a ``str.find`` loop visits every bare ``---`` line in Python."""
    if text.startswith("---") and text[3:4] not in ("", "\n"):
        yield 3, _line_end(text, 3)
    for found in _MARKED_LINE.finditer(text):
        yield found.start() + 4, _line_end(text, found.start() + 4)


def _line_end(text: str, start: int) -> int:
    stop = text.find("\n", start)
    return len(text) if stop < 0 else stop


def kube_separators(text: str) -> str:
    """``text`` with each line apimachinery takes for a document separator
    written so that libyaml takes it for one too: ``---`` and spaces.

    apimachinery drops the whole line (``YAMLReader.Read``); so does the
    rewrite, keeping every offset, so lines and columns stay the file's.
    A ``---`` line with other content is left alone: current apimachinery
    refuses it ("invalid Yaml document separator"), older releases passed
    it on as content, which is how it is read here.
    """
    pieces: list[str] = []
    done = 0
    for start, stop in marked_lines(text):
        rest = text[start:stop]
        if _LIBYAML_BARE.fullmatch(rest) is not None:
            continue
        trimmed = rest.strip(GO_SPACES)
        if trimmed and not trimmed.startswith("#"):
            continue
        end = stop - (1 if rest.endswith("\r") else 0)
        pieces += (text[done:start], " " * (end - start))
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def split_stream(text: str) -> list[Chunk]:
    """Every document of ``text`` in order, empty ones included (§4.3).

    What lies between documents is dropped, leading comments and directives
    join the document that follows them, and what libyaml would refuse is
    flagged. One loop over the segments of ``_scan``: this runs for every
    document of every file, skipped ones included.
    """
    return split_marked(text)[0]


def split_marked(text: str) -> tuple[list[Chunk], bool]:
    """``split_stream``'s chunks, and whether a line of ``text`` starts with
    ``---`` and goes on (``marked_lines`` finds one): the scan meets every
    such line, as a marker or as a line that is not a plain key, so the
    separator rewrite (``kube_separators``) need not search a text that
    has none."""
    segments, marked = _scan(text)
    chunks: list[Chunk] = []
    pending: str | None = None
    carried: _Segment | None = None
    line, counted = 1, 0  # the line of offset `counted`
    search_content = _CONTENT.search
    for number, segment in enumerate(segments):
        if carried is not None:
            segment.absorb(carried)
            carried = None
        body, stop = segment.body, segment.stop
        if body < stop and text[body] == "#":
            # A comment line, such as Helm's ``# Source:`` opening each
            # document: ``^`` next holds past its end, so the search starts
            # there rather than trying each of its offsets.
            past = text.find("\n", body, stop) + 1
            found = search_content(text, past, stop) if past else None
        else:
            found = search_content(text, body, stop)
        content = None if found is None else found.start()
        problem: str | None = None
        if segment.marker is not None:
            pass
        elif content is not None:
            # Only the first segment may start without '---'; later implicit
            # segments follow a '...' line.
            problem = STRAY_CONTENT if number else None
        elif segment.stop < segment.end:
            if chunks:
                # libyaml and go-yaml v2 skip further '...' lines after a
                # document (parse_document_start, when not implicit): no
                # document, no problem, and no index of its own.
                continue
            problem = STRAY_END
        else:
            carried = segment
            continue
        # Helm's split form: a comment-only document's Source names the next
        # non-empty document (INTEGRATIONS.md §4.1).
        if content is None:
            inherited = None
            pending = _first_source(text, segment.start, segment.stop) or pending
        else:
            inherited, pending = pending, None
        start = segment.start
        line += text.count("\n", counted, start)
        counted = start
        chunks.append(
            Chunk(
                len(chunks),
                start,
                segment.body,
                segment.stop,
                segment.end,
                line,
                content,
                inherited,
                tuple(segment.kinds),
                segment.plain_keys,
                problem,
            )
        )
    return chunks, marked


def _scan(text: str) -> tuple[list[_Segment], bool]:
    """One pass over the lines that matter: markers, ``kind:`` lines and
    column-0 lines that are not plain keys; and whether a line starts with
    ``---`` and goes on (a marker with more on its line, or, with anything
    but a blank after the ``---``, a line that is not a plain key)."""
    segments = [_Segment(0)]
    current = segments[0]
    marked = False
    # The leading newline puts the first line on the same footing as the rest;
    # a match at padded offset i describes the line at text offset i.
    size = len(text)
    for event in _LINE_EVENTS.finditer("\n" + text):
        what = event.lastindex
        if what == _KIND_EVENT:
            current.kinds.append((event.group(3), event.end() - 1))
        elif what == _OTHER_EVENT:
            current.plain_keys = False
            marked = marked or text.startswith("---", event.start())
        else:
            at, rest = event.start(), event.group(2)
            if not rest and text[at] == "-":
                # A bare '---' line, by far the most common marker: inline.
                current.stop = current.end = at
                current = _Segment(at, at, min(at + 4, size))
            else:
                marked = marked or (rest != "" and text[at] == "-")
                current = _after_marker(text, current, at, rest)
            segments.append(current)
    current.stop = current.end = size
    return segments, marked


def _after_marker(text: str, current: _Segment, at: int, rest: str) -> _Segment:
    """Close ``current`` at the marker on the line at ``at``; open the next."""
    current.stop = at
    after = min(at + 4 + len(rest), len(text))  # the offset past the marker line
    if text[at] == "-":
        current.end = at
        if rest and _BARE_REST.fullmatch(rest.rstrip("\r")) is None:
            # Content on the marker line: such a document is never sniffed.
            return _Segment(at, marker=at, body=at, plain_keys=False)
        return _Segment(at, marker=at, body=after)
    current.end = after
    return _Segment(after, body=after)


def _first_source(text: str, start: int, stop: int) -> str | None:
    found = _SOURCE.search(text, start, stop)
    return (found.group(1).rstrip() or None) if found else None
