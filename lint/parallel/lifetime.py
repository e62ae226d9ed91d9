"""How long this process keeps its objects, and how it ends.

A run builds millions of small objects and no cycles. The cyclic garbage
collector would rescan all of them at every collection, and freeing them one
by one when the process ends took longer than writing the report (about
60 ms on the 16 MB bench tree). So the collector is paused while a run
builds (``collector_paused``), the last run is held (``hold``), and the
console script leaves with ``os._exit`` once its output is flushed
(``leave_after``).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator
from typing import NoReturn

_LAST_RUN: list[object] = []
"""The last run held, until the next one or until the process leaves: the
console script ends with ``os._exit`` and never frees it."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects.

    A load allocates millions of containers, none in a cycle; each collection
    would rescan all of them, which made loading several times slower.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def hold(run: object) -> None:
    """Keep ``run`` alive until the next call, so that a process about to
    leave never spends time freeing it."""
    _LAST_RUN[:] = [run]


def leave_after(main: Callable[[], int]) -> NoReturn:
    """Run ``main`` with the collector off, flush the standard streams and
    end the process with its exit code, without tearing the interpreter
    down: nothing is left to do once the output is flushed."""
    gc.disable()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away, or a closed stream, has nothing to flush to.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
