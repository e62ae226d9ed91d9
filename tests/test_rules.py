"""The rule table checks itself: ids, levels, help, remedies, a triggering
fixture, and docs/rules.md in sync with the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lint.rules import LEVELS, RULES
from lint.rules_doc import render_rules_doc
from tests.checks.scenario_runner import run_scenario

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
    assert (SCENARIOS / rule.example / "manifests.yaml").exists()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_example_fixture_triggers_its_rule(rule) -> None:  # type: ignore[no-untyped-def]
    report = run_scenario(rule.example).report
    assert rule.id in {f["ruleId"] for f in report["findings"]}


def test_docs_rules_md_is_generated_from_the_table() -> None:
    expected = render_rules_doc(SCENARIOS)
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m lint.rules_doc > docs/rules.md`"
    )
