"""``egress-lint generate``: the reference manifests for every declaration.

The click command only gathers options; :func:`run_generate` does the work
and is callable without click. Exit codes: 0 written, 1 refused to
overwrite (or write outside DIR), 2 usage or declaration error.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import click

from lint.declarations import DeclarationError
from lint.generate.objects import GenerateError, plan
from lint.generate.output import (
    OutputError,
    PlannedWrite,
    Rendered,
    apply_writes,
    plan_writes,
    stream_text,
)
from lint.generate.render import render_object
from lint.intake import take_in
from lint.limit_flags import read_stdin, with_limit_flags
from lint.loading import DEFAULT_LIMITS, LoadLimits
from lint.report.text_report import escape


@dataclass(frozen=True)
class GenerateOptions:
    """One generate run. ``out`` None means write to standard output."""

    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    namespace: str | None = None
    out: Path | None = None
    force: bool = False
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load the manifests on; 1 stays in this one."""


def render_all(options: GenerateOptions, stdin: bytes | None = None) -> list[Rendered]:
    """Every object, rendered and checked to read back as its manifest.
    Raises DeclarationError or GenerateError (usage errors)."""
    intake = take_in(options, stdin=stdin)
    objects = plan(intake.sandboxes)
    return [Rendered(obj, render_object(obj)) for obj in objects]


def run_generate(options: GenerateOptions, stdin: bytes | None = None) -> list[PlannedWrite]:
    """Render, then write to ``options.out``; returns what was done. With no
    ``out``, nothing is written and the caller prints :func:`stream_text`."""
    rendered = render_all(options, stdin)
    if options.out is None:
        return []
    writes = plan_writes(rendered, options.out, force=options.force)
    apply_writes(writes, options.out)
    return writes


def fail(message: str, code: int) -> NoReturn:
    """One message on standard error, control characters shown escaped, then exit."""
    text = "\n".join(escape(line) for line in message.split("\n"))
    click.echo(f"egress-lint: {text}", err=True)
    sys.exit(code)


@click.command("generate")
@click.argument("paths", nargs=-1)
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Declaration file (default: search upward for .egress-lint.yaml).",
)
@click.option(
    "--namespace",
    help="Namespace for entries and objects that name none "
    "(default: the declaration's defaultNamespace, then 'default').",
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
@with_limit_flags
def generate_command(
    paths: tuple[str, ...],
    config: Path | None,
    namespace: str | None,
    out: Path | None,
    to_stdout: bool,
    force: bool,
    limits: LoadLimits,
) -> None:
    """Write the reference manifests for every declaration: the egress
    policy, the baseline ingress policy and, under perSandbox, the admission
    fence and the RBAC it needs."""
    if (out is None) == (not to_stdout):
        raise click.UsageError("give exactly one of --out DIR and --stdout")
    if force and out is None:
        raise click.UsageError("--force only applies with --out")
    paths = paths or (".",)
    stdin = read_stdin(limits) if "-" in paths else None
    options = GenerateOptions(paths, config, namespace, out, force, limits)
    try:
        if out is None:
            click.echo(stream_text(render_all(options, stdin)), nl=False)
            return
        writes = run_generate(options, stdin)
    except DeclarationError as error:
        fail(error.report(), 2)
    except GenerateError as error:
        fail(str(error), 2)
    except (OutputError, OSError) as error:
        fail(str(error), 1)
    for write in writes:
        click.echo(f"{write.action:<9} {write.shown}")
