"""The egress checks for one sandbox and path: the named object (SEMANTICS
§12) and the union (§11), with their findings."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from lint.checks.candidates import location_of
from lint.checks.context import CheckContext, precise_location, rule_finding
from lint.checks.expected import check_expected
from lint.checks.judging import (
    Judging,
    RefusalContext,
    Scope,
    decision_report,
    judged_entries,
    refusal_finding,
)
from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    Allowance,
    Candidate,
    EgressRefusal,
    EgressVerdict,
    NamedOutcome,
    PolicyDocument,
    Refusal,
    Subject,
    Translation,
    Verdict,
)
from lint.decision.named import compare_named
from lint.decision.union import examine, summarize_union, union_remedy
from lint.decision.values import compact_json
from lint.declarations.entries import DeclaredSandbox
from lint.inventory import KubeObject
from lint.report.model import (
    DecisionReport,
    EgressReport,
    Finding,
    Location,
    NamedReport,
    SandboxRef,
)
from lint.rules import rule, rule_for

_OFFENDING_VERDICT: Mapping[Refusal, Verdict] = {
    EgressRefusal.POLICY_WIDENS_EGRESS: EgressVerdict.WIDENS_EGRESS,
    EgressRefusal.NOT_EVALUABLE: EgressVerdict.NOT_EVALUABLE,
}
_NAMED_FIELD_PATHS: dict[str, tuple[str | int, ...]] = {
    "specs": ("specs",),
    "selector": ("spec",),
    "policyTypes": ("spec", "policyTypes"),
    "egress": ("spec", "egress"),
    "ownerReferences": ("metadata", "ownerReferences"),
}


@dataclass(frozen=True)
class EgressInput:
    """One declared sandbox on one path: ``sandbox`` names it in the report,
    ``declared`` is what was declared, ``declaration`` where."""

    sandbox: SandboxRef
    declared: DeclaredSandbox
    subject: Subject
    template: KubeObject | None
    declaration: Location

    @property
    def translation(self) -> Translation:
        return self.declared.translation


def check_egress(ctx: CheckContext, given: EgressInput) -> tuple[EgressReport, list[Finding]]:
    translation = given.translation
    allowance = build_allowance(translation)
    named, named_findings = _check_named_or_expected(ctx, given, allowance)
    union = None
    findings = list(named_findings)
    if given.declared.union_verified:
        union, union_findings = _check_union(ctx, given, allowance)
        findings.extend(union_findings)
    expected = _expected_object(given)
    report = EgressReport(
        policy_kind=translation.policy_kind,
        engine=given.declared.engine,
        verify=given.declared.verify,
        expected_kind=expected[0] if expected else None,
        expected_name=expected[1] if expected else None,
        named=named,
        union=union,
    )
    return report, findings


def _expected_object(given: EgressInput) -> tuple[str, str] | None:
    """The object the report names: the translation's, or under ``host:
    none`` the ``expect`` of the entry, or none."""
    if given.translation.named:
        return given.translation.kind, given.translation.name
    expect = given.declared.expect
    return None if expect is None else (expect.kind, expect.name)


def _check_named_or_expected(
    ctx: CheckContext, given: EgressInput, allowance: Allowance
) -> tuple[NamedReport | None, list[Finding]]:
    if given.translation.named:
        return _check_named(ctx, given)
    expect = given.declared.expect
    if expect is None:
        return None, []
    return check_expected(
        ctx.inventory,
        expect,
        given.subject,
        allowance,
        given.translation,
        sandbox=given.sandbox,
        declaration=given.declaration,
    )


def _check_named(ctx: CheckContext, given: EgressInput) -> tuple[NamedReport, list[Finding]]:
    translation = given.translation
    namespace = ctx.inventory.namespace(translation.namespace)
    obj = namespace.named(translation.kind, translation.name)
    result = compare_named(obj.value if obj is not None else None, translation)
    if obj is None:
        location = given.declaration
    elif result.result is NamedOutcome.MISMATCH:
        location = precise_location(obj, _NAMED_FIELD_PATHS.get(result.field or "", ()))
    else:
        location = location_of(obj)
    report = NamedReport(str(result.result), result.field, result.detail, location if obj else None)
    if result.result is NamedOutcome.MATCH:
        return report, []
    rule_id = rule_for(result.result).id
    message = result.detail or rule(rule_id).summary
    finding = rule_finding(rule_id, message, location, sandbox=given.sandbox, obj=obj)
    return report, [finding]


def _check_union(
    ctx: CheckContext, given: EgressInput, allowance: Allowance
) -> tuple[DecisionReport, list[Finding]]:
    scope = Scope(
        given.translation.namespace,
        given.template,
        given.sandbox.path == "pooled",
        given.declared.engine == "cilium",
    )
    translation = given.translation

    def read(candidate: Candidate) -> list[PolicyDocument]:
        return egress_documents(candidate, given.subject, allowance, translation)

    named = (translation.kind, translation.name)
    if translation.namespace != given.subject.namespace or not translation.named:
        named = ("", "")
    judging = Judging(read, examine, union_context(translation), "egress", given.subject, named)
    judged = judged_entries(ctx, scope, given.subject.labels, judging)
    decision = summarize_union([j.examined for j in judged], allowance)
    report = decision_report(decision, judged)
    if decision.refusal is None:
        return report, []
    refusal = RefusalContext(
        sandbox=given.sandbox,
        declaration=given.declaration,
        rule_id=rule_for(decision.refusal).id,
        remedy=union_remedy(decision.refusal, named=translation.named),
        offending_verdict=_OFFENDING_VERDICT.get(decision.refusal),
    )
    return report, [refusal_finding(judged, decision, refusal)]


def union_context(translation: Translation) -> Hashable:
    """What egress documents depend on besides the candidate, the labels its
    selectors read and whether it is the named object: the allowance, which
    is read from the translation's kind and egress rules (§4)."""
    spec = translation.manifest.get("spec")
    egress = spec.get("egress") if isinstance(spec, dict) else None
    context = ("egress", translation.kind, translation.policy_kind, compact_json(egress))
    if translation.companion is None and translation.named:
        return context
    # An `allow` intent's hosts are part of its allowance; a translation
    # read back by no host exempts no document (issue 17).
    companion = compact_json(translation.companion.get("spec")) if translation.companion else ""
    return (*context, companion, translation.named)
