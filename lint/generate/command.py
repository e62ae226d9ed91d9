"""``egress-lint generate``: the reference manifests for every declaration.

:func:`run_generate` does the work and is callable without click; this
module holds no click. The command line, its options and exit codes are in
``lint/cli/generate.py``.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from lint.generate.objects import plan
from lint.generate.output import PlannedWrite, Rendered, apply_writes, plan_writes
from lint.generate.render import render_object
from lint.intake import take_in
from lint.loading import DEFAULT_LIMITS, LoadLimits


class GenerateOptions(msgspec.Struct, frozen=True):
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
