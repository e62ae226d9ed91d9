"""Judging the declared sandboxes on several processes: which sandboxes
make one unit of work, and the findings of the run as a whole one more.

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
    whole_run: Callable[[], list[Finding]],
) -> tuple[list[PlanResult], list[Finding]]:
    """Each plan's reports and findings, in plan order, on at most
    ``processes`` processes, and ``whole_run``'s findings (those of the run
    as a whole). When the plans are shared out, ``whole_run`` is one more
    unit, queued last: whichever process is free first makes it, which is
    seldom this one, since it takes the largest namespace."""
    units = units_of([namespace_of(plan) for plan in plans], processes)
    grouped: list[list[Plan | _WholeRun]] = [[plans[i] for i in unit] for unit in units]
    if processes > 1 and len(units) > 1:
        grouped.append([WHOLE_RUN])

    def check(plan: Plan | _WholeRun) -> PlanResult:
        if isinstance(plan, _WholeRun):
            return [], whole_run()
        return check_one(plan)

    # One answer per child: its namespaces' reports list the same entries
    # of clusterwide objects and unparsed documents, and their findings the
    # same culprits, which are then written and read back once.
    judged = map_units(grouped, check, RESULTS, processes, answer_once=True)
    results: dict[int, PlanResult] = {}
    for unit, checked in zip(units, judged[: len(units)], strict=True):
        results.update(zip(unit, checked, strict=True))
    whole = judged[-1][0][1] if len(judged) > len(units) else whole_run()
    return [results[i] for i in range(len(plans))], whole


class _WholeRun:
    """The unit that makes the findings of the run as a whole."""


WHOLE_RUN: Final = _WholeRun()


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
