"""Showing untrusted text: every report and error message may quote the
input, so nothing the tool writes may act on the terminal or the CI log
that shows it.

Two dangers, one module (with nothing but ``re``, so that the CLI's one
``fail()`` can use it without importing the reporters):

- Terminal control characters (C0, DEL, C1, and the bidirectional controls
  that reorder a line on screen) are written as visible escapes
  (``escape``).
- CI workflow commands: GitHub Actions runs any log line that starts with
  ``::`` after blanks (``::warning::``, ``::stop-commands::``, ``::add-mask::``)
  or that holds ``##[`` anywhere, and it splits lines at a carriage return
  as well as at a line feed. ``neutralise`` (one-shot) and ``Neutraliser``
  (chunk by chunk) rewrite such text so that no line can start one: the
  first colon of a line-leading ``::`` and the bracket of ``##[`` are
  written as escapes, in the spelling of the format (``\\x3a``/``\\x5b`` in
  text, ``\\u003a``/``\\u005b`` inside JSON strings, where the bytes then
  mean the same value). Text without such a line comes out unchanged.

The command line writes every byte through these (``lint.cli.writing``,
``lint.cli.exits``), so the guarantee holds by construction for every
format and every error message. The one exception is the annotation lines
``--format github`` writes on purpose (``::error file=…::…``): under the
``annotations`` style a line of exactly that shape passes, since the
reporter escapes each of its fields so that the input can neither end it
early nor start another line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, Literal

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_IN_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""The controls of ``_CONTROL`` but the line feed and the tab, which a text
report writes on purpose."""
_CONTROL_OR_COLOUR = re.compile(
    "\x1b\\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""As ``_CONTROL_IN_LINES``, with the colour sequences a text report paints
levels with on a terminal matched whole, to be kept."""
_JSON_CONTROL = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What a JSON encoder writes raw (it escapes C0 itself): DEL, C1 and the
bidirectional controls. In JSON they can only stand inside a string."""

Style = Literal["text", "json", "annotations"]
"""How text is made safe: ``text`` for what a person reads (controls and
commands as ``\\xNN`` escapes), ``json`` for JSON (``\\uNNNN`` escapes,
valid inside its strings, the only place such text can stand), and
``annotations`` for ``--format github`` (as ``text``, its own annotation
lines kept)."""

COMMAND: Final = "##["
_BLANKS: Final = frozenset(" \t\v\f\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000")
"""What the runner's trim may skip before a ``::`` (every Unicode blank),
and the zero-width characters that show nothing, to be safe."""
_INVISIBLE: Final = frozenset("\u200b\u200c\u200d\u2060\ufeff")
_COLOUR_AT = re.compile("\x1b\\[[0-9;]*[A-Za-z]")
_BREAK = re.compile("\r\n|\r|\n")
_ANNOTATION = re.compile(r"::(?:error|warning|notice) [^\r\n:]*::")
"""An annotation line as ``--format github`` writes it: its properties
hold no colon (``%3A``), its message no line break (``%0A``)."""


def escape(text: str) -> str:
    """Replace control characters (C0, DEL, C1) and the bidirectional
    controls that could reorder a line on screen with visible escapes."""
    return _CONTROL.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _keep_colour(match: re.Match[str]) -> str:
    found = match.group()
    return found if len(found) > 1 else _visible(match)


def neutralise(text: str, style: Style = "text", *, colour: bool = False) -> str:
    """``text`` with no line that could start a workflow command, and no
    control character written raw (``colour``: keep the colour sequences a
    text report paints with). Unchanged when there is nothing to do."""
    return Neutraliser(style, colour=colour).whole(text)


class Neutraliser:
    """``neutralise`` over text given in chunks, which may end anywhere:
    a chunk's end that could still become ``##[`` or a line-leading ``::``
    is held until the next chunk (or ``end``) says what it is."""

    def __init__(self, style: Style = "text", *, colour: bool = False) -> None:
        self.style = style
        self.colour = colour
        self._held = ""
        self._at_line_start = True
        self._bracket = "\\u005b" if style == "json" else "\\x5b"
        self._colon = "\\u003a" if style == "json" else "\\x3a"

    def whole(self, text: str) -> str:
        return self.feed(text) + self.end()

    def feed(self, chunk: str) -> str:
        text = self._held + self._controls(chunk)
        start = self._at_line_start
        line = max(text.rfind("\n"), text.rfind("\r")) + 1
        keep = _held_from(text, line, start, whole_lines=self.style == "annotations")
        self._held = text[keep:]
        self._at_line_start = _line_starts_at(text, keep, start)
        # No line break in ``text``: no line starts in it but maybe its first.
        return self._safe(text[:keep], start, breaks=line > 0)

    def end(self) -> str:
        text, self._held = self._held, ""
        start, self._at_line_start = self._at_line_start, True
        return self._safe(text, start)

    def _safe(self, text: str, at_line_start: bool, *, breaks: bool = True) -> str:
        """``text``, its controls already escaped, with no command; without
        ``breaks`` it has no line break. A ``::`` matters only at a line's
        start, so a text that starts no line is not searched for one (a
        JSON report is one line of tens of megabytes, and a search for a
        ``::`` or a ``##[`` is slower than one for a single character)."""
        if not text:
            return text
        if (at_line_start or breaks) and "::" in text:
            text = self._colons(text, at_line_start)
        hash_at = text.find("#")
        if hash_at >= 0 and text.find(COMMAND, hash_at) >= 0:
            text = text.replace(COMMAND, "##" + self._bracket)
        return text

    def _controls(self, text: str) -> str:
        if self.style == "json":
            if text.isascii() and "\x7f" not in text:
                return text
            return _JSON_CONTROL.sub(_json_visible, text)
        if self.colour:
            return _CONTROL_OR_COLOUR.sub(_keep_colour, text)
        return _CONTROL_IN_LINES.sub(_visible, text)

    def _colons(self, text: str, at_line_start: bool) -> str:
        """``text`` with the first colon of each line-leading ``::``
        escaped. Only line starts are looked at: a JSON report is one
        line, however many ``::`` its IPv6 addresses hold."""
        pieces: list[str] = []
        done = 0
        for start in _line_starts(text, at_line_start):
            found = _after_blanks(text, start, self.colour)
            if text.startswith("::", found) and not self._annotation(text, found):
                pieces += [text[done:found], self._colon]
                done = found + 1
        return "".join(pieces) + text[done:] if pieces else text

    def _annotation(self, text: str, index: int) -> bool:
        """An annotation line of ``--format github``, at the very start of
        its line."""
        if self.style != "annotations" or (index and text[index - 1] not in "\r\n"):
            return False
        return _ANNOTATION.match(text, index) is not None


def _line_starts(text: str, at_line_start: bool) -> Iterator[int]:
    """Where each line of ``text`` starts (its first, only when
    ``at_line_start``): after a line feed, a carriage return, or both."""
    if at_line_start:
        yield 0
    if "\r" not in text:  # the usual case: a search at C speed
        found = text.find("\n")
        while found >= 0:
            yield found + 1
            found = text.find("\n", found + 1)
        return
    for match in _BREAK.finditer(text):
        yield match.end()


def _after_blanks(text: str, index: int, colour: bool) -> int:
    """The index of the first character at or after ``index`` that is no
    blank (nor, with ``colour``, a colour sequence)."""
    while index < len(text):
        char = text[index]
        if char in _BLANKS or char in _INVISIBLE:
            index += 1
            continue
        painted = _COLOUR_AT.match(text, index) if colour and char == "\x1b" else None
        if painted is None:
            return index
        index = painted.end()
    return index


def _held_from(text: str, line: int, at_line_start: bool, *, whole_lines: bool) -> int:
    """Where the part of ``text`` to hold back starts: its last line (which
    starts at ``line``) when that is only blanks (and maybe one colon) so
    far, or at all when ``whole_lines`` (an annotation is known by its
    whole line), else a trailing ``#`` or ``##``; ``len(text)`` when
    nothing need wait."""
    if whole_lines:
        return line
    if line or at_line_start:
        rest = text[line:]
        stripped = rest[:-1] if rest.endswith(":") else rest
        if all(char in _BLANKS or char in _INVISIBLE for char in stripped):
            return line
    if text.endswith("##"):
        return len(text) - 2
    if text.endswith("#"):
        return len(text) - 1
    return len(text)


def _line_starts_at(text: str, index: int, at_line_start: bool) -> bool:
    """Whether ``text[index:]`` starts a line."""
    return at_line_start if index == 0 else text[index - 1] in "\r\n"
