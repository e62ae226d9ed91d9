"""Work done in a forked child process, answered through a pipe.

A child starts as a copy of the parent, so it needs nothing sent to it: it
runs one call on what the parent already holds and writes the bytes the call
returns to a pipe. The parent reads them when it is ready. A child that
fails, for any reason, answers None, and the caller does the work itself:
splitting work this way may cost time, never results.

Only Linux forks here: elsewhere fork is unavailable or unsafe, and the
caller stays in one process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Final

MAX_PROCESSES: Final = 8
PARENT_WEIGHT: Final = 1.2
"""How much more work the parent takes than each child. A child must also
encode its answer, and the parent decodes every answer after its own
share; with equal shares the parent waited about a sixth of its share."""


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


class Forked:
    """One child running one call."""

    def __init__(self, pid: int, reader: int) -> None:
        self._pid = pid
        self._reader = reader

    @classmethod
    def start(cls, work: Callable[[], bytes]) -> Forked:
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(reader)
            _serve(work, writer)
        os.close(writer)
        return cls(pid, reader)

    def answer(self) -> bytes | None:
        """What the call returned, or None when the child failed."""
        with os.fdopen(self._reader, "rb") as stream:
            data = stream.read()
        _, status = os.waitpid(self._pid, 0)
        return data if status == 0 else None


def _serve(work: Callable[[], bytes], writer: int) -> None:
    status = 1
    try:
        payload = work()
        with os.fdopen(writer, "wb") as stream:
            stream.write(payload)
        status = 0
    finally:
        # Never return into the parent's code, and never run its cleanup:
        # buffered output and exit handlers belong to the parent.
        os._exit(status)
