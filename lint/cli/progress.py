"""What a long run is doing, on one status line of standard error.

Rendering several environments or reading a large tree takes seconds to
minutes; a person at a terminal should see which step the run is in. The
line is written only when standard error is a terminal, so logs, pipes,
CI and every report stay as they are. It is rewritten in place (carriage
return, erase to the end of the line) and erased before anything else is
written to the terminal: the report, or an error message (``exits.fail``
erases it first).
"""

from __future__ import annotations

import sys
from typing import Final, TextIO

from lint.report.escaping import escape, neutralise

_ERASE: Final = "\r\x1b[K"
_PREFIX: Final = "egress-lint: "


class Progress:
    """The status line of one run: ``progress("rendering dev (1/3)")``
    shows a step, ``clear()`` erases it. Does nothing off a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        stream = sys.stderr if stream is None else stream
        self._stream = stream if _is_terminal(stream) else None
        self._shown = False

    @property
    def shown(self) -> bool:
        return self._shown

    def __call__(self, step: str) -> None:
        if self._stream is None:
            return
        global _showing  # noqa: PLW0603 - the one line on the terminal, for fail()
        import shutil  # noqa: PLC0415 - only at a terminal

        # Never wider than the terminal: a wrapped line cannot be erased.
        columns = shutil.get_terminal_size().columns - 1
        # The step may name an environment or a path from the repository.
        line = neutralise((_PREFIX + escape(step))[: max(columns, 20)], "text")
        self._write(_ERASE + line)
        self._shown = True
        _showing = self

    def clear(self) -> None:
        """Erase the line, if one is shown."""
        global _showing  # noqa: PLW0603
        if self._shown:
            self._write(_ERASE)
            self._shown = False
        if _showing is self:
            _showing = None

    def _write(self, text: str) -> None:
        assert self._stream is not None
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            # A terminal that went away: the run goes on without the line.
            self._stream = None


_showing: Progress | None = None


def clear_status_line() -> None:
    """Erase the status line of the run in this process, if one is shown."""
    if _showing is not None:
        _showing.clear()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
