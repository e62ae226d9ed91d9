"""Loading the files of one run on several processes: which process loads
which files.

The files are read first, in order, by one process, so the input limits hold
exactly as they do for a sequential run (``files.py``). The files are then cut
into contiguous shares of about equal size (the parent's a little larger:
it also decodes the answers), and ``lint.parallel.shares.map_shares`` loads
the first share here and each other one in a forked child, which sends its
harvests back (``lint.parallel.records``). Shares are joined in file order,
so the result is the one a single process gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

from lint.loading.documents import LoadProblem
from lint.loading.files import SourceFile
from lint.loading.lists import Harvest
from lint.parallel.records import Records
from lint.parallel.shares import map_shares, share_weights

FileLoader = Callable[[SourceFile], Harvest]

WAVE_BYTES: Final = 20_000_000
"""File text read ahead and shared out at once: however large the input,
memory holds at most about this much of it (DESIGN §7: memory grows with
the policies, not with the bytes of every other document)."""
MIN_SHARE_BYTES: Final = 2_000_000
"""Below about this much input per process, starting a process and sending
its documents back costs more than it saves."""
HARVESTS: Final[Records[Harvest]] = Records(Harvest)


def harvest_inputs(
    inputs: Iterable[SourceFile | LoadProblem], load_one: FileLoader, jobs: int
) -> Iterator[LoadProblem | tuple[SourceFile, Harvest]]:
    """Each input in order: a problem as it is, a file with its harvest.
    With one job the inputs are read and loaded one at a time; with more,
    they are read in waves of about ``WAVE_BYTES``, each shared out."""
    if jobs <= 1:
        for item in inputs:
            yield item if isinstance(item, LoadProblem) else (item, load_one(item))
        return
    wave: list[SourceFile | LoadProblem] = []
    size = 0
    for item in inputs:
        wave.append(item)
        size += len(item.data) if isinstance(item, SourceFile) else 0
        if size >= WAVE_BYTES:
            yield from _harvest_wave(wave, load_one, jobs)
            wave, size = [], 0
    yield from _harvest_wave(wave, load_one, jobs)


def _harvest_wave(
    wave: list[SourceFile | LoadProblem], load_one: FileLoader, jobs: int
) -> Iterator[LoadProblem | tuple[SourceFile, Harvest]]:
    files = [item for item in wave if isinstance(item, SourceFile)]
    harvests = iter(load_files(files, load_one, jobs))
    for item in wave:
        yield item if isinstance(item, LoadProblem) else (item, next(harvests))


def load_files(files: Sequence[SourceFile], load_one: FileLoader, jobs: int) -> list[Harvest]:
    """The harvest of each file, in order, on at most ``jobs`` processes."""
    shared = map_shares(shares_of(files, jobs), load_one, HARVESTS)
    return [harvest for share in shared for harvest in share]


def shares_of(files: Sequence[SourceFile], jobs: int) -> list[Sequence[SourceFile]]:
    """Contiguous runs of ``files``, one per process, sized by
    ``share_weights`` and none smaller than about ``MIN_SHARE_BYTES`` (so
    small inputs get one)."""
    total = sum(len(source.data) for source in files)
    count = max(1, min(jobs, total // MIN_SHARE_BYTES))
    weights = share_weights(count)
    bounds = [sum(weights[: k + 1]) / sum(weights) for k in range(count)]
    shares: list[Sequence[SourceFile]] = []
    start = done = 0
    for index, source in enumerate(files):
        done += len(source.data)
        if len(shares) < count - 1 and done >= total * bounds[len(shares)]:
            shares.append(files[start : index + 1])
            start = index + 1
    shares.append(files[start:])
    return [share for share in shares if share]
