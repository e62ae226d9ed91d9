"""Nothing the tool prints cites a document users do not have: no section
numbers, no names of the project's internal specifications, no path to
them. Every format of `check` on every fixture tree (the helm chart among
the PATHs included), `explain` in text and JSON, and the rule catalog."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.golden.cases import FIXTURES, fixture_dirs

CITATION = re.compile(
    r"§|SEMANTICS|AGENT-SANDBOX|CLUSTER-POLICIES|INTEGRATIONS\.md|DESIGN\.md|REPORT\.md|\.\./shared"
)
FORMATS = ("text", "json", "sarif", "github", "markdown")


def _run(cwd: Path, args: list[str]) -> str:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return result.output


def _citations(text: str) -> Iterator[str]:
    for number, line in enumerate(text.splitlines(), start=1):
        if CITATION.search(line):
            yield f"line {number}: {line.strip()[:160]}"


@pytest.mark.parametrize("tree", [*fixture_dirs(), "helm"])
def test_check_cites_nothing_users_lack(tree: str) -> None:
    for fmt in FORMATS:
        output = _run(FIXTURES / tree, ["check", ".", "--format", fmt])
        assert not list(_citations(output)), (tree, fmt, list(_citations(output)))


def test_explain_and_the_rule_catalog_cite_nothing_users_lack() -> None:
    outputs = {
        "rules": _run(FIXTURES, ["rules"]),
        "rules json": _run(FIXTURES, ["rules", "--format", "json"]),
        "explain": _run(FIXTURES / "demo", ["explain", ".", "--template", "task"]),
        "explain json": _run(
            FIXTURES / "demo", ["explain", ".", "--template", "task", "--format", "json"]
        ),
        "bad version": _run(FIXTURES / "demo", ["check", ".", "--controller-version", "v9.9.9"]),
    }
    for name, output in outputs.items():
        assert output.strip(), name
        assert not list(_citations(output)), (name, list(_citations(output)))


def test_the_pattern_catches_a_citation() -> None:
    assert list(_citations("assumed: the newest column of §8"))
    assert list(_citations("see SEMANTICS.md"))
    assert not list(_citations("assumed: the newest version egress-lint knows"))
