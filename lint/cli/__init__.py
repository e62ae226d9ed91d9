"""The command line, ``egress-lint``: the command group, and how the
process ends.

click gathers options, everything else is a plain call. One module per
command (``check``, ``explain``, ``generate``, ``init``, ``rules``,
``schema``); the options they share are declared once in ``options``;
``exits`` holds the exit codes and the one ``fail()``.

Exit codes (REPORT.md): 0 nothing at or above --fail-on, 1 findings at or
above it, 2 usage or declaration errors. 3 means egress-lint itself failed.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from collections.abc import Iterator
from typing import IO, Any, Final, NoReturn

import click
import msgspec

from lint import __version__
from lint.cli.exits import INTERNAL, fail, say
from lint.parallel.lifetime import leave_after


class LazyCommand(msgspec.Struct, frozen=True):
    """A command imported only when it runs: where it lives, and its short
    help, which the group's help shortens as click would (a test holds it
    equal to the command's own)."""

    target: str
    summary: str

    def stand_in(self, name: str) -> click.Command:
        """A command with this one's help and nothing else, for the help list."""
        return click.Command(name, help=self.summary)


COMMANDS: Final = {
    "check": LazyCommand(
        "lint.cli.check:check_command",
        "Check rendered manifests against the declared egress intent: PATHs, what "
        "--helm or --kustomize renders, or both, read as one set.",
    ),
    "explain": LazyCommand(
        "lint.cli.explain:explain_command",
        "Show what one sandbox's pods can reach, as check judges the path: every policy "
        "that selects them, what each lets out, and with --to, the cluster's verdict for "
        "one destination and the rules behind it.",
    ),
    "generate": LazyCommand(
        "lint.cli.generate:generate_command",
        "Write the reference manifests for every declaration: the egress policy, the "
        "baseline ingress policy and, under perSandbox, the admission fence and the RBAC "
        "it needs.",
    ),
    "init": LazyCommand(
        "lint.cli.init:init_command",
        "Write a starter .egress-lint.yaml from the manifests: PATHs, or what --helm or "
        "--kustomize renders.",
    ),
    "rules": LazyCommand(
        "lint.cli.rules:rules_command",
        "List every rule id with its level and summary.",
    ),
    "schema": LazyCommand(
        "lint.cli.schema:schema_command",
        "Print the JSON Schema of the declaration file (.egress-lint.yaml), for an "
        "editor's YAML language server or any JSON Schema validator.",
    ),
}


class _SafeError(click.ClickException):
    """A usage error click would show as it is, shown through ``say``
    instead: its message may quote the command line, which in CI is
    written by whoever wrote the workflow's inputs."""

    def __init__(self, error: click.ClickException) -> None:
        super().__init__(error.message)
        self.error = error

    @property
    def exit_code(self) -> int:  # type: ignore[override]  # click's is a class variable
        return self.error.exit_code

    def show(self, file: IO[Any] | None = None) -> None:
        shown = io.StringIO()
        self.error.show(shown)
        say(shown.getvalue().removesuffix("\n"))


@contextlib.contextmanager
def _errors_shown_safely() -> Iterator[None]:
    try:
        yield
    except _SafeError:
        raise
    except click.ClickException as error:
        raise _SafeError(error) from error


class _Commands(click.Group):
    """The command group. Each command (and Jinja behind `generate`) is
    imported only when it runs, and `--help` lists them from ``COMMANDS``
    without importing any: a pre-commit hook runs `check` on every commit,
    and a help or version probe should not pay for the whole tool."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = COMMANDS.get(cmd_name)
        if lazy is None:
            return None
        module, attribute = lazy.target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        with _errors_shown_safely():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _errors_shown_safely():
            return super().invoke(ctx)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        # click's own layout: the help column gets what the longest name leaves.
        limit = formatter.width - 6 - max(map(len, names))
        rows = [(name, COMMANDS[name].stand_in(name).get_short_help_str(limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="egress-lint")
def main() -> None:
    """Check, offline, what Kubernetes agent-sandbox pods can reach."""


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
    say(str(code))
    return 1


def entry() -> NoReturn:
    """The console script: ``run_cli`` with the cyclic collector off, then
    out without tearing the interpreter down once the output is flushed
    (``lint.parallel.lifetime.leave_after`` says why)."""
    leave_after(run_cli)
