"""Joining the reports of `renders:` environments, and placing a rendered
finding on its template line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.loading import RenderedInput
from lint.render.lines import stream_reader, template_lines
from lint.report.environments import in_environment, joined
from lint.report.model import Finding, Location, ParseErrorReport, Report


def _report(*findings: Finding, stale: tuple[str, ...] = (), files: int = 1) -> Report:
    return Report(
        defaults_applied=False,
        sandboxes=(),
        findings=findings,
        parse_errors=(ParseErrorReport("a.yaml", 1, "bad"),),
        skipped={"Deployment": 2},
        files=files,
        stale_baseline=stale,
    )


def test_environments_are_tagged_and_joined_in_order() -> None:
    widening = Finding("egress-policy-widens", "error", "widens", Location("x", 3))
    prod = in_environment(_report(widening, stale=("a", "b")), "prod")
    dev = in_environment(_report(widening, stale=("b", "c"), files=2), "dev")
    report = joined([prod, dev])
    assert [f.environment for f in report.findings] == ["prod", "dev"]
    # A baseline entry is stale only when no environment used it.
    assert report.stale_baseline == ("b",)
    assert report.files == 3 and report.skipped == {"Deployment": 4}
    assert report.parse_errors == (ParseErrorReport("a.yaml", 1, "bad"),)


def test_a_rendered_finding_lands_on_the_template_line_that_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    template = tmp_path / "chart" / "templates" / "p.yaml"
    template.parent.mkdir(parents=True)
    template.write_text(
        "{{- if .Values.on }}\nkind: X\nspec:\n  - to: all\n  - to: all\n{{- end }}\n"
    )
    rendered = RenderedInput(
        b"---\n# Source: c/templates/p.yaml\nkind: X\nspec:\n  - to: all\n",
        "<helm template chart>",
        "chart",
    )
    finding = Finding(
        "egress-policy-widens",
        "error",
        "widens",
        Location("<helm template chart>", 5, "chart/templates/p.yaml", 3),
    )
    (placed,) = template_lines(_report(finding), stream_reader(rendered, "<stdin>")).findings
    # Lines 4 and 5 both read `- to: all`; 4 is nearest the offset guess (3).
    assert placed.location.source_line == 4
    elsewhere = Finding("parse-error", "error", "bad", Location("other.yaml", 5, None, None))
    assert template_lines(_report(elsewhere), stream_reader(rendered, "<stdin>")).findings == (
        elsewhere,
    )
