"""Finding and reading the manifest files named on the command line.

A directory is walked recursively for ``.yaml``, ``.yml`` and ``.json`` files
in sorted order, so two runs over the same tree read the same files in the
same order. Each physical file is read once. Symlink loops, missing paths and
unreadable files become problems, never exceptions.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from lint.loading.documents import STDIN_NAME, LoadProblem

MANIFEST_SUFFIXES: Final = frozenset({".yaml", ".yml", ".json"})
SKIPPED_DIRECTORIES: Final = frozenset({".git", ".hg", ".svn"})
"""Version-control internals: never manifests, sometimes large."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """The bytes of one input, under the name reports give it."""

    name: str
    data: bytes


def read_inputs(paths: Sequence[str], stdin: bytes | None) -> Iterator[SourceFile | LoadProblem]:
    """Every input file's bytes, or the problem that kept it from being read."""
    walker = _Walker()
    for path in paths:
        if path == "-":
            if walker.first_visit(("-",)):
                yield SourceFile(STDIN_NAME, _read_stdin() if stdin is None else stdin)
            continue
        yield from walker.inputs(Path(path))


def _read_stdin() -> bytes:
    return b"" if sys.stdin is None else sys.stdin.buffer.read()


def display_name(path: Path) -> str:
    """The path relative to the current directory, with ``/`` separators."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = str(path)
    return relative.replace(os.sep, "/")


class _Walker:
    def __init__(self) -> None:
        self._seen: set[tuple[object, ...]] = set()

    def first_visit(self, identity: tuple[object, ...]) -> bool:
        if identity in self._seen:
            return False
        self._seen.add(identity)
        return True

    def inputs(self, path: Path) -> Iterator[SourceFile | LoadProblem]:
        try:
            status = path.stat()
        except OSError as error:
            yield _problem(path, error)
            return
        if path.is_dir():
            yield from self._directory(path, ancestors=frozenset())
        else:
            yield from self._file(path, (status.st_dev, status.st_ino))

    def _file(self, path: Path, identity: tuple[int, int]) -> Iterator[SourceFile | LoadProblem]:
        if not self.first_visit(identity):
            return
        try:
            yield SourceFile(display_name(path), path.read_bytes())
        except OSError as error:
            yield _problem(path, error)

    def _directory(
        self, path: Path, ancestors: frozenset[tuple[int, int]]
    ) -> Iterator[SourceFile | LoadProblem]:
        try:
            status = path.stat()
        except OSError as error:
            yield _problem(path, error)
            return
        identity = (status.st_dev, status.st_ino)
        if identity in ancestors:
            yield LoadProblem(
                display_name(path), 1, "symbolic link loop: the directory contains itself"
            )
            return
        if not self.first_visit(identity):
            return
        try:
            entries = sorted(os.scandir(path), key=lambda entry: entry.name)
        except OSError as error:
            yield _problem(path, error)
            return
        inner = ancestors | {identity}
        for entry in entries:
            yield from self._entry(Path(entry.path), entry, inner)

    def _entry(
        self, path: Path, entry: os.DirEntry[str], ancestors: frozenset[tuple[int, int]]
    ) -> Iterator[SourceFile | LoadProblem]:
        try:
            is_dir = entry.is_dir()
            if is_dir and entry.name in SKIPPED_DIRECTORIES:
                return
            if is_dir:
                yield from self._directory(path, ancestors)
                return
            if path.suffix.lower() not in MANIFEST_SUFFIXES:
                return
            status = entry.stat()
        except OSError as error:
            yield _problem(path, error)
            return
        yield from self._file(path, (status.st_dev, status.st_ino))


def _problem(path: Path, error: OSError) -> LoadProblem:
    reason = error.strerror or type(error).__name__
    return LoadProblem(display_name(path), 1, f"cannot read: {reason}")
