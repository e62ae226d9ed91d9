"""One check run: declarations and manifests in, a Report out.

Data flows one way: the front door (``lint.intake``: declarations, load,
inventory, declared sandboxes) -> per-sandbox checks
(``lint.checks.sandbox_checks``) -> report. This function is callable
without click; the CLI only gathers options.

This module imports nothing the checks need beyond the front door: the
checks themselves are imported while forked children load the files
(``take_in``'s ``meanwhile``), so on several processes this one is not idle
importing them before its share of the loading, and the CLI can parse its
options before they are imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from lint.decision.frozen import equal_without
from lint.intake import take_in
from lint.loading import DEFAULT_LIMITS, LoadLimits, RenderedInput
from lint.parallel.lifetime import collector_paused

if TYPE_CHECKING:
    from lint.report.model import Report

ReadCilium = Literal["auto", "always"]
"""``--read-cilium``: ``always`` reads Cilium policies under ``engine:
core`` too; ``auto`` reads them as the declared engine says."""


class CheckOptions(msgspec.Struct, frozen=True):
    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    namespace: str | None = None
    read_cilium: ReadCilium = "auto"
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load and judge on (``lint.parallel``); 1 stays in this one."""
    baseline: Path | None = None
    """Baseline file whose findings the run marks suppressed (after the
    annotations); an unreadable one raises BaselineError, a usage error."""
    controller_version: str | None = None
    """``--controller-version``: the agent-sandbox controller assumed (DESIGN §12)."""
    progress: Callable[[str], None] | None = None
    """Told, in words, each step a long run starts (``lint.cli.progress``)."""
    environment: str | None = None
    """The ``renders:`` environment the input was rendered for: only its
    entries are judged (issue 28)."""

    __eq__ = equal_without("progress")  # how a run reports, not what it checks
    __hash__ = None  # type: ignore[assignment]  # never hashed


def run_check(options: CheckOptions, *, stdin: bytes | None = None) -> Report:
    """Run every check. The cyclic garbage collector is paused meanwhile: a
    run builds hundreds of thousands of small objects and no cycles, and
    each collection would rescan all of them."""
    return check_run(options, stdin=stdin).report


class CheckRun(msgspec.Struct, frozen=True):
    """A finished run: its report, and what the report was built from.
    Holding it keeps the documents and judgements alive: a caller about to
    leave the process can skip freeing them one by one (the console script
    does; on the 16 MB bench tree that takes about 40 ms)."""

    report: Report
    working: tuple[object, ...]


def check_run(options: CheckOptions, *, stdin: bytes | None = None) -> CheckRun:
    """``run_check``, with the run's working objects."""
    with collector_paused():
        return _run_check(options, stdin)


def _run_check(options: CheckOptions, stdin: bytes | None) -> CheckRun:
    progress = options.progress or _silent
    progress(_reading(options.paths, stdin))
    intake = take_in(
        options, stdin=stdin, environment=options.environment, meanwhile=_import_checks
    )
    # Imported already when children loaded the files; else now, once.
    from lint.checks.sandbox_checks import checked_run  # noqa: PLC0415

    return checked_run(options, intake)


def _import_checks() -> None:
    """What this process does while children start loading the files."""
    import lint.checks.sandbox_checks  # noqa: F401, PLC0415


def _silent(_step: str) -> None:
    """No one is told of the steps."""


def _reading(paths: Sequence[str], stdin: bytes | None) -> str:
    if isinstance(stdin, RenderedInput):
        return "reading the rendered manifests"
    return "reading " + " ".join("standard input" if path == "-" else path for path in paths)
