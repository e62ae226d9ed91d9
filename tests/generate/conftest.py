"""Helpers for generate tests: declaration files in a temporary working
directory, generation through the public entry points, and reading output
back the way each kind of reader does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML

from lint.generate.command import GenerateOptions, render_all
from lint.generate.output import Rendered
from lint.loading import load


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory that is also the current directory, so file
    names in headers and reports are stable."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


Generate = Callable[[str], list[Rendered]]


@pytest.fixture
def generate(workdir: Path) -> Generate:
    """Write a declaration file and render every object it gives."""

    def run(declarations: str) -> list[Rendered]:
        (workdir / ".egress-lint.yaml").write_text(declarations, encoding="utf-8")
        return render_all(GenerateOptions(paths=(".",), config=Path(".egress-lint.yaml")))

    return run


def project_loader_values(text: str) -> list[Any]:
    """Documents as egress-lint's own loader reads them (Kubernetes rules)."""
    loaded = load(["-"], stdin=text.encode("utf-8"), relevant_kinds=_every_kind(text))
    assert not loaded.problems, loaded.problems
    return [document.value for document in loaded.documents]


def _every_kind(text: str) -> frozenset[str]:
    return frozenset(
        line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("kind:")
    )


def yaml11_values(text: str) -> list[Any]:
    """Documents as a YAML 1.1 reader (PyYAML's safe loader) reads them."""
    return [value for value in yaml.load_all(text, Loader=yaml.SafeLoader) if value is not None]


def yaml12_values(text: str) -> list[Any]:
    """Documents as a YAML 1.2 reader (ruamel's safe loader) reads them."""
    return [value for value in YAML(typ="safe", pure=True).load_all(text) if value is not None]


READERS = {
    "egress-lint": project_loader_values,
    "yaml-1.1": yaml11_values,
    "yaml-1.2": yaml12_values,
}


def exact(value: Any) -> str:
    """Key order and types, as text: equal only when both are identical."""
    return json.dumps(value)
