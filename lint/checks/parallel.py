"""Judging the declared sandboxes on several processes.

Judgements are reused between the sandboxes of one namespace (``decisions``),
so work is shared out by namespace: each process takes whole namespaces, of
about equal numbers of plans. The parent judges the first share while forked
children (``lint.forked``) judge the others and send their records back
(``lint.report.marshalled``). Results come back in plan order, so the report
is the one a single process writes; a child that fails costs only time, as
the parent then judges its share itself.
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from lint.forked import Forked, can_fork, share_weights
from lint.report.marshalled import Decoder, Encoder
from lint.report.model import Finding, SandboxReport

PlanResult = tuple[list[SandboxReport], list[Finding]]
Plan = TypeVar("Plan")

MIN_SHARE_PLANS: Final = 40
"""Fewer sandboxes per process than this are judged faster than a process
starts and sends its records back."""


def check_plans(
    plans: Sequence[Plan],
    namespace_of: Callable[[Plan], str],
    check_one: Callable[[Plan], PlanResult],
    jobs: int,
) -> list[PlanResult]:
    """Each plan's reports and findings, in plan order, on at most ``jobs``
    processes."""
    shares = shares_of([namespace_of(plan) for plan in plans], jobs)
    if len(shares) < 2 or not can_fork():
        return [check_one(plan) for plan in plans]
    children = [
        Forked.start(functools.partial(_checked, [plans[i] for i in share], check_one))
        for share in shares[1:]
    ]
    results: dict[int, PlanResult] = {i: check_one(plans[i]) for i in shares[0]}
    for child, share in zip(children, shares[1:], strict=True):
        answer = _read(child.answer(), len(share))
        if answer is None:
            answer = [check_one(plans[i]) for i in share]
        results.update(zip(share, answer, strict=True))
    return [results[i] for i in range(len(plans))]


def shares_of(namespaces: Sequence[str], jobs: int) -> list[list[int]]:
    """Plan indices by process: whole namespaces, largest first onto the
    share it loads least for its weight (``share_weights``), each share in
    plan order. Empty shares are dropped."""
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
    return [sorted(share) for share in shares if share]


def _checked(plans: Sequence[Plan], check_one: Callable[[Plan], PlanResult]) -> bytes:
    encoder = Encoder()
    results = [check_one(plan) for plan in plans]
    # Lists stand for records in the encoding: the result lists go as tuples.
    return marshal.dumps([encoder.encode((tuple(r), tuple(f))) for r, f in results])


def _read(answer: bytes | None, expected: int) -> list[PlanResult] | None:
    if answer is None:
        return None
    decoder = Decoder()
    try:
        items: Any = marshal.loads(answer)
        results = [decoder.decode(item) for item in items]
        if len(results) != expected:
            return None
        return [(list(reports), list(findings)) for reports, findings in results]
    except (EOFError, ValueError, TypeError, IndexError):
        return None
