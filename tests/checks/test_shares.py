"""Judging on several processes writes the report one process writes, and a
child that fails costs nothing but time."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from msgspec.structs import replace

from lint.checks import sandbox_checks
from lint.checks import shares as checks_shares
from lint.checks.context import JudgmentMemo
from lint.checks.runner import CheckOptions, run_check
from lint.checks.shares import units_of
from lint.loading import shares as loading_shares
from lint.parallel import records
from lint.report.json_report import render_json
from tests.bench_tree import generate_tree
from tests.checks.scenario_runner import DEMO, SCENARIOS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Share out even a handful of sandboxes, so small trees use the forks."""
    monkeypatch.setattr(loading_shares, "MIN_SHARE_BYTES", 1)


@pytest.mark.parametrize(
    ("namespaces", "processes", "expected"),
    [
        # Whole namespaces, largest first, then by first plan.
        (["a", "a", "b", "b", "c"], 2, [[0, 1], [2, 3], [4]]),
        (["c", "a", "a", "b", "b"], 2, [[1, 2], [3, 4], [0]]),
        # Each namespace's plans together, so a process forgets one
        # namespace's judgements before the next (JudgmentMemo.begin_namespace).
        (["a", "b", "a", "c", "b", "a"], 2, [[0, 2, 5], [1, 4], [3]]),
        # One process keeps the namespaces in the order of their first plans.
        (["c", "a", "a", "b", "b"], 1, [[0], [1, 2], [3, 4]]),
        ([], 2, []),
    ],
)
def test_units_are_whole_namespaces(
    namespaces: list[str], processes: int, expected: list[list[int]]
) -> None:
    assert units_of(namespaces, processes) == expected


def test_the_memo_forgets_another_namespace_and_keeps_the_run_data() -> None:
    memo = JudgmentMemo()
    memo.begin_namespace("a")
    memo.scopes["reach-data"] = (None, "run-wide")
    memo.scopes["scope-of-a"] = (None, "a")
    memo.entries["entry-of-a"] = (None, ())
    memo.begin_namespace("a")
    assert "scope-of-a" in memo.scopes and "entry-of-a" in memo.entries
    memo.begin_namespace("b")
    assert memo.scopes == {"reach-data": (None, "run-wide")}
    assert memo.entries == {}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    generate_tree(root, namespaces=3, policies=30, cilium=8, templates=6, filler=5)
    return root


def _report(root: Path, jobs: int) -> str:
    config = root / ".egress-lint.yaml"
    options = CheckOptions(paths=(str(root),), config=config if config.is_file() else None)
    return render_json(run_check(replace(options, jobs=jobs)))


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
    real = checks_shares.check_plans

    def breaking(plans, namespace_of, check_one, jobs, **options):  # type: ignore[no-untyped-def]
        def check(plan):  # type: ignore[no-untyped-def]
            if os.getpid() != parent:
                raise RuntimeError("a child that breaks")
            return check_one(plan)

        return real(plans, namespace_of, check, jobs, **options)

    monkeypatch.setattr("lint.checks.sandbox_checks.check_plans", breaking)
    assert _report(generated, 2) == _report(generated, 1)


def test_an_unreadable_answer_is_judged_here(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records.marshal, "dumps", lambda value: b"\x00garbage")
    assert _report(generated, 2) == _report(generated, 1)


def test_children_s_answers_are_used(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A record the encoding cannot write would make every child fail, and
    the parent quietly judge everything: the reports would still agree. The
    parent's first sandbox waits until a child has started one."""
    parent = os.getpid()
    here: list[object] = []
    planned: list[object] = []
    real = checks_shares.check_plans

    def counting(plans, namespace_of, check_one, processes, **options):  # type: ignore[no-untyped-def]
        planned.extend(plans)

        def check(plan):  # type: ignore[no-untyped-def]
            if os.getpid() != parent:
                (tmp_path / str(os.getpid())).touch()
            else:
                give_up = time.monotonic() + 60
                while not here and not any(tmp_path.iterdir()) and time.monotonic() < give_up:
                    time.sleep(0.005)
                here.append(plan)
            return check_one(plan)

        return real(plans, namespace_of, check, processes, **options)

    monkeypatch.setattr("lint.checks.sandbox_checks.check_plans", counting)
    assert json.loads(_report(generated, 3))["sandboxes"]
    assert len(here) < len(planned)


def _made_in(tmp_path: Path, what: str) -> list[str]:
    """The processes that noted ``what`` (``_noting``), one file each time."""
    return sorted(p.name.split(".")[0] for p in tmp_path.iterdir() if p.name.endswith(what))


def _noting(tmp_path: Path, what: str, real):  # type: ignore[no-untyped-def]
    """``real``, which notes in ``tmp_path`` each process that calls it (a
    child's lists are not the parent's)."""
    calls = iter(range(1_000_000))

    def noted(*args):  # type: ignore[no-untyped-def]
        (tmp_path / f"{os.getpid()}.{next(calls)}.{what}").touch()
        return real(*args)

    return noted


def test_the_run_s_own_findings_are_the_last_unit_queued(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With children, the findings of the run as a whole are one more unit,
    queued after every namespace, so a child free before this process makes
    them; made once, and the report is the one a single process writes."""
    expected = _report(generated, 1)
    queued: list[list[object]] = []
    real_map = checks_shares.map_units

    def recording(units, *args, **options):  # type: ignore[no-untyped-def]
        queued.extend(units)
        return real_map(units, *args, **options)

    monkeypatch.setattr(checks_shares, "map_units", recording)
    noted = _noting(tmp_path, "whole", sandbox_checks._whole_run_findings)
    monkeypatch.setattr(sandbox_checks, "_whole_run_findings", noted)
    assert _report(generated, 2) == expected
    assert queued[-1] == [checks_shares.WHOLE_RUN]
    assert all(checks_shares.WHOLE_RUN not in unit for unit in queued[:-1])
    assert len(_made_in(tmp_path, "whole")) == 1


def test_alone_the_run_s_own_findings_come_after_the_sandboxes(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _report(generated, 1)
    events: list[str] = []
    real_whole, real_plans = sandbox_checks._whole_run_findings, checks_shares.check_plans

    def whole(*args):  # type: ignore[no-untyped-def]
        events.append("whole run")
        return real_whole(*args)

    def recording(plans, namespace_of, check_one, processes, **options):  # type: ignore[no-untyped-def]
        def check(plan):  # type: ignore[no-untyped-def]
            events.append("sandbox")
            return check_one(plan)

        return real_plans(plans, namespace_of, check, processes, **options)

    monkeypatch.setattr(sandbox_checks, "_whole_run_findings", whole)
    monkeypatch.setattr(sandbox_checks, "check_plans", recording)
    assert _report(generated, 1) == expected
    assert events[-1] == "whole run"
    assert events.count("whole run") == 1
    assert "sandbox" in events


def test_a_child_that_fails_on_the_run_s_own_findings_leaves_them_to_this_process(
    small_shares: None, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _report(generated, 1)
    parent = os.getpid()
    real_whole = sandbox_checks._whole_run_findings

    def whole(*args):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            raise RuntimeError("a child that breaks")
        return real_whole(*args)

    monkeypatch.setattr(sandbox_checks, "_whole_run_findings", whole)
    assert _report(generated, 2) == expected
