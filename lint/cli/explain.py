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
from msgspec.structs import replace

from lint.checks.runner import ReadCilium
from lint.cli.exits import FAILED, OK, USAGE, fail
from lint.cli.options import (
    CONFIG,
    CONTROLLER_VERSION,
    ENVIRONMENT,
    PATHS,
    READ_CILIUM,
    WORKLOAD,
    RenderFlags,
    declaration_start,
    declared_renders,
    environment_input,
    format_option,
    limit_options,
    manifest_input,
    namespace_option,
    render_options,
)
from lint.cli.writing import write_standard
from lint.declarations import DeclarationError
from lint.explain.command import (
    Environment,
    ExplainOptions,
    let_out_beyond,
    run_explain,
    run_explain_environments,
)
from lint.explain.destination import DestinationError
from lint.explain.reporters import EXPLAIN_REPORTERS
from lint.explain.selection import SelectionError
from lint.loading import LoadLimits
from lint.render import RenderSpec
from lint.sandboxes import PATHS as ACQUISITION_PATHS


@click.command("explain")
@PATHS
@click.option(
    "--template", help="The SandboxTemplate of the sandbox (or a declared workload, by name)."
)
@WORKLOAD
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
@ENVIRONMENT
@render_options
@limit_options
def explain_command(
    paths: tuple[str, ...],
    template: str | None,
    workload: tuple[str, str] | None,
    profile: str | None,
    namespace: str | None,
    acquisition: str | None,
    to: str | None,
    config: Path | None,
    fmt: str,
    read_cilium: ReadCilium,
    controller_version: str | None,
    environment: str | None,
    limits: LoadLimits,
    render: RenderSpec | None,
    render_flags: RenderFlags,
) -> None:
    """Show what one sandbox's pods can reach, as check judges the path:
    every policy that selects them, what each lets out, and with --to, the
    cluster's verdict for one destination and the rules behind it.

    Under host: namzu, the host's own verdict follows. Reads PATHs, what
    --helm or --kustomize renders, or with neither the declaration file's
    renders: environments.

    \b
    Exit status:
      0  the report was written; with --to, the destination is inside the
         allowance, or not let out beyond it
      1  with --to, the destination is let out beyond the allowance (or may
         be: a rule that may reach it counts)
      2  usage error: no such declaration, an ambiguous one, a --to value in
         none of the forms above, an invalid declaration file, a sandbox in
         several renders: environments without --environment"""
    if (template is None) == (workload is None):
        raise click.UsageError("give one of --template NAME and --workload KIND/NAME")
    config = declaration_start(config, render)
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
        workload=workload,
    )
    environments = _environments(
        paths, render, config, namespace, environment, render_flags, limits
    )
    try:
        if environments is not None:
            explained = run_explain_environments(options, environments)
        else:
            policy = render_flags.policy(config, limits) if render is not None else None
            read, stdin = manifest_input(paths, limits, render, policy)
            explained = run_explain(replace(options, paths=read), stdin)
    except DeclarationError as error:
        fail(error.report(), USAGE)
    except (SelectionError, DestinationError) as error:
        fail(str(error), USAGE)
    text = EXPLAIN_REPORTERS[fmt].render(explained, None)
    write_standard((text,), to_stderr=False, style="json" if fmt == "json" else "text")
    sys.exit(FAILED if let_out_beyond(explained[1]) else OK)


def _environments(
    paths: tuple[str, ...],
    render: RenderSpec | None,
    config: Path | None,
    namespace: str | None,
    environment: str | None,
    render_flags: RenderFlags,
    limits: LoadLimits,
) -> list[Environment] | None:
    """The ``renders:`` environments to explain in, rendered: used as
    ``check`` uses them, when no PATH and no render flag is given and the
    declaration file lists some; ``--environment`` picks one by name."""
    declared = None if paths or render is not None else declared_renders(config, namespace)
    if declared is None:
        if environment is not None:
            raise click.UsageError(
                "--environment picks one of the declaration file's renders: environments; "
                "there are none to pick from here (no renders: list, or PATH or a render "
                "flag given)"
            )
        return None
    renders = declared[1]
    if environment is not None:
        renders = tuple(r for r in renders if r.name == environment)
        if not renders:
            names = ", ".join(r.name for r in declared[1])
            raise click.UsageError(f"no renders: environment {environment!r}; declared: {names}")
    policy = render_flags.policy(declared[0], limits)
    found = []
    for chosen in renders:
        stdin, env_namespace = environment_input(chosen, namespace, policy)
        found.append(Environment(chosen.name, stdin, env_namespace))
    return found
