"""``egress-lint generate``: the click command. It gathers options into a
``GenerateOptions``; ``lint.generate.command`` renders and writes.

Exit codes: 0 written, 1 refused to overwrite (or write outside DIR), 2
usage or declaration error. The group imports this module (and Jinja
behind it) only when ``generate`` is asked for.
"""

from __future__ import annotations

from pathlib import Path

import click

from lint.cli.exits import FAILED, USAGE, fail
from lint.cli.options import (
    CONFIG,
    PATHS,
    RenderFlags,
    declaration_start,
    limit_options,
    manifest_input,
    namespace_option,
    render_options,
)
from lint.cli.writing import write_standard
from lint.declarations import DeclarationError
from lint.generate.command import GenerateOptions, render_all, run_generate
from lint.generate.objects import GenerateError
from lint.generate.output import OutputError, stream_text
from lint.loading import LoadLimits
from lint.render import RenderSpec


@click.command("generate")
@PATHS
@CONFIG
@namespace_option(
    "Namespace for entries and objects that name none "
    "(default: the declaration's defaultNamespace, then 'default')."
)
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write DIR/<namespace>/<kind>-<name>.yaml, one file per object.",
)
@click.option(
    "--stdout",
    "to_stdout",
    is_flag=True,
    help="Write every manifest to standard output as multi-document YAML.",
)
@click.option("--force", is_flag=True, help="With --out: overwrite files whose content differs.")
@render_options
@limit_options
def generate_command(
    paths: tuple[str, ...],
    config: Path | None,
    namespace: str | None,
    out: Path | None,
    to_stdout: bool,
    force: bool,
    limits: LoadLimits,
    render: RenderSpec | None,
    render_flags: RenderFlags,
) -> None:
    """Write the reference manifests for every declaration: the egress
    policy, the baseline ingress policy and, under perSandbox, the admission
    fence and the RBAC it needs."""
    if (out is None) == (not to_stdout):
        raise click.UsageError("give exactly one of --out DIR and --stdout")
    if force and out is None:
        raise click.UsageError("--force only applies with --out")
    config = declaration_start(config, render)
    policy = render_flags.policy(config, limits) if render is not None else None
    paths, stdin = manifest_input(paths, limits, render, policy)
    options = GenerateOptions(paths, config, namespace, out, force, limits)
    try:
        if out is None:
            text = stream_text(render_all(options, stdin))
            write_standard((text,), to_stderr=False, style="text")
            return
        writes = run_generate(options, stdin)
    except DeclarationError as error:
        fail(error.report(), USAGE)
    except GenerateError as error:
        fail(str(error), USAGE)
    except (OutputError, OSError) as error:
        fail(str(error), FAILED)
    for write in writes:
        write_standard((f"{write.action:<9} {write.shown}\n",), to_stderr=False, style="text")
