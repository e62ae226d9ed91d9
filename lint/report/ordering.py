"""The documented order of a report: sandboxes, then findings (REPORT.md).

Every reporter prints sandboxes and findings in this order, so two runs on
the same input print the same report whatever order the checks ran in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from lint.report.model import Finding, SandboxRef, SandboxReport

_PATH_ORDER: Final = {"direct": 0, "pooled": 1, "warm": 2}
_NO_SANDBOX: Final = ("", "", "", -1, "")


def _sandbox_order(ref: SandboxRef) -> tuple[str, str, str, int, str]:
    """Namespace, template, profile, then the direct path before the pooled
    one before the warm one, then the claims a pooled pod's labels come from."""
    return (
        ref.namespace,
        ref.template,
        ref.profile or "",
        _PATH_ORDER.get(ref.path, 3),
        ref.claim or "",
    )


def sandbox_order(ref: SandboxRef) -> tuple[str, str, str, int, str]:
    """The order of sandbox paths, for a finding's affected list."""
    return _sandbox_order(ref)


def sandbox_key(report: SandboxReport) -> tuple[str, str, str, int, str]:
    """The order of sandbox reports."""
    return _sandbox_order(report.ref)


def finding_key(finding: Finding) -> tuple[object, ...]:
    """The documented total order of findings: file, line, rule id, sandbox
    (namespace, template, profile, path), message, then everything else a
    finding carries, so no two different findings tie."""
    sandbox = finding.sandbox
    location = finding.location
    related = tuple((r.file, r.line, r.source or "") for r in finding.related)
    subject = finding.subject
    subject_key = (
        (subject.kind, subject.namespace or "", subject.name)
        if subject is not None
        else ("", "", "")
    )
    return (
        location.file,
        location.line,
        finding.rule_id,
        _sandbox_order(sandbox) if sandbox is not None else _NO_SANDBOX,
        finding.message,
        location.source or "",
        related,
        subject_key,
        finding.remedy,
    )


def findings_by_path(
    findings: Iterable[Finding],
) -> dict[tuple[SandboxRef, str | None], list[Finding]]:
    """Each sandbox path's findings, by path and ``renders:`` environment,
    in the order given, gathered once (a scan of every finding per sandbox
    grew with the square of the sandboxes, issue 18). A finding that lists
    a path twice is that path's once."""
    by_path: dict[tuple[SandboxRef, str | None], list[Finding]] = {}
    for finding in findings:
        for ref in dict.fromkeys(finding.paths):
            by_path.setdefault((ref, finding.environment), []).append(finding)
    return by_path
