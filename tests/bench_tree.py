"""The benchmark's tree generator (``bench/generate.py``), for the tests that
want a generated tree. ``bench/`` is not a package, so the module is loaded
from its file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

GENERATOR = Path(__file__).resolve().parents[1] / "bench" / "generate.py"


def generator() -> ModuleType:
    """The generator module, loaded once."""
    loaded = sys.modules.get("bench_generate")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location("bench_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def generate_tree(root: Path, **shape: Any) -> tuple[int, int]:
    """Write a tree of this shape (``TreeShape`` fields) under ``root``;
    the number of files and bytes written."""
    module = generator()
    written: tuple[int, int] = module.generate(root, module.TreeShape(**shape))
    return written
