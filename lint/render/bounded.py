"""Running a render tool within bounds: its output read as it comes and
cut one byte past a limit, and a time limit after which its whole process
group is killed.

The tool starts in a session of its own, so that it and every process it
starts share one process group. When the output passes the limit or the
time runs out, the group gets SIGTERM, then SIGKILL after a short grace
(``helm`` ignores SIGTERM while it renders). When the tool ends on its own,
whatever it left running in its group is killed too, before the tool is
reaped, so that the group's number cannot have been reused.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Final

import msgspec

GRACE: Final = 1.0
"""Seconds between SIGTERM and SIGKILL."""
_STDERR_KEPT: Final = 64 * 1024
"""Bytes of standard error kept; the rest is read and dropped."""
_CHUNK: Final = 64 * 1024


class Finished(msgspec.Struct, frozen=True):
    """What a bounded run gave: standard output (at most the limit plus one
    byte), the start of standard error, the exit status (negative: the
    signal that ended it), and whether it overran the output limit or the
    time limit."""

    stdout: bytes
    stderr: bytes
    returncode: int
    overran: bool = False
    timed_out: bool = False


def run_bounded(
    argv: Sequence[str], environ: Mapping[str, str], timeout: float, max_output: int
) -> Finished:
    """Run ``argv`` with no standard input; raise OSError when it cannot start."""
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(environ),
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        stdout, stderr, stopped = _read(process, deadline, max_output)
    except BaseException:
        _end(process, gently=False)
        raise
    overran = stopped == "overran"
    timed_out = stopped == "timed out" or (not stopped and not _exited(process, deadline))
    _end(process, gently=overran or timed_out)
    return Finished(stdout, stderr, process.returncode, overran, timed_out)


def _read(
    process: subprocess.Popen[bytes], deadline: float, limit: int
) -> tuple[bytes, bytes, str]:
    """Both pipes until they close; stops early with ``overran`` or
    ``timed out``."""
    assert process.stdout is not None and process.stderr is not None
    out: list[bytes] = []
    err: list[bytes] = []
    size = kept = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return b"".join(out), b"".join(err), "timed out"
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data is out:
                    out.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        return b"".join(out)[: limit + 1], b"".join(err), "overran"
                elif kept < _STDERR_KEPT:
                    err.append(chunk[: _STDERR_KEPT - kept])
                    kept += len(err[-1])
    return b"".join(out), b"".join(err), ""


def _exited(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait, without reaping, until the tool ends or the deadline passes."""
    while time.monotonic() < deadline:
        if _has_ended(process):
            return True
        time.sleep(0.01)
    return _has_ended(process)


def _has_ended(process: subprocess.Popen[bytes]) -> bool:
    try:
        found = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return found is not None


def _end(process: subprocess.Popen[bytes], *, gently: bool) -> None:
    """Stop the whole group, then reap the tool. ``gently``: SIGTERM first,
    SIGKILL after the grace unless the tool has ended by then."""
    if gently:
        _signal_group(process, signal.SIGTERM)
        _exited(process, time.monotonic() + GRACE)
    _signal_group(process, signal.SIGKILL)
    process.wait()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    # The tool is not reaped yet, so its group number is still its own.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)
