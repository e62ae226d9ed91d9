"""Suppressions: annotations on the offending object and baseline files.

This pass runs after every check, as the last step of
``lint.checks.runner.check_run`` (:func:`suppress`), so a library caller
gets the findings the command line prints. It marks findings suppressed
and never drops them: suppressed findings stay in every report, they just
do not count for the exit code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec
from msgspec.structs import replace

from lint.report.fingerprints import fingerprint
from lint.report.messages import finding_words
from lint.report.model import Finding, Report

IGNORE_ANNOTATION = "egress-lint.io/ignore"
BASELINE_VERSION = 1
_IGNORE = re.compile(
    r"\s*(?P<rules>[a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)\s+reason=(?P<reason>\S.*)", re.S
)


class BaselineError(Exception):
    """A baseline file that cannot be read (a usage error)."""


def suppress(report: Report, baseline: Path | None) -> Report:
    """The report with annotations applied first, then the baseline (when
    one is given), and the baseline's stale entries; nothing is dropped.
    Raises BaselineError."""
    findings = apply_annotations(report.findings)
    stale: list[str] = []
    if baseline is not None:
        findings, stale = apply_baseline(findings, read_baseline(baseline))
    return replace(report, findings=tuple(findings), stale_baseline=tuple(stale))


class Ignore(msgspec.Struct, frozen=True):
    rules: frozenset[str]
    reason: str


def parse_ignore(value: str) -> Ignore | None:
    """``"<rule-id>[,<rule-id>] reason=<text>"``; None when malformed (a
    suppression without a reason is not honoured)."""
    match = _IGNORE.fullmatch(value)
    if match is None:
        return None
    rules = frozenset(r.strip() for r in match.group("rules").split(","))
    return Ignore(rules, match.group("reason").strip())


def annotation_problem(value: str, known: frozenset[str]) -> str | None:
    """Why an ignore annotation is not honoured, or None when it is: no
    ``reason=``, an unreadable rule list, or a rule id that is not one."""
    if "reason=" not in value:
        return "it has no `reason=`, so it suppresses nothing"
    match = _IGNORE.fullmatch(value)
    if match is None:
        return "it does not read as `<rule-id>[,<rule-id>] reason=<why>`, so it suppresses nothing"
    unknown = sorted(r.strip() for r in match.group("rules").split(",") if r.strip() not in known)
    if unknown:
        names = ", ".join(f"`{r}`" for r in unknown)
        return f"{names} {'is not a rule id' if len(unknown) == 1 else 'are not rule ids'}"
    return None


def apply_annotations(findings: Iterable[Finding]) -> list[Finding]:
    return [_annotated(finding) for finding in findings]


def _annotated(finding: Finding) -> Finding:
    ignore = _annotation(finding)
    if ignore is None or finding.rule_id not in ignore.rules or finding.suppressed:
        return finding
    return replace(
        finding, suppressed=True, justification=ignore.reason, suppression_kind="inSource"
    )


def _annotation(finding: Finding) -> Ignore | None:
    if finding.subject is None:
        return None
    for key, value in finding.subject.annotations:
        if key == IGNORE_ANNOTATION:
            return parse_ignore(value)
    return None


class Baseline(msgspec.Struct, frozen=True):
    entries: dict[str, str]  # fingerprint -> rule id, for readable stale reports


def read_baseline(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BaselineError(f"cannot read baseline {path}: {error}") from error
    except RecursionError:  # the decoder recurses once per level
        raise BaselineError(f"cannot read baseline {path}: nested too deeply") from None
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise BaselineError(f"{path}: not an egress-lint baseline (version {BASELINE_VERSION})")
    entries = data.get("findings")
    if not isinstance(entries, list):
        raise BaselineError(f"{path}: 'findings' must be a list")
    result = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
            result[entry["fingerprint"]] = str(entry.get("ruleId", ""))
    return Baseline(result)


def apply_baseline(
    findings: Sequence[Finding], baseline: Baseline
) -> tuple[list[Finding], list[str]]:
    """Suppress findings the baseline records; return them with the
    fingerprints of baseline entries that matched nothing (stale)."""
    seen = set()
    result = []
    for finding in findings:
        key = fingerprint(finding)
        if key in baseline.entries:
            seen.add(key)
            if not finding.suppressed:
                result.append(
                    replace(
                        finding,
                        suppressed=True,
                        justification="recorded in the baseline",
                        suppression_kind="external",
                    )
                )
                continue
        result.append(finding)
    stale = sorted(k for k in baseline.entries if k not in seen)
    return result, stale


def render_baseline(findings: Iterable[Finding]) -> str:
    """A baseline of the current unsuppressed findings, sorted, one per
    fingerprint. The message is kept only for people reading the file."""
    entries = {}
    for finding in findings:
        if finding.suppressed:
            continue
        entry: dict[str, object] = {
            "fingerprint": fingerprint(finding),
            "ruleId": finding.rule_id,
            "file": finding.location.file,
            "message": finding_words(finding),
        }
        culprit = finding.culprit
        if culprit is not None:
            # The culprit the entry covers, for people reading the file.
            entry["culprit"] = {
                "kind": culprit.kind,
                "namespace": culprit.namespace,
                "name": culprit.name,
                "contentHash": culprit.content_hash,
            }
        entries[fingerprint(finding)] = entry
    document = {"version": BASELINE_VERSION, "findings": [entries[k] for k in sorted(entries)]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
