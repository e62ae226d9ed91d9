"""One report from the reports of several ``renders:`` environments.

Each environment is rendered and checked on its own (DESIGN §11); its
sandboxes and findings are tagged with its name, and the reports are
joined in the order the declaration file lists the environments, so one
SARIF run, one JSON document and one text report cover them all. An
environment that could not be rendered is one ``render-failed`` finding
(``failed_environment``).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from lint.report.escaping import neutralise
from lint.report.model import Finding, Location, Report
from lint.rules import rule as rule_of


def in_environment(report: Report, name: str) -> Report:
    """The report with every sandbox and finding tagged with ``name``."""
    return replace(
        report,
        sandboxes=tuple(replace(s, environment=name) for s in report.sandboxes),
        findings=tuple(replace(f, environment=name) for f in report.findings),
    )


def joined(reports: Sequence[Report]) -> Report:
    """The environments' reports as one, in the order given. A baseline
    entry is stale only when no environment used it."""
    first = reports[0]
    skipped: dict[str, int] = {}
    for report in reports:
        for kind, count in report.skipped.items():
            skipped[kind] = skipped.get(kind, 0) + count
    stale = set(first.stale_baseline)
    for report in reports[1:]:
        stale &= set(report.stale_baseline)
    errors = {error for report in reports for error in report.parse_errors}
    return Report(
        defaults_applied=any(r.defaults_applied for r in reports),
        sandboxes=tuple(s for r in reports for s in r.sandboxes),
        findings=tuple(f for r in reports for f in r.findings),
        parse_errors=tuple(sorted(errors, key=lambda e: (e.file, e.line, e.message))),
        declaration_file=first.declaration_file,
        skipped=dict(sorted(skipped.items())),
        files=sum(r.files for r in reports),
        stale_baseline=tuple(s for s in first.stale_baseline if s in stale),
    )


def failed_environment(report: Report, message: str, location: Location) -> Report:
    """The report of an environment whose render failed, was refused or
    overran: its one finding is ``render-failed`` at ``location`` (the
    environment's ``renders:`` entry), with the renderer's ``message``
    neutralised, and it affects every sandbox path of ``report``, the run
    over the empty stream that stood in for the render. Those sandboxes
    keep that run's verdicts, which fail closed (the stream is unreadable
    input, so nothing in the environment is judged open); the findings
    that run drew from the missing manifests (a named policy or template
    not found, a parse error of a stream that does not exist) say nothing
    the one finding does not, and go."""
    rule = rule_of("render-failed")
    paths = tuple(sandbox.ref for sandbox in report.sandboxes)
    finding = Finding(
        rule_id=rule.id,
        level=rule.level,
        message=neutralise(message),
        location=location,
        sandbox=paths[0] if paths else None,
        remedy=rule.remedy,
        affected=paths,
    )
    return replace(report, findings=(finding,), parse_errors=(), stale_baseline=())
