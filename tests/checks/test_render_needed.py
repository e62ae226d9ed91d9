"""A Helm chart or Kustomize directory named among the paths: one
``render-needed`` finding that says how to check it rendered, every sandbox
failing closed with the chart or overlay named as itself, and never a
parse error or a made-up NetworkPolicy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.checks.scenario_runner import REPO, SCENARIOS, run_cli, run_scenario

SCENARIO = SCENARIOS / "render-needed"


def _findings(report: dict[str, Any], rule_id: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["ruleId"] == rule_id]


def test_each_unrendered_tree_is_one_finding_at_its_own_file() -> None:
    outcome = run_scenario("render-needed")
    assert outcome.exit_code == 1
    report = outcome.report
    found = {f["file"]: f for f in _findings(report, "render-needed")}
    assert sorted(found) == ["chart/Chart.yaml", "overlay/kustomization.yaml"]
    assert "`egress-lint check --helm chart`" in found["chart/Chart.yaml"]["remedy"]
    assert "helm: chart}]" in found["chart/Chart.yaml"]["remedy"]  # the renders: entry
    overlay = found["overlay/kustomization.yaml"]["remedy"]
    assert "`egress-lint check --kustomize overlay`" in overlay
    assert "kustomize: overlay}]" in overlay
    for finding in found.values():
        assert finding["level"] == "error"
        assert [a["path"] for a in finding["affected"]] == ["direct"]


def test_no_parse_error_and_no_made_up_policy() -> None:
    report = run_scenario("render-needed").report
    assert report["parseErrors"] == []
    assert _findings(report, "parse-error") == []
    assert _findings(report, "egress-not-evaluable") == []
    assert "(unparsed" not in json.dumps(report)
    (sandbox,) = report["sandboxes"]
    union = sandbox["egress"]["union"]
    assert union["refusal"] == "not-evaluable"
    listed = {(e["kind"], e["name"]): e for e in union["examined"]}
    assert listed[("HelmChart", "chart")]["verdict"] == "not-evaluable"
    assert listed[("Kustomization", "overlay")]["verdict"] == "not-evaluable"
    assert not any(kind == "NetworkPolicy" and name != "task-egress" for kind, name in listed)


def test_a_sandbox_no_host_reads_fails_closed_too(tmp_path: Path) -> None:
    """Without a declaration the template is judged for the cluster alone
    (``host: none``): the unrendered trees still fail it, named."""
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIO, tree)
    (tree / ".egress-lint.yaml").unlink()
    (tree / "expected.json").unlink()
    outcome = run_cli(["check", ".", "--format", "json"], tree)
    assert outcome.exit_code == 1
    for finding in _findings(outcome.report, "render-needed"):
        assert [a["path"] for a in finding["affected"]] == ["pooled"]
    text = run_cli(["check", "."], tree).stdout
    assert "FAIL sbx/task [pooled path]: HelmChart/chart, Kustomization/overlay" in text


def test_a_chart_with_no_sandbox_still_gets_its_finding(tmp_path: Path) -> None:
    """Nothing to judge is no reason to be silent: the chart is named."""
    shutil.copytree(SCENARIO / "chart", tmp_path / "chart")
    outcome = run_cli(["check", ".", "--format", "json"], tmp_path)
    assert outcome.exit_code == 1
    (finding,) = outcome.report["findings"]
    assert (finding["ruleId"], finding["file"], finding["line"]) == (
        "render-needed",
        "chart/Chart.yaml",
        1,
    )
    assert "`egress-lint check --helm chart`" in finding["message"]
    assert outcome.report["parseErrors"] == []


@pytest.mark.parametrize("fmt", ["text", "sarif", "github", "markdown", "json"])
def test_every_format_names_the_rule_and_no_parse_error(fmt: str) -> None:
    outcome = run_cli(["check", "fixtures/helm", "--format", fmt], REPO)
    assert outcome.exit_code == 1
    assert "render-needed" in outcome.stdout
    assert "(unparsed" not in outcome.stdout
    # SARIF lists every rule in its catalog; no result may be a parse error.
    if fmt == "sarif":
        results = json.loads(outcome.stdout)["runs"][0]["results"]
        assert "parse-error" not in {r["ruleId"] for r in results}
    else:
        assert "parse-error" not in outcome.stdout
