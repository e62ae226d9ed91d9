"""Plumbing shared by the union and ingress checks: gathering the judged
documents with their origins, and turning a refusal into a finding."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lint.checks.candidates import (
    Sourced,
    admin_placeholders,
    cilium_candidates,
    core_candidates,
    unparsed_placeholders,
)
from lint.checks.context import CheckContext, Origin, examined_entries, object_ref
from lint.decision.model import Candidate, Decision, PolicyDocument
from lint.inventory import KubeObject
from lint.report.model import DecisionReport, ExaminedEntry, Finding, Location, SandboxRef
from lint.rules import rule

DocumentReader = Callable[[Candidate], list[PolicyDocument]]


@dataclass(frozen=True)
class Scope:
    """Where a decision looks: the namespace, the template (for the
    controller's policy on the pooled path), and whether Cilium kinds count."""

    namespace: str
    template: KubeObject | None
    pooled: bool
    with_cilium: bool


@dataclass(frozen=True)
class Judged:
    documents: list[PolicyDocument]
    origins: dict[int, Origin]


def judge_candidates(ctx: CheckContext, scope: Scope, read: DocumentReader) -> Judged:
    """Every document the decision examines, in §5.1 order, then the
    documents that fail closed without being read."""
    namespace = ctx.inventory.namespace(scope.namespace)
    sourced = core_candidates(namespace, scope.template, scope.pooled)
    if scope.with_cilium or ctx.read_cilium == "always":
        sourced += cilium_candidates(namespace, ctx.inventory)
    judged = Judged([], {})
    for item in sourced:
        for document in read(item.candidate):
            judged.documents.append(document)
            judged.origins[id(document)] = item
    placeholders = admin_placeholders(ctx.inventory, namespace.name)
    placeholders += unparsed_placeholders(ctx.problems, namespace.name)
    for placeholder in placeholders:
        judged.documents.append(placeholder.document)
        judged.origins[id(placeholder.document)] = placeholder
    return judged


@dataclass(frozen=True)
class RefusalContext:
    sandbox: SandboxRef
    declaration: Location
    rule_id: str
    remedy: str
    offending_verdict: str | None


def decision_report(decision: Decision, judged: Judged, rules_key: str) -> DecisionReport:
    examined = examined_entries(decision.examined, judged.origins, rules_key)
    return DecisionReport(decision.refusal, decision.summary, examined)


def refusal_finding(
    decision: Decision, report: DecisionReport, judged: Judged, refusal: RefusalContext
) -> Finding:
    """The finding sits at the first offending document's rule; the other
    offending documents and the declaration are related locations. A
    refusal with no offending document sits at the declaration."""
    location, subject = refusal.declaration, None
    related: list[Location] = []
    pairs: Sequence[tuple[object, ExaminedEntry]] = list(
        zip((e.document for e in decision.examined), report.examined, strict=True)
    )
    for document, entry in pairs:
        if entry.verdict != refusal.offending_verdict or entry.location is None:
            continue
        if subject is None and location is refusal.declaration:
            location = entry.location
            origin = judged.origins[id(document)]
            subject = object_ref(origin.obj) if isinstance(origin, Sourced) else None
        else:
            related.append(entry.location)
    if location is not refusal.declaration:
        related.append(refusal.declaration)
    return Finding(
        rule_id=refusal.rule_id,
        level=rule(refusal.rule_id).level,
        message=decision.summary or rule(refusal.rule_id).summary,
        location=location,
        sandbox=refusal.sandbox,
        remedy=refusal.remedy,
        related=tuple(related),
        subject=subject,
    )
