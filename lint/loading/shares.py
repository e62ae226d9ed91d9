"""Loading the files of one run on several processes: which process loads
which files.

The files are walked first, in order, by one process, and each regular
file's size (from its status) is set aside within the input limits, so the
limits hold exactly as they do for a sequential run (``files.py``); the
process that loads a file reads it (``read_source``), so this one does not
read every file before any child starts. The files are then cut
into runs of neighbours of about equal size, many more than there are
processes, and ``lint.parallel.shares.map_units`` has this process and each
forked child take runs from one queue until none is left; a child sends its
harvests back (``lint.parallel.records``). Runs are joined in file order, so
the result is the one a single process gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

from lint.loading.documents import LoadProblem
from lint.loading.files import SourceFile, input_size
from lint.loading.lists import Harvest
from lint.parallel.records import Records
from lint.parallel.shares import map_units

FileLoader = Callable[[SourceFile], Harvest]

WAVE_BYTES: Final = 20_000_000
"""File text read ahead and shared out at once: however large the input,
memory holds at most about this much of it (DESIGN §7: memory grows with
the policies, not with the bytes of every other document)."""
MIN_SHARE_BYTES: Final = 2_000_000
"""Below about this much input per process, starting a process and sending
its documents back costs more than it saves."""
UNIT_BYTES: Final = 256_000
"""The least input a process takes at once from the queue."""
UNITS_PER_PROCESS: Final = 16
"""How many runs of files each process's part is cut into, at least: with
many small runs, a process that starts late or meets slow files takes fewer,
and the processes end together."""
HARVESTS: Final[Records[Harvest]] = Records(Harvest)


def harvest_inputs(
    inputs: Iterable[SourceFile | LoadProblem],
    load_one: FileLoader,
    jobs: int,
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[LoadProblem | tuple[SourceFile, Harvest]]:
    """Each input in order: a problem as it is, a file with its harvest.
    With one job the inputs are read and loaded one at a time; with more,
    they are read in waves of about ``WAVE_BYTES``, each shared out, and
    ``meanwhile`` is called once the first wave's children start."""
    if jobs <= 1:
        for item in inputs:
            yield item if isinstance(item, LoadProblem) else (item, load_one(item))
        return
    wave: list[SourceFile | LoadProblem] = []
    size = 0
    for item in inputs:
        wave.append(item)
        size += input_size(item) if isinstance(item, SourceFile) else 0
        if size >= WAVE_BYTES:
            yield from _harvest_wave(wave, load_one, jobs, meanwhile)
            wave, size, meanwhile = [], 0, None
    yield from _harvest_wave(wave, load_one, jobs, meanwhile)


def _harvest_wave(
    wave: list[SourceFile | LoadProblem],
    load_one: FileLoader,
    jobs: int,
    meanwhile: Callable[[], object] | None,
) -> Iterator[LoadProblem | tuple[SourceFile, Harvest]]:
    files = [item for item in wave if isinstance(item, SourceFile)]
    harvests = iter(load_files(files, load_one, jobs, meanwhile))
    for item in wave:
        yield item if isinstance(item, LoadProblem) else (item, next(harvests))


def load_files(
    files: Sequence[SourceFile],
    load_one: FileLoader,
    jobs: int,
    meanwhile: Callable[[], object] | None = None,
) -> list[Harvest]:
    """The harvest of each file, in order, on at most ``jobs`` processes;
    ``meanwhile`` is called here once children start, if any do."""
    processes = processes_for(sum(map(input_size, files)), jobs)
    units = units_of(files, processes)
    shared = map_units(units, load_one, HARVESTS, processes, meanwhile=meanwhile)
    return [harvest for unit in shared for harvest in unit]


def processes_for(input_bytes: int, jobs: int) -> int:
    """How many of ``jobs`` processes work on ``input_bytes`` of input: one
    per ``MIN_SHARE_BYTES`` at most, and at least one."""
    return max(1, min(jobs, input_bytes // MIN_SHARE_BYTES))


def units_of(files: Sequence[SourceFile], processes: int) -> list[Sequence[SourceFile]]:
    """Runs of neighbouring ``files``, in order, each of about ``UNIT_BYTES``
    or a ``UNITS_PER_PROCESS``-th of a process's part, whichever is larger
    (a file larger than that is a run of its own)."""
    total = sum(map(input_size, files))
    target = max(UNIT_BYTES, total // (processes * UNITS_PER_PROCESS))
    units: list[Sequence[SourceFile]] = []
    start = size = 0
    for index, source in enumerate(files):
        size += input_size(source)
        if size >= target:
            units.append(files[start : index + 1])
            start, size = index + 1, 0
    if start < len(files):
        units.append(files[start:])
    return units
