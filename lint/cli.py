"""The command line: click gathers options, everything else is a plain call.

Exit codes (REPORT.md): 0 nothing at or above --fail-on, 1 findings at or
above it, 2 usage or declaration errors. 3 means egress-lint itself failed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from lint import __version__
from lint.checks.runner import CheckOptions, run_check
from lint.declarations import DeclarationError
from lint.report.json_report import render_json
from lint.report.model import Report
from lint.report.text_report import escape, render_text
from lint.rules import RULES, level_rank

FAIL_ON = ("error", "warning", "note", "never")


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"egress-lint: {escape(message)}", err=True)
    sys.exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


Renderer = Callable[[Report, bool], str]


def _render(report: Report, fmt: str, colour: bool, show_suppressed: bool) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "text":
        return render_text(report, colour=colour, show_suppressed=show_suppressed)
    raise click.UsageError(f"unknown format {fmt!r}")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--config", type=click.Path(path_type=Path), help="Declaration file (default: search upward for .egress-lint.yaml).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output", type=click.Path(path_type=Path), help="Write the report to FILE instead of standard output.")
@click.option("--namespace", help="Namespace for objects that name none (default: the declaration's defaultNamespace, then 'default').")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True)
@click.option("--read-cilium", type=click.Choice(["auto", "always"]), default="auto", show_default=True, help="'always' reads Cilium policies under engine: core too.")
@click.option("--passthrough", is_flag=True, help="Copy the input manifests to standard output unchanged; the report goes to standard error.")
@click.option("--show-suppressed", is_flag=True, help="List suppressed findings in the text report.")
def check(
    paths: tuple[str, ...],
    config: Path | None,
    fmt: str,
    output: Path | None,
    namespace: str | None,
    fail_on: str,
    read_cilium: str,
    passthrough: bool,
    show_suppressed: bool,
) -> None:
    """Check rendered manifests against the declared egress intent."""
    paths = paths or (".",)
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    if passthrough and stdin is None:
        raise click.UsageError("--passthrough reads the manifests from standard input: pass '-'")
    options = CheckOptions(paths, config, namespace, "always" if read_cilium == "always" else "auto")
    try:
        report = run_check(options, stdin=stdin)
    except DeclarationError as error:
        _fail(str(error), 2)
    except OSError as error:
        _fail(f"cannot read {error.filename}: {error.strerror}", 2)
    colour = output is None and not passthrough and sys.stdout.isatty()
    text = _render(report, fmt, colour, show_suppressed)
    if passthrough and stdin is not None:
        sys.stdout.buffer.write(stdin)
        sys.stdout.flush()
    _emit(text, output, to_stderr=passthrough)
    sys.exit(exit_code(report, fail_on))


def _emit(text: str, output: Path | None, *, to_stderr: bool) -> None:
    if output is not None:
        output.write_text(text, encoding="utf-8")
    elif to_stderr:
        click.echo(text, err=True, nl=False)
    else:
        click.echo(text, nl=False)


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
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


if __name__ == "__main__":  # pragma: no cover
    main()
