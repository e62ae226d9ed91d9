"""Loading on several processes gives what one process gives, in the same
order, and a child that fails costs nothing but time."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lint.kinds import RELEVANT_KINDS
from lint.loading import files, load
from lint.loading import shares as loading_shares
from lint.loading.documents import LoadProblem
from lint.loading.files import SourceFile, input_size, read_inputs
from lint.loading.limits import DEFAULT_LIMITS
from lint.loading.lists import Harvest
from lint.loading.loader import load_file
from lint.loading.shares import harvest_inputs, load_files, processes_for, units_of
from lint.parallel import records

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"
FIXTURES = REPO / "fixtures"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


def _files(root: Path) -> list[SourceFile]:
    return [i for i in read_inputs([str(root)], None, DEFAULT_LIMITS) if isinstance(i, SourceFile)]


def _load_one(source: SourceFile) -> Harvest:
    return load_file(source, RELEVANT_KINDS, DEFAULT_LIMITS)


def _same(left: list[Harvest], right: list[Harvest]) -> None:
    assert len(left) == len(right)
    for one, other in zip(left, right, strict=True):
        assert one.documents == other.documents
        assert [(d.text, d.text_line) for d in one.documents] == [
            (d.text, d.text_line) for d in other.documents
        ]
        assert one.problems == other.problems
        assert one.skipped == other.skipped


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Share out even small inputs, a file or so at a time, so that small
    trees exercise the forks."""
    monkeypatch.setattr(loading_shares, "MIN_SHARE_BYTES", 1)
    monkeypatch.setattr(loading_shares, "UNIT_BYTES", 1)


def _sources(sizes: list[int]) -> list[SourceFile]:
    return [SourceFile(f"f{i}", b"x" * size) for i, size in enumerate(sizes)]


@pytest.mark.parametrize(
    ("sizes", "processes", "expected"),
    [
        # Runs of at least a sixteenth of a process's part.
        ([10] * 8, 2, [1] * 8),
        ([1] * 64, 2, [2] * 32),
        ([1] * 64, 1, [4] * 16),
        ([100, 1, 1, 1], 2, [1, 3]),
        ([5], 4, [1]),
        ([], 2, []),
    ],
)
def test_units_are_runs_of_neighbours(
    small_shares: None, sizes: list[int], processes: int, expected: list[int]
) -> None:
    sources = _sources(sizes)
    cut = units_of(sources, processes)
    assert [len(unit) for unit in cut] == expected
    assert [s for unit in cut for s in unit] == sources


def test_a_unit_holds_at_least_unit_bytes() -> None:
    cut = units_of(_sources([loading_shares.UNIT_BYTES // 3 + 1] * 10), 2)
    assert [len(unit) for unit in cut] == [3, 3, 3, 1]


def test_small_inputs_stay_in_one_process() -> None:
    least = loading_shares.MIN_SHARE_BYTES
    assert processes_for(least - 1, 8) == 1
    assert processes_for(2 * least, 8) == 2
    assert processes_for(100 * least, 8) == 8
    assert processes_for(100 * least, 1) == 1


TREES = [FIXTURES, *([CORPUS] if CORPUS.is_dir() else [])]


@pytest.mark.parametrize("root", TREES, ids=lambda p: p.name)
@pytest.mark.parametrize("jobs", [2, 3])
def test_shared_loading_equals_one_process(small_shares: None, root: Path, jobs: int) -> None:
    files = _files(root)
    _same(load_files(files, _load_one, jobs), [_load_one(f) for f in files])


def test_a_failing_child_s_share_is_loaded_here(small_shares: None) -> None:
    parent = os.getpid()

    def load_one(source: SourceFile) -> Harvest:
        if os.getpid() != parent:
            raise RuntimeError("a child that breaks")
        return _load_one(source)

    files = _files(FIXTURES)
    _same(load_files(files, load_one, 2), [_load_one(f) for f in files])


def test_children_s_answers_are_used(small_shares: None, tmp_path: Path) -> None:
    """A value the encoding cannot write would make every child fail, and
    the parent quietly load everything: the harvests would still agree. The
    parent's first file waits until a child has started one."""
    parent = os.getpid()
    here: list[SourceFile] = []

    def load_one(source: SourceFile) -> Harvest:
        if os.getpid() != parent:
            (tmp_path / str(os.getpid())).touch()
        elif not here:
            give_up = time.monotonic() + 60
            while not any(tmp_path.iterdir()) and time.monotonic() < give_up:
                time.sleep(0.005)
        if os.getpid() == parent:
            here.append(source)
        return _load_one(source)

    files = _files(FIXTURES)
    _same(load_files(files, load_one, 3), [_load_one(f) for f in files])
    assert len(here) < len(files)


def test_an_unreadable_answer_is_loaded_here(
    small_shares: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records.marshal, "dumps", lambda value: b"\x00garbage")
    files = _files(FIXTURES)
    _same(load_files(files, _load_one, 2), [_load_one(f) for f in files])


def test_values_cross_the_pipe_intact(small_shares: None) -> None:
    shared = {"k": ["v"]}
    odd = {
        "floats": [math.inf, -math.inf, 1e308, -0.0],
        "ints": [2**63, -(2**64), 0],
        "text": ["\ud800 lone surrogate", "é😀", ""],
        "shared": [shared, shared],
        "scalars": [True, False, None],
    }

    def load_one(source: SourceFile) -> Harvest:
        harvest = _load_one(source)
        harvest.skipped["Odd"] = 1
        harvest.documents = [
            d.__class__(d.file, d.line, d.end_line, d.index, odd) for d in harvest.documents
        ]
        return harvest

    files = _files(FIXTURES / "demo")
    shared_run = load_files(files, load_one, 2)
    assert [d.value for h in shared_run for d in h.documents] == [
        d.value for f in files for d in load_one(f).documents
    ]
    value = shared_run[-1].documents[0].value
    assert value["shared"][0] is value["shared"][1]
    assert math.copysign(1.0, value["floats"][3]) == -1.0


@pytest.mark.parametrize("wave", [loading_shares.WAVE_BYTES, 1, 5_000])
@pytest.mark.parametrize("jobs", [1, 2])
def test_inputs_keep_their_order_with_problems_in_place(
    small_shares: None, jobs: int, wave: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one wave, in a wave per file, and in waves of a few files."""
    monkeypatch.setattr(loading_shares, "WAVE_BYTES", wave)
    problem = LoadProblem("missing.yaml", 1, "no such file")
    files = _files(FIXTURES / "demo")
    inputs = [files[0], problem, *files[1:], problem]
    entries = list(harvest_inputs(iter(inputs), _load_one, jobs))
    assert [e if isinstance(e, LoadProblem) else e[0] for e in entries] == inputs
    harvests = [e[1] for e in entries if not isinstance(e, LoadProblem)]
    _same(harvests, [_load_one(f) for f in files])


@pytest.mark.parametrize("root", TREES, ids=lambda p: p.name)
def test_load_on_several_processes_equals_one(small_shares: None, root: Path) -> None:
    one, shared = load([str(root)], jobs=1), load([str(root)], jobs=2)
    assert shared == one
    assert [d.text for d in shared.documents] == [d.text for d in one.documents]


def test_waves_read_ahead_no_further_than_a_wave(
    small_shares: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files(FIXTURES)
    monkeypatch.setattr(loading_shares, "WAVE_BYTES", sum(map(input_size, files[:3])))
    pulled: list[SourceFile] = []

    def reading() -> Iterator[SourceFile]:
        for source in files:
            pulled.append(source)
            yield source

    entries = harvest_inputs(reading(), _load_one, 2)
    next(entries)
    assert len(pulled) == 3
    assert len(list(entries)) == len(files) - 1


def test_each_file_is_read_once_by_the_process_that_loads_it(
    small_shares: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The walk sets files aside; each is read where it is loaded, once,
    whichever process that is (a child's reads are noted in files)."""
    real_open = os.open
    counter = iter(range(1_000_000))

    def noting(path: str | Path, *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith((".yaml", ".yml", ".json")):
            (tmp_path / f"{os.getpid()}.{next(counter)}").write_text(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", noting)
    result = load([str(FIXTURES)], jobs=2)
    opened = sorted(p.read_text() for p in tmp_path.iterdir())
    walked = [str(s.path) for s in _files(FIXTURES)]
    assert opened == sorted(walked)
    assert result.files == len(walked)
