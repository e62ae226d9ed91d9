"""The README's first command: `egress-lint check fixtures/demo`."""

from __future__ import annotations

import shutil
from pathlib import Path

from syrupy.assertion import SnapshotAssertion

from tests.checks.scenario_runner import DEMO, REPO, run_cli


def test_demo_reports_the_widening_policy_and_exits_1(snapshot: SnapshotAssertion) -> None:
    outcome = run_cli(["check", "fixtures/demo"], REPO)
    assert outcome.exit_code == 1
    assert "fixtures/demo/widening-policy.yaml:15 egress-policy-widens" in outcome.stdout
    assert "NetworkPolicy/allow-instance-metadata" in outcome.stdout
    assert outcome.stdout == snapshot


def test_demo_json_names_every_sandbox_path() -> None:
    report = run_cli(["check", "fixtures/demo", "--format", "json"], REPO).report
    paths = [(s["template"], s["path"]) for s in report["sandboxes"]]
    assert paths == [
        ("namzu-build", "direct"),
        ("namzu-build", "pooled"),
        ("namzu-build", "warm"),
        ("namzu-task", "direct"),
    ]
    assert {f["ruleId"] for f in report["findings"]} == {"egress-policy-widens"}
    assert all(s["egress"]["named"]["result"] == "match" for s in report["sandboxes"])
    assert all(s["ingress"]["refusal"] is None for s in report["sandboxes"])


def test_demo_without_the_widening_policy_passes(tmp_path: Path) -> None:
    tree = tmp_path / "demo"
    shutil.copytree(DEMO, tree)
    (tree / "widening-policy.yaml").unlink()
    outcome = run_cli(["check", "demo"], tmp_path)
    assert outcome.exit_code == 0, outcome.stdout
    assert "0 errors" in outcome.stdout


def test_demo_text_lines_fit_80_columns() -> None:
    outcome = run_cli(["check", "fixtures/demo"], REPO)
    too_wide = [line for line in outcome.stdout.splitlines() if len(line) > 80]
    assert too_wide == []
