"""Work shared out between this process and forked children: ``map_shares``.

The caller cuts its work into shares (``share_weights`` says how much each
process takes); the parent does the first share itself while a child does
each other one and sends its results back (``records``). Results come back
in share order, so they are the ones a single process gives. A child that
fails, runs past its deadline, or answers something that cannot be read or
holds the wrong number of results costs only time: the parent then does
that share itself.

Only Linux forks here: elsewhere fork is unavailable or unsafe, and every
share is done in this process.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from lint.parallel.children import Child, collect
from lint.parallel.records import Records

Item = TypeVar("Item")
Result = TypeVar("Result")

MAX_PROCESSES: Final = 8
PARENT_WEIGHT: Final = 1.2
"""How much more work the parent takes than each child. A child must also
encode its answer, and the parent decodes every answer after its own
share; with equal shares the parent waited about a sixth of its share."""
CHILD_DEADLINE: Final = 300.0
"""Seconds the parent waits for its children once its own share is done.
A child's share is never much larger than the parent's (``share_weights``),
so a healthy child ends about when the parent does, however large the input:
loading shares out at most a wave (32 MB) at a time, and the whole check of
the 16 MB bench tree takes about a second (``docs/performance.md``). Five
minutes later, only a child that hangs (a lock held at the fork, a stopped
process) is still running."""


def can_fork() -> bool:
    return sys.platform.startswith("linux")


def available_processes() -> int:
    """The processes worth running at once: the CPUs this process may use."""
    if not can_fork():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except OSError:  # pragma: no cover - a kernel without affinity masks
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_PROCESSES))


def share_weights(count: int) -> list[float]:
    """The relative amount of work for each of ``count`` processes, the
    parent's first."""
    return [PARENT_WEIGHT, *[1.0] * (count - 1)][:count]


def map_shares(
    shares: Sequence[Sequence[Item]],
    do_one: Callable[[Item], Result],
    records: Records[Result],
    *,
    deadline: float = CHILD_DEADLINE,
) -> list[list[Result]]:
    """``do_one`` of every item, share by share, in order: the first share
    here, each other one in a forked child. When this process raises
    meanwhile, every child is killed and reaped and every pipe closed
    before the exception goes on."""
    if len(shares) < 2 or not can_fork():
        return [_done_here(share, do_one) for share in shares]
    children: list[Child | None] = []
    try:
        for share in shares[1:]:
            children.append(_started(share, do_one, records))
        first = _done_here(shares[0], do_one)
        collect([child for child in children if child is not None], deadline)
        answers = [None if child is None else child.answer() for child in children]
    finally:
        for child in children:
            if child is not None:
                child.stop()
    rest = zip(shares[1:], answers, strict=True)
    return [first, *(_read(answer, share, do_one, records) for share, answer in rest)]


def _started(
    share: Sequence[Item], do_one: Callable[[Item], Result], records: Records[Result]
) -> Child | None:
    """A child doing ``share``, or None (the parent will do it) when the
    system refuses another process or pipe."""
    try:
        return Child.start(functools.partial(_answered, share, do_one, records))
    except OSError:
        return None


def _answered(
    share: Sequence[Item], do_one: Callable[[Item], Result], records: Records[Result]
) -> bytes:
    """What a child sends back: its share's results, encoded."""
    return records.dumps(_done_here(share, do_one))


def _read(
    answer: bytes | bytearray | None,
    share: Sequence[Item],
    do_one: Callable[[Item], Result],
    records: Records[Result],
) -> list[Result]:
    """A child's results, or the share done here when its answer is
    missing, cannot be read, or does not hold one result per item."""
    if answer is not None:
        try:
            results = records.loads(answer)
        except ValueError:
            pass
        else:
            if len(results) == len(share):
                return results
    return _done_here(share, do_one)


def _done_here(share: Sequence[Item], do_one: Callable[[Item], Result]) -> list[Result]:
    return [do_one(item) for item in share]
