"""Judging the declared sandboxes on several processes: which process
judges which sandboxes.

Judgements are reused between the sandboxes of one namespace (``judging``),
so work is shared out by namespace: each process takes whole namespaces, of
about equal numbers of plans. ``lint.parallel.shares.map_shares`` judges the
first share here and each other one in a forked child, which sends its
records back (``lint.parallel.records``). Results come back in plan order,
so the report is the one a single process writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from lint.parallel.records import Records
from lint.parallel.shares import map_shares, share_weights
from lint.report.model import Finding, SandboxReport

PlanResult = tuple[list[SandboxReport], list[Finding]]
Plan = TypeVar("Plan")

MIN_SHARE_PLANS: Final = 40
"""Fewer sandboxes per process than this are judged faster than a process
starts and sends its records back."""
RESULTS: Final[Records[PlanResult]] = Records(PlanResult)


def check_plans(
    plans: Sequence[Plan],
    namespace_of: Callable[[Plan], str],
    check_one: Callable[[Plan], PlanResult],
    jobs: int,
) -> list[PlanResult]:
    """Each plan's reports and findings, in plan order, on at most ``jobs``
    processes."""
    shares = shares_of([namespace_of(plan) for plan in plans], jobs)
    shared = map_shares([[plans[i] for i in share] for share in shares], check_one, RESULTS)
    results: dict[int, PlanResult] = {}
    for share, checked in zip(shares, shared, strict=True):
        results.update(zip(share, checked, strict=True))
    return [results[i] for i in range(len(plans))]


def shares_of(namespaces: Sequence[str], jobs: int) -> list[list[int]]:
    """Plan indices by process: whole namespaces, largest first onto the
    share it loads least for its weight (``share_weights``), each share in
    plan order within each namespace, the namespaces in the order of their
    first plan: a process judges one namespace at a time, and forgets the
    last one's judgements (``JudgmentMemo.begin_namespace``). Empty shares
    are dropped."""
    by_namespace: dict[str, list[int]] = {}
    for index, namespace in enumerate(namespaces):
        by_namespace.setdefault(namespace, []).append(index)
    count = max(1, min(jobs, len(namespaces) // MIN_SHARE_PLANS, len(by_namespace)))
    weights = share_weights(count)
    shares: list[list[int]] = [[] for _ in range(count)]
    for indices in sorted(by_namespace.values(), key=lambda group: (-len(group), group[0])):
        lightest = min(
            range(count),
            key=lambda number: ((len(shares[number]) + len(indices)) / weights[number], number),
        )
        shares[lightest] += indices
    first = {index: group[0] for group in by_namespace.values() for index in group}
    return [sorted(share, key=lambda i: (first[i], i)) for share in shares if share]
