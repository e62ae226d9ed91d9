"""``map_shares``: the results one process gives, in share order; a child
that fails, hangs, or answers garbage costs only time; and no child or pipe
outlives the call, even when the parent raises."""

from __future__ import annotations

import marshal
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lint.parallel import shares
from lint.parallel.records import Records
from lint.parallel.shares import MAX_PROCESSES, available_processes, map_shares

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")

INTS: Records[int] = Records(int)
SHARES = [[1, 2], [3], [4, 5, 6]]
DOUBLED = [[2, 4], [6], [8, 10, 12]]
PARENT = os.getpid()


def _in_child() -> bool:
    return os.getpid() != PARENT


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pid of every child forked meanwhile; each must be reaped, and no
    descriptor left open, by the end of the test."""
    pids: list[int] = []
    fork = os.fork

    def recording() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording)
    before = _open_descriptors()
    yield pids
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # a zombie would still be waitable
    assert _open_descriptors() == before


class _Calls:
    """``do_one``, remembering which items the parent did itself."""

    def __init__(self, in_child: Callable[[int], None] = lambda item: None) -> None:
        self.here: list[int] = []
        self._in_child = in_child

    def __call__(self, item: int) -> int:
        if _in_child():
            self._in_child(item)
        else:
            self.here.append(item)
        return 2 * item


def test_the_first_share_is_done_here_and_the_others_by_children(children: list[int]) -> None:
    calls = _Calls()
    assert map_shares(SHARES, calls, INTS) == DOUBLED
    assert calls.here == [1, 2]
    assert len(children) == 2


@pytest.mark.parametrize("cut", [[], [[1, 2, 3]]])
def test_one_share_or_none_is_done_here(children: list[int], cut: list[list[int]]) -> None:
    assert map_shares(cut, _Calls(), INTS) == [[2 * i for i in share] for share in cut]
    assert children == []


def _leave(item: int) -> None:
    if item == 3:
        os._exit(3)


def _killed(item: int) -> None:
    if item == 3:
        os.kill(os.getpid(), signal.SIGKILL)


def _raise(item: int) -> None:
    if item == 3:
        raise RuntimeError("a child that breaks")


@pytest.mark.parametrize("failure", [_leave, _killed, _raise])
def test_a_child_that_fails_has_its_share_done_here(
    children: list[int], failure: Callable[[int], None]
) -> None:
    calls = _Calls(failure)
    assert map_shares(SHARES, calls, INTS) == DOUBLED
    assert calls.here == [1, 2, 3]


class _Answering(Records[int]):
    """Records whose answers a child spoils with ``spoil``."""

    def __init__(self, spoil: Callable[[bytes, list[int]], bytes]) -> None:
        super().__init__(int)
        self._spoil = spoil

    def dumps(self, results: Any) -> bytes:
        data = super().dumps(results)
        return self._spoil(data, list(results)) if 12 in results else data


@pytest.mark.parametrize(
    "spoil",
    [
        lambda data, results: b"\x00garbage",
        lambda data, results: data[:-1],
        lambda data, results: b"",
        lambda data, results: Records(int).dumps([*results, 0]),
        lambda data, results: marshal.dumps(tuple(results)),
    ],
    ids=["garbage", "truncated", "empty", "one-too-many", "not-a-list"],
)
def test_an_answer_that_cannot_be_used_has_its_share_done_here(
    children: list[int], spoil: Callable[[bytes, list[int]], bytes]
) -> None:
    calls = _Calls()
    assert map_shares(SHARES, calls, _Answering(spoil)) == DOUBLED
    assert calls.here == [1, 2, 4, 5, 6]


def _hang(item: int) -> None:
    if item == 3:
        time.sleep(120)


def test_a_child_past_its_deadline_is_killed_and_its_share_done_here(
    children: list[int],
) -> None:
    """Meanwhile a child writing more than a pipe holds is read in full."""
    large = "x" * 3_000_000

    def do_one(item: int) -> str:
        if _in_child():
            _hang(item)
        return large if item == 6 else str(item)

    started = time.monotonic()
    done = map_shares(SHARES, do_one, Records(str), deadline=5.0)
    assert done == [["1", "2"], ["3"], ["4", "5", large]]
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("child", [_hang, lambda item: None], ids=["hanging", "answering"])
def test_when_the_parent_raises_every_child_is_reaped_and_every_pipe_closed(
    children: list[int], child: Callable[[int], None]
) -> None:
    def do_one(item: int) -> str:
        if not _in_child():
            raise RuntimeError("the parent's own share breaks")
        child(item)
        return "x" * 1_000_000  # more than a pipe holds: the child blocks writing

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="own share breaks"):
        map_shares(SHARES, do_one, Records(str))
    assert len(children) == 2
    assert time.monotonic() - started < 60  # killed, never waited for


def test_when_no_child_can_start_the_parent_does_every_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    before = _open_descriptors()
    calls = _Calls()
    assert map_shares(SHARES, calls, INTS) == DOUBLED
    assert calls.here == [1, 2, 3, 4, 5, 6]
    assert _open_descriptors() == before


def test_the_default_deadline_leaves_room_for_a_busy_machine() -> None:
    assert shares.CHILD_DEADLINE >= 60


def test_available_processes_is_at_least_one() -> None:
    assert 1 <= available_processes() <= MAX_PROCESSES
