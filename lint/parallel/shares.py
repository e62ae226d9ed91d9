"""Work shared out between this process and forked children: ``map_units``.

The caller cuts its work into units (files by bytes, sandboxes by
namespace). Every process, this one and each forked child, takes the next
unit nobody has taken from one queue until none is left, so a process that
starts late, or meets slow units, simply takes fewer: no process waits while
another still holds a long list. A child sends each unit's results as soon
as it has them (``children``, in the encoding of ``records``), or, when the
caller asks (``answer_once``), all of them in one message once the queue is
empty, so that what its units share is written once; the parent reads them
between its own items, so little is left to read once the queue is empty.
The parent takes the first unit before any child starts: callers put the
largest first, and what the parent makes is never read back.
Results are put back in unit order, so they are the ones a single process
gives. A child that fails, runs past its deadline, or sends
something that cannot be read costs only time: the parent then does the
units it took and sent no results for.

The queue is a pipe holding each unit's number, written whole before the
first fork and closed for writing: a read of one number from a pipe is
atomic, so each number goes to exactly one process, and the pipe reads as
ended once every unit is taken. At most ``MAX_UNITS`` numbers are written,
so the queue fits in the one page every pipe holds and the write cannot
block; more units are joined into as many groups.

Only Linux forks here: elsewhere fork is unavailable or unsafe, and every
unit is done in this process.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate
from typing import Final, TypeVar

from lint.parallel.children import Child, Send, collect
from lint.parallel.records import Records

Item = TypeVar("Item")
Result = TypeVar("Result")

MAX_PROCESSES: Final = 8
CHILD_DEADLINE: Final = 300.0
"""Seconds the parent waits for its children once the queue is empty. A
child then holds at most the unit it took last, so a healthy child ends
soon after the parent, however large the input: loading shares out at most
a wave (20 MB) at a time, and the whole check of the 16 MB bench tree takes
about a second (``docs/performance.md``). Five minutes later, only a child
that hangs (a lock held at the fork, a stopped process) is still running."""
NUMBER_BYTES: Final = 4
MAX_UNITS: Final = 1024
"""Unit numbers in the queue: 4 KB, one page, which every pipe holds and a
single write fills at once."""


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


def map_units(
    units: Sequence[Sequence[Item]],
    do_one: Callable[[Item], Result],
    records: Records[Result],
    processes: int,
    *,
    deadline: float = CHILD_DEADLINE,
    meanwhile: Callable[[], object] | None = None,
    answer_once: bool = False,
) -> list[list[Result]]:
    """``do_one`` of every item, unit by unit, in order, on at most
    ``processes`` processes, each taking units from one queue (the units
    the caller puts first are taken first, and the first by this process).
    When children start, this process first calls ``meanwhile`` (work of
    its own it would otherwise do alone afterwards), then does its units:
    the children take more meanwhile. With ``answer_once``, a child sends
    the results of all its units in one message once the queue is empty,
    so a record its units share is written and read back once (the units
    of a child that fails are then all done here). When this process
    raises, every child is killed and reaped and every pipe closed before
    the exception goes on."""
    groups = _grouped(units)
    if processes < 2 or len(groups) < 2 or not can_fork():
        return [_done_here(unit, do_one) for unit in units]
    taking = min(processes, len(groups))
    done = _claimed(groups, do_one, records, taking, deadline, meanwhile, answer_once)
    flat = (
        done[number] if number in done else _unit_here(groups[number], do_one)
        for number in range(len(groups))
    )
    return _ungrouped(units, [result for unit in flat for result in unit])


def _claimed(
    groups: Sequence[Sequence[Sequence[Item]]],
    do_one: Callable[[Item], Result],
    records: Records[Result],
    processes: int,
    deadline: float,
    meanwhile: Callable[[], object] | None,
    answer_once: bool = False,
) -> dict[int, list[Result]]:
    """The results of each group some process did, by group number. Between
    its own items, this process reads what the children sent meanwhile,
    so little is left to read once the queue is empty."""
    done: dict[int, list[Result]] = {}
    with _queue(len(groups)) as queue:
        # The first group is this process's, taken before any child starts:
        # callers put the largest first, and its results, made here, are
        # not read back from a child after the others end (on the corpus,
        # reading a large namespace's judgements took 40 ms at the end).
        first = _taken(queue)
        children: list[Child] = []
        try:
            for _ in range(processes - 1):
                child = _started(queue, groups, do_one, records, answer_once)
                if child is not None:
                    children.append(child)
            if meanwhile is not None and children:
                meanwhile()
            # Read between this process's items, not only its units: a
            # large unit would leave what children sent meanwhile to the end.
            read = functools.partial(_read_sent, children, groups, records, done)
            for number, results in _take(queue, groups, do_one, first, read):
                done[number] = results
            collect(children, deadline)
            _read_sent(children, groups, records, done)
        finally:
            for child in children:
                child.stop()
    return done


def _read_sent(
    children: Sequence[Child],
    groups: Sequence[Sequence[Sequence[Item]]],
    records: Records[Result],
    done: dict[int, list[Result]],
) -> None:
    """Each group's results the children sent and ``done`` lacks, added."""
    for child in children:
        for message in child.messages():
            for number, results in _read(message, groups, records):
                done.setdefault(number, results)


@contextmanager
def _queue(count: int) -> Iterator[int]:
    """The read end of a pipe holding the numbers 0 to ``count - 1``, closed
    for writing."""
    reader, writer = os.pipe()
    try:
        numbers = b"".join(n.to_bytes(NUMBER_BYTES, "little") for n in range(count))
        try:
            os.write(writer, numbers)  # at most one page: written whole, never blocking
        finally:
            os.close(writer)
        yield reader
    finally:
        os.close(reader)


def _take(
    queue: int,
    groups: Sequence[Sequence[Sequence[Item]]],
    do_one: Callable[[Item], Result],
    first: int | None = None,
    between: Callable[[], None] | None = None,
) -> Iterator[tuple[int, list[Result]]]:
    """Each group this process takes from the queue, with its results,
    starting with ``first`` when it took that one already; ``between`` is
    called after each item."""
    number = _taken(queue) if first is None else first
    while number >= 0:
        if number < len(groups):
            yield number, _unit_here(groups[number], do_one, between)
        number = _taken(queue)


def _taken(queue: int) -> int:
    """The next number in the queue, or -1 when none is left."""
    taken = os.read(queue, NUMBER_BYTES)
    return int.from_bytes(taken, "little") if len(taken) == NUMBER_BYTES else -1


def _started(
    queue: int,
    groups: Sequence[Sequence[Sequence[Item]]],
    do_one: Callable[[Item], Result],
    records: Records[Result],
    answer_once: bool = False,
) -> Child | None:
    """A child taking groups from the queue, or None (the parent will do its
    part) when the system refuses another process or pipe."""
    answer = functools.partial(_answered, queue, groups, do_one, records, answer_once)
    try:
        return Child.start(answer)
    except OSError:
        return None


def _answered(
    queue: int,
    groups: Sequence[Sequence[Sequence[Item]]],
    do_one: Callable[[Item], Result],
    records: Records[Result],
    answer_once: bool,
    send: Send,
) -> None:
    """What a child does: take groups from the queue, and send each one's
    number and results as soon as they are made, or, ``answer_once``, all
    of them together once the queue is empty."""
    taken: list[tuple[int, list[Result]]] = []
    for number, results in _take(queue, groups, do_one):
        taken.append((number, results))
        if not answer_once:
            send(_message(taken, records))
            taken = []
    if taken:
        send(_message(taken, records))


def _message(taken: Sequence[tuple[int, list[Result]]], records: Records[Result]) -> bytes:
    """Groups' results as one message: how many groups, their numbers, then
    every group's results, in that order, as one list of records."""
    numbers = [len(taken), *(number for number, _ in taken)]
    head = b"".join(number.to_bytes(NUMBER_BYTES, "little") for number in numbers)
    return head + records.dumps([result for _, results in taken for result in results])


def _read(
    message: bytes,
    groups: Sequence[Sequence[Sequence[Item]]],
    records: Records[Result],
) -> list[tuple[int, list[Result]]]:
    """Each group's number and results from a child's message; none when
    the message cannot be read, names no group, or does not hold one result
    per item of its groups (those groups are then done here)."""
    count = int.from_bytes(message[:NUMBER_BYTES], "little")
    start = NUMBER_BYTES * (count + 1)
    if count < 1 or len(message) < start:
        return []
    numbers = [
        int.from_bytes(message[NUMBER_BYTES * i : NUMBER_BYTES * (i + 1)], "little")
        for i in range(1, count + 1)
    ]
    if any(number >= len(groups) for number in numbers):
        return []
    try:
        results = records.loads(message[start:])
    except ValueError:
        return []
    sizes = [sum(map(len, groups[number])) for number in numbers]
    if len(results) != sum(sizes):
        return []
    cut = list(accumulate(sizes, initial=0))
    return [(number, results[cut[i] : cut[i + 1]]) for i, number in enumerate(numbers)]


def _grouped(units: Sequence[Sequence[Item]]) -> list[Sequence[Sequence[Item]]]:
    """The units in at most ``MAX_UNITS`` groups of neighbours, in order."""
    per_group = -(-len(units) // MAX_UNITS) or 1
    return [units[start : start + per_group] for start in range(0, len(units), per_group)]


def _ungrouped(units: Sequence[Sequence[Item]], results: list[Result]) -> list[list[Result]]:
    """The flat results cut back into one list per unit."""
    cut, start = [], 0
    for unit in units:
        cut.append(results[start : start + len(unit)])
        start += len(unit)
    return cut


def _unit_here(
    group: Sequence[Sequence[Item]],
    do_one: Callable[[Item], Result],
    between: Callable[[], None] | None = None,
) -> list[Result]:
    if between is None:
        return [do_one(item) for unit in group for item in unit]
    results = []
    for item in (item for unit in group for item in unit):
        results.append(do_one(item))
        between()
    return results


def _done_here(unit: Sequence[Item], do_one: Callable[[Item], Result]) -> list[Result]:
    return [do_one(item) for item in unit]
