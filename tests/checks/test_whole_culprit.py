"""A finding shows the whole culprit: every offending rule of the policy, in
rule order, each at its own line, in every format; the rule that stays
inside the allowance is not named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.checks.scenario_runner import SCENARIOS, run_cli, run_scenario

NAME = "several-widening-rules"
OFFENDING = {"spec.egress[0]": 32, "spec.egress[2]": 41, "spec.egress[3]": 46}
INSIDE = "spec.egress[1]"


def _culprit_finding(report: dict[str, Any]) -> dict[str, Any]:
    (finding,) = [f for f in report["findings"] if f["ruleId"] == "egress-policy-widens"]
    return finding


def test_json_lists_every_offending_rule_at_its_line() -> None:
    finding = _culprit_finding(run_scenario(NAME).report)
    culprit = finding["culprit"]
    rules = culprit["rules"]
    assert [(r["path"], r["file"], r["line"]) for r in rules] == [
        (path, "manifests.yaml", line) for path, line in OFFENDING.items()
    ]
    assert culprit["letsOut"] == [r["letsOut"] for r in rules]
    assert "0.0.0.0/0" in rules[1]["letsOut"] and "TCP 443" in rules[1]["letsOut"]
    assert (finding["file"], finding["line"]) == ("manifests.yaml", 32)
    assert INSIDE not in json.dumps(finding)


def test_text_names_each_rule_with_its_line() -> None:
    text = run_cli(["check", "."], SCENARIOS / NAME).stdout
    for path, line in OFFENDING.items():
        assert f"lets out (line {line}): {path}:" in text
    assert INSIDE not in text


def test_sarif_names_each_rule_and_places_it() -> None:
    sarif = json.loads(run_cli(["check", ".", "--format", "sarif"], SCENARIOS / NAME).stdout)
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "egress-policy-widens"]
    for path in OFFENDING:
        assert path in result["message"]["text"]
    placed = {
        loc["physicalLocation"]["region"]["startLine"]: loc["message"]["text"]
        for loc in result["relatedLocations"]
        if "message" in loc
    }
    assert sorted(placed) == sorted(OFFENDING.values())
    for path, line in OFFENDING.items():
        assert placed[line].startswith(path)


@pytest.mark.parametrize("fmt", ["github", "markdown"])
def test_one_line_formats_name_every_rule(fmt: str) -> None:
    output = run_cli(["check", ".", "--format", fmt], SCENARIOS / NAME).stdout
    for path in OFFENDING:
        assert path in output, (fmt, path)
    assert INSIDE not in output


def test_a_single_rule_culprit_reads_as_before() -> None:
    """One offending rule: its line is the finding's, so the text names none."""
    text = run_cli(["check", "."], SCENARIOS / "cilium-widens").stdout
    assert "lets out: spec.egress[0]:" in text
    assert "lets out (line" not in text


def test_a_wide_ip_block_names_what_it_lets_out_beyond_the_allowance() -> None:
    """The allowance holds the public internet on TCP 443; the policy's
    0.0.0.0/0 except 10.0.0.0/8 also holds two private ranges."""
    finding = _culprit_finding(run_scenario("wide-ip-block").report)
    (clause,) = finding["culprit"]["letsOut"]
    assert clause.endswith("(outside the allowance: 172.16.0.0/12 and 192.168.0.0/16 on TCP 443)")
    for fmt in ("text", "sarif", "github", "markdown"):
        output = run_cli(["check", ".", "--format", fmt], SCENARIOS / "wide-ip-block").stdout
        assert "172.16.0.0/12 and 192.168.0.0/16" in output.replace("\n    ", " "), fmt


@pytest.mark.parametrize("fmt", ["github", "markdown", "sarif"])
def test_one_line_formats_give_each_rule_its_line(fmt: str) -> None:
    output = run_cli(["check", ".", "--format", fmt], SCENARIOS / NAME).stdout
    for path, line in OFFENDING.items():
        assert f"{path} (line {line}):" in output, (fmt, path)
