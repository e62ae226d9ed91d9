"""The documented order of a report's sandboxes and findings."""

from __future__ import annotations

from lint.report.model import (
    EgressReport,
    Finding,
    Location,
    NamedReport,
    SandboxRef,
    SandboxReport,
)
from lint.report.ordering import finding_key, sandbox_key


def _sandbox(template: str, path: str, profile: str | None = None) -> SandboxReport:
    named = NamedReport("match", None, None, None)
    egress = EgressReport("deny-all", "core", "union", "NetworkPolicy", "n", named, None)
    return SandboxReport(SandboxRef("ns", template, profile, path), {}, egress, None, None)


def test_sandboxes_sort_by_template_profile_then_direct_before_pooled() -> None:
    reports = [
        _sandbox("b", "direct"),
        _sandbox("a", "pooled"),
        _sandbox("a", "direct", "p"),
        _sandbox("a", "direct"),
    ]
    ordered = [
        (r.ref.template, r.ref.profile, r.ref.path) for r in sorted(reports, key=sandbox_key)
    ]
    assert ordered == [
        ("a", None, "direct"),
        ("a", None, "pooled"),
        ("a", "p", "direct"),
        ("b", None, "direct"),
    ]


def test_findings_sort_by_file_line_rule_then_sandbox() -> None:
    def finding(file: str, line: int, rule_id: str, sandbox: SandboxRef | None) -> Finding:
        return Finding(rule_id, "error", "m", Location(file, line), sandbox)

    pooled = SandboxRef("ns", "t", None, "pooled")
    direct = SandboxRef("ns", "t", None, "direct")
    findings = [
        finding("b.yaml", 1, "parse-error", None),
        finding("a.yaml", 9, "parse-error", None),
        finding("a.yaml", 2, "template-not-found", pooled),
        finding("a.yaml", 2, "template-not-found", direct),
        finding("a.yaml", 2, "template-not-found", None),
        finding("a.yaml", 2, "parse-error", None),
    ]
    ordered = sorted(findings, key=finding_key)
    assert [(f.location.file, f.location.line, f.rule_id) for f in ordered] == [
        ("a.yaml", 2, "parse-error"),
        ("a.yaml", 2, "template-not-found"),
        ("a.yaml", 2, "template-not-found"),
        ("a.yaml", 2, "template-not-found"),
        ("a.yaml", 9, "parse-error"),
        ("b.yaml", 1, "parse-error"),
    ]
    assert [f.sandbox for f in ordered[1:4]] == [None, direct, pooled]
