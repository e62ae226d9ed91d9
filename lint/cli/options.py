"""The options more than one command takes, each declared once, and reading
the manifests they name.

``check``, ``explain`` and ``generate`` read manifests: each takes PATHS,
``--config``, ``--namespace`` and the load-limit flags (``docs/limits.md``),
and reads standard input within the file limit. ``--read-cilium`` and
``--format`` are shared by the commands that have them; ``--format`` takes
its choices from the command's registry of reporters.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import click

from lint.loading import DEFAULT_LIMITS, LoadLimits, parse_size
from lint.parallel.shares import MAX_PROCESSES

PATHS: Final = click.argument("paths", nargs=-1)

CONFIG: Final = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Declaration file (default: search upward for .egress-lint.yaml).",
)

READ_CILIUM: Final = click.option(
    "--read-cilium",
    type=click.Choice(["auto", "always"]),
    default="auto",
    show_default=True,
    help="'always' reads Cilium policies under engine: core too.",
)

CONTROLLER_VERSION: Final = click.option(
    "--controller-version",
    metavar="VERSION",
    help="The agent-sandbox controller version to assume, such as v0.5.0 (default: the "
    "declaration's agentSandbox.version, else the controller Deployment's image tag, "
    "else the newest known).",
)

JOBS: Final = click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Processes to load and judge on (default: one per CPU, at most "
    f"{MAX_PROCESSES}; large inputs only). 1 stays in one process.",
)


def namespace_option(help_text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--namespace``; each command says what the namespace is for it."""
    return click.option("--namespace", help=help_text)


def format_option(
    reporters: Mapping[str, object],
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--format``, one choice per reporter, the first the default; the
    command gets the name as ``fmt``."""
    names = list(reporters)
    return click.option(
        "--format", "fmt", type=click.Choice(names), default=names[0], show_default=True
    )


LIMIT_FLAGS: Final = {
    "max_file_size": "--max-file-size",
    "max_total_size": "--max-total-size",
    "max_document_size": "--max-document-size",
    "max_depth": "--max-depth",
    "max_alias_expansion": "--max-alias-expansion",
}
_SIZES: Final = ("max_file_size", "max_total_size", "max_document_size")
_LIMIT_OPTIONS: Final = (
    click.option("--max-file-size", metavar="SIZE", help="Largest file read (default 64M)."),
    click.option("--max-total-size", metavar="SIZE", help="Most bytes read in all (default 128M)."),
    click.option(
        "--max-document-size", metavar="SIZE", help="Largest document parsed (default 8M)."
    ),
    click.option("--max-depth", type=int, help="Deepest nesting in a document (default 100)."),
    click.option(
        "--max-alias-expansion",
        type=int,
        help="Most values a document may hold once aliases are expanded (default 1000000).",
    ),
)


def limit_options(command: Callable[..., None]) -> Callable[..., None]:
    """The command with ``--max-file-size`` ... ``--max-alias-expansion``,
    called with one ``limits: LoadLimits`` instead; a bad value is a usage
    error naming its flag."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        flags = {name: kwargs.pop(name) for name in LIMIT_FLAGS}
        command(*args, limits=limits_from(flags), **kwargs)

    for option in reversed(_LIMIT_OPTIONS):
        run = option(run)
    return run


def limits_from(flags: Mapping[str, Any]) -> LoadLimits:
    """The load limits from the flag values (None where a flag is not given)."""
    values: dict[str, int] = {}
    for name, value in flags.items():
        if value is None:
            continue
        if name in _SIZES:
            try:
                values[name] = parse_size(value)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint=LIMIT_FLAGS[name]) from None
        else:
            values[name] = value
    try:
        return dataclasses.replace(DEFAULT_LIMITS, **values)
    except ValueError as error:
        name = next((n for n in LIMIT_FLAGS if n in str(error)), "max_file_size")
        raise click.BadParameter(str(error), param_hint=LIMIT_FLAGS[name]) from None


def manifest_input(
    paths: tuple[str, ...], limits: LoadLimits
) -> tuple[tuple[str, ...], bytes | None]:
    """The paths to read (``.`` when none is given) and, when one of them is
    ``-``, standard input read within the limit."""
    paths = paths or (".",)
    return paths, read_stdin(limits) if "-" in paths else None


def read_stdin(limits: LoadLimits) -> bytes:
    """Standard input, at most one byte past the file limit: the loader
    reports the excess, and an endless stream cannot exhaust memory."""
    return sys.stdin.buffer.read(limits.max_file_size + 1)
