"""The exit codes of every command (REPORT.md), and the one way a command
stops with a message.

0  the command did what was asked (``check``: nothing at or above --fail-on)
1  ``check``: findings at or above --fail-on; ``generate``: it refused to
   overwrite a file or to write outside DIR; ``explain --to``: the
   destination is (or may be) let out beyond the allowance
2  usage error, or an unreadable or invalid declaration file or baseline
3  egress-lint itself failed (a bug: one line on stderr, no traceback)
"""

from __future__ import annotations

import sys
from typing import Final, NoReturn

import click

from lint.cli.progress import clear_status_line
from lint.report.escaping import escape, neutralise

OK: Final = 0
FAILED: Final = 1
USAGE: Final = 2
INTERNAL: Final = 3


def fail(message: str, code: int) -> NoReturn:
    """One message on standard error, control characters shown escaped (it
    may quote the input), then exit with ``code``."""
    say(f"egress-lint: {message}")
    sys.exit(code)


def say(message: str) -> None:
    """A message on standard error (and a line end): control characters
    shown escaped and no line able to start a CI workflow command
    (``neutralise``), whatever of the input, or of a renderer's error
    output, it quotes. Every message the tool writes goes through here."""
    text = "\n".join(escape(line) for line in message.split("\n"))
    clear_status_line()  # a progress line may stand where the message goes
    click.echo(neutralise(text), err=True)
