"""Where a Kustomize object came from: its base or overlay file and line.

``kustomize build`` prints one stream and forgets the files. Asked with
``buildMetadata: [originAnnotations, transformerAnnotations]`` it writes,
on each object, the annotation ``config.kubernetes.io/origin`` (``path:``
the resource file, relative to the build's root; ``configuredIn:`` the
kustomization of a generator instead) and
``alpha.config.kubernetes.io/transformations`` (the kustomization of each
transformer that ran over the object, patches included, but not the patch
file itself). The user's files are never changed: the build runs on a
kustomization of our own in a temporary directory whose one resource is the
user's directory (``docs/declarations.md`` has the upstream sources).

The two annotations are taken out of the stream before anything is read
from it, so that nothing judged differs from a plain build; what they said
is kept per document (:class:`DocumentOrigin`). :func:`kustomize_places`
then moves each location in the stream to its file: the object's line in
the file that wrote it, found by kind and name; a line of the object to the
same text under that object in that file; a line no file of the object
holds but a patch file does, to that line; otherwise, when a patch ran over
the object, to the kustomization that lists the patch, with a note. An
object whose origin is unknown (a generator's, or every object when the
tool cannot write origins) is placed at its kustomization, with a note.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec
from msgspec.structs import replace
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.loading.files import display_name
from lint.loading.split import split_stream
from lint.render.root import inside
from lint.report.model import Finding, Location
from lint.yaml.parse import ParseFailure, compose

ORIGIN: Final = "config.kubernetes.io/origin"
TRANSFORMATIONS: Final = "alpha.config.kubernetes.io/transformations"
_KUSTOMIZATION_NAMES: Final = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_PATCHERS: Final = frozenset(
    {"PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer"}
)
_ANNOTATION: Final = re.compile(r"^    (\S+?):")
_VALUE: Final = re.compile(r"^\s*-?\s*(path|configuredIn|kind):\s*(.*?)\s*$")


class DocumentOrigin(msgspec.Struct, frozen=True):
    """One rendered document (lines ``first`` to ``last`` of the stripped
    stream): the file that wrote it, when Kustomize named one, and the
    kustomizations whose patches ran over it (paths relative to the current
    directory, ``/`` separators)."""

    first: int
    last: int
    kind: str | None
    name: str | None
    path: str | None
    generated_in: str | None
    patched_in: tuple[str, ...]


class KustomizeOrigins(msgspec.Struct, frozen=True):
    """What a build with origins gave: each document's origin (none when
    the tool could not write them) and the user's kustomization file."""

    documents: tuple[DocumentOrigin, ...]
    kustomization: str
    root: Path
    """The repository root: no file outside it is read."""


def kustomization_file(directory: str) -> str:
    """The kustomization file of ``directory`` as shown in reports."""
    for name in _KUSTOMIZATION_NAMES:
        if os.path.isfile(os.path.join(directory, name)):
            return display_name(Path(directory) / name)
    return display_name(Path(directory) / _KUSTOMIZATION_NAMES[0])


@contextmanager
def origin_root(directory: str) -> Iterator[str]:
    """A temporary directory holding a kustomization whose one resource is
    ``directory`` and which asks for origin and transformer annotations;
    removed on leaving. Kustomize refuses an absolute resource path, so it
    is named relative to the temporary directory: a directory (a
    kustomization) may lie outside the build's root under the default load
    restrictor, which confines files only."""
    root = tempfile.mkdtemp(prefix="egress-lint-kustomize-")
    try:
        target = os.path.relpath(os.path.realpath(directory), os.path.realpath(root))
        Path(root, "kustomization.yaml").write_text(
            "apiVersion: kustomize.config.k8s.io/v1beta1\n"
            "kind: Kustomization\n"
            f"resources:\n  - {_quoted(target.replace(os.sep, '/'))}\n"
            "buildMetadata:\n  - originAnnotations\n  - transformerAnnotations\n",
            encoding="utf-8",
        )
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def stripped(text: str, build_root: str, root: Path) -> tuple[str, tuple[DocumentOrigin, ...]]:
    """The stream without the two annotations (and without an
    ``annotations:`` key they leave empty), and each document's origin.
    Paths resolving outside ``root`` are dropped: nothing is read there."""
    kept: list[str] = []
    origins: list[DocumentOrigin] = []
    for document in _split_lines(text):
        lines, said = _without_annotations(document)
        first = len(kept) + 1
        kept.extend(lines)
        if any(line.strip() and not line.startswith(("---", "#")) for line in lines):
            origins.append(_origin(lines, said, first, len(kept), build_root, root))
    return "".join(kept), tuple(origins)


def _split_lines(text: str) -> Iterator[list[str]]:
    document: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.rstrip() == "---" and document:
            yield document
            document = []
        document.append(line)
    if document:
        yield document


def _without_annotations(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Kustomize writes block style with two-space indents: ``metadata:`` at
    column 0, ``annotations:`` at 2, each key at 4, its block deeper."""
    out: list[str] = []
    said: dict[str, list[str]] = {}
    in_metadata = in_annotations = False
    dropping: str | None = None
    empty: list[int] = []
    opened = -1
    for line in lines:
        if dropping is not None and (line.startswith("     ") or not line.strip()):
            said[dropping].append(line)
            continue
        dropping = None
        if not line.startswith(" "):
            in_metadata, in_annotations = line.rstrip() == "metadata:", False
        elif in_metadata and not line.startswith("   "):
            in_annotations = line.rstrip() == "  annotations:"
            if in_annotations:
                opened = len(out)
                empty.append(opened)
        elif in_annotations:
            key = _ANNOTATION.match(line)
            if key is not None and key.group(1) in (ORIGIN, TRANSFORMATIONS):
                dropping = key.group(1)
                said[dropping] = []
                continue
            if empty and empty[-1] == opened:
                empty.pop()  # an annotation of the user's stays: so does the key
        out.append(line)
    for at in reversed(empty):
        del out[at]
    return out, said


def _origin(
    lines: list[str],
    said: dict[str, list[str]],
    first: int,
    last: int,
    build_root: str,
    root: Path,
) -> DocumentOrigin:
    kind = _top_value(lines, r"kind")
    name = _top_value(lines, r"  name")
    origin = _values(said.get(ORIGIN, []))
    path = _shown(origin.get("path", []), build_root, root)
    generated = _shown(origin.get("configuredIn", []), build_root, root)
    patched = []
    transformations = said.get(TRANSFORMATIONS, [])
    current: str | None = None
    for line in transformations:
        match = _VALUE.match(line)
        if match is None:
            continue
        if match.group(1) == "configuredIn":
            current = match.group(2)
        elif match.group(1) == "kind" and match.group(2) in _PATCHERS and current:
            shown = _shown([current], build_root, root)
            if shown is not None and shown not in patched:
                patched.append(shown)
    return DocumentOrigin(first, last, kind, name, path, generated, tuple(patched))


def _top_value(lines: list[str], key: str) -> str | None:
    pattern = re.compile(rf"^{key}:\s*(.*?)\s*$")
    for line in lines:
        match = pattern.match(line.rstrip("\n"))
        if match is not None:
            return _unquoted(match.group(1))
    return None


def _values(lines: list[str]) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in lines:
        match = _VALUE.match(line)
        if match is not None:
            values.setdefault(match.group(1), []).append(_unquoted(match.group(2)))
    return values


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _shown(paths: list[str], build_root: str, root: Path) -> str | None:
    """A path of an annotation (relative to the build's root) as shown in
    reports; None when absent, remote or outside the repository."""
    if not paths or "://" in paths[0]:
        return None
    real = os.path.normpath(os.path.join(os.path.realpath(build_root), _unquoted(paths[0])))
    if not inside(real, root):
        return None
    return display_name(Path(real))


# --- the pass over a report --------------------------------------------------------

_T = TypeVar("_T")


def kustomize_places(report: _T, stream: str, text: str, origins: KustomizeOrigins) -> _T:
    """``report`` with every location in ``stream`` moved to the file that
    wrote it (see the module docstring); findings placed by a guess carry a
    note in their message."""
    texts: dict[str, str | None] = {}
    firsts = [document.first for document in origins.documents]

    def read(path: str) -> str | None:
        if path not in texts:
            texts[path] = _read(path) if inside(path, origins.root) else None
        return texts[path]

    def placed(location: Location) -> tuple[Location, str | None]:
        if location.file != stream:
            return location, None
        at = bisect.bisect_right(firsts, location.line) - 1
        document = origins.documents[at] if at >= 0 else None
        if document is not None and location.line > document.last:
            document = None
        return _place(location, text, document, origins, read)

    def walk(value: object) -> object:
        if isinstance(value, Location):
            return placed(value)[0]
        if isinstance(value, Finding):
            return _finding(value, placed, walk)
        if isinstance(value, tuple):
            return tuple(walk(item) for item in value)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, msgspec.Struct):
            return replace(value, **{n: walk(getattr(value, n)) for n in value.__struct_fields__})
        return value

    try:
        return walk(report)  # type: ignore[return-value]
    finally:
        # Each document was parsed once for this report; none is kept past it.
        _root.cache_clear()
        _object_span.cache_clear()


def _finding(
    finding: Finding,
    placed: Callable[[Location], tuple[Location, str | None]],
    walk: Callable[[object], object],
) -> Finding:
    location, note = placed(finding.location)
    changes: dict[str, Any] = {
        name: walk(getattr(finding, name))
        for name in finding.__struct_fields__
        if name not in ("location", "message", "location_note")
    }
    if note is None:
        return replace(finding, location=location, **changes)
    message = f"{finding.message} ({note})"
    return replace(finding, location=location, message=message, location_note=note, **changes)


def _place(
    location: Location,
    stream: str,
    document: DocumentOrigin | None,
    origins: KustomizeOrigins,
    read: Callable[[str], str | None],
) -> tuple[Location, str | None]:
    if document is None or document.path is None:
        where = (document.generated_in if document else None) or origins.kustomization
        why = (
            "made by a generator"
            if document is not None and document.generated_in
            else "Kustomize did not say which file wrote this object"
        )
        return Location(where, 1), (
            f"{why}: shown at its kustomization; line {location.line} of the build output"
        )
    text = read(document.path)
    span = _object_span(text, document) if text is not None else None
    if text is None or span is None:
        return Location(document.path, 1), None
    rendered = _root(stream, (document.first, document.last))
    path = _path_at(rendered, location.line - 1)
    if not path or path == _first_key(rendered):
        # The object itself (its document's first line).
        return Location(document.path, span[0]), None
    wanted = _value(_walk(rendered, path))
    found = _walk(_root(text, span), path)
    if found is not None and _value(found) == wanted:
        return Location(document.path, _line_of(_root(text, span), path)), None
    for kustomization in document.patched_in:
        for patch in _patch_files(kustomization, read):
            patch_text = read(patch)
            patch_span = _object_span(patch_text, document) if patch_text else None
            if patch_text is None or patch_span is None:
                continue
            patch_root = _root(patch_text, patch_span)
            in_patch = _walk(patch_root, path)
            if in_patch is not None and _value(in_patch) == wanted:
                return Location(patch, _line_of(patch_root, path)), None
    if document.patched_in:
        kustomization = document.patched_in[-1]
        return Location(kustomization, _patches_line(read(kustomization))), (
            f"a patch listed in {kustomization} changed this part of the object "
            f"from {document.path}; the patch's own line could not be told"
        )
    if found is not None:
        return Location(document.path, _line_of(_root(text, span), path)), None
    return Location(document.path, span[0]), None


Step = str | int


@functools.lru_cache(maxsize=64)
def _root(text: str, span: tuple[int, int]) -> Node | None:
    """The node tree of lines ``span`` of ``text``, its marks on the
    text's own lines."""
    lines = text.split("\n")
    piece = "\n" * (span[0] - 1) + "\n".join(lines[span[0] - 1 : span[1]])
    try:
        return compose(piece)
    except ParseFailure:
        return None


def _children(node: Node) -> Iterator[tuple[Step, Node, int]]:
    """Each child with its step and the 0-based line its step is shown at
    (a key's line, an item's line)."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                yield str(key.value), value, key.start_mark.line
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield index, item, item.start_mark.line


def _path_at(node: Node | None, line: int) -> tuple[Step, ...]:
    """The shortest path whose step is shown at 0-based ``line``."""
    path: list[Step] = []
    while node is not None:
        inner = None
        for step, child, at in _children(node):
            if at == line:
                return (*path, step)
            if at < line <= child.end_mark.line:
                inner = (step, child)
        if inner is None:
            return ()
        path.append(inner[0])
        node = inner[1]
    return ()


def _first_key(node: Node | None) -> tuple[Step, ...]:
    first = next(_children(node), None) if node is not None else None
    return () if first is None else (first[0],)


def _walk(node: Node | None, path: tuple[Step, ...]) -> Node | None:
    for step in path:
        if node is None:
            return None
        node = next((child for s, child, _ in _children(node) if s == step), None)
    return node


def _line_of(node: Node | None, path: tuple[Step, ...]) -> int:
    """The 1-based line ``path``'s last step is shown at."""
    parent = _walk(node, path[:-1])
    if parent is None:
        return 1
    return next((at for s, _, at in _children(parent) if s == path[-1]), 0) + 1


def _value(node: Node | None, depth: int = 0) -> object:
    """A node as plain data, every scalar a string (``53`` and ``"53"``
    read alike: Kustomize rewrites quoting)."""
    if node is None or depth > 64:
        return None
    if isinstance(node, ScalarNode):
        return str(node.value)
    if isinstance(node, SequenceNode):
        return [_value(item, depth + 1) for item in node.value]
    return sorted((str(step), repr(_value(child, depth + 1))) for step, child, _ in _children(node))


@functools.lru_cache(maxsize=64)
def _object_span(text: str, document: DocumentOrigin) -> tuple[int, int] | None:
    """The first and last line of the document of ``text`` holding the
    object (by kind and name; the one document of its kind, or of the file,
    when the name was changed by a prefix or a suffix)."""
    spans: list[tuple[int, int, str]] = []
    for chunk in split_stream(text):
        if chunk.content is None:
            continue
        first = chunk.line_at(text, chunk.content)
        last = chunk.last_content_line(text)
        spans.append((first, last, text[chunk.content : chunk.stop]))
    kinds = [s for s in spans if _top_value(s[2].splitlines(), "kind") == document.kind]
    named = [s for s in kinds if _top_value(s[2].splitlines(), "  name") == document.name]
    for candidates in (named, kinds, spans):
        if len(candidates) == 1 or (candidates is named and candidates):
            return candidates[0][0], candidates[0][1]
    return None


def _patch_files(kustomization: str, read: Callable[[str], str | None]) -> list[str]:
    """The patch files a kustomization lists (``patches:`` entries with a
    ``path:``, ``patchesStrategicMerge:`` entries)."""
    text = read(kustomization)
    if text is None:
        return []
    base = os.path.dirname(kustomization)
    found: list[str] = []
    block = None
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("-"):
            block = line.split(":", 1)[0].strip()
            continue
        stripped_line = line.strip()
        name = None
        if block == "patches":
            match = re.match(r"^-?\s*path:\s*(.+)$", stripped_line)
            name = match.group(1) if match else None
        elif block == "patchesStrategicMerge" and stripped_line.startswith("- "):
            candidate = stripped_line[2:].strip()
            name = candidate if "\n" not in candidate and ":" not in candidate else None
        if name:
            path = os.path.normpath(os.path.join(base, _unquoted(name.strip())))
            found.append(path.replace(os.sep, "/"))
    return found


def _patches_line(text: str | None) -> int:
    if text is None:
        return 1
    for number, line in enumerate(text.splitlines(), start=1):
        if re.match(r"^(patches|patchesStrategicMerge|patchesJson6902):", line):
            return number
    return 1


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
