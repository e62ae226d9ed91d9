"""``egress-lint check``: the click command, and writing its report.

The command gathers options into a ``CheckOptions`` (the run, its
suppressions included: ``lint.checks.runner.check_run``) and an
:class:`OutputOptions` (where the report goes and in which format, from
``CHECK_REPORTERS``); :func:`execute` runs, writes and returns the exit code.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from lint.checks.context import ReadCilium
from lint.checks.runner import CheckOptions, CheckRun, check_run
from lint.cli.exits import FAILED, OK, USAGE, fail, say
from lint.cli.options import (
    CONFIG,
    CONTROLLER_VERSION,
    EXAMINED,
    JOBS,
    MAX_REPORT_BYTES,
    PATHS,
    QUIET,
    READ_CILIUM,
    VERBOSE,
    colour_wanted,
    declaration_start,
    examined_for,
    format_option,
    limit_options,
    manifest_input,
    namespace_option,
    render_options,
    rendered_input,
)
from lint.cli.writing import reader_may_leave, write_output, write_standard
from lint.declarations import DeclarationError, declaration_file_for, load_declarations
from lint.declarations.renders import DeclaredRender
from lint.loading import STDIN_NAME, LoadLimits, RenderedInput
from lint.parallel.lifetime import collector_paused, hold
from lint.parallel.shares import available_processes
from lint.render import HelmRender, RenderSpec
from lint.render.lines import stream_reader, template_lines
from lint.report.bounded import DEFAULT_MAX_REPORT_BYTES, truncation_note
from lint.report.environments import in_environment, joined
from lint.report.json_report import bounded_json
from lint.report.model import Report
from lint.report.reporters import CHECK_REPORTERS, RenderOptions
from lint.rules import level_rank
from lint.suppression import BaselineError, render_baseline

FAIL_ON = ("error", "warning", "note", "never")


def exit_code(report: Report, fail_on: str) -> int:
    """1 when an unsuppressed finding is at or above --fail-on, else 0."""
    if fail_on == "never":
        return OK
    threshold = level_rank(fail_on)
    failing = [f for f in report.findings if not f.suppressed and level_rank(f.level) >= threshold]
    return FAILED if failing else OK


@dataclass(frozen=True)
class OutputOptions:
    """Where the report of one check goes, in which format, and what sets
    the exit code."""

    fmt: str
    output: Path | None
    fail_on: str
    passthrough: bool
    write_baseline: Path | None
    rendering: RenderOptions
    """For the reporter; ``colour`` is decided when the report is written."""
    max_report_bytes: int = DEFAULT_MAX_REPORT_BYTES
    """``--max-report-bytes``: the bound on a JSON report (``bounded_json``)."""


def execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    """Run the check, write the report, return the exit code. The cyclic
    collector stays paused until the report is written: a collection while
    the report is rendered would scan every object the run built, for no
    cycle."""
    with collector_paused():
        return _execute(options, out, stdin)


def _execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    run = _checked(options, stdin, out)
    return _write(run.report, run, out, stdin)


def _checked(options: CheckOptions, stdin: bytes | None, out: OutputOptions) -> CheckRun:
    """The run, its Helm findings placed on their template lines
    (``lint.render.lines``) when the format shows them: the chart root maps
    the ``# Source:`` paths of a piped render; a render of ours has mapped
    them already."""
    try:
        run = check_run(options, stdin=stdin)
    except DeclarationError as error:
        fail(error.report(), USAGE)
    except BaselineError as error:
        fail(str(error), USAGE)
    if not CHECK_REPORTERS[out.fmt].shows_template_lines or not any(
        f.location.source is not None for f in run.report.findings
    ):
        return run
    chart_root = out.rendering.helm_chart_root
    if isinstance(stdin, RenderedInput):
        chart_root = None
    placed = template_lines(run.report, stream_reader(stdin, STDIN_NAME), chart_root)
    return dataclasses.replace(run, report=placed)


def execute_environments(
    options: CheckOptions, out: OutputOptions, renders: Sequence[DeclaredRender]
) -> int:
    """Render each ``renders:`` environment, check each on its own, and
    write one report of them all (DESIGN §11)."""
    with collector_paused():
        reports, runs = [], []
        for environment in renders:
            spec = environment.spec
            if isinstance(spec, HelmRender) and spec.namespace is None:
                spec = dataclasses.replace(spec, namespace=options.namespace)
            command = "helm template" if isinstance(spec, HelmRender) else "kustomize build"
            stdin = rendered_input(spec, f"<{command} {spec.target} ({environment.name})>")
            namespace = options.namespace or environment.namespace
            run = _checked(
                dataclasses.replace(options, paths=("-",), namespace=namespace), stdin, out
            )
            reports.append(in_environment(run.report, environment.name))
            runs.append(run)
        return _write(joined(reports), tuple(runs), out, None)


def _write(report: Report, run: object, out: OutputOptions, stdin: bytes | None) -> int:
    if out.write_baseline is not None:
        write_output(out.write_baseline, (render_baseline(report.findings),), "json")
    colour = colour_wanted(out.output is None and not out.passthrough and sys.stdout.isatty())
    rendering = dataclasses.replace(out.rendering, colour=colour)
    reporter = CHECK_REPORTERS[out.fmt]
    if out.fmt == "json":
        chunks, truncated = bounded_json(report, rendering.examined, out.max_report_bytes)
        if truncated is not None and not out.passthrough:
            # Under --passthrough the report itself is on standard error,
            # and its `truncated` member says it.
            with reader_may_leave(sys.stderr):
                say(truncation_note(truncated))
    else:
        chunks = reporter.chunks(report, rendering)
    if out.passthrough and stdin is not None:
        _pass_through(stdin)
    if out.output is not None:
        write_output(out.output, chunks, reporter.style)
    else:
        write_standard(
            chunks, to_stderr=out.passthrough, style=reporter.style, colour=rendering.colour
        )
    hold(run)  # the console script leaves without freeing it
    return exit_code(report, out.fail_on)


def _pass_through(stdin: bytes) -> None:
    """The input, unchanged, on standard output, before the report."""
    with reader_may_leave(sys.stdout):
        sys.stdout.buffer.write(stdin)
        if not isinstance(stdin, RenderedInput):
            # Input past the file limit was not checked (the report says
            # so), but it still passes through whole.
            shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
        sys.stdout.flush()


@click.command("check")
@PATHS
@CONFIG
@format_option(CHECK_REPORTERS)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    help="Write the report to FILE instead of standard output.",
)
@namespace_option(
    "Namespace for objects that name none "
    "(default: the declaration's defaultNamespace, then 'default')."
)
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True)
@READ_CILIUM
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
@VERBOSE
@QUIET
@click.option(
    "--helm-chart-root",
    help="SARIF: the chart directory that '# Source:' template paths are relative to.",
)
@click.option(
    "--renders",
    "renders_only",
    is_flag=True,
    help="Check the declaration file's renders: environments; a usage error when it "
    "lists none (without PATH or a render flag they are checked anyway).",
)
@click.option(
    "--category",
    default="egress-lint",
    show_default=True,
    help="SARIF: the automationDetails category.",
)
@MAX_REPORT_BYTES
@EXAMINED
@CONTROLLER_VERSION
@JOBS
@render_options
@limit_options
def check_command(
    paths: tuple[str, ...],
    config: Path | None,
    fmt: str,
    output: Path | None,
    namespace: str | None,
    fail_on: str,
    read_cilium: ReadCilium,
    baseline: Path | None,
    write_baseline: Path | None,
    passthrough: bool,
    show_suppressed: bool,
    verbose: bool,
    quiet: bool,
    helm_chart_root: str | None,
    category: str,
    renders_only: bool,
    max_report_bytes: int,
    examined: str | None,
    controller_version: str | None,
    jobs: int | None,
    limits: LoadLimits,
    render: RenderSpec | None,
) -> None:
    """Check rendered manifests against the declared egress intent: PATHs,
    or what --helm or --kustomize renders. With neither, the declaration
    file's renders: environments, each rendered and checked on its own."""
    if passthrough and "-" not in paths and render is None:
        raise click.UsageError(
            "--passthrough reads the manifests from standard input: pass '-' "
            "(or render them with --helm or --kustomize)"
        )
    config = declaration_start(config, render)
    workers = jobs or available_processes()
    rendering = RenderOptions(
        show_suppressed=show_suppressed,
        helm_chart_root=helm_chart_root,
        category=category,
        verbose=verbose,
        quiet=quiet,
        examined=examined_for(fmt, examined),
    )
    out = OutputOptions(
        fmt, output, fail_on, passthrough, write_baseline, rendering, max_report_bytes
    )
    if renders_only and (paths or render is not None or passthrough):
        raise click.UsageError(
            "--renders checks the renders: environments: give no PATH, "
            "--helm, --kustomize or --passthrough with it"
        )

    def options_for(read: tuple[str, ...], declaration: Path | None) -> CheckOptions:
        return CheckOptions(
            read,
            declaration,
            namespace,
            read_cilium,
            limits,
            workers,
            baseline,
            controller_version=controller_version,
        )

    if not paths and render is None and not passthrough:
        declared = _declared_renders(config, namespace)
        if declared is None and renders_only:
            fail(
                "--renders: no declaration file with a renders: list was found "
                "(see docs/declarations.md#renders)",
                USAGE,
            )
        if declared is not None:
            file, renders = declared
            sys.exit(execute_environments(options_for(("-",), file), out, renders))
    paths, stdin = manifest_input(paths, limits, render)
    sys.exit(execute(options_for(paths, config), out, stdin))


def _declared_renders(
    config: Path | None, namespace: str | None
) -> tuple[Path, tuple[DeclaredRender, ...]] | None:
    """The declaration file and its ``renders:``, when it has any."""
    file = declaration_file_for((".",), config)
    if file is None:
        return None
    try:
        renders = load_declarations(file, namespace_override=namespace).renders
    except DeclarationError as error:
        fail(error.report(), USAGE)
    return (file, renders) if renders else None
