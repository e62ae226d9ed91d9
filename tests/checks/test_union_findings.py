"""Under a host other than namzu, reach is the verdict, and the union's
finding for a culprit is kept only when reach blames the same object: only
those findings are made, and they are the ones filtering all of them gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks import egress
from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import render_json
from tests.checks.scenario_runner import DEMO, SCENARIOS

TREES = [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())]


def _culprit_key(finding: egress.Finding) -> tuple[str, str | None, str] | None:
    culprit = finding.culprit
    return None if culprit is None else (culprit.kind, culprit.namespace, culprit.name)


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Each time only the blamed culprits' findings are made, the number
    made and the number the union has in all; fails if they are not the
    ones filtering every union finding gives, in the same order."""
    seen: list[tuple[int, int]] = []
    real = egress._union_findings

    def checking(judged, refused, blamed=None):  # type: ignore[no-untyped-def]
        made = real(judged, refused, blamed)
        if blamed is not None:
            every = real(judged, refused)
            assert made == [f for f in every if _culprit_key(f) in blamed]
            seen.append((len(made), len(every)))
        return made

    monkeypatch.setattr(egress, "_union_findings", checking)
    return seen


def _check(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    config = Path(".egress-lint.yaml")
    options = CheckOptions(paths=(".",), config=config if config.is_file() else None, jobs=1)
    assert render_json(run_check(options))


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_only_the_union_findings_reach_keeps_are_made(
    tree: Path, compared: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(tree, monkeypatch)


def test_the_fixtures_hold_a_culprit_reach_does_not_blame(
    compared: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """So the test above compares a choice, not only whole lists."""
    for tree in TREES:
        _check(tree, monkeypatch)
    assert any(made < every for made, every in compared)
