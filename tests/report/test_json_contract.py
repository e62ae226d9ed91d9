"""The JSON report keeps REPORT.md field for field: names, nesting, order
and types. Adding a field is allowed; renaming or dropping one is not."""

from __future__ import annotations

from typing import Any

from tests.checks.scenario_runner import REPO, SCENARIOS, run_cli

TOP = ["schemaVersion", "tool", "defaultsApplied", "sandboxes", "findings", "parseErrors"]
SANDBOX = ["namespace", "template", "profile", "path", "podLabels", "egress", "ingress"]
EGRESS = ["policyKind", "engine", "verify", "expected", "named", "union"]
NAMED = ["result", "field", "detail", "file", "line"]
DECISION = ["refusal", "summary", "examined"]
EXAMINED = ["kind", "name", "namespace", "verdict", "detail", "origin", "file", "line"]
FINDING = ["ruleId", "level", "message", "file", "line", "sandbox", "suppressed"]
SANDBOX_REF = ["namespace", "template", "profile", "path"]


def _starts_with(obj: dict[str, Any], keys: list[str]) -> None:
    assert list(obj)[: len(keys)] == keys, list(obj)


def _check_examined(entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        _starts_with(entry, EXAMINED)
        assert entry["origin"] in ("manifest", "synthesized", "generated")
        assert entry["line"] is None or entry["line"] >= 1


def _check(report: dict[str, Any]) -> None:
    _starts_with(report, TOP)
    assert list(report["controller"]) == ["version", "column", "source", "file", "line"]
    assert report["schemaVersion"] == 1
    assert report["tool"]["name"] == "egress-lint"
    for sandbox in report["sandboxes"]:
        _starts_with(sandbox, SANDBOX)
        assert sandbox["path"] in ("direct", "pooled", "warm")
        egress = sandbox["egress"]
        _starts_with(egress, EGRESS)
        # Under `host: none` without `expect` there is no named object (issue 17).
        if sandbox.get("host") == "none" and egress["expected"] is None:
            assert egress["named"] is None
        else:
            assert list(egress["expected"]) == ["kind", "name"]
            _starts_with(egress["named"], NAMED)
            assert egress["named"]["result"] in ("match", "missing", "mismatch")
        assert set(sandbox) - {*SANDBOX, "host", "workload", "claim"} == set()
        if "claim" in sandbox:  # issue 14: after every other field
            assert list(sandbox)[-1] == "claim"
        if "workload" in sandbox:
            assert list(sandbox["workload"]) == ["kind", "name"]
        if egress["union"] is not None:
            _starts_with(egress["union"], DECISION)
            _check_examined(egress["union"]["examined"])
        if sandbox["ingress"] is not None:
            _starts_with(sandbox["ingress"], ["agentPort", *DECISION])
            _check_examined(sandbox["ingress"]["examined"])
    for finding in report["findings"]:
        _starts_with(finding, FINDING)
        assert finding["level"] in ("error", "warning", "note")
        assert finding["line"] >= 1 and "\\" not in finding["file"]
        if finding["sandbox"] is not None:
            # A pooled pod judged with SandboxClaims' labels names them last.
            assert list(finding["sandbox"]) in (SANDBOX_REF, [*SANDBOX_REF, "claim"])
    for error in report["parseErrors"]:
        assert list(error) == ["file", "line", "message"]


def test_every_scenario_report_follows_the_contract() -> None:
    for directory in sorted(p for p in SCENARIOS.iterdir() if p.is_dir()):
        _check(run_cli(["check", ".", "--format", "json"], directory).report)


def test_demo_report_follows_the_contract() -> None:
    _check(run_cli(["check", "fixtures/demo", "--format", "json"], REPO).report)


def test_named_object_only_has_no_union(tmp_path: Any) -> None:
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: sbx\nsandboxes:\n"
        "  - template: task\n    external: true\n"
        "    egress: {policy: {kind: deny-all}, verify: named-object-only}\n"
        "    ingress: unverified\n",
        "utf-8",
    )
    report = run_cli(["check", ".", "--format", "json"], tmp_path).report
    egress = report["sandboxes"][0]["egress"]
    assert egress["verify"] == "named-object-only" and egress["union"] is None
    assert report["sandboxes"][0]["ingress"] is None


def test_bad_declaration_exits_2_naming_field_and_line(tmp_path: Any) -> None:
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\nsandboxes:\n  - template: task\n    egress:\n"
        "      policy: {kind: public-internet, exceptCidrs: [10.0.0.0/33]}\n",
        "utf-8",
    )
    outcome = run_cli(["check", "."], tmp_path)
    assert outcome.exit_code == 2
    assert "sandboxes[0].egress.policy.exceptCidrs" in outcome.stderr
    assert ".egress-lint.yaml:5" in outcome.stderr
    assert "Traceback" not in outcome.stderr


def test_unknown_option_is_a_usage_error(tmp_path: Any) -> None:
    assert run_cli(["check", ".", "--format", "xml"], tmp_path).exit_code == 2


def test_output_file(tmp_path: Any) -> None:
    outcome = run_cli(
        ["check", str(REPO / "fixtures" / "demo"), "--format", "json", "--output", "r.json"],
        tmp_path,
    )
    assert outcome.exit_code == 1 and outcome.stdout == ""
    assert (tmp_path / "r.json").read_text("utf-8").startswith("{")
