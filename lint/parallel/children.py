"""Forked children, each answering one call through a pipe.

A child starts as a copy of the parent, so it needs nothing sent to it: it
runs one call on what the parent already holds, writes the bytes the call
returns to its pipe and leaves with ``os._exit``, never running the parent's
cleanup. The parent reads every pipe at once (``poll``), so a child that
writes more than a pipe holds never waits on another, and gives up at a
deadline. Whatever happens, ``Child.stop`` kills a child still running,
reaps it and closes its pipe: no child outlives the call that started it.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Final

READ_SIZE: Final = 1 << 20


class Child:
    """One forked child running one call."""

    def __init__(self, pid: int, reader: int) -> None:
        self.pid = pid
        self.received = bytearray()
        self._reader: int | None = reader
        self._ended = False
        """Whether the child closed its pipe: it wrote all it will write."""
        self._status: int | None = None

    @classmethod
    def start(cls, work: Callable[[], bytes]) -> Child:
        """Fork a child that runs ``work``; OSError when no child can start."""
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            raise
        if pid == 0:
            os.close(reader)
            _serve(work, writer)
        os.close(writer)
        return cls(pid, reader)

    def answer(self) -> bytearray | None:
        """What the call returned, or None when the child failed or had not
        finished by the end of ``collect``. The child is reaped either way."""
        if not self._ended:
            self.stop()
            return None
        self._reap()
        return self.received if self._status == 0 else None

    def stop(self) -> None:
        """Kill the child unless it is reaped already, reap it, close its
        pipe. Safe to call again."""
        if self._status is None:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self._reap()

    def _reap(self) -> None:
        if self._status is None:
            try:
                _, self._status = os.waitpid(self.pid, 0)
            except ChildProcessError:  # reaped elsewhere: its status is lost
                self._status = -1
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None

    def fileno(self) -> int:
        """The parent's end of the child's pipe."""
        assert self._reader is not None, "the pipe is closed once the child is reaped"
        return self._reader

    def read_some(self) -> bool:
        """Take what the pipe holds (call when it is readable); False once
        the child has closed it."""
        assert self._reader is not None
        chunk = os.read(self._reader, READ_SIZE)
        if chunk:
            self.received += chunk
            return True
        self._ended = True
        return False


def collect(children: Sequence[Child], deadline: float) -> None:
    """Read every child's pipe until each is closed or ``deadline`` seconds
    have passed, whichever comes first."""
    reading = {child.fileno(): child for child in children}
    poller = select.poll()
    for descriptor in reading:
        poller.register(descriptor, select.POLLIN)
    give_up = time.monotonic() + deadline
    while reading:
        left = give_up - time.monotonic()
        if left <= 0:
            return
        for descriptor, _ in poller.poll(left * 1000):
            if not reading[descriptor].read_some():
                poller.unregister(descriptor)
                del reading[descriptor]


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
