"""Forked children, each sending its results as it goes: ``Child``.

A child starts as a copy of the parent, so it needs nothing sent to it: it
runs one call on what the parent already holds, and leaves with
``os._exit``, never running the parent's cleanup. The call sends results
as it makes them, each a message (``send``): the message goes to a file
only the two of them share (in memory where the system allows), and its
length down a pipe once it is written whole. So a child never waits for
its parent to read, and the parent takes each message whenever it likes
(``messages``), between its own pieces of work, instead of all of them at
the end. A message is read only once its length came down the pipe, after
the child wrote it, so no message is ever read half written.

The parent reads every pipe at once (``poll``) when it waits, and gives up
at a deadline. Whatever happens, ``Child.stop`` kills a child still
running, reaps it and closes its pipe and file: no child outlives the call
that started it. A child that fails has sent what it sent: its messages
are whole, and the parent redoes only what is missing.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from typing import Final

READ_SIZE: Final = 1 << 16
LENGTH_BYTES: Final = 8

Send = Callable[[bytes], None]
"""Sends one message to the parent."""


class Child:
    """One forked child running one call that sends messages."""

    def __init__(self, pid: int, reader: int, store: int) -> None:
        self.pid = pid
        self._reader: int | None = reader
        self._store: int | None = store
        self._lengths = bytearray()
        """Lengths read from the pipe, not yet taken as messages."""
        self._offset = 0
        """Where the next message starts in the file."""
        self._ended = False
        """Whether the child closed its pipe: it sent all it will send."""
        self._status: int | None = None

    @classmethod
    def start(cls, work: Callable[[Send], None]) -> Child:
        """Fork a child that runs ``work``; OSError when no child can start."""
        store = _message_file()
        try:
            reader, writer = os.pipe()
        except OSError:
            os.close(store)
            raise
        try:
            pid = os.fork()
        except OSError:
            for descriptor in (reader, writer, store):
                os.close(descriptor)
            raise
        if pid == 0:
            os.close(reader)
            _serve(work, writer, store)
        os.close(writer)
        return cls(pid, reader, store)

    @property
    def ended(self) -> bool:
        return self._ended

    def messages(self) -> Iterator[bytes]:
        """Every message sent and not taken yet, without waiting."""
        while self._reader is not None and not self._ended and _readable(self._reader):
            self.read_some()
        while len(self._lengths) >= LENGTH_BYTES and self._store is not None:
            size = int.from_bytes(self._lengths[:LENGTH_BYTES], "little")
            del self._lengths[:LENGTH_BYTES]
            message = os.pread(self._store, size, self._offset)
            self._offset += size
            if len(message) != size:  # the file does not hold what was announced
                self._lengths.clear()
                return
            yield message

    def stop(self) -> None:
        """Kill the child unless it is reaped already, reap it, close its
        pipe and file. Safe to call again."""
        if self._status is None:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            try:
                _, self._status = os.waitpid(self.pid, 0)
            except ChildProcessError:  # reaped elsewhere: its status is lost
                self._status = -1
        for descriptor in (self._reader, self._store):
            if descriptor is not None:
                os.close(descriptor)
        self._reader = self._store = None

    def fileno(self) -> int:
        """The parent's end of the child's pipe."""
        assert self._reader is not None, "the pipe is closed once the child is stopped"
        return self._reader

    def read_some(self) -> bool:
        """Take what the pipe holds (call when it is readable); False once
        the child has closed it."""
        assert self._reader is not None
        chunk = os.read(self._reader, READ_SIZE)
        if chunk:
            self._lengths += chunk
            return True
        self._ended = True
        return False


def collect(children: Sequence[Child], deadline: float) -> None:
    """Read every child's pipe until each is closed or ``deadline`` seconds
    have passed, whichever comes first."""
    reading = {child.fileno(): child for child in children if not child.ended}
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


def _readable(descriptor: int) -> bool:
    """Whether reading ``descriptor`` would not wait (``poll``: unlike
    ``select``, it takes any descriptor number)."""
    poller = select.poll()
    poller.register(descriptor, select.POLLIN)
    return bool(poller.poll(0))


def _message_file() -> int:
    """A new file for one child's messages: in memory where the system
    makes one, else an unnamed temporary file."""
    try:
        return os.memfd_create("egress-lint-answers", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        # Only where memfd_create is missing: tempfile costs its imports.
        import tempfile  # noqa: PLC0415

        handle = tempfile.TemporaryFile()  # noqa: SIM115 - kept as a descriptor
        descriptor = os.dup(handle.fileno())
        handle.close()
        return descriptor


def _serve(work: Callable[[Send], None], writer: int, store: int) -> None:
    status = 1

    def send(message: bytes) -> None:
        _write_all(store, message)
        _write_all(writer, len(message).to_bytes(LENGTH_BYTES, "little"))

    try:
        work(send)
        status = 0
    finally:
        # Never return into the parent's code, and never run its cleanup:
        # buffered output and exit handlers belong to the parent.
        os._exit(status)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
