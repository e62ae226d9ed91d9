"""Small helpers shared by the loading tests."""

from __future__ import annotations

import math
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


def strictly_equal(left: object, right: object) -> bool:
    """``==`` that also tells ``1`` from ``True`` and ``1.0``, ``0.0`` from
    ``-0.0``, and mappings whose keys come in another order."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        assert isinstance(right, dict)
        return list(left) == list(right) and all(strictly_equal(left[k], right[k]) for k in left)
    if isinstance(left, list):
        assert isinstance(right, list)
        return len(left) == len(right) and all(map(strictly_equal, left, right))
    if isinstance(left, float):
        assert isinstance(right, float)
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    return left == right
