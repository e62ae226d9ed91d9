"""Judging on several processes writes the report one process writes, and a
child that fails costs nothing but time."""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

import pytest

from lint.checks import parallel
from lint.checks.parallel import shares_of
from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import render_json
from lint.report.marshalled import Decoder, Encoder
from lint.report.model import DecisionReport, ExaminedEntry, Location
from tests.bench_tree import generate_tree
from tests.checks.scenario_runner import DEMO, SCENARIOS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Share out even a handful of sandboxes, so small trees use the forks."""
    monkeypatch.setattr(parallel, "MIN_SHARE_PLANS", 1)


@pytest.mark.parametrize(
    ("namespaces", "jobs", "expected"),
    [
        # Whole namespaces, largest first onto the lightest share.
        (["a", "a", "b", "b", "c"], 2, [[0, 1, 4], [2, 3]]),
        (["a", "b", "a", "c", "b", "a"], 2, [[0, 2, 5], [1, 3, 4]]),
        (["a", "a", "a"], 4, [[0, 1, 2]]),
        (["a", "b", "c"], 8, [[0], [1], [2]]),
        ([], 2, []),
    ],
)
def test_shares_keep_namespaces_whole(
    small_shares: None, namespaces: list[str], jobs: int, expected: list[list[int]]
) -> None:
    assert shares_of(namespaces, jobs) == expected


def test_few_sandboxes_stay_in_one_process() -> None:
    namespaces = [f"ns-{i % 4}" for i in range(parallel.MIN_SHARE_PLANS)]
    assert len(shares_of(namespaces, 8)) == 1


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    generate_tree(root, namespaces=3, policies=30, cilium=8, templates=6, filler=5)
    return root


def _report(root: Path, jobs: int) -> str:
    config = root / ".egress-lint.yaml"
    options = CheckOptions(paths=(str(root),), config=config if config.is_file() else None)
    return render_json(run_check(CheckOptions(**{**options.__dict__, "jobs": jobs})))


@pytest.mark.parametrize("jobs", [2, 3])
def test_a_generated_tree_reports_the_same_on_several_processes(
    small_shares: None, generated: Path, jobs: int
) -> None:
    assert _report(generated, jobs) == _report(generated, 1)


@pytest.mark.parametrize("tree", [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())])
def test_fixtures_report_the_same_on_several_processes(
    small_shares: None, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    assert _report(Path("."), 2) == _report(Path("."), 1)


def test_a_failing_child_s_sandboxes_are_judged_here(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()
    real = parallel.check_plans

    def breaking(plans, namespace_of, check_one, jobs):  # type: ignore[no-untyped-def]
        def check(plan):  # type: ignore[no-untyped-def]
            if os.getpid() != parent:
                raise RuntimeError("a child that breaks")
            return check_one(plan)

        return real(plans, namespace_of, check, jobs)

    monkeypatch.setattr("lint.checks.runner.check_plans", breaking)
    assert _report(generated, 2) == _report(generated, 1)


def test_an_unreadable_answer_is_judged_here(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel.marshal, "dumps", lambda value: b"\x00garbage")
    assert _report(generated, 2) == _report(generated, 1)


def test_records_cross_the_pipe_whole_and_shared() -> None:
    location = Location("a.yaml", 3, "templates/x.yaml", 2)
    entry = ExaminedEntry(
        "NetworkPolicy", "np", "ns", "does-not-select", None, "manifest", location
    )
    other = ExaminedEntry(
        "NetworkPolicy", "np2", None, "widens-egress", "é\ud800", "manifest", None
    )
    value = (
        DecisionReport(None, None, (entry, other, entry)),
        DecisionReport("refusal", "summary", ()),
        {"labels": ("x", 1, None, True, 2**70)},
    )
    back = Decoder().decode(marshal.loads(marshal.dumps(Encoder().encode(value))))
    assert back == value
    assert back[0].examined[0] is back[0].examined[2]


def test_a_record_with_the_wrong_fields_is_refused() -> None:
    encoded = Encoder().encode(Location("a.yaml", 1))
    with pytest.raises(ValueError):
        Decoder().decode(encoded[:-1])


def test_an_answer_of_the_wrong_length_is_judged_here(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = parallel._checked
    monkeypatch.setattr(parallel, "_checked", lambda plans, one: real(plans[1:], one))
    assert _report(generated, 2) == _report(generated, 1)
