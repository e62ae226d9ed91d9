"""Writing what a command makes where the command line sends it: a file it
names (``--output``, ``--write-baseline``: a regular file, a named pipe,
``/dev/stdout``), standard output, or standard error (``--passthrough``),
chunk by chunk as the reporter makes it, so a large report is never held
whole.

A file that cannot be written is a usage error naming it and the reason
(exit 2), never an internal error. A standard stream whose reader went
away (``egress-lint check | head`` closed the pipe) is not a failure of the
check: the rest of the text has nowhere to go, so writing to it stops, and
the exit status stays the check's.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

import click

from lint.cli.exits import USAGE, fail
from lint.report.escaping import Neutraliser, Style

BATCH = 1 << 16
"""Characters gathered before they are made safe and written (one
``click.echo``, which flushes, or one write to a file): a report of many
short blocks is neither a write per line nor a pass of the neutraliser per
block (a JSON report is some 8,000 pieces, most of a few bytes)."""


def write_output(path: Path, chunks: Iterable[str], style: Style, *, colour: bool = False) -> None:
    """Write the chunks to a file the command line named, in UTF-8, in
    batches, made safe as on standard output (the file may be
    ``/dev/stdout``, or shown in a log later); ``colour``: the text
    report's colours, asked for with ``--color always``, are kept."""
    try:
        with path.open("w", encoding="utf-8") as stream:
            for chunk in safe_chunks(_batches(chunks), style, colour=colour):
                stream.write(chunk)
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or type(error).__name__}", USAGE)


def write_standard(
    chunks: Iterable[str], *, to_stderr: bool, style: Style, colour: bool = False
) -> None:
    """Write the chunks to standard output (or error) with ``click.echo``,
    a batch of chunks at a time (each echo flushes), made safe to show
    (``safe_chunks``; ``colour``: the text report's colours kept). Made
    safe, unpainted text holds no escape character (it is written as a
    visible escape), so click's stripping of escape sequences off a
    terminal finds none wherever a batch ends; JSON holds none either, so
    it is not searched for them, and painted text keeps the colours
    ``--color`` asked for even off a terminal."""
    stream = sys.stderr if to_stderr else sys.stdout
    as_is = True if style == "json" or colour else None  # True: click strips nothing
    with reader_may_leave(stream):
        for batch in safe_chunks(_batches(chunks), style, colour=colour):
            click.echo(batch, err=to_stderr, nl=False, color=as_is)


def safe_chunks(chunks: Iterable[str], style: Style, *, colour: bool = False) -> Iterator[str]:
    """The chunks with no line able to start a CI workflow command and no
    control character written raw (``lint.report.escaping.Neutraliser``):
    every report, listing and manifest the tool writes passes here."""
    neutraliser = Neutraliser(style, colour=colour)
    for chunk in chunks:
        safe = neutraliser.feed(chunk)
        if safe:
            yield safe
    last = neutraliser.end()
    if last:
        yield last


@contextlib.contextmanager
def reader_may_leave(stream: TextIO) -> Iterator[None]:
    """Writing to a standard stream whose reader may close it: a closed
    pipe (EPIPE) ends the writing quietly, and the stream's descriptor is
    pointed at ``/dev/null``, so what is still buffered, and the flush when
    the process leaves, go nowhere instead of failing again."""
    try:
        yield
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):  # no descriptor (a test's stream)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)


def _batches(chunks: Iterable[str]) -> Iterator[str]:
    """The chunks joined into batches of at least ``BATCH`` characters (the
    last may be shorter), a long chunk on its own. Where a batch ends does
    not change what is written: the neutraliser holds back what it cannot
    yet judge until the next batch."""
    pending: list[str] = []
    size = 0
    for chunk in chunks:
        if len(chunk) >= BATCH:
            if pending:
                yield "".join(pending)
                pending, size = [], 0
            yield chunk
            continue
        pending.append(chunk)
        size += len(chunk)
        if size >= BATCH:
            yield "".join(pending)
            pending, size = [], 0
    if pending:
        yield "".join(pending)
