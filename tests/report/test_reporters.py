"""The reporters share one interface and are found by name in a registry;
``--format`` offers the registry's names (``tests/cli/test_options.py``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from lint.cli.rules import RULES_REPORTERS
from lint.explain.reporters import EXPLAIN_REPORTERS
from lint.report.json_report import render_json
from lint.report.model import Report
from lint.report.reporters import CHECK_REPORTERS, RenderOptions, registry
from lint.report.text_report import render_text
from lint.rules import RULES


def test_each_registry_lists_its_formats_in_order() -> None:
    assert list(CHECK_REPORTERS) == ["text", "json", "sarif", "github", "markdown"]
    assert list(EXPLAIN_REPORTERS) == ["text", "json"]
    assert list(RULES_REPORTERS) == ["text", "json"]
    for reporters in (CHECK_REPORTERS, EXPLAIN_REPORTERS, RULES_REPORTERS):
        assert all(reporter.name == name for name, reporter in reporters.items())


def test_a_registry_refuses_two_reporters_of_one_name() -> None:
    twin = SimpleNamespace(name="text", render=lambda report, options: "")
    with pytest.raises(ValueError, match="share a name"):
        registry(CHECK_REPORTERS["text"], twin)


def test_a_registry_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        CHECK_REPORTERS["xml"] = CHECK_REPORTERS["text"]  # type: ignore[index]


def test_the_check_reporters_render_what_their_writers_write() -> None:
    report = Report(defaults_applied=True, sandboxes=(), findings=(), parse_errors=())
    options = RenderOptions(colour=True, show_suppressed=True, category="nightly")
    assert CHECK_REPORTERS["text"].render(report, options) == render_text(
        report, colour=True, show_suppressed=True
    )
    assert CHECK_REPORTERS["json"].render(report, options) == render_json(report)
    sarif = json.loads(CHECK_REPORTERS["sarif"].render(report, options))
    assert sarif["runs"][0]["automationDetails"] == {"id": "nightly/check"}


def test_the_rules_reporters_list_every_rule() -> None:
    listed = json.loads(RULES_REPORTERS["json"].render(RULES, None))
    assert [entry["id"] for entry in listed] == [rule.id for rule in RULES]
    text = RULES_REPORTERS["text"].render(RULES, None)
    assert len(text.splitlines()) == len(RULES) and text.endswith("\n")
