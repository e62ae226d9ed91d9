"""SARIF for code scanning: valid against the OASIS 2.1.0 schema, within
GitHub's rules (INTEGRATIONS.md §1), Helm mapping, stable fingerprints."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from syrupy.assertion import SnapshotAssertion

from lint import __version__
from lint.rules import RULES
from tests.checks.scenario_runner import DEMO, REPO, SCENARIOS, run_cli

SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))
HELM = REPO / "fixtures" / "helm"


def sarif(args: list[str], cwd: Path = REPO) -> dict[str, Any]:
    outcome = run_cli(["check", *args, "--format", "sarif"], cwd)
    assert outcome.exit_code in (0, 1), outcome.stderr
    return json.loads(outcome.stdout)


def assert_github_rules(log: dict[str, Any]) -> None:
    """GitHub's ingestion rules (INTEGRATIONS.md §1.1, §1.4)."""
    assert log["$schema"] and log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    run = log["runs"][0]
    assert isinstance(run["results"], list) and len(run["results"]) <= 25_000
    assert run["automationDetails"]["id"].count("/") >= 1
    driver = run["tool"]["driver"]
    assert driver["name"] and driver["version"] and driver["rules"]
    for rule in driver["rules"]:
        assert rule["id"] and len(rule["name"]) <= 255
        assert 0 < len(rule["shortDescription"]["text"]) <= 1024
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("note", "warning", "error")
        severity = rule["properties"]["security-severity"]
        assert isinstance(severity, str) and 0.1 <= float(severity) <= 10.0
        assert len(rule["properties"]["tags"]) <= 20
    ids = [r["id"] for r in driver["rules"]]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"]
        assert len(result["locations"]) == 1
        for location in result["locations"] + result.get("relatedLocations", []):
            physical = location["physicalLocation"]
            assert physical["artifactLocation"]["uri"]
            # Relative to a base the run defines: never a path of this machine.
            assert physical["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
            assert ":" not in physical["artifactLocation"]["uri"]
            assert physical["region"]["startLine"] >= 1
        assert result["partialFingerprints"]["primaryLocationLineHash"]
    assert len(gzip.compress(json.dumps(log).encode())) < 10 * 1024 * 1024


FIXTURES = (
    [pytest.param(["fixtures/demo"], id="demo")]
    + [
        pytest.param([f"fixtures/scenarios/{p.name}"], id=p.name)
        for p in sorted(SCENARIOS.iterdir())
        if p.is_dir()
    ]
    + [
        pytest.param(
            [
                "fixtures/helm/rendered",
                "--config",
                "fixtures/helm/.egress-lint.yaml",
                "--helm-chart-root",
                "fixtures/helm/chart/namzu-sandbox",
            ],
            id="helm",
        )
    ]
)


@pytest.mark.parametrize("args", FIXTURES)
def test_sarif_is_valid_and_fit_for_github(args: list[str]) -> None:
    log = sarif(args)
    jsonschema.validate(log, SCHEMA)
    assert_github_rules(log)


def test_every_rule_is_in_the_catalog() -> None:
    log = sarif(["fixtures/demo"])
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == [r.id for r in RULES]


def test_helm_findings_sit_on_chart_templates() -> None:
    log = sarif(FIXTURES[-1].values[0])
    results = log["runs"][0]["results"]
    widening = [r for r in results if r["ruleId"] == "egress-policy-widens"]
    assert len(widening) == 1
    primary = widening[0]["locations"][0]["physicalLocation"]
    assert (
        primary["artifactLocation"]["uri"]
        == "fixtures/helm/chart/namzu-sandbox/templates/policies.yaml"
    )
    assert (REPO / primary["artifactLocation"]["uri"]).exists()
    related = [
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for loc in widening[0]["relatedLocations"]
    ]
    assert "fixtures/helm/rendered/all.yaml" in related


def test_helm_split_source_comment_belongs_to_the_next_document() -> None:
    report = json.loads(
        run_cli(
            [
                "check",
                "fixtures/helm/rendered",
                "--config",
                "fixtures/helm/.egress-lint.yaml",
                "--format",
                "json",
            ],
            REPO,
        ).stdout
    )
    named = report["sandboxes"][0]["egress"]["named"]
    assert named["result"] == "match"
    finding = next(f for f in report["findings"] if f["ruleId"] == "egress-policy-widens")
    assert finding["source"] == "namzu-sandbox/templates/policies.yaml"


def _fingerprints(log: dict[str, Any]) -> list[str]:
    return sorted(
        r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]
    )


def test_fingerprints_survive_line_shifts(tmp_path: Path) -> None:
    tree = tmp_path / "demo"
    shutil.copytree(DEMO, tree)
    before = sarif(["demo"], tmp_path)
    widening = tree / "widening-policy.yaml"
    widening.write_text("# a comment\n\n# moved down\n" + widening.read_text("utf-8"), "utf-8")
    (tree / "zz-extra.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "utf-8"
    )
    after = sarif(["demo"], tmp_path)
    lines_before = [
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in before["runs"][0]["results"]
    ]
    lines_after = [
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in after["runs"][0]["results"]
    ]
    assert lines_before != lines_after
    assert _fingerprints(before) == _fingerprints(after)


def test_demo_sarif_snapshot(snapshot: SnapshotAssertion) -> None:
    outcome = run_cli(["check", "fixtures/demo", "--format", "sarif"], REPO)
    assert outcome.stdout.replace(__version__, "X.Y.Z") == snapshot
