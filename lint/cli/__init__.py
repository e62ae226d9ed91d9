"""The command line, ``egress-lint``: the command group, and how the
process ends.

click gathers options, everything else is a plain call. One module per
command (``check``, ``explain``, ``generate``, ``rules``); the options
they share are declared once in ``options``; ``exits`` holds the exit
codes and the one ``fail()``.

Exit codes (REPORT.md): 0 nothing at or above --fail-on, 1 findings at or
above it, 2 usage or declaration errors. 3 means egress-lint itself failed.
"""

from __future__ import annotations

import importlib
from typing import Final, NoReturn

import click

from lint import __version__
from lint.cli.check import check_command
from lint.cli.exits import INTERNAL, fail
from lint.cli.rules import rules_command
from lint.parallel.lifetime import leave_after

_LAZY_COMMANDS: Final = {
    "explain": "lint.cli.explain:explain_command",
    "generate": "lint.cli.generate:generate_command",
}


class _Commands(click.Group):
    """The command group. `generate` and `explain` (and Jinja behind
    `generate`) are imported only when asked for: every `check` in a
    pre-commit hook would otherwise pay for them at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="egress-lint")
def main() -> None:
    """Check, offline, what Kubernetes agent-sandbox pods can reach."""


main.add_command(check_command)
main.add_command(rules_command)


def run_cli() -> int:
    """The command line as a call: its exit code, never an exception. A
    failure of egress-lint itself is one line on stderr and exit 3, never a
    traceback."""
    try:
        main()  # standalone mode: it always ends in SystemExit
    except SystemExit as done:
        return _status(done.code)
    except Exception as error:
        message = f"internal error: {type(error).__name__}: {error}. Please report it."
        try:
            fail(message, INTERNAL)
        except SystemExit:
            return INTERNAL
    return 0


def _status(code: object) -> int:
    """The exit status Python gives a SystemExit code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    click.echo(str(code), err=True)
    return 1


def entry() -> NoReturn:
    """The console script: ``run_cli`` with the cyclic collector off, then
    out without tearing the interpreter down once the output is flushed
    (``lint.parallel.lifetime.leave_after`` says why)."""
    leave_after(run_cli)
