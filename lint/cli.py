"""The command line: click gathers options, everything else is a plain call.

Exit codes (REPORT.md): 0 nothing at or above --fail-on, 1 findings at or
above it, 2 usage or declaration errors. 3 means egress-lint itself failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NoReturn

import click

from lint import __version__
from lint.checks.runner import CheckOptions, check_run
from lint.declarations import DeclarationError
from lint.forked import MAX_PROCESSES, available_processes
from lint.limit_flags import read_stdin, with_limit_flags
from lint.loading import LoadLimits
from lint.loading.parse import collector_paused
from lint.report.json_report import render_json
from lint.report.model import Report
from lint.report.text_report import escape, render_text
from lint.rules import RULES, level_rank
from lint.suppression import (
    BaselineError,
    apply_annotations,
    apply_baseline,
    read_baseline,
    render_baseline,
)

_LAST_RUN: list[object] = []
"""The last check's run, held until the next one or until the process
leaves: the console script ends with ``os._exit`` and never frees it."""

FAIL_ON = ("error", "warning", "note", "never")


def _fail(message: str, code: int) -> NoReturn:
    text = "\n".join(escape(line) for line in message.split("\n"))
    click.echo(f"egress-lint: {text}", err=True)
    sys.exit(code)


_LAZY_COMMANDS: Final = {
    "explain": "lint.explain.command:explain_command",
    "generate": "lint.generate.command:generate_command",
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


def exit_code(report: Report, fail_on: str) -> int:
    """1 when an unsuppressed finding is at or above --fail-on, else 0."""
    if fail_on == "never":
        return 0
    threshold = level_rank(fail_on)
    failing = [f for f in report.findings if not f.suppressed and level_rank(f.level) >= threshold]
    return 1 if failing else 0


@dataclass(frozen=True)
class OutputOptions:
    fmt: str
    output: Path | None
    fail_on: str
    passthrough: bool
    show_suppressed: bool
    helm_chart_root: str | None
    category: str
    baseline: Path | None
    write_baseline: Path | None


def _render(report: Report, out: OutputOptions, colour: bool) -> str:
    if out.fmt == "json":
        return render_json(report)
    if out.fmt == "sarif":
        from lint.report.sarif_report import SarifOptions, render_sarif  # noqa: PLC0415 - on demand

        return render_sarif(report, SarifOptions(out.helm_chart_root, out.category))
    return render_text(report, colour=colour, show_suppressed=out.show_suppressed)


def _suppress(report: Report, baseline: Path | None) -> Report:
    """Annotations first, then the baseline; nothing is dropped."""
    findings = apply_annotations(report.findings)
    stale: list[str] = []
    if baseline is not None:
        findings, stale = apply_baseline(findings, read_baseline(baseline))
    return dataclasses.replace(report, findings=tuple(findings), stale_baseline=tuple(stale))


def execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    """Run the check, write the report, return the exit code. The cyclic
    collector stays paused until the report is written: a collection while
    the report is rendered would scan every object the run built, for no
    cycle."""
    with collector_paused():
        return _execute(options, out, stdin)


def _execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    try:
        run = check_run(options, stdin=stdin)
        report = _suppress(run.report, out.baseline)
    except DeclarationError as error:
        _fail(error.report(), 2)
    except BaselineError as error:
        _fail(str(error), 2)
    if out.write_baseline is not None:
        out.write_baseline.write_text(render_baseline(report.findings), encoding="utf-8")
    colour = out.output is None and not out.passthrough and sys.stdout.isatty()
    text = _render(report, out, colour)
    if out.passthrough and stdin is not None:
        sys.stdout.buffer.write(stdin)
        # Input past the file limit was not checked (the report says so),
        # but it still passes through whole.
        shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
        sys.stdout.flush()
    _emit(text, out.output, to_stderr=out.passthrough)
    _LAST_RUN[:] = [run]
    return exit_code(report, out.fail_on)


@main.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--config",
    type=click.Path(path_type=Path),
    help="Declaration file (default: search upward for .egress-lint.yaml).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    help="Write the report to FILE instead of standard output.",
)
@click.option(
    "--namespace",
    help="Namespace for objects that name none "
    "(default: the declaration's defaultNamespace, then 'default').",
)
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True)
@click.option(
    "--read-cilium",
    type=click.Choice(["auto", "always"]),
    default="auto",
    show_default=True,
    help="'always' reads Cilium policies under engine: core too.",
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Suppress the findings recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record the current findings in a baseline file.",
)
@click.option(
    "--passthrough",
    is_flag=True,
    help="Copy the input manifests to standard output unchanged; "
    "the report goes to standard error.",
)
@click.option(
    "--show-suppressed", is_flag=True, help="List suppressed findings in the text report."
)
@click.option(
    "--helm-chart-root",
    help="SARIF: the chart directory that '# Source:' template paths are relative to.",
)
@click.option(
    "--category",
    default="egress-lint",
    show_default=True,
    help="SARIF: the automationDetails category.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Processes to load and judge on (default: one per CPU, at most "
    f"{MAX_PROCESSES}; large inputs only). 1 stays in one process.",
)
@with_limit_flags
def check(
    paths: tuple[str, ...],
    config: Path | None,
    fmt: str,
    output: Path | None,
    namespace: str | None,
    fail_on: str,
    read_cilium: str,
    baseline: Path | None,
    write_baseline: Path | None,
    passthrough: bool,
    show_suppressed: bool,
    helm_chart_root: str | None,
    category: str,
    jobs: int | None,
    limits: LoadLimits,
) -> None:
    """Check rendered manifests against the declared egress intent."""
    paths = paths or (".",)
    if passthrough and "-" not in paths:
        raise click.UsageError("--passthrough reads the manifests from standard input: pass '-'")
    stdin = read_stdin(limits) if "-" in paths else None
    options = CheckOptions(
        paths,
        config,
        namespace,
        "always" if read_cilium == "always" else "auto",
        limits,
        jobs or available_processes(),
    )
    out = OutputOptions(
        fmt,
        output,
        fail_on,
        passthrough,
        show_suppressed,
        helm_chart_root,
        category,
        baseline,
        write_baseline,
    )
    sys.exit(execute(options, out, stdin))


def _emit(text: str, output: Path | None, *, to_stderr: bool) -> None:
    if output is not None:
        output.write_text(text, encoding="utf-8")
    elif to_stderr:
        click.echo(text, err=True, nl=False)
    else:
        click.echo(text, nl=False)


@main.command()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def rules(fmt: str) -> None:
    """List every rule id with its level and summary."""
    if fmt == "json":
        entries = [
            {"id": r.id, "level": r.level, "summary": r.summary, "help": r.help, "remedy": r.remedy}
            for r in RULES
        ]
        click.echo(json.dumps(entries, indent=2))
        return
    width = max(len(r.id) for r in RULES)
    for r in RULES:
        click.echo(f"{r.id:<{width}}  {r.level:<7}  {r.summary}")


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
            _fail(message, 3)
        except SystemExit:
            return 3
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
    """The console script. It leaves without tearing the interpreter down:
    freeing a large run's objects one by one took longer than writing its
    report (about 60 ms on the 16 MB bench tree), and nothing is left to do
    once the output is flushed. The cyclic collector stays off throughout:
    a run builds millions of objects and no cycles, and a collection after
    the report would scan them all for nothing."""
    gc.disable()
    code = run_cli()
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away, or a closed stream, has nothing to flush to.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
