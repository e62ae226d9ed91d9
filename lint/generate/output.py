"""Where generated manifests go: one stream, or one file per object.

``--out DIR`` writes ``DIR/<namespace>/<kind-lowercase>-<name>.yaml``, and
cluster-scoped objects under ``DIR/_cluster/`` (no namespace can be named
that: a namespace name has no ``_``). Names come from declarations and are
not trusted: each path component is encoded so that it is one plain file
name, and every final path is checked to resolve inside DIR, so nothing is
ever written outside it, through ``..``, an absolute name or a symlink.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

import msgspec

from lint.generate.model import GeneratedObject

CLUSTER_DIRECTORY: Final = "_cluster"
# Comfortably under the 255-byte limit of common file systems.
MAX_COMPONENT_BYTES: Final = 200
_SAFE_BYTES: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


class OutputError(Exception):
    """A write that was refused: a path outside DIR, or files that differ
    from what would be written (without ``--force``)."""


class Rendered(msgspec.Struct, frozen=True):
    """One object with its rendered text."""

    obj: GeneratedObject
    text: str


def stream_text(rendered: Sequence[Rendered]) -> str:
    """Multi-document YAML: each document opened with ``---``."""
    return "".join(f"---\n{item.text}" for item in rendered)


def safe_component(text: str) -> str:
    """``text`` as a single, harmless path component.

    Bytes outside ``[A-Za-z0-9._-]`` and a leading dot become ``%XX``, so the
    result never contains a separator, is never ``.`` or ``..`` and is never
    hidden, and two different names never share a component. An over-long
    result is cut and given a digest of the whole name.
    """
    encoded = "".join(
        chr(byte) if byte in _SAFE_BYTES else f"%{byte:02X}"
        for byte in text.encode("utf-8", "surrogatepass")
    )
    if encoded.startswith("."):
        encoded = "%2E" + encoded[1:]
    if not encoded:
        return "%"
    if len(encoded) > MAX_COMPONENT_BYTES:
        digest = hashlib.sha256(encoded.encode("ascii")).hexdigest()[:16]
        encoded = f"{encoded[: MAX_COMPONENT_BYTES - 17]}~{digest}"
    return encoded


def relative_path(obj: GeneratedObject) -> Path:
    """``<namespace>/<kind-lowercase>-<name>.yaml`` (REPORT.md), encoded."""
    directory = CLUSTER_DIRECTORY if obj.namespace is None else safe_component(obj.namespace)
    return Path(directory) / (safe_component(f"{obj.kind.lower()}-{obj.name}") + ".yaml")


Action = Literal["created", "updated", "unchanged"]


class PlannedWrite(msgspec.Struct, frozen=True):
    """One file: ``path`` resolved, ``shown`` as the user named DIR."""

    path: Path
    shown: Path
    text: str
    action: Action


def plan_writes(rendered: Sequence[Rendered], out: Path, *, force: bool) -> list[PlannedWrite]:
    """Decide every write before making one: a file whose content differs
    is overwritten only with ``force``; without it, nothing at all is written."""
    root = out.resolve()
    writes: list[PlannedWrite] = []
    refused: list[Path] = []
    for item in rendered:
        relative = relative_path(item.obj)
        path = _confined(root, relative)
        action = _action(path, item.text)
        if action == "updated" and not force:
            refused.append(out / relative)
        writes.append(PlannedWrite(path, out / relative, item.text, action))
    if refused:
        listed = "\n".join(f"  {path}" for path in refused)
        raise OutputError(
            "these files exist with other content; nothing was written "
            f"(use --force to overwrite them):\n{listed}"
        )
    return writes


def _confined(root: Path, relative: Path) -> Path:
    """``root / relative``, refused unless it resolves inside ``root`` (a
    symlink already in DIR could otherwise lead elsewhere)."""
    path = root / relative
    if not path.resolve().is_relative_to(root) or path.is_symlink():
        raise OutputError(f"refusing to write {path}: it resolves outside {root}")
    return path


def _action(path: Path, text: str) -> Action:
    if not path.exists():
        return "created"
    if path.is_file() and path.read_bytes() == text.encode("utf-8"):
        return "unchanged"
    return "updated"


def apply_writes(writes: Sequence[PlannedWrite], out: Path) -> None:
    """Write each changed file through a temporary file in its directory, so
    a crash never leaves half a manifest."""
    root = out.resolve()
    for write in writes:
        if write.action == "unchanged":
            continue
        write.path.parent.mkdir(parents=True, exist_ok=True)
        _confined(root, write.path.relative_to(root))
        descriptor, temporary = tempfile.mkstemp(dir=write.path.parent, prefix=".egress-lint-")
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(write.text.encode("utf-8"))
            os.replace(temporary, write.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
