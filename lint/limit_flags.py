"""The load-limit flags of every command that reads manifests
(``docs/limits.md``), and reading standard input within them.

``with_limit_flags`` adds ``--max-file-size`` ... ``--max-alias-expansion``
to a click command and hands the command one ``limits: LoadLimits``
argument; a bad value is a usage error naming its flag.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from typing import Any, Final

import click

from lint.loading import DEFAULT_LIMITS, LoadLimits, parse_size

FLAGS: Final = {
    "max_file_size": "--max-file-size",
    "max_total_size": "--max-total-size",
    "max_document_size": "--max-document-size",
    "max_depth": "--max-depth",
    "max_alias_expansion": "--max-alias-expansion",
}
_SIZES: Final = ("max_file_size", "max_total_size", "max_document_size")
_OPTIONS: Final = (
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


def with_limit_flags(command: Callable[..., None]) -> Callable[..., None]:
    """The command with the limit flags, called with ``limits=`` instead."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        flags = {name: kwargs.pop(name) for name in FLAGS}
        command(*args, limits=limits_from(flags), **kwargs)

    for option in reversed(_OPTIONS):
        run = option(run)
    return run


def limits_from(flags: dict[str, Any]) -> LoadLimits:
    """The load limits from the flag values (None where a flag is not given)."""
    values: dict[str, int] = {}
    for name, value in flags.items():
        if value is None:
            continue
        if name in _SIZES:
            try:
                values[name] = parse_size(value)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint=FLAGS[name]) from None
        else:
            values[name] = value
    try:
        return dataclasses.replace(DEFAULT_LIMITS, **values)
    except ValueError as error:
        name = next((n for n in FLAGS if n in str(error)), "max_file_size")
        raise click.BadParameter(str(error), param_hint=FLAGS[name]) from None


def read_stdin(limits: LoadLimits) -> bytes:
    """Standard input, at most one byte past the file limit: the loader
    reports the excess, and an endless stream cannot exhaust memory."""
    return sys.stdin.buffer.read(limits.max_file_size + 1)
