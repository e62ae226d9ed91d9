"""``egress-lint check``: the click command, and writing its report.

The command gathers options into a ``CheckOptions`` (the run, its
suppressions included: ``lint.checks.runner.check_run``) and an
:class:`OutputOptions` (where the report goes and in which format, from
``CHECK_REPORTERS``); :func:`execute` runs, writes and returns the exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec
from msgspec.structs import replace

from lint.checks.runner import CheckOptions, CheckRun, ReadCilium, check_run
from lint.cli.exits import FAILED, OK, USAGE, fail, say
from lint.cli.options import (
    COLOR,
    CONFIG,
    CONTROLLER_VERSION,
    EXAMINED,
    JOBS,
    MAX_REPORT_BYTES,
    PATHS,
    QUIET,
    READ_CILIUM,
    VERBOSE,
    ColorChoice,
    RenderFlags,
    colour_wanted,
    declaration_start,
    declared_renders,
    environment_input,
    examined_for,
    format_option,
    limit_options,
    manifest_input,
    namespace_option,
    render_command,
    render_options,
    report_option,
)
from lint.cli.progress import Progress, clear_status_line
from lint.cli.writing import reader_may_leave, write_output, write_standard
from lint.declarations import DeclarationError
from lint.declarations.renders import DeclaredRender
from lint.loading import STDIN_NAME, LoadLimits, RenderedInput
from lint.parallel.lifetime import collector_paused, hold
from lint.parallel.shares import available_processes
from lint.render import RenderPolicy, RenderSpec
from lint.report.bounded import DEFAULT_MAX_REPORT_BYTES, truncation_note
from lint.report.reporters import CHECK_REPORTERS, RenderOptions
from lint.rules import level_rank

if TYPE_CHECKING:
    from lint.report.model import Report

FAIL_ON = ("error", "warning", "note", "never")


def exit_code(report: Report, fail_on: str) -> int:
    """1 when an unsuppressed finding is at or above --fail-on, else 0."""
    if fail_on == "never":
        return OK
    threshold = level_rank(fail_on)
    failing = [f for f in report.findings if not f.suppressed and level_rank(f.level) >= threshold]
    return FAILED if failing else OK


class OutputOptions(msgspec.Struct, frozen=True):
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
    reports: tuple[tuple[str, Path], ...] = ()
    """``--report FORMAT=PATH``: more reports of the same run, each to its file."""
    color: ColorChoice = "auto"
    """``--color``: whether the text report is painted (``colour_wanted``)."""

    @property
    def formats(self) -> tuple[str, ...]:
        """Every format this run writes: ``--format``, then each ``--report``'s."""
        return (self.fmt, *(fmt for fmt, _ in self.reports))


def execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    """Run the check, write the report, return the exit code. The cyclic
    collector stays paused until the report is written: a collection while
    the report is rendered would scan every object the run built, for no
    cycle."""
    with collector_paused():
        return _execute(options, out, stdin)


def _execute(options: CheckOptions, out: OutputOptions, stdin: bytes | None) -> int:
    run = _checked(options, stdin, out)
    return _write(run.report, run, out, stdin, options.progress)


def _checked(options: CheckOptions, stdin: bytes | None, out: OutputOptions) -> CheckRun:
    """The run, its Helm findings placed on their template lines
    (``lint.render.lines``) when the format shows them: the chart root maps
    the ``# Source:`` paths of a piped render; a render of ours has mapped
    them already."""
    try:
        run = check_run(options, stdin=stdin)
    except DeclarationError as error:
        fail(error.report(), USAGE)
    except _baseline_error() as error:
        fail(str(error), USAGE)
    if isinstance(stdin, RenderedInput) and stdin.kustomize_origins is not None:
        # Only a Kustomize render needs its origins read (``lint.render``).
        from lint.render.origins import kustomize_places  # noqa: PLC0415

        # Every format shows a Kustomize object at its file: the stream has no name
        # a reader can open.
        text = bytes(stdin).decode("utf-8", "replace")
        report = kustomize_places(run.report, stdin.name, text, stdin.kustomize_origins)
        return replace(run, report=report)
    shown = any(CHECK_REPORTERS[fmt].shows_template_lines for fmt in out.formats)
    if not shown or not any(f.location.source is not None for f in run.report.findings):
        return run
    chart_root = out.rendering.helm_chart_root
    if isinstance(stdin, RenderedInput):
        chart_root = None
    # Only Helm findings need their templates read (``lint.render.lines``).
    from lint.render.lines import stream_reader, template_lines  # noqa: PLC0415

    placed = template_lines(run.report, stream_reader(stdin, STDIN_NAME), chart_root)
    return replace(run, report=placed)


def execute_environments(
    options: CheckOptions,
    out: OutputOptions,
    renders: Sequence[DeclaredRender],
    policy: RenderPolicy,
) -> int:
    """Render each ``renders:`` environment, check each on its own, and
    write one report of them all (DESIGN §11). An environment whose render
    is refused, fails, runs out of time or overruns its output limit is one
    ``render-failed`` finding, and its sandboxes fail closed; the others
    are checked all the same, and the exit status covers them all."""
    from lint.report.environments import in_environment, joined  # noqa: PLC0415

    with collector_paused():
        reports, runs = [], []
        progress = options.progress or _silent
        for number, environment in enumerate(renders, start=1):
            spec = environment.spec
            progress(
                f"environment {environment.name} ({number}/{len(renders)}): "
                f"{render_command(spec)} {spec.target}"
            )
            stdin, namespace = environment_input(environment, options.namespace, policy)
            given = replace(
                options, paths=("-",), namespace=namespace, environment=environment.name
            )
            run = _checked(given, stdin, out)
            report = run.report
            if stdin.failure is not None:
                report = _failed(report, environment, stdin.failure, options.baseline)
            reports.append(in_environment(report, environment.name))
            runs.append(run)
        return _write(joined(reports), tuple(runs), out, None, options.progress)


def _failed(
    report: Report, environment: DeclaredRender, failure: str, baseline: Path | None
) -> Report:
    """The report of an environment that could not be rendered: one
    ``render-failed`` finding at its ``renders:`` entry, subject to the
    baseline as every finding is."""
    from lint.report.environments import failed_environment  # noqa: PLC0415
    from lint.report.model import Location  # noqa: PLC0415
    from lint.suppression import BaselineError, suppress  # noqa: PLC0415

    where = Location(report.declaration_file or "-", environment.line)
    try:
        return suppress(failed_environment(report, failure, where), baseline)
    except BaselineError as error:
        fail(str(error), USAGE)


def _silent(_step: str) -> None:
    """No one is told of the steps."""


def _baseline_error() -> type[Exception]:
    """The error of an unreadable baseline, imported only when a run
    fails: its module needs the report model, which ``check`` imports
    while children load the files (``lint.checks.runner``)."""
    from lint.suppression import BaselineError  # noqa: PLC0415

    return BaselineError


def _write(
    report: Report,
    run: object,
    out: OutputOptions,
    stdin: bytes | None,
    progress: Callable[[str], None] | None = None,
) -> int:
    if out.output is not None and not out.passthrough:
        (progress or _silent)(f"writing the report to {out.output}")
    else:
        clear_status_line()  # what is written next may go to the terminal
    if out.write_baseline is not None:
        from lint.suppression import render_baseline  # noqa: PLC0415

        write_output(out.write_baseline, (render_baseline(report.findings),), "json")
    colour = colour_wanted(
        out.color, out.output is None and not out.passthrough and sys.stdout.isatty()
    )
    rendering = replace(out.rendering, colour=colour)
    chunks = _report_chunks(report, out.fmt, rendering, out)
    if out.passthrough and stdin is not None:
        _pass_through(stdin)
    if out.output is not None:
        write_output(out.output, chunks, CHECK_REPORTERS[out.fmt].style, colour=rendering.colour)
        clear_status_line()
    else:
        write_standard(
            chunks,
            to_stderr=out.passthrough,
            style=CHECK_REPORTERS[out.fmt].style,
            colour=rendering.colour,
        )
    for fmt, path in out.reports:
        # A file, as `--format FMT --output PATH` writes it: no colour.
        chunks = _report_chunks(report, fmt, out.rendering, out)
        write_output(path, chunks, CHECK_REPORTERS[fmt].style)
    hold(run)  # the console script leaves without freeing it
    return exit_code(report, out.fail_on)


def _report_chunks(
    report: Report, fmt: str, rendering: RenderOptions, out: OutputOptions
) -> Iterable[str]:
    """The report in one format; JSON bounded by ``--max-report-bytes``,
    with a note on standard error when it was cut."""
    if fmt != "json":
        return CHECK_REPORTERS[fmt].chunks(report, rendering)
    from lint.report.json_report import bounded_json  # noqa: PLC0415

    chunks, truncated = bounded_json(report, rendering.examined, out.max_report_bytes)
    if truncated is not None and not out.passthrough:
        # Under --passthrough the report itself is on standard error,
        # and its `truncated` member says it.
        with reader_may_leave(sys.stderr):
            say(truncation_note(truncated))
    return chunks


def _pass_through(stdin: bytes) -> None:
    """The input, unchanged, on standard output, before the report."""
    with reader_may_leave(sys.stdout):
        sys.stdout.buffer.write(stdin)
        if not isinstance(stdin, RenderedInput):
            # Input past the file limit was not checked (the report says
            # so), but it still passes through whole.
            import shutil  # noqa: PLC0415 - only under --passthrough

            shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
        sys.stdout.flush()


@click.command("check")
@PATHS
@CONFIG
@format_option(CHECK_REPORTERS)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Write the report to PATH instead of standard output.",
)
@report_option(tuple(CHECK_REPORTERS))
@namespace_option(
    "Namespace for objects that name none "
    "(default: the declaration's defaultNamespace, then 'default')."
)
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default="error",
    show_default=True,
    help="Exit 1 when an unsuppressed finding is at or above this level; 'never' exits 0 "
    "on findings.",
)
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
@COLOR
@click.option(
    "--helm-chart-root",
    metavar="DIR",
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
    metavar="NAME",
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
    reports: tuple[tuple[str, Path], ...],
    namespace: str | None,
    fail_on: str,
    read_cilium: ReadCilium,
    baseline: Path | None,
    write_baseline: Path | None,
    passthrough: bool,
    show_suppressed: bool,
    verbose: bool,
    quiet: bool,
    color: ColorChoice,
    helm_chart_root: str | None,
    category: str,
    renders_only: bool,
    max_report_bytes: int,
    examined: str | None,
    controller_version: str | None,
    jobs: int | None,
    limits: LoadLimits,
    render: RenderSpec | None,
    render_flags: RenderFlags,
) -> None:
    """Check rendered manifests against the declared egress intent: PATHs,
    what --helm or --kustomize renders, or both, read as one set. With
    neither, the declaration file's renders: environments, each rendered and
    checked on its own."""
    if passthrough and "-" not in paths and render is None:
        raise click.UsageError(
            "--passthrough reads the manifests from standard input: pass '-' "
            "(or render them with --helm or --kustomize)"
        )
    if passthrough and render is not None and paths:
        raise click.UsageError(
            f"--passthrough copies the one stream --{render.tool} renders: give no PATH with it"
        )
    config = declaration_start(config, render)
    workers = jobs or available_processes()
    progress = Progress()
    rendering = RenderOptions(
        show_suppressed=show_suppressed,
        helm_chart_root=helm_chart_root,
        category=category,
        verbose=verbose,
        quiet=quiet,
        examined=examined_for("json" if any(f == "json" for f, _ in reports) else fmt, examined),
    )
    if output is not None and any(path == output for _, path in reports):
        raise click.UsageError(f"{output} is named by both --output and --report")
    out = OutputOptions(
        fmt,
        output,
        fail_on,
        passthrough,
        write_baseline,
        rendering,
        max_report_bytes,
        reports,
        color,
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
            progress=progress,
        )

    if not paths and render is None and not passthrough:
        declared = declared_renders(config, namespace)
        if declared is None and renders_only:
            fail(
                "--renders: no declaration file with a renders: list was found "
                "(see docs/declarations.md#renders)",
                USAGE,
            )
        if declared is not None:
            file, renders = declared
            policy = render_flags.policy(file, limits)
            sys.exit(execute_environments(options_for(("-",), file), out, renders, policy))
    if render is not None:
        progress(f"{render_command(render)} {render.target}")
    single = render_flags.policy(config, limits) if render is not None else None
    paths, stdin = manifest_input(paths, limits, render, single)
    sys.exit(execute(options_for(paths, config), out, stdin))
