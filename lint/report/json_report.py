"""``--format json``: the versioned report of REPORT.md, field for field.

Scripts outside the repository depend on this shape; adding a field is
allowed, renaming or dropping one needs a new ``schemaVersion``.
"""

from __future__ import annotations

import json
from typing import Any

from lint import __version__
from lint.report.model import (
    DecisionReport,
    ExaminedEntry,
    Finding,
    Location,
    NamedReport,
    Report,
    SandboxRef,
    SandboxReport,
)

SCHEMA_VERSION = 1


def render_json(report: Report) -> str:
    """The report as compact JSON with a final newline. Same input, same bytes."""
    document = {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "egress-lint", "version": __version__},
        "defaultsApplied": report.defaults_applied,
        "sandboxes": [_sandbox(s) for s in report.sandboxes],
        "findings": [_finding(f) for f in report.findings],
        "parseErrors": [
            {"file": e.file, "line": e.line, "message": e.message} for e in report.parse_errors
        ],
    }
    if report.stale_baseline:
        document["staleBaseline"] = list(report.stale_baseline)
    # Compact, so the C encoder writes it: a large tree examines hundreds of
    # thousands of documents. Pipe it through `jq` to read it.
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


def _ref(ref: SandboxRef) -> dict[str, Any]:
    return {
        "namespace": ref.namespace,
        "template": ref.template,
        "profile": ref.profile,
        "path": ref.path,
    }


def _sandbox(sandbox: SandboxReport) -> dict[str, Any]:
    egress = sandbox.egress
    result = _ref(sandbox.ref)
    result["podLabels"] = dict(sorted(sandbox.pod_labels.items()))
    result["egress"] = {
        "policyKind": egress.policy_kind,
        "engine": egress.engine,
        "verify": egress.verify,
        "expected": {"kind": egress.expected_kind, "name": egress.expected_name},
        "named": _named(egress.named),
        "union": _decision(egress.union) if egress.union is not None else None,
    }
    ingress = sandbox.ingress
    result["ingress"] = (
        None
        if ingress is None
        else {"agentPort": ingress.agent_port, **_decision(ingress.decision)}
    )
    return result


def _named(named: NamedReport) -> dict[str, Any]:
    return {
        "result": named.result,
        "field": named.field,
        "detail": named.detail,
        **_file_line(named.location),
    }


def _decision(decision: DecisionReport) -> dict[str, Any]:
    return {
        "refusal": decision.refusal,
        "summary": decision.summary,
        "examined": [_examined(e) for e in decision.examined],
    }


def _examined(entry: ExaminedEntry) -> dict[str, Any]:
    return {
        "kind": entry.kind,
        "name": entry.name,
        "namespace": entry.namespace,
        "verdict": entry.verdict,
        "detail": entry.detail,
        "origin": entry.origin,
        **_file_line(entry.location),
    }


def _file_line(location: Location | None) -> dict[str, Any]:
    if location is None:
        return {"file": None, "line": None}
    return {"file": location.file, "line": location.line}


def _finding(finding: Finding) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "level": finding.level,
        "message": finding.message,
        "file": finding.location.file,
        "line": finding.location.line,
        "sandbox": _ref(finding.sandbox) if finding.sandbox is not None else None,
        "suppressed": finding.suppressed,
    }
    if finding.location.source is not None:
        result["source"] = finding.location.source
    if finding.remedy:
        result["remedy"] = finding.remedy
    return result
