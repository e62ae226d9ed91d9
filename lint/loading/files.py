"""Finding and reading the manifest files named on the command line.

A directory is walked recursively for ``.yaml``, ``.yml`` and ``.json`` files
in sorted order, so two runs over the same tree read the same files in the
same order. Each physical file is read once: the walk takes a regular
file's size from its status and counts it against the limits, and the
process that loads the file reads it (``read_source``), so a run shared
out on several processes does not read every file before it starts them.
Only regular files and directories are read: a pipe, socket or device named
on the command line is a usage error (``path_refusal``), and one inside a
tree is skipped with a note. A symbolic link inside a tree is followed only
while it stays inside the directory that was named. Symlink loops, missing
paths, unreadable files, files past the size limits and files that grew
after the walk become problems, never exceptions, and no read takes more
than the limits allow.
"""

from __future__ import annotations

import operator
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final, TypeAlias

import msgspec

from lint.kinds import NETWORK_POLICY
from lint.loading.documents import STDIN_NAME, LoadProblem
from lint.loading.limits import DEFAULT_LIMITS, LoadLimits, describe_size
from lint.loading.rendered import RenderedInput

MANIFEST_SUFFIXES: Final = frozenset({".yaml", ".yml", ".json"})
SKIPPED_DIRECTORIES: Final = frozenset({".git", ".hg", ".svn"})
"""Version-control internals: never manifests, sometimes large."""

UNREAD_SUSPECT: Final = NETWORK_POLICY.name
"""The suspect kind of input that exists but was not read. It may hold any
policy for any namespace, so every namespace fails closed (SEMANTICS §17.7);
NetworkPolicy is the kind every engine reads."""


class SourceFile(msgspec.Struct, frozen=True):
    """One input, under the name reports give it: its bytes, or, for a
    regular file the walk found, where they are and how many its status
    gave (``read_source`` reads them, in the process that loads the file)."""

    name: str
    data: bytes
    chart_root: str | None = None
    """For a rendered Helm chart: the directory its ``# Source:`` paths are
    mapped into (``lint.loading.rendered``)."""
    path: str | None = None
    """Where the bytes are, while they are not read (``data`` is empty)."""
    size: int = 0
    """The size the file's status gave, set aside within the input limits
    while it is not read."""


def input_size(source: SourceFile) -> int:
    """The bytes of an input, read or set aside."""
    return len(source.data) if source.path is None else source.size


def read_source(source: SourceFile) -> SourceFile | LoadProblem:
    """The input with its bytes, read now when the walk left them to the
    process that loads the file. At most one byte more than its status gave
    is read: only that much was set aside within the limits, so a file that
    grew since the walk is not read, and fails closed."""
    path = source.path
    if path is None:
        return source
    try:
        data = _read_file(path, source.size)(source.size + 1)
    except OSError as error:
        return _problem(path, error, suspect=True)
    if len(data) > source.size:
        return _unread(
            source.name,
            f"it grew after its size was taken ({describe_size(source.size)}); "
            "check it again once it stops changing",
        )
    return SourceFile(source.name, data, source.chart_root)


def read_inputs(
    paths: Sequence[str], stdin: bytes | None, limits: LoadLimits = DEFAULT_LIMITS
) -> Iterator[SourceFile | LoadProblem]:
    """Every input file's bytes, or the problem that kept it from being read."""
    walker = _Walker(_Budget(limits))
    for path in paths:
        if path == "-":
            if walker.first_visit(("-",)):
                yield _standard_input(walker.budget, stdin)
            continue
        yield from walker.inputs(Path(path))


def _standard_input(budget: _Budget, stdin: bytes | None) -> SourceFile | LoadProblem:
    """Standard input, or a render standing in for it under its own name."""
    if not isinstance(stdin, RenderedInput):
        return budget.take(STDIN_NAME, stdin, _read_stdin)
    if stdin.failure is not None:
        return LoadProblem(stdin.name, 1, f"not rendered: {stdin.failure}", UNREAD_SUSPECT, None)
    # Plain bytes from here on: records between processes refuse subclasses.
    taken = budget.take(stdin.name, bytes(stdin), _read_stdin)
    if isinstance(taken, SourceFile):
        return SourceFile(taken.name, taken.data, stdin.chart_root)
    return taken


def is_manifest_name(name: str) -> bool:
    """Whether a file of this name is read: its suffix, as ``Path.suffix``
    takes it (after the last dot, which neither starts nor ends the name),
    is one of ``MANIFEST_SUFFIXES`` in any case."""
    dot = name.rfind(".")
    return 0 < dot < len(name) - 1 and name[dot:].lower() in MANIFEST_SUFFIXES


def path_refusal(path: str) -> str | None:
    """Why ``path``, named on the command line, is a usage error: it does not
    exist, or it is neither a regular file nor a directory (reading a pipe
    could block forever). None when it may be read; ``-`` is standard input.
    A path that exists but cannot be examined is left to the loader, which
    fails closed on it."""
    if path == "-":
        return None
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return "no such file or directory"
    except NotADirectoryError:
        return "not a directory on the way to it"
    except OSError:
        return None
    if stat.S_ISDIR(status.st_mode) or stat.S_ISREG(status.st_mode):
        return None
    return (
        f"not a regular file or a directory ({_file_type(status.st_mode)}); "
        "pipe manifests to '-' instead"
    )


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def standard_input_once(
    paths: Sequence[str], stdin: bytes | None, limits: LoadLimits = DEFAULT_LIMITS
) -> bytes | None:
    """Standard input's bytes, read now when ``-`` is among ``paths`` and
    they were not given, so a second read of the same input sees them again.
    At most one byte past the limits is read, as a read during the walk
    would, so an input that is too long is still known to be."""
    if stdin is not None or "-" not in paths:
        return stdin
    return _read_stdin(min(limits.max_file_size, limits.max_total_size) + 1)


def _read_stdin(size: int) -> bytes:
    return b"" if sys.stdin is None else sys.stdin.buffer.read(size)


def display_name(path: str | Path) -> str:
    """The path relative to the current directory, with ``/`` separators.

    Bytes of the name that are not UTF-8 are shown as ``\\xNN``: Python
    carries them as lone surrogates, which no report can encode.
    """
    return _shown(_relative(path))


def _relative(path: str | Path) -> str:
    """The path relative to the current directory, with ``/`` separators,
    as Python carries it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = str(path)
    return relative.replace(os.sep, "/")


def _children_prefix(relative: str) -> str:
    """What the name of each entry of a directory starts with, given the
    directory's own (``_relative``): ``os.path.relpath`` of ``d/e`` is that
    of ``d``, a ``/`` and ``e``, so one call names a whole tree. It differs
    only for a directory ``e`` on the way to the current directory, below
    one that contains it (``b`` of ``..`` seen from ``/a/b`` is ``.``): the
    walk names those anew."""
    return "" if relative == "." else relative + "/"


def _shown(name: str) -> str:
    """A relative name as reports show it (``display_name``)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


_Reader: TypeAlias = Callable[[int], bytes]
"""A read of at most the given number of bytes."""


class _Budget:
    """What is left of the total input limit, and the reads that honour it."""

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        self.used = 0

    def refusal(self, name: str, size: int) -> LoadProblem | None:
        """Why a file of ``size`` bytes may not be read, if it may not."""
        limits = self.limits
        if size > limits.max_file_size:
            return _unread(
                name,
                f"it is over the {describe_size(limits.max_file_size)} limit on one file "
                "(raise it with --max-file-size)",
            )
        if self.used + size > limits.max_total_size:
            return _unread(
                name,
                f"the input read so far plus this file is over the "
                f"{describe_size(limits.max_total_size)} limit on all files together "
                "(raise it with --max-total-size)",
            )
        return None

    def set_aside(self, name: str, path: str, size: int) -> SourceFile | LoadProblem:
        """A regular file of ``size`` bytes by its status, to be read by the
        process that loads it (``read_source``): its bytes count now, in
        the walk's order, as they would if it were read now."""
        refused = self.refusal(name, size)
        if refused is not None:
            return refused
        self.used += size
        return SourceFile(name, b"", path=path, size=size)

    def take(self, name: str, data: bytes | None, read: _Reader) -> SourceFile | LoadProblem:
        """Read at most one byte past the allowance, so that a stream of
        unknown length is bounded and still known to be too long."""
        if data is None:
            allowance = min(self.limits.max_file_size, self.limits.max_total_size - self.used)
            data = read(max(allowance, 0) + 1)
        refused = self.refusal(name, len(data))
        if refused is not None:
            return refused
        self.used += len(data)
        return SourceFile(name, data)


def _read_file(path: str | Path, expected: int | None = None) -> _Reader:
    """A read of the file; ``expected`` is the size its status gave.

    A read of n bytes allocates n bytes first, and the allowance is far
    larger than most manifests: the expected size plus one is read first,
    and only a file that grew meanwhile is read on, up to the allowance.
    The file is read through its descriptor: every read asks for what is
    left, so a buffered file object would only cost more.
    """

    def read(size: int) -> bytes:
        descriptor = os.open(path, _READ_FLAGS)
        try:
            if expected is None or expected >= size:
                return _read_up_to(descriptor, size)
            first = _read_up_to(descriptor, expected + 1)
            if len(first) <= expected:
                return first
            return first + _read_up_to(descriptor, size - len(first))
        finally:
            os.close(descriptor)

    return read


_READ_FLAGS: Final = os.O_RDONLY | getattr(os, "O_BINARY", 0)


def _read_up_to(descriptor: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(descriptor, size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


_NAME: Final = operator.attrgetter("name")


class _Walker:
    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self._seen: set[tuple[object, ...]] = set()
        self._root = ""
        """The real path of the directory being walked."""

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
        if stat.S_ISDIR(status.st_mode):
            self._root = os.path.realpath(path)
            yield from self._directory(os.fspath(path), ancestors=frozenset())
        elif stat.S_ISREG(status.st_mode):
            yield from self._file(path, status)
        else:
            # The command line refuses these (``path_refusal``); a caller of
            # ``load`` gets the same note as for one inside a tree.
            yield _skipped(path, "not a regular file")

    def _file(
        self, path: str | Path, status: os.stat_result, relative: str | None = None
    ) -> Iterator[SourceFile | LoadProblem]:
        if not self.first_visit((status.st_dev, status.st_ino)):
            return
        name = display_name(path) if relative is None else _shown(relative)
        if stat.S_ISREG(status.st_mode):
            yield self.budget.set_aside(name, os.fspath(path), status.st_size)
            return
        # Not a regular file (named on the command line): no size to set
        # aside, so it is read now, at most one byte past the allowance.
        try:
            yield self.budget.take(name, None, _read_file(path))
        except OSError as error:
            yield _problem(path, error, suspect=True)

    def _directory(
        self, path: str, ancestors: frozenset[tuple[int, int]], relative: str | None = None
    ) -> Iterator[SourceFile | LoadProblem]:
        try:
            status = os.stat(path)
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
            entries = sorted(os.scandir(path), key=_NAME)
        except OSError as error:
            yield _problem(path, error, suspect=True)
            return
        unrendered = unrendered_tree(path, {entry.name for entry in entries})
        if unrendered is not None:
            yield unrendered
            return
        inner = ancestors | {identity}
        own = (_relative(path) if relative is None else relative) if entries else "."
        prefix = _children_prefix(own)
        # Below a directory that contains the current one, a directory may
        # lie on the way to it, and is named anew (``_children_prefix``).
        climbs = all(part == ".." for part in own.split("/"))
        for entry in entries:
            yield from self._entry(entry, inner, prefix + entry.name, climbs)

    def _entry(
        self,
        entry: os.DirEntry[str],
        ancestors: frozenset[tuple[int, int]],
        relative: str | None = None,
        climbs: bool = True,
    ) -> Iterator[SourceFile | LoadProblem]:
        # The entry's own path string: a file is opened and named by it
        # without a Path (most of the walk's cost per file); every use of
        # it normalises it as Path(entry.path) would.
        path = entry.path
        try:
            if entry.is_symlink() and not self._inside_root(path):
                yield _skipped(path, "a symbolic link that leads outside the directory named")
                return
            is_dir = entry.is_dir()
            if is_dir and entry.name in SKIPPED_DIRECTORIES:
                return
            if is_dir:
                yield from self._directory(path, ancestors, None if climbs else relative)
                return
            if not is_manifest_name(entry.name):
                return
            status = entry.stat()
        except OSError as error:
            yield _problem(path, error)
            return
        if not stat.S_ISREG(status.st_mode):
            # A pipe or a device inside a tree is never a manifest, and
            # reading one could block forever.
            yield _skipped(path, "not a regular file")
            return
        yield from self._file(path, status, relative)

    def _inside_root(self, path: str) -> bool:
        """Whether a symbolic link resolves inside the directory named."""
        target = os.path.realpath(path)
        return target == self._root or target.startswith(self._root.rstrip(os.sep) + os.sep)


def _skipped(path: str | Path, why: str) -> LoadProblem:
    return LoadProblem(display_name(path), 1, f"skipped: {why}", severity="warning")


HELM_CHART_FILE: Final = "Chart.yaml"
KUSTOMIZATION_FILES: Final = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def unrendered_tree(path: str | Path, names: set[str]) -> LoadProblem | None:
    """One problem for a directory that is a Helm chart or a Kustomize
    directory, whose files are not the manifests a cluster gets: templates
    do not parse, and a base's objects have no namespace until Kustomize
    gives them one. It is not read, and since it may hold any policy for
    any namespace, the check fails closed. The message names the flag and
    the ``renders:`` entry that check it rendered (DESIGN §11)."""
    found: str | None
    if HELM_CHART_FILE in names:
        found, flag, key = HELM_CHART_FILE, "--helm", "helm"
        what = "a Helm chart: its templates are not the manifests the cluster gets"
    else:
        found = next((name for name in KUSTOMIZATION_FILES if name in names), None)
        if found is None:
            return None
        flag, key = "--kustomize", "kustomize"
        what = "a Kustomize directory: its objects get their namespaces and patches only when built"
    shown = display_name(path)
    message = (
        f"{shown} holds {found}, so it is {what}. Nothing in it was read, and any policy it "
        f"renders could select a sandbox, so those sandboxes fail closed. Check it rendered: "
        f"`egress-lint check {flag} {shown}`, or list it in .egress-lint.yaml as "
        f"`renders: [{{name: <environment>, {key}: {shown}}}]`"
    )
    return LoadProblem(
        display_name(os.path.join(path, found)), 1, message, UNREAD_SUSPECT, None, render=key
    )


def unrendered_root(problem: LoadProblem) -> tuple[str, str] | None:
    """The directory and the tool (``helm`` or ``kustomize``) of a problem
    :func:`unrendered_tree` made; None for any other problem."""
    if problem.render is None:
        return None
    directory = problem.file.rpartition("/")[0]
    return directory or ".", problem.render


def _unread(name: str, reason: str) -> LoadProblem:
    return LoadProblem(name, 1, f"not read: {reason}", UNREAD_SUSPECT, None)


def _problem(path: str | Path, error: OSError, *, suspect: bool = False) -> LoadProblem:
    """A path that could not be read. ``suspect`` when it exists and may hold
    manifests (a permission error, an I/O error), so that the check fails
    closed; not when it is missing or a symlink loop."""
    reason = error.strerror or type(error).__name__
    kind = UNREAD_SUSPECT if suspect else None
    return LoadProblem(display_name(path), 1, f"cannot read: {reason}", kind, None)
