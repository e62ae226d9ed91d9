"""Quoting a render tool's own words so that they cannot start a CI
workflow command.

GitHub Actions runs a log line as a command when it starts with ``::``
(after blanks) or holds ``##[``. A tool's error output is written by
whatever the repository under check put in its chart or overlay, so each
of its lines is quoted behind ``  | `` (no line of it can then start with
``::``) and passed through the one neutraliser every output uses
(``lint.report.escaping.neutralise``). Lines are cut at every line break
Python knows, carriage returns included.
"""

from __future__ import annotations

from typing import Final

from lint.report.escaping import neutralise

QUOTE: Final = "  | "


def quoted(text: str) -> str:
    """``text``, each line behind ``QUOTE``, with no ``##[`` left."""
    return neutralise("\n".join(QUOTE + line for line in text.splitlines()))
