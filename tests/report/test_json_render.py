"""``render_json`` writes each examined entry's text once and splices it in;
the bytes must be exactly those of the report's JSON value written compactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import render_json, report_document
from lint.report.model import (
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    IngressReport,
    Location,
    NamedReport,
    Report,
    SandboxRef,
    SandboxReport,
)
from tests.checks.scenario_runner import DEMO, SCENARIOS

TREES = [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())]


def compact(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_fixture_reports_render_to_their_json_value(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    report = run_check(CheckOptions(paths=(".",)))
    assert render_json(report) == compact(report_document(report))


def _entry(name: str, location: Location | None, detail: str | None) -> ExaminedEntry:
    return ExaminedEntry(
        kind="NetworkPolicy",
        name=name,
        namespace=None if location is None else "ns",
        verdict="does-not-select",
        detail=detail,
        origin="manifest",
        location=location,
    )


def test_shared_and_odd_entries_render_to_their_json_value() -> None:
    """One entry object under two sandboxes, entries without a location or
    namespace, text that needs escaping, and sandboxes without a union or
    ingress decision."""
    shared = _entry('quote " and \\ back', Location("a\u2028b.yaml", 3), "tab\there \x00 é 😀")
    lone = _entry("no-location", None, None)
    decision = DecisionReport(None, None, (shared, lone, shared))

    def sandbox(template: str, union: DecisionReport | None, ingress: bool) -> SandboxReport:
        egress = EgressReport(
            policy_kind="deny-all",
            engine="core",
            verify="union" if union else "named-object-only",
            expected_kind="NetworkPolicy",
            expected_name=f"{template}-egress",
            named=NamedReport("missing", None, None, None),
            union=union,
        )
        return SandboxReport(
            ref=SandboxRef("ns", template, None, "direct"),
            pod_labels={"b": "2", "a": "1"},
            egress=egress,
            ingress=IngressReport(1024, decision) if ingress else None,
            declaration=None,
        )

    report = Report(
        defaults_applied=True,
        sandboxes=(sandbox("one", decision, True), sandbox("two", None, False)),
        findings=(),
        parse_errors=(),
    )
    rendered = render_json(report)
    assert rendered == compact(report_document(report))
    entries = json.loads(rendered)["sandboxes"][0]["egress"]["union"]["examined"]
    assert entries[0] == entries[2] and entries[0]["detail"] == "tab\there \x00 é 😀"
