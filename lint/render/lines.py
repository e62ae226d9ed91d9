"""The template line of a finding in a rendered chart.

Helm cannot say which template line produced a rendered line (INTEGRATIONS
§4.1), so the check places a finding at the same offset inside the
template as inside the rendered document. When the rendered line's text
appears in the template file, that line is a better answer: the one
nearest the offset among the lines that read the same.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lint.loading.rendered import RenderedInput
from lint.report.model import Finding, Report


def template_lines(report: Report, rendered: RenderedInput) -> Report:
    """The report with each finding of this render placed on the template
    line whose text is the rendered line's, when the template has one."""
    if rendered.chart_root is None:
        return report
    lines = bytes(rendered).decode("utf-8", "replace").splitlines()
    cache: dict[str, list[str] | None] = {}
    findings = tuple(_placed(f, rendered.name, lines, cache) for f in report.findings)
    return dataclasses.replace(report, findings=findings)


def _placed(
    finding: Finding, name: str, rendered: list[str], cache: dict[str, list[str] | None]
) -> Finding:
    location = finding.location
    if location.file != name or location.source is None or not 0 < location.line <= len(rendered):
        return finding
    if location.source not in cache:
        cache[location.source] = _read(location.source)
    template = cache[location.source]
    wanted = rendered[location.line - 1].strip()
    if template is None or not wanted:
        return finding
    same = [number for number, text in enumerate(template, 1) if text.strip() == wanted]
    if not same:
        return finding
    guess = location.source_line or 1
    line = min(same, key=lambda number: (abs(number - guess), number))
    return dataclasses.replace(finding, location=dataclasses.replace(location, source_line=line))


def _read(path: str) -> list[str] | None:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
