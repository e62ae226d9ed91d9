"""``--format json``: the versioned report of REPORT.md, field for field.

Scripts outside the repository depend on this shape; adding a field is
allowed, renaming or dropping one needs a new ``schemaVersion``.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from lint import __version__
from lint.report.model import (
    ControllerReport,
    Culprit,
    DecisionReport,
    ExaminedEntry,
    Finding,
    Location,
    NamedReport,
    ReachReport,
    Report,
    SandboxRef,
    SandboxReport,
    SkippedEntry,
)

SCHEMA_VERSION = 1


def report_document(report: Report) -> dict[str, Any]:
    """The report as the JSON value REPORT.md describes, built in one piece.
    ``render_json`` writes the same value faster."""
    document = _head(report)
    document["sandboxes"] = [_sandbox(s) for s in report.sandboxes]
    document.update(_tail(report))
    return document


def render_json(report: Report) -> str:
    """The report as compact JSON with a final newline: the bytes of
    ``report_document`` written compactly. Same input, same bytes.

    A large tree lists the same examined entry under many sandboxes (the
    check reuses one entry for every sandbox that judged the document the
    same way), so each entry is encoded once and its text reused; that, not
    the encoder, was most of the cost of writing a report.
    """
    fragments = _Fragments()
    sandboxes = ",".join(fragments.sandbox(s) for s in report.sandboxes)
    head, tail = _encode(_head(report)), _encode(_tail(report))
    return f'{head[:-1]},"sandboxes":[{sandboxes}],{tail[1:]}\n'


# Compact, so the C encoder writes it. Pipe the report through `jq` to read it.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_escape = encode_basestring  # what `_encode` writes for a str


def _head(report: Report) -> dict[str, Any]:
    return {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "egress-lint", "version": __version__},
        "defaultsApplied": report.defaults_applied,
    }


def _controller(controller: ControllerReport) -> dict[str, Any]:
    return {
        "version": controller.version,
        "column": controller.column,
        "source": controller.source,
        **_file_line(controller.location),
    }


def _tail(report: Report) -> dict[str, Any]:
    tail: dict[str, Any] = {
        "findings": [_finding(f) for f in report.findings],
        "parseErrors": [
            {"file": e.file, "line": e.line, "message": e.message} for e in report.parse_errors
        ],
    }
    if report.stale_baseline:
        tail["staleBaseline"] = list(report.stale_baseline)
    if report.controller is not None:
        # Added last, so every earlier field keeps its place (REPORT.md).
        tail["controller"] = _controller(report.controller)
    return tail


class _Fragments:
    """Encodes sandboxes, writing each distinct examined entry's text once."""

    def __init__(self) -> None:
        # Keyed by identity: the report keeps every entry alive while it is
        # written, so no id is reused meanwhile.
        self._texts: dict[int, str] = {}

    def sandbox(self, sandbox: SandboxReport) -> str:
        document = _sandbox(sandbox, examined=False)
        egress = document.pop("egress")
        del document["ingress"], egress["union"], egress["reach"]
        # `host` and `workload` (issue 17) come last, after `ingress`.
        extra = {key: document.pop(key) for key in ("host", "workload") if key in document}
        trailer = f",{_encode(extra)[1:-1]}" if extra else ""
        union, ingress = sandbox.egress.union, sandbox.ingress
        union_text = "null" if union is None else self._decision(union, {})
        reach = sandbox.egress.reach
        reach_text = "null" if reach is None else self._reach(reach)
        ingress_text = "null"
        if ingress is not None:
            ingress_reach = "null" if ingress.reach is None else self._decision(ingress.reach, {})
            ingress_text = self._decision(
                ingress.decision, {"agentPort": ingress.agent_port}, f',"reach":{ingress_reach}'
            )
        claim = "" if sandbox.ref.claim is None else f',"claim":{_escape(sandbox.ref.claim)}'
        return (
            f'{_encode(document)[:-1]},"egress":{_encode(egress)[:-1]},"union":{union_text}'
            f',"reach":{reach_text}}},"ingress":{ingress_text}{trailer}{claim}}}'
        )

    def _decision(self, decision: DecisionReport, head: dict[str, Any], tail: str = "") -> str:
        fields = {**head, **_decision(decision, examined=False)}
        known = self._texts.get
        examined = ",".join([known(id(e)) or self._entry(e) for e in decision.examined])
        return f'{_encode(fields)[:-1]},"examined":[{examined}]{tail}}}'

    def _reach(self, reach: ReachReport) -> str:
        skipped = _encode([_skipped(s) for s in reach.skipped])
        return self._decision(reach.decision, {}, f',"skipped":{skipped}')

    def _entry(self, entry: ExaminedEntry) -> str:
        text = _entry_text(entry)
        self._texts[id(entry)] = text
        return text


def _entry_text(entry: ExaminedEntry) -> str:
    """``_examined(entry)`` encoded, field by field: the encoder's own
    string escaping without building a dict per entry."""
    location = entry.location
    file, line = (None, None) if location is None else (location.file, location.line)
    return (
        f'{{"kind":{_string(entry.kind)},"name":{_string(entry.name)}'
        f',"namespace":{_string(entry.namespace)},"verdict":{_string(entry.verdict)}'
        f',"detail":{_string(entry.detail)},"origin":{_string(entry.origin)}'
        f',"file":{_string(file)},"line":{"null" if line is None else line}}}'
    )


def _string(text: str | None) -> str:
    return "null" if text is None else _escape(text)


def _ref(ref: SandboxRef) -> dict[str, Any]:
    result: dict[str, Any] = {
        "namespace": ref.namespace,
        "template": ref.template,
        "profile": ref.profile,
        "path": ref.path,
    }
    if ref.claim is not None:
        result["claim"] = ref.claim
    return result


def _sandbox(sandbox: SandboxReport, *, examined: bool = True) -> dict[str, Any]:
    egress = sandbox.egress
    result = _ref(sandbox.ref)
    # A pooled pod's claims go last, after every field a sandbox had before.
    claim = result.pop("claim", None)
    if sandbox.environment is not None:
        result["environment"] = sandbox.environment
    result["podLabels"] = dict(sorted(sandbox.pod_labels.items()))
    result["egress"] = {
        "policyKind": egress.policy_kind,
        "engine": egress.engine,
        "verify": egress.verify,
        "expected": (
            None
            if egress.expected_kind is None
            else {"kind": egress.expected_kind, "name": egress.expected_name}
        ),
        "named": None if egress.named is None else _named(egress.named),
        "union": _decision(egress.union, examined=examined) if egress.union is not None else None,
        "reach": _reach(egress.reach, examined) if egress.reach is not None else None,
    }
    ingress = sandbox.ingress
    result["ingress"] = (
        None
        if ingress is None
        else {
            "agentPort": ingress.agent_port,
            **_decision(ingress.decision, examined=examined),
            "reach": None if ingress.reach is None else _decision(ingress.reach, examined=examined),
        }
    )
    # Last, and only when not the default: namzu template reports keep their bytes.
    if sandbox.host != "namzu":
        result["host"] = sandbox.host
    if sandbox.workload_kind is not None:
        result["workload"] = {"kind": sandbox.workload_kind, "name": sandbox.ref.template}
    if claim is not None and examined:
        result["claim"] = claim
    return result


def _reach(reach: ReachReport, examined: bool = True) -> dict[str, Any]:
    skipped = [_skipped(s) for s in reach.skipped]
    return {**_decision(reach.decision, examined=examined), "skipped": skipped}


def _skipped(entry: SkippedEntry) -> dict[str, Any]:
    return {
        "kind": entry.kind,
        "name": entry.name,
        "reason": entry.reason,
        **_file_line(entry.location),
    }


def _named(named: NamedReport) -> dict[str, Any]:
    return {
        "result": named.result,
        "field": named.field,
        "detail": named.detail,
        **_file_line(named.location),
    }


def _decision(decision: DecisionReport, *, examined: bool = True) -> dict[str, Any]:
    """The decision's fields; ``examined`` is left out when the caller
    writes that list itself."""
    result: dict[str, Any] = {"refusal": decision.refusal, "summary": decision.summary}
    if examined:
        result["examined"] = [_examined(e) for e in decision.examined]
    return result


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
    if finding.environment is not None:
        result["environment"] = finding.environment
    if finding.remedy:
        result["remedy"] = finding.remedy
    # Added by issue 13, after every earlier field: the paths a culprit
    # affects (``sandbox`` stays the first), the culprit, a paste-able block.
    affected = finding.affected or ((finding.sandbox,) if finding.sandbox is not None else ())
    result["affected"] = [_ref(ref) for ref in affected]
    if finding.culprit is not None:
        result["culprit"] = _culprit(finding.culprit)
    if finding.remedy_yaml is not None:
        result["remedyYaml"] = finding.remedy_yaml
    return result


def _culprit(culprit: Culprit) -> dict[str, Any]:
    return {
        "kind": culprit.kind,
        "namespace": culprit.namespace,
        "name": culprit.name,
        "origin": culprit.origin,
        "template": culprit.template,
        "letsOut": list(culprit.lets_out),
        "contentHash": culprit.content_hash,
    }
