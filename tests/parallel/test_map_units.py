"""``map_units``: the results one process gives, in unit order; every unit
done by exactly one process; a child that fails, hangs, or answers garbage
costs only time; and no child or pipe outlives the call, even when the
parent raises."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lint.parallel import shares
from lint.parallel.records import Records
from lint.parallel.shares import MAX_PROCESSES, available_processes, map_units

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")

INTS: Records[int] = Records(int)
UNITS = [[1, 2], [3], [4, 5, 6], [7], [8, 9]]
DOUBLED = [[2 * item for item in unit] for unit in UNITS]
ITEMS = sorted(item for unit in UNITS for item in unit)
PARENT = os.getpid()
WAIT = 60.0


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
    """``do_one``: doubles its item, writes which process did it to a file
    per process, and runs ``in_child`` in a child. The parent's first item
    waits until a child has started one, so a child surely takes a unit
    however fast the parent is."""

    def __init__(self, scratch: Path, in_child: Callable[[int], None] = lambda item: None) -> None:
        self.scratch = scratch
        self.here: list[int] = []
        self._in_child = in_child
        self._waited = False

    def __call__(self, item: int) -> int:
        if _in_child():
            with (self.scratch / f"child-{os.getpid()}").open("a") as done:
                done.write(f"{item}\n")
            self._in_child(item)
        else:
            self._wait_for_a_child()
            self.here.append(item)
        return 2 * item

    def _wait_for_a_child(self) -> None:
        give_up = time.monotonic() + WAIT
        while not self._waited and time.monotonic() < give_up:
            self._waited = any(self.scratch.glob("child-*"))
            time.sleep(0.005)

    def in_children(self) -> list[int]:
        """Every item a child started, in order."""
        return sorted(
            int(line) for path in self.scratch.glob("child-*") for line in path.read_text().split()
        )


def test_every_unit_is_done_by_one_process_and_the_results_come_in_unit_order(
    children: list[int], tmp_path: Path
) -> None:
    calls = _Calls(tmp_path)
    assert map_units(UNITS, calls, INTS, 3) == DOUBLED
    assert len(children) == 2
    assert calls.in_children()  # a child took units,
    assert sorted(calls.here + calls.in_children()) == ITEMS  # each item exactly once


def test_this_process_does_the_first_unit_itself(children: list[int], tmp_path: Path) -> None:
    """Callers put the largest unit first: its results are made here, not
    read back from a child at the end. This process takes it before any
    child starts, so even when it is slow to start on its units (here, its
    ``meanwhile`` waits until a child has done an item), no child has it."""
    calls = _Calls(tmp_path)

    def until_a_child_works() -> None:
        give_up = time.monotonic() + WAIT
        while not any(tmp_path.glob("child-*")) and time.monotonic() < give_up:
            time.sleep(0.005)

    assert map_units(UNITS, calls, INTS, 3, meanwhile=until_a_child_works) == DOUBLED
    assert calls.here[: len(UNITS[0])] == UNITS[0]
    assert not set(UNITS[0]) & set(calls.in_children())


def test_units_are_taken_in_the_order_given(children: list[int], tmp_path: Path) -> None:
    """One process alone takes them first to last."""
    order: list[int] = []
    assert map_units(UNITS, lambda item: order.append(item) or item, INTS, 1) == UNITS
    assert order == ITEMS


@pytest.mark.parametrize(("units", "processes"), [([], 2), ([[1, 2, 3]], 4), (UNITS, 1)])
def test_one_unit_or_one_process_is_done_here(
    children: list[int], units: list[list[int]], processes: int
) -> None:
    assert map_units(units, lambda item: 2 * item, INTS, processes) == [
        [2 * item for item in unit] for unit in units
    ]
    assert children == []


def test_more_units_than_the_queue_holds_go_in_groups(
    children: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shares, "MAX_UNITS", 2)
    assert len(shares._grouped(UNITS)) == 2
    calls = _Calls(tmp_path)
    assert map_units(UNITS, calls, INTS, 2) == DOUBLED
    assert sorted(calls.here + calls.in_children()) == ITEMS


def _leave(item: int) -> None:
    os._exit(3)


def _killed(item: int) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _raise(item: int) -> None:
    raise RuntimeError("a child that breaks")


@pytest.mark.parametrize("failure", [_leave, _killed, _raise])
def test_a_child_that_fails_has_its_units_done_here(
    children: list[int], tmp_path: Path, failure: Callable[[int], None]
) -> None:
    calls = _Calls(tmp_path, failure)
    assert map_units(UNITS, calls, INTS, 2) == DOUBLED
    assert calls.in_children()
    assert sorted(calls.here) == ITEMS


class _Answering(Records[int]):
    """Records whose answers a child spoils with ``spoil``."""

    def __init__(self, spoil: Callable[[bytes, list[int]], bytes]) -> None:
        super().__init__(int)
        self._spoil = spoil

    def dumps(self, results: Any) -> bytes:
        data = super().dumps(results)
        return self._spoil(data, list(results)) if _in_child() else data


@pytest.mark.parametrize(
    "spoil",
    [
        lambda data, results: b"\x00garbage",
        lambda data, results: data[:-1],
        lambda data, results: b"",
        lambda data, results: Records(int).dumps([*results, 0]),
        lambda data, results: Records(int).dumps(results[1:]),
    ],
    ids=["garbage", "truncated", "empty", "one-too-many", "one-too-few"],
)
def test_an_answer_that_cannot_be_used_has_its_units_done_here(
    children: list[int], tmp_path: Path, spoil: Callable[[bytes, list[int]], bytes]
) -> None:
    calls = _Calls(tmp_path)
    assert map_units(UNITS, calls, _Answering(spoil), 2) == DOUBLED
    assert calls.in_children()
    assert sorted(calls.here) == ITEMS


def _message(*units: tuple[int, list[int]]) -> bytes:
    numbers = [len(units), *(number for number, _ in units)]
    head = b"".join(number.to_bytes(shares.NUMBER_BYTES, "little") for number in numbers)
    return head + INTS.dumps([result for _, results in units for result in results])


@pytest.mark.parametrize(
    ("message", "read"),
    [
        (_message((2, [8, 10, 12])), [(2, [8, 10, 12])]),
        (_message((1, [6])), [(1, [6])]),
        (_message((1, [6]), (2, [8, 10, 12])), [(1, [6]), (2, [8, 10, 12])]),
        (_message((2, [8, 10, 12]), (0, [2, 4])), [(2, [8, 10, 12]), (0, [2, 4])]),
        (_message((5, [0])), []),  # no such unit
        (_message((1, [6]), (5, [0])), []),
        (_message((0, [2])), []),  # unit 0 holds two items
        (_message((0, [2, 4, 6])), []),
        (_message((1, [6]), (2, [8, 10]))[:-1], []),
        (_message((1, [6]))[:-1], []),
        (_message()[:4] + INTS.dumps([]), []),  # no unit at all
        (b"\x02\x00\x00\x00\x01\x00\x00\x00", []),  # fewer numbers than it says
        (b"\x01\x00\x00\x00garbage", []),
        (b"\x01", []),
        (b"", []),
    ],
)
def test_a_child_s_message_is_read_only_when_it_holds_its_units_results(
    message: bytes, read: list[tuple[int, list[int]]]
) -> None:
    groups = shares._grouped(UNITS)
    assert shares._read(message, groups, INTS) == read


class _Inner(msgspec.Struct, frozen=True):
    value: int


class _Box(msgspec.Struct, frozen=True):
    """A record holding a record: written once per object in an answer."""

    inner: _Inner


BOXES: Records[_Box] = Records(_Box)


@pytest.mark.parametrize("answer_once", [False, True])
def test_a_child_answering_once_writes_what_its_units_share_once(
    children: list[int], answer_once: bool
) -> None:
    """Every unit's item gives the same record; the child sends its units'
    results in one message, or one per unit. In one message, the record
    comes back as one object for all the child's units."""
    shared = _Box(_Inner(7))
    units = [[item] for item in ITEMS]

    def do_one(_: int) -> _Box:
        if not _in_child():
            time.sleep(0.2)  # the child takes the other units meanwhile
        return shared

    results = map_units(units, do_one, BOXES, 2, answer_once=answer_once)
    assert results == [[shared] for _ in ITEMS]
    sent = [unit[0] for unit in results if unit[0] is not shared]  # read back from the child
    assert len(sent) >= 2
    assert (len({id(box) for box in sent}) == 1) is answer_once


def _failing_on_its_second_unit(tmp_path: Path, here: list[int]) -> Callable[[int], int]:
    """Doubles an item; a child fails on its second unit, and the parent
    waits for that before it takes any, so the child surely gets two. The
    parent notes in ``here`` each item it did."""

    def do_one(item: int) -> int:
        if _in_child():
            (tmp_path / str(item)).touch()
            if len(list(tmp_path.iterdir())) == 2:
                os._exit(3)
        else:
            give_up = time.monotonic() + WAIT
            while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < give_up:
                time.sleep(0.005)
            here.append(item)
        return 2 * item

    return do_one


@pytest.mark.parametrize("answer_once", [False, True])
def test_a_failing_child_s_units_are_done_here(
    children: list[int], tmp_path: Path, answer_once: bool
) -> None:
    """What a failing child sent before it failed is kept; a child that
    answers once sent nothing, so every unit it took is done here. Either
    way the results are the ones a single process gives."""
    here: list[int] = []
    do_one = _failing_on_its_second_unit(tmp_path, here)
    units = [[item] for item in ITEMS]
    assert map_units(units, do_one, INTS, 2, answer_once=answer_once) == [
        [2 * item] for item in ITEMS
    ]
    sent, failed = sorted((int(path.name) for path in tmp_path.iterdir()), key=ITEMS.index)
    assert failed in here
    if answer_once:
        assert sorted(here) == ITEMS
    else:
        assert sent not in here
        assert sorted([*here, sent]) == ITEMS


def _log_reads(monkeypatch: pytest.MonkeyPatch, log: list[str]) -> None:
    """Add "read" to ``log`` each time the parent reads a child's message."""
    read = shares._read

    def reading(*arguments: Any) -> Any:
        log.append("read")
        return read(*arguments)

    monkeypatch.setattr(shares, "_read", reading)


def test_children_s_messages_are_read_between_the_parent_s_units(
    children: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not all at the end: the parent's first unit waits until the child has
    started its second, so its first is sent, and it is read before the
    parent's next unit."""
    units = [[item] for item in ITEMS]
    log: list[str] = []
    _log_reads(monkeypatch, log)

    def do_one(item: int) -> int:
        if _in_child():
            (tmp_path / str(item)).touch()
            time.sleep(0.05)
        else:
            give_up = time.monotonic() + WAIT
            while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < give_up:
                time.sleep(0.005)
            log.append("unit")
        return 2 * item

    assert map_units(units, do_one, INTS, 2) == [[2 * item] for item in ITEMS]
    assert log[:2] == ["unit", "read"]


def test_children_s_messages_are_read_between_the_parent_s_items(
    children: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large unit of the parent's (it takes the first) does not leave what
    the children sent meanwhile to the end: by the parent's second item the
    child has sent both its units, and they are read before its third."""
    units = [[1, 2, 3], [4], [5]]
    log: list[str] = []
    _log_reads(monkeypatch, log)

    def do_one(item: int) -> int:
        if _in_child():
            (tmp_path / str(item)).touch()
        else:
            if item == 2:
                give_up = time.monotonic() + WAIT
                while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < give_up:
                    time.sleep(0.005)
                time.sleep(0.2)  # the child sends each unit as soon as it is done
            log.append("item")
        return 2 * item

    assert map_units(units, do_one, INTS, 2) == [[2 * item for item in unit] for unit in units]
    assert log.count("item") == 3
    assert log.index("read") < log.index("item", 2)


def test_a_child_past_its_deadline_is_killed_and_its_units_done_here(
    children: list[int], tmp_path: Path
) -> None:
    calls = _Calls(tmp_path, lambda item: time.sleep(120))
    started = time.monotonic()
    assert map_units(UNITS, calls, INTS, 2, deadline=5.0) == DOUBLED
    assert sorted(calls.here) == ITEMS
    assert time.monotonic() - started < 60


def test_an_answer_larger_than_a_pipe_holds_is_read_whole(
    children: list[int], tmp_path: Path
) -> None:
    large = "x" * 3_000_000
    calls = _Calls(tmp_path)

    def do_one(item: int) -> str:
        calls(item)
        return large if _in_child() else str(item)

    done = map_units(UNITS, do_one, Records(str), 2)
    in_children = set(calls.in_children())
    assert in_children
    assert done == [[large if i in in_children else str(i) for i in unit] for unit in UNITS]


@pytest.mark.parametrize("hangs", [True, False], ids=["hanging", "answering"])
def test_when_the_parent_raises_every_child_is_reaped_and_every_pipe_closed(
    children: list[int], tmp_path: Path, hangs: bool
) -> None:
    """Each child holds its first unit until the parent has taken one."""
    started_here = tmp_path / "parent"

    def in_child(item: int) -> None:
        give_up = time.monotonic() + WAIT
        while not started_here.exists() and time.monotonic() < give_up:
            time.sleep(0.005)
        if hangs:
            time.sleep(120)

    calls = _Calls(tmp_path, in_child)

    def do_one(item: int) -> str:
        calls(item)
        if not _in_child():
            started_here.touch()
            raise RuntimeError("the parent's own unit breaks")
        return "x" * 1_000_000  # more than a pipe holds: the child blocks writing

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="own unit breaks"):
        map_units(UNITS, do_one, Records(str), 3)
    assert len(children) == 2
    assert time.monotonic() - started < 60  # killed, never waited for


def test_when_no_child_can_start_the_parent_does_every_unit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    before = _open_descriptors()
    here: list[int] = []
    assert map_units(UNITS, lambda item: here.append(item) or 2 * item, INTS, 2) == DOUBLED
    assert sorted(here) == ITEMS
    assert _open_descriptors() == before


def test_the_default_deadline_leaves_room_for_a_busy_machine() -> None:
    assert shares.CHILD_DEADLINE >= 60


def test_the_queue_fits_in_one_page() -> None:
    assert shares.MAX_UNITS * shares.NUMBER_BYTES <= 4096


def test_available_processes_is_at_least_one() -> None:
    assert 1 <= available_processes() <= MAX_PROCESSES


def test_without_memory_files_the_messages_go_through_a_temporary_file(
    children: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*arguments: object) -> int:
        raise OSError("no memfd here")

    monkeypatch.setattr(os, "memfd_create", refuse)
    calls = _Calls(tmp_path)
    assert map_units(UNITS, calls, INTS, 2) == DOUBLED
    assert calls.in_children()
    assert sorted(calls.here + calls.in_children()) == ITEMS


def test_meanwhile_runs_here_once_after_the_children_start(
    children: list[int], tmp_path: Path
) -> None:
    """The child has started a unit before ``meanwhile`` returns: it waits
    for the child's first item."""
    calls = _Calls(tmp_path)
    ran: list[int] = []

    def meanwhile() -> None:
        assert len(children) == 1
        calls._wait_for_a_child()
        ran.append(os.getpid())

    assert map_units(UNITS, calls, INTS, 2, meanwhile=meanwhile) == DOUBLED
    assert ran == [PARENT]
    assert calls.in_children()


@pytest.mark.parametrize("processes", [1, 2])
def test_meanwhile_is_not_called_when_no_child_starts(
    monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    def refuse() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    ran: list[int] = []
    done = map_units(UNITS, lambda item: 2 * item, INTS, processes, meanwhile=lambda: ran.append(1))
    assert done == DOUBLED
    assert ran == []


def test_a_child_s_pipe_is_read_whatever_its_descriptor_number(
    children: list[int], tmp_path: Path
) -> None:
    """With more than a thousand descriptors open, a child's pipe gets a
    number ``select`` cannot take; its messages are read all the same."""
    import resource  # noqa: PLC0415

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if max(soft, hard) < 1200:
        pytest.skip("this system allows too few open descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        calls = _Calls(tmp_path)
        assert map_units(UNITS, calls, INTS, 2) == DOUBLED
        assert calls.in_children()
        assert not set(calls.here) & set(calls.in_children())
    finally:
        for descriptor in held:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
