"""``egress-lint init``: the click command. It reads the manifests (PATHs,
or what ``--helm`` or ``--kustomize`` renders) and writes a starter
``.egress-lint.yaml`` (``lint.init.command``).

Exit codes: 0 written, 2 usage error: the file exists already, nothing
to declare, or a render that failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import click

from lint.cli.exits import USAGE, fail
from lint.cli.options import (
    JOBS,
    PATHS,
    RenderFlags,
    limit_options,
    manifest_input,
    namespace_option,
    render_options,
    unwritable,
)
from lint.cli.writing import write_standard
from lint.declarations.discovery import display_name
from lint.init.command import InitOptions, NothingToDeclare, starter_text
from lint.loading import LoadLimits
from lint.parallel.shares import available_processes
from lint.render import RenderSpec

DECLARATION_FILE: Final = ".egress-lint.yaml"
STDOUT: Final = "-"


@click.command("init")
@PATHS
@click.option(
    "--output",
    metavar="PATH",
    default=DECLARATION_FILE,
    show_default=True,
    help="Where to write the declaration file ('-': standard output). An existing "
    "file is never overwritten.",
)
@namespace_option(
    "Namespace for objects that name none (default: 'default'); written as the "
    "file's defaultNamespace."
)
@JOBS
@render_options
@limit_options
def init_command(
    paths: tuple[str, ...],
    output: str,
    namespace: str | None,
    jobs: int | None,
    limits: LoadLimits,
    render: RenderSpec | None,
    render_flags: RenderFlags,
) -> None:
    """Write a starter .egress-lint.yaml from the manifests: PATHs, or what
    --helm or --kustomize renders. Each SandboxTemplate and each workload a
    NetworkPolicy selects is declared with what its policies let out today,
    with comments saying what to review."""
    if render is not None and paths:
        # The file would list the render under renders:, which a bare check
        # reads alone: what the PATHs hold would be declared but never read.
        raise click.UsageError(
            f"init declares what --{render.tool} renders as the one renders: environment: "
            "give no PATH with it"
        )
    target = None if output == STDOUT else Path(output)
    if target is not None:
        _writable(target)
    # No declaration file yet: the root is --root, else the current
    # directory's repository, exactly as for a check run from here.
    policy = render_flags.policy(None, limits) if render is not None else None
    paths, stdin = manifest_input(paths, limits, render, policy)
    options = InitOptions(paths, namespace, render, limits, jobs or available_processes())
    directory = Path.cwd() if target is None else target.parent
    try:
        text = starter_text(options, directory, stdin)
    except NothingToDeclare as nothing:
        fail(str(nothing), USAGE)
    if target is None:
        write_standard((text,), to_stderr=False, style="text")
        return
    _create(target, text)
    shown = display_name(target)
    # check finds the file by this name only; any other it must be told.
    config = "" if target.name == DECLARATION_FILE else f" --config {shown}"
    line = f"wrote {shown}: review it, then run `egress-lint check{config}`\n"
    write_standard((line,), to_stderr=False, style="text")


def _writable(target: Path) -> None:
    """A usage error, before anything is read, when the file exists already
    or cannot be written."""
    if target.exists() or target.is_symlink():
        what = "is a directory" if target.is_dir() else "exists already"
        fail(
            f"{display_name(target)} {what}: init never overwrites it "
            "(remove it, or give --output another PATH)",
            USAGE,
        )
    problem = unwritable(target)
    if problem is not None:
        fail(f"cannot write {display_name(target)}: {problem}", USAGE)


def _create(target: Path, text: str) -> None:
    """Write a new file; one that appeared meanwhile is left alone."""
    try:
        with target.open("x", encoding="utf-8") as stream:
            stream.write(text)
    except FileExistsError:
        fail(f"{display_name(target)} exists already: init never overwrites it", USAGE)
    except OSError as error:
        fail(
            f"cannot write {display_name(target)}: {error.strerror or type(error).__name__}", USAGE
        )
