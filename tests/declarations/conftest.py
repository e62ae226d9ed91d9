"""Helpers for declaration tests: write a file in a temporary working
directory and load it, or load it and return the error it raises."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from lint.declarations import DeclarationError, Declarations, load_declarations

WriteFile = Callable[[str, str], Path]
LoadText = Callable[..., Declarations]
RefuseText = Callable[..., DeclarationError]


def dedent(text: str) -> str:
    """Dedent and drop the one newline after an opening triple quote, so
    line 1 of the file is the first line written in the test."""
    return textwrap.dedent(text).removeprefix("\n")


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory that is also the current directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def write(workdir: Path) -> WriteFile:
    def write_file(name: str, text: str) -> Path:
        path = workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
        return path

    return write_file


@pytest.fixture
def load_text(write: WriteFile) -> LoadText:
    def load(text: str, *, namespace_override: str | None = None) -> Declarations:
        path = write(".egress-lint.yaml", text)
        return load_declarations(path, namespace_override=namespace_override)

    return load


@pytest.fixture
def refuse(load_text: LoadText) -> RefuseText:
    def refused(text: str, **options: str | None) -> DeclarationError:
        with pytest.raises(DeclarationError) as caught:
            load_text(text, **options)
        return caught.value

    return refused
