"""Judging the declared sandboxes on several processes: which sandboxes
make one unit of work.

Judgements are reused between the sandboxes of one namespace (``judging``),
so a unit is a namespace's sandboxes: cut in two, a namespace's shared
judgements would be made twice, and on the corpus each half cost about as
much as the whole. Units go largest first, so the last ones taken are
small and the processes end together. ``lint.parallel.shares.map_units``
has this process and each forked child take units from one queue; a child
sends its records back (``lint.parallel.records``). Results come back in
plan order, so the report is the one a single process writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from lint.parallel.records import Records
from lint.parallel.shares import map_units
from lint.report.model import Finding, SandboxReport

PlanResult = tuple[list[SandboxReport], list[Finding]]
Plan = TypeVar("Plan")

RESULTS: Final[Records[PlanResult]] = Records(PlanResult)


def check_plans(
    plans: Sequence[Plan],
    namespace_of: Callable[[Plan], str],
    check_one: Callable[[Plan], PlanResult],
    processes: int,
    *,
    meanwhile: Callable[[], object] | None = None,
) -> list[PlanResult]:
    """Each plan's reports and findings, in plan order, on at most
    ``processes`` processes; ``meanwhile`` is what this process does
    first once children start, if any do (``map_units``)."""
    units = units_of([namespace_of(plan) for plan in plans], processes)
    grouped = [[plans[i] for i in unit] for unit in units]
    judged = map_units(grouped, check_one, RESULTS, processes, meanwhile=meanwhile)
    results: dict[int, PlanResult] = {}
    for unit, checked in zip(units, judged, strict=True):
        results.update(zip(unit, checked, strict=True))
    return [results[i] for i in range(len(plans))]


def units_of(namespaces: Sequence[str], processes: int) -> list[list[int]]:
    """Plan indices by unit, a unit per namespace, each in plan order. On
    one process, in the order of the namespaces' first plans (each
    namespace judged once through: ``JudgmentMemo.begin_namespace``); on
    several, largest first, then by first plan."""
    by_namespace: dict[str, list[int]] = {}
    for index, namespace in enumerate(namespaces):
        by_namespace.setdefault(namespace, []).append(index)
    units = list(by_namespace.values())
    return units if processes < 2 else sorted(units, key=lambda unit: (-len(unit), unit[0]))
