"""The README's first command: `egress-lint check fixtures/demo`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from syrupy.assertion import SnapshotAssertion

from tests.checks.scenario_runner import DEMO, REPO, run_cli


def test_demo_reports_the_widening_policy_and_exits_1(snapshot: SnapshotAssertion) -> None:
    outcome = run_cli(["check", "fixtures/demo"], REPO)
    assert outcome.exit_code == 1
    words = " ".join(outcome.stdout.split())
    assert (
        "error fixtures/demo/widening-policy.yaml:15 NetworkPolicy/allow-instance-metadata "
        "widens egress of 3 sandbox paths" in words
    )
    # One culprit, one finding, listing its three sandbox paths (issue 13).
    assert outcome.stdout.count("rule egress-policy-widens") == 1
    assert outcome.stdout.count("FAIL ") == 3 and "1 error," in outcome.stdout
    assert "named-object-only" not in outcome.stdout and "named policy" not in outcome.stdout
    assert outcome.stdout == snapshot


def test_demo_sarif_is_one_result_naming_three_sandbox_paths() -> None:
    sarif = json.loads(run_cli(["check", "fixtures/demo", "--format", "sarif"], REPO).stdout)
    (result,) = sarif["runs"][0]["results"]
    text = result["message"]["text"]
    assert "3 sandbox paths" in text
    for path in ("namzu-build direct", "namzu-build pooled", "namzu-task direct"):
        assert f"namzu-sandboxes/{path}" in text
    related = {
        (r["physicalLocation"]["artifactLocation"]["uri"]) for r in result["relatedLocations"]
    }
    assert related == {"fixtures/demo/.egress-lint.yaml", "fixtures/demo/templates.yaml"}


def test_demo_text_says_peers_in_words_and_lists_examined_only_when_verbose() -> None:
    plain = run_cli(["check", "fixtures/demo"], REPO).stdout
    assert "lets out: spec.egress[0]: peer 169.254.169.254/32 on TCP 80" in " ".join(plain.split())
    assert "examined" not in plain and '{"cidr"' not in plain
    verbose = run_cli(["check", "fixtures/demo", "--verbose"], REPO).stdout
    assert "union examined:" in verbose
    quiet = run_cli(["check", "fixtures/demo", "--quiet"], REPO).stdout
    assert quiet.startswith("error fixtures/demo/widening-policy.yaml:15")
    assert "FAIL" not in quiet and "sandbox path(s) checked" not in quiet


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
