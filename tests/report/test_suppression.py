"""Suppressions: annotations and baselines mark findings, never drop them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lint.checks.runner import CheckOptions, check_run
from lint.report.json_report import render_json
from lint.suppression import BaselineError, parse_ignore
from tests.checks.scenario_runner import DEMO, run_cli

ANNOTATED = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-instance-metadata
  namespace: namzu-sandboxes
  annotations:
    egress-lint.io/ignore: "{value}"
spec:
  podSelector:
    matchExpressions:
      - key: sandbox.namzu.ai/template
        operator: Exists
  policyTypes: [Egress]
  egress:
    - to:
        - ipBlock:
            cidr: 169.254.169.254/32
      ports:
        - protocol: TCP
          port: 80
"""


@pytest.mark.parametrize(
    ("value", "rules", "reason"),
    [
        (
            "egress-policy-widens reason=metadata proxy is audited",
            {"egress-policy-widens"},
            "metadata proxy is audited",
        ),
        ("a-b, c-d reason=x", {"a-b", "c-d"}, "x"),
    ],
)
def test_parse_ignore(value: str, rules: set[str], reason: str) -> None:
    ignore = parse_ignore(value)
    assert ignore is not None and ignore.rules == rules and ignore.reason == reason


@pytest.mark.parametrize(
    "value", ["egress-policy-widens", "reason=x", "", "egress-policy-widens reason="]
)
def test_ignore_without_rule_or_reason_is_not_honoured(value: str) -> None:
    assert parse_ignore(value) is None


def _demo(tmp_path: Path, annotation: str | None) -> Path:
    tree = tmp_path / "demo"
    shutil.copytree(DEMO, tree)
    if annotation is not None:
        (tree / "widening-policy.yaml").write_text(ANNOTATED.format(value=annotation), "utf-8")
    return tree


def test_annotation_suppresses_in_every_format(tmp_path: Path) -> None:
    _demo(tmp_path, "egress-policy-widens reason=metadata proxy is audited")
    as_json = run_cli(["check", "demo", "--format", "json"], tmp_path)
    assert as_json.exit_code == 0
    findings = as_json.report["findings"]
    assert len(findings) == 3 and all(f["suppressed"] for f in findings)
    as_sarif = json.loads(run_cli(["check", "demo", "--format", "sarif"], tmp_path).stdout)
    results = as_sarif["runs"][0]["results"]
    assert len(results) == 3
    assert all(
        r["suppressions"] == [{"kind": "inSource", "justification": "metadata proxy is audited"}]
        for r in results
    )
    text = run_cli(["check", "demo"], tmp_path).stdout
    assert "3 suppressed" in text and "egress-policy-widens" not in text
    shown = run_cli(["check", "demo", "--show-suppressed"], tmp_path).stdout
    assert "egress-policy-widens (suppressed)" in shown


def test_annotation_for_another_rule_suppresses_nothing(tmp_path: Path) -> None:
    _demo(tmp_path, "agent-port-open reason=not this one")
    outcome = run_cli(["check", "demo", "--format", "json"], tmp_path)
    assert outcome.exit_code == 1
    assert not any(f["suppressed"] for f in outcome.report["findings"])


def test_baseline_accepts_what_exists_and_reports_stale_entries(tmp_path: Path) -> None:
    tree = _demo(tmp_path, None)
    written = run_cli(["check", "demo", "--write-baseline", "baseline.json"], tmp_path)
    assert written.exit_code == 1  # writing a baseline does not hide the current run
    baseline = json.loads((tmp_path / "baseline.json").read_text("utf-8"))
    assert baseline["version"] == 1 and len(baseline["findings"]) == 3
    accepted = run_cli(
        ["check", "demo", "--baseline", "baseline.json", "--format", "sarif"], tmp_path
    )
    assert accepted.exit_code == 0
    results = json.loads(accepted.stdout)["runs"][0]["results"]
    assert [r["suppressions"][0]["kind"] for r in results] == ["external"] * 3
    (tree / "widening-policy.yaml").unlink()
    stale = run_cli(["check", "demo", "--baseline", "baseline.json", "--format", "json"], tmp_path)
    assert stale.exit_code == 0
    assert len(stale.report["staleBaseline"]) == 3
    assert "stale" in run_cli(["check", "demo", "--baseline", "baseline.json"], tmp_path).stdout


def test_new_finding_is_not_hidden_by_an_old_baseline(tmp_path: Path) -> None:
    tree = _demo(tmp_path, None)
    (tree / "widening-policy.yaml").unlink()
    run_cli(["check", "demo", "--write-baseline", "baseline.json"], tmp_path)
    shutil.copy(DEMO / "widening-policy.yaml", tree / "widening-policy.yaml")
    outcome = run_cli(["check", "demo", "--baseline", "baseline.json"], tmp_path)
    assert outcome.exit_code == 1


def test_unreadable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    _demo(tmp_path, None)
    (tmp_path / "baseline.json").write_text("{not json", "utf-8")
    outcome = run_cli(["check", "demo", "--baseline", "baseline.json"], tmp_path)
    assert outcome.exit_code == 2
    assert "baseline" in outcome.stderr


# -- suppression is part of the run: check_run() gives what the CLI prints ----


def _printed(tmp_path: Path, *args: str) -> str:
    outcome = run_cli(["check", "demo", "--format", "json", "--jobs", "1", *args], tmp_path)
    assert outcome.exit_code in (0, 1), outcome.stderr
    return outcome.stdout


def test_a_library_caller_gets_the_annotated_findings_the_cli_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _demo(tmp_path, "egress-policy-widens reason=metadata proxy is audited")
    printed = _printed(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = check_run(CheckOptions(("demo",))).report
    assert len(report.findings) == 3
    assert all(f.suppression_kind == "inSource" for f in report.findings)
    assert render_json(report) == printed


def test_a_library_caller_gets_the_baseline_findings_the_cli_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _demo(tmp_path, None)
    run_cli(["check", "demo", "--write-baseline", "baseline.json"], tmp_path)
    monkeypatch.chdir(tmp_path)
    options = CheckOptions(("demo",), baseline=Path("baseline.json"))
    accepted = check_run(options).report
    assert [f.suppression_kind for f in accepted.findings] == ["external"] * 3
    assert render_json(accepted) == _printed(tmp_path, "--baseline", "baseline.json")
    (tree / "widening-policy.yaml").unlink()
    stale = check_run(options).report
    assert len(stale.stale_baseline) == 3
    assert render_json(stale) == _printed(tmp_path, "--baseline", "baseline.json")


def test_a_library_caller_gets_the_baseline_error_the_cli_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _demo(tmp_path, None)
    (tmp_path / "baseline.json").write_text("{not json", "utf-8")
    outcome = run_cli(["check", "demo", "--baseline", "baseline.json"], tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BaselineError) as raised:
        check_run(CheckOptions(("demo",), baseline=Path("baseline.json")))
    assert (outcome.exit_code, outcome.stderr) == (2, f"egress-lint: {raised.value}\n")
