"""``egress-lint explain``: the click command. It gathers options into an
``ExplainOptions``; ``lint.explain.command.run_explain`` does the work.

Exit codes: 0 the report was written and, with ``--to``, the destination
is not let out beyond the allowance (it is inside it, or denied); 1 with
``--to``, the destination is (or may be) let out beyond the allowance; 2
usage or declaration error, a ``--to`` value in none of the accepted forms
included. The group imports this module only when ``explain`` is asked for.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from lint.checks.context import ReadCilium
from lint.cli.exits import FAILED, OK, USAGE, fail
from lint.cli.options import (
    CONFIG,
    CONTROLLER_VERSION,
    PATHS,
    READ_CILIUM,
    declaration_start,
    format_option,
    limit_options,
    manifest_input,
    namespace_option,
    render_options,
)
from lint.cli.writing import write_standard
from lint.declarations import DeclarationError
from lint.explain.command import ExplainOptions, let_out_beyond, run_explain
from lint.explain.destination import DestinationError
from lint.explain.reporters import EXPLAIN_REPORTERS
from lint.explain.selection import SelectionError
from lint.loading import LoadLimits
from lint.render import RenderSpec
from lint.sandboxes import PATHS as ACQUISITION_PATHS


@click.command("explain")
@PATHS
@click.option("--template", required=True, help="The SandboxTemplate of the sandbox.")
@click.option("--profile", help="The egress profile of the declaration (default: none).")
@namespace_option(
    "The sandbox namespace; also the namespace for entries and objects that name none."
)
@click.option(
    "--path",
    "acquisition",
    type=click.Choice(list(ACQUISITION_PATHS)),
    help="How the pod is acquired (default: the first path the check uses).",
)
@click.option(
    "--to",
    help="One destination: ADDRESS:PORT[/PROTOCOL], [IPV6]:PORT, a CIDR, or HOSTNAME:PORT. "
    "Exit 1 when it is let out beyond the allowance, 0 when not, 2 when it is none of these.",
)
@CONFIG
@format_option(EXPLAIN_REPORTERS)
@READ_CILIUM
@CONTROLLER_VERSION
@render_options
@limit_options
def explain_command(
    paths: tuple[str, ...],
    template: str,
    profile: str | None,
    namespace: str | None,
    acquisition: str | None,
    to: str | None,
    config: Path | None,
    fmt: str,
    read_cilium: ReadCilium,
    controller_version: str | None,
    limits: LoadLimits,
    render: RenderSpec | None,
) -> None:
    """Show what one sandbox's pods can reach: every policy that selects them,
    what each lets out, and with --to, whether one destination is allowed
    and by which policy and rule.

    \b
    Exit status:
      0  the report was written; with --to, the destination is inside the
         allowance, or not let out beyond it
      1  with --to, the destination is let out beyond the allowance (or may
         be: a rule that may reach it counts)
      2  usage error: no such declaration, an ambiguous one, a --to value in
         none of the forms above, an invalid declaration file"""
    config = declaration_start(config, render)
    paths, stdin = manifest_input(paths, limits, render)
    walked = next((p for p in ACQUISITION_PATHS if p == acquisition), None)
    options = ExplainOptions(
        template,
        paths,
        config,
        profile,
        namespace,
        walked,
        to,
        read_cilium,
        limits,
        controller_version=controller_version,
    )
    try:
        explained = run_explain(options, stdin)
    except DeclarationError as error:
        fail(error.report(), USAGE)
    except (SelectionError, DestinationError) as error:
        fail(str(error), USAGE)
    text = EXPLAIN_REPORTERS[fmt].render(explained, None)
    write_standard((text,), to_stderr=False, style="json" if fmt == "json" else "text")
    sys.exit(FAILED if let_out_beyond(explained[1]) else OK)
