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
    # One culprit, one finding, across its three sandbox paths (issue 13).
    assert len(findings) == 1 and all(f["suppressed"] for f in findings)
    assert len(findings[0]["affected"]) == 3
    as_sarif = json.loads(run_cli(["check", "demo", "--format", "sarif"], tmp_path).stdout)
    results = as_sarif["runs"][0]["results"]
    assert len(results) == 1
    assert all(
        r["suppressions"] == [{"kind": "inSource", "justification": "metadata proxy is audited"}]
        for r in results
    )
    text = run_cli(["check", "demo"], tmp_path).stdout
    assert "1 suppressed" in text and "egress-policy-widens" not in text
    shown = run_cli(["check", "demo", "--show-suppressed"], tmp_path).stdout
    assert "(suppressed)" in " ".join(shown.split()) and "rule egress-policy-widens" in shown


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
    assert baseline["version"] == 1 and len(baseline["findings"]) == 1
    assert baseline["findings"][0]["culprit"]["name"] == "allow-instance-metadata"
    accepted = run_cli(
        ["check", "demo", "--baseline", "baseline.json", "--format", "sarif"], tmp_path
    )
    assert accepted.exit_code == 0
    results = json.loads(accepted.stdout)["runs"][0]["results"]
    assert [r["suppressions"][0]["kind"] for r in results] == ["external"]
    (tree / "widening-policy.yaml").unlink()
    stale = run_cli(["check", "demo", "--baseline", "baseline.json", "--format", "json"], tmp_path)
    assert stale.exit_code == 0
    assert len(stale.report["staleBaseline"]) == 1
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
    assert len(report.findings) == 1
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
    assert [f.suppression_kind for f in accepted.findings] == ["external"]
    assert render_json(accepted) == _printed(tmp_path, "--baseline", "baseline.json")
    (tree / "widening-policy.yaml").unlink()
    stale = check_run(options).report
    assert len(stale.stale_baseline) == 1
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


# -- a suppression or baseline entry covers one culprit (DESIGN §10) ----------

APPROVED = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: a-approved
  namespace: namzu-sandboxes
  annotations:
    egress-lint.io/ignore: "egress-policy-widens reason=the metadata proxy is audited"
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
    - to:
        - ipBlock: {cidr: 169.254.169.254/32}
      ports: [{protocol: TCP, port: 80}]
"""
WIDE_OPEN = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: b-wide-open
  namespace: namzu-sandboxes
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress: [{}]
"""


def _masking_tree(tmp_path: Path, *, wide_open: bool) -> Path:
    tree = _demo(tmp_path, None)
    (tree / "widening-policy.yaml").write_text(APPROVED, "utf-8")
    if wide_open:
        (tree / "wide-open.yaml").write_text(WIDE_OPEN, "utf-8")
    return tree


def _culprits(report: dict[str, object]) -> dict[str, bool]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return {f["culprit"]["name"]: f["suppressed"] for f in findings if "culprit" in f}


def test_an_annotation_on_one_policy_never_hides_a_later_one(tmp_path: Path) -> None:
    _masking_tree(tmp_path, wide_open=True)
    outcome = run_cli(["check", "demo", "--format", "json"], tmp_path)
    assert _culprits(outcome.report) == {"a-approved": True, "b-wide-open": False}
    assert outcome.exit_code == 1
    text = run_cli(["check", "demo"], tmp_path).stdout
    assert "NetworkPolicy/b-wide-open widens egress" in text


def test_a_baseline_taken_before_a_policy_never_hides_it(tmp_path: Path) -> None:
    tree = _masking_tree(tmp_path, wide_open=False)
    # Without its annotation, a-approved is the one culprit the baseline records.
    (tree / "widening-policy.yaml").write_text(
        APPROVED.replace("  annotations:\n", "").replace(
            '    egress-lint.io/ignore: "egress-policy-widens reason=the metadata proxy is '
            'audited"\n',
            "",
        ),
        "utf-8",
    )
    run_cli(["check", "demo", "--write-baseline", "baseline.json"], tmp_path)
    accepted = run_cli(["check", "demo", "--baseline", "baseline.json"], tmp_path)
    assert accepted.exit_code == 0
    (tree / "wide-open.yaml").write_text(WIDE_OPEN, "utf-8")
    outcome = run_cli(
        ["check", "demo", "--baseline", "baseline.json", "--format", "json"], tmp_path
    )
    assert _culprits(outcome.report) == {"a-approved": True, "b-wide-open": False}
    assert outcome.exit_code == 1


def test_a_baseline_entry_goes_stale_when_its_rule_changes(tmp_path: Path) -> None:
    tree = _demo(tmp_path, None)
    run_cli(["check", "demo", "--write-baseline", "baseline.json"], tmp_path)
    policy = tree / "widening-policy.yaml"
    policy.write_text(policy.read_text("utf-8").replace("port: 80", "port: 8080"), "utf-8")
    outcome = run_cli(
        ["check", "demo", "--baseline", "baseline.json", "--format", "json"], tmp_path
    )
    assert outcome.exit_code == 1
    assert len(outcome.report["staleBaseline"]) == 1


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("egress-policy-widen reason=typo", "`egress-policy-widen` is not a rule id"),
        ("egress-policy-widens", "no `reason=`"),
    ],
)
def test_a_suppression_that_suppresses_nothing_is_a_warning_at_its_line(
    tmp_path: Path, value: str, says: str
) -> None:
    _demo(tmp_path, value)
    outcome = run_cli(["check", "demo", "--format", "json"], tmp_path)
    warnings = [f for f in outcome.report["findings"] if f["ruleId"] == "suppression-malformed"]
    assert len(warnings) == 1 and warnings[0]["level"] == "warning"
    assert (warnings[0]["file"], warnings[0]["line"]) == ("demo/widening-policy.yaml", 7)
    assert says in warnings[0]["message"]
    widening = [f for f in outcome.report["findings"] if f["ruleId"] == "egress-policy-widens"]
    assert widening and not any(f["suppressed"] for f in widening)
