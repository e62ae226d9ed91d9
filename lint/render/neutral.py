"""Quoting a render tool's own words so that they cannot start a CI
workflow command.

GitHub Actions runs a log line as a command when it starts with ``::``
(after blanks) or holds ``##[``. A tool's error output is written by
whatever the repository under check put in its chart or overlay, so each
of its lines is quoted behind ``  | `` and every ``##[`` loses its second
``#``'s meaning (``# #[``). Lines are cut at every line break Python knows,
carriage returns included.

A local helper: the report layer's general neutraliser, when there is one,
should take its place.
"""

from __future__ import annotations

from typing import Final

QUOTE: Final = "  | "


def quoted(text: str) -> str:
    """``text``, each line behind ``QUOTE``, with no ``##[`` left."""
    return "\n".join(QUOTE + _defused(line) for line in text.splitlines())


def _defused(line: str) -> str:
    while "##[" in line:
        line = line.replace("##[", "# #[")
    return line
