"""Small helpers shared by the loading tests."""

from __future__ import annotations

from pathlib import Path

from lint.loading import LoadResult, load


def write(root: Path, name: str, content: str | bytes) -> Path:
    """Write ``content`` (text is encoded as UTF-8) to ``root/name``."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def load_text(root: Path, content: str | bytes, name: str = "m.yaml") -> LoadResult:
    """Load one file holding ``content``; ``root`` must be the current directory."""
    write(root, name, content)
    return load([name])
