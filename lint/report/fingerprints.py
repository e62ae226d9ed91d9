"""Stable identities for findings, shared by SARIF and baselines.

A fingerprint must survive unrelated edits: lines moving, files reordered,
other findings appearing. It therefore hashes what the finding is about
(rule, file, object, sandbox, message) and never a line number; a
culprit's finding hashes the culprit and the offending rule's content.
"""

from __future__ import annotations

import hashlib

from lint.report.model import Finding


def fingerprint(finding: Finding) -> str:
    """A hex digest that identifies the finding across runs. A culprit's
    finding is known by the culprit alone (DESIGN §10): its rule, file,
    kind, namespace, name and the content hash of the offending rule, never
    the sandbox paths it affects; so an entry for one culprit never covers
    another, nor the same object once the rule changes."""
    culprit = finding.culprit
    if culprit is not None:
        parts = [
            finding.rule_id,
            finding.location.source or finding.location.file,
            culprit.kind,
            culprit.namespace or "",
            culprit.name,
            culprit.content_hash,
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]
    parts = [finding.rule_id, finding.location.source or finding.location.file]
    if finding.subject is not None:
        subject = finding.subject
        parts += [subject.kind, subject.namespace or "", subject.name]
    if finding.sandbox is not None:
        sandbox = finding.sandbox
        parts += [sandbox.namespace, sandbox.template, sandbox.profile or "", sandbox.path]
    parts.append(finding.message if finding.rule_id not in _LINE_BOUND else "")
    if finding.rule_id in _LINE_BOUND:
        # A parse error has nothing but its place to be known by.
        parts.append(str(finding.location.line))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


_LINE_BOUND = frozenset({"parse-error", "load-warning"})
