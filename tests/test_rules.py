"""The rule table checks itself: ids, levels, help, remedies, a triggering
fixture, and docs/rules.md in sync with the code.

A scenario is checked as a user would check it: `check .` on its
manifests, or, for one whose declaration file lists `renders:` environments
(``render-failed``), a bare `check`, which renders them with the real tools
(skipped when helm is not on the PATH)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from lint.rules import LEVELS, RULES
from lint.rules_doc import render_rules_doc
from tests.checks.scenario_runner import Outcome, run_cli, run_scenario

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "fixtures" / "scenarios"


def test_rule_ids_are_unique_kebab_case() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    for rule_id in ids:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule_id), rule_id


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_record_is_complete(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.level in LEVELS
    assert rule.summary.endswith(".") and rule.help.endswith(".") and rule.remedy.endswith(".")
    assert (SCENARIOS / rule.example / "manifests.yaml").exists() or _renders(rule.example)


def _renders(scenario: str) -> bool:
    """Whether the scenario's declaration file lists `renders:` environments."""
    declaration = SCENARIOS / scenario / ".egress-lint.yaml"
    text = declaration.read_text(encoding="utf-8") if declaration.is_file() else ""
    return re.search(r"^renders:", text, re.MULTILINE) is not None


def _example_run(scenario: str) -> Outcome:
    if not _renders(scenario):
        return run_scenario(scenario)
    if shutil.which("helm") is None:
        pytest.skip("helm is not on the PATH (bash ../shared/tools/k8s-tools.sh DIR installs it)")
    return run_cli(["check", "--renders", "--format", "json"], SCENARIOS / scenario)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_example_fixture_triggers_its_rule(rule) -> None:  # type: ignore[no-untyped-def]
    report = _example_run(rule.example).report
    assert rule.id in {f["ruleId"] for f in report["findings"]}


def test_docs_rules_md_is_generated_from_the_table() -> None:
    expected = render_rules_doc(SCENARIOS)
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m lint.rules_doc > docs/rules.md`"
    )
