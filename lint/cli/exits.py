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
from lint.report.escaping import escape

OK: Final = 0
FAILED: Final = 1
USAGE: Final = 2
INTERNAL: Final = 3


def fail(message: str, code: int) -> NoReturn:
    """One message on standard error, control characters shown escaped (it
    may quote the input), then exit with ``code``."""
    text = "\n".join(escape(line) for line in message.split("\n"))
    clear_status_line()
    click.echo(f"egress-lint: {text}", err=True)
    sys.exit(code)
