"""Fixtures for the loading tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    """A temporary directory that is also the current directory, so the
    loader's relative file names are short and predictable."""
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)
