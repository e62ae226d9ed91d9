"""``egress-lint explain``: one sandbox's effective egress (REPORT.md).

The click command only gathers options; :func:`run_explain` does the work
and is callable without click. Exit codes: 0 the report was written, 2 usage
or declaration error. The answer itself is in the report, not the status.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

import click

from lint.checks.context import ReadCilium
from lint.declarations import DeclarationError
from lint.explain.destination import DestinationError, parse_destination
from lint.explain.report import render_json, render_text
from lint.explain.sandbox import Explanation, explain
from lint.explain.selection import SelectionError, choose
from lint.explain.verdict import ToVerdict, judge_destination
from lint.intake import take_in
from lint.limit_flags import read_stdin, with_limit_flags
from lint.loading import DEFAULT_LIMITS, LoadLimits
from lint.report.text_report import escape
from lint.sandboxes import PATHS
from lint.sandboxes import Path as AcquisitionPath

Format = Literal["text", "json"]


@dataclass(frozen=True)
class ExplainOptions:
    template: str
    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    profile: str | None = None
    namespace: str | None = None
    path: AcquisitionPath | None = None
    to: str | None = None
    read_cilium: ReadCilium = "auto"
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load the manifests on; 1 stays in this one."""


def run_explain(
    options: ExplainOptions, stdin: bytes | None = None
) -> tuple[Explanation, ToVerdict | None]:
    """Explain one sandbox. Raises DeclarationError, SelectionError or
    DestinationError, all usage errors."""
    destination = parse_destination(options.to) if options.to is not None else None
    intake = take_in(options, stdin=stdin)
    chosen = choose(
        intake.declarations, intake.sandboxes, options.template, options.profile, options.namespace
    )
    explanation = explain(
        chosen,
        intake.inventory,
        intake.loaded.problems,
        path=options.path,
        read_cilium=options.read_cilium,
    )
    verdict = None
    if destination is not None:
        verdict = judge_destination(explanation.policies, destination)
    return explanation, verdict


def _fail(message: str) -> NoReturn:
    text = "\n".join(escape(line) for line in message.split("\n"))
    click.echo(f"egress-lint: {text}", err=True)
    sys.exit(2)


@click.command("explain")
@click.argument("paths", nargs=-1)
@click.option("--template", required=True, help="The SandboxTemplate of the sandbox.")
@click.option("--profile", help="The egress profile of the declaration (default: none).")
@click.option(
    "--namespace",
    help="The sandbox namespace; also the namespace for entries and objects that name none.",
)
@click.option(
    "--path",
    "acquisition",
    type=click.Choice(["direct", "pooled"]),
    help="How the pod is acquired (default: the first path the check uses).",
)
@click.option(
    "--to",
    help="One destination: ADDRESS:PORT[/PROTOCOL], [IPV6]:PORT, a CIDR, or HOSTNAME:PORT.",
)
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Declaration file (default: search upward for .egress-lint.yaml).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--read-cilium",
    type=click.Choice(["auto", "always"]),
    default="auto",
    show_default=True,
    help="'always' reads Cilium policies under engine: core too.",
)
@with_limit_flags
def explain_command(
    paths: tuple[str, ...],
    template: str,
    profile: str | None,
    namespace: str | None,
    acquisition: str | None,
    to: str | None,
    config: Path | None,
    fmt: Format,
    read_cilium: ReadCilium,
    limits: LoadLimits,
) -> None:
    """Show what one sandbox's pods can reach: every policy that selects them,
    what each lets out, and with --to, whether one destination is allowed
    and by which policy and rule."""
    paths = paths or (".",)
    stdin = read_stdin(limits) if "-" in paths else None
    walked = next((p for p in PATHS if p == acquisition), None)
    options = ExplainOptions(
        template, paths, config, profile, namespace, walked, to, read_cilium, limits
    )
    try:
        explanation, verdict = run_explain(options, stdin)
    except DeclarationError as error:
        _fail(error.report())
    except (SelectionError, DestinationError) as error:
        _fail(str(error))
    render = render_json if fmt == "json" else render_text
    click.echo(render(explanation, verdict), nl=False)
