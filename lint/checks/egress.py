"""The egress checks for one sandbox and path: the named object (SEMANTICS
§12) and the union (§11), with their findings."""

from __future__ import annotations

import json
from collections.abc import Collection, Hashable, Mapping
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.checks.candidates import CCNP, CNP, location_of
from lint.checks.context import (
    CheckContext,
    allowance_of,
    per_translation,
    precise_location,
    rule_finding,
)
from lint.checks.culprits import RefusalContext, refusal_findings
from lint.checks.expected import check_expected
from lint.checks.judging import (
    NO_ENTRIES,
    Judged,
    Judging,
    Scope,
    decision_report,
    examined_of,
    judged_entries,
    with_controller,
)
from lint.checks.reach import ReachInput, check_reach, reach_data_of, tier_input_of
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    Allowance,
    Candidate,
    EgressRefusal,
    NamedOutcome,
    NamedResult,
    PolicyDocument,
    Subject,
    Translation,
)
from lint.decision.named import compare_named
from lint.decision.tiers.model import TierInput
from lint.decision.union import examine, union_refusal
from lint.decision.values import JSON, compact_json
from lint.declarations.entries import DeclaredSandbox
from lint.inventory import KubeObject
from lint.report.model import (
    DecisionReport,
    EgressReport,
    Finding,
    Location,
    NamedReport,
    ReachReport,
    SandboxRef,
)
from lint.rules import culprit_rules, remedy_text, rule, rule_for

_NAMED_FIELD_PATHS: dict[str, tuple[str | int, ...]] = {
    "specs": ("specs",),
    "selector": ("spec",),
    "policyTypes": ("spec", "policyTypes"),
    "egress": ("spec", "egress"),
    "ownerReferences": ("metadata", "ownerReferences"),
}


class EgressInput(msgspec.Struct, frozen=True):
    """One declared sandbox on one path: ``sandbox`` names it in the report,
    ``declared`` is what was declared, ``declaration`` where."""

    sandbox: SandboxRef
    declared: DeclaredSandbox
    subject: Subject
    template: KubeObject | None
    declaration: Location
    facts: ControllerFacts = DEFAULT_FACTS
    claim_annotations: Mapping[str, tuple[str, str]] = msgspec.field(default_factory=dict)
    """The annotations the path's SandboxClaims add (``PodVariant``)."""

    @property
    def translation(self) -> Translation:
        return self.declared.translation


class EgressJudgement(msgspec.Struct, frozen=True):
    """One sandbox path's egress, judged: the report and findings ``check``
    gives, and what they were made from, for ``explain`` to present.
    ``union`` is None when the union is not verified
    (``verify: named-object-only``)."""

    report: EgressReport
    findings: list[Finding]
    allowance: Allowance
    union: Judged | None
    cilium_under_core: Judged = NO_ENTRIES
    """The Cilium objects reach reads under ``engine: core`` (``ReachInput``)."""
    tiers: TierInput | None = None
    """The exact tier model's input reach judged the path by, for
    ``explain --to`` to ask of the same model."""


def check_egress(ctx: CheckContext, given: EgressInput) -> tuple[EgressReport, list[Finding]]:
    judgement = judge_egress(ctx, given)
    return judgement.report, judgement.findings


def judge_egress(ctx: CheckContext, given: EgressInput) -> EgressJudgement:
    """The egress decisions of one sandbox path: the named object, the union
    and reach. ``check`` reports them; ``explain`` presents the same."""
    translation = given.translation
    allowance = allowance_of(ctx, translation)
    named, named_findings = _check_named_or_expected(ctx, given, allowance)
    union = reach = None
    judged: Judged | None = None
    cilium = NO_ENTRIES
    tiers = None
    findings = list(named_findings)
    if given.declared.union_verified:
        union, judged, refused = _union_judged(ctx, given, allowance)
        host_reads = given.declared.host == "namzu"
        reach_input = _reach_input(ctx, given, allowance, judged, union_reported=host_reads)
        cilium = reach_input.cilium_under_core
        reach, reach_findings = check_reach(ctx, reach_input)
        tiers = tier_input_of(ctx, reach_input)
        if host_reads:
            findings.extend(_union_findings(judged, refused))
        else:
            # No namzu host asks the union: reach is the verdict (issue 25).
            union = None
            findings.extend(_reach_verdict_findings(given, judged, refused, reach_findings, reach))
        findings.extend(reach_findings)
    expected = _expected_object(given)
    report = EgressReport(
        policy_kind=translation.policy_kind,
        engine=given.declared.engine,
        verify=given.declared.verify,
        expected_kind=expected[0] if expected else None,
        expected_name=expected[1] if expected else None,
        named=named,
        union=union,
        reach=reach,
    )
    return EgressJudgement(report, findings, allowance, judged, cilium, tiers)


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
    obj, result = _named_copy(namespace.named_all(translation.kind, translation.name), translation)
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


def _scope(given: EgressInput, with_cilium: bool) -> Scope:
    controller = with_controller(given.sandbox.path, given.facts)
    namespace = given.translation.namespace
    return Scope(namespace, given.template, controller, with_cilium, facts=given.facts)


def _judging(ctx: CheckContext, given: EgressInput, allowance: Allowance) -> Judging:
    translation = given.translation
    cidr_groups = reach_data_of(ctx).cidr_groups
    context = _context(ctx, translation)
    # A rule written alike in many policies is judged once per context.
    verdicts = ctx.memo.rule_verdicts_of(context, cidr_groups)

    def read(candidate: Candidate) -> list[PolicyDocument]:
        return egress_documents(
            candidate, given.subject, allowance, translation, cidr_groups, verdicts
        )

    named = (translation.kind, translation.name)
    if translation.namespace != given.subject.namespace or not translation.named:
        named = ("", "")
    return Judging(read, examine, context, "egress", given.subject, named)


def _context(ctx: CheckContext, translation: Translation) -> Hashable:
    """``union_context``, once per translation: the union and reach both
    judge with it, and it writes the translation's egress out as JSON."""
    return per_translation(ctx, "union-context", translation, union_context)


def _reads_cilium(ctx: CheckContext, given: EgressInput) -> bool:
    return given.declared.engine == "cilium" or ctx.read_cilium == "always"


def _cilium_under_core(ctx: CheckContext, given: EgressInput, allowance: Allowance) -> Judged:
    """The Cilium objects the union does not read under ``engine: core``,
    judged as under ``cilium`` for reach (CLUSTER-POLICIES §11)."""
    if _reads_cilium(ctx, given):
        return NO_ENTRIES
    namespace = ctx.inventory.namespace(given.translation.namespace)
    if not namespace.of_kind(CNP) and not ctx.inventory.cluster_objects(CCNP):
        return NO_ENTRIES
    scope = replace(_scope(given, True), only_cilium=True)
    # Only the Cilium candidates, without the unparsed placeholders (the
    # union has those already).
    judging = _judging(ctx, given, allowance)
    return judged_entries(ctx, scope, given.subject.labels, judging, placeholders=False)


def _reach_verdict_findings(
    given: EgressInput,
    judged: Judged,
    refused: UnionRefused | None,
    reach_findings: list[Finding],
    reach: ReachReport,
) -> list[Finding]:
    """The findings of a path reach alone decides, beside reach's own: a
    culprit the union also reads keeps the union's finding (at the same
    rule; a controller policy at its template) when reach blames it too,
    and is dropped when reach does not; a refusal no document is to blame
    for (nothing isolates the pod) is reported at the declaration. Only the
    union's findings that are kept are made."""
    blamed = {
        (entry.kind, entry.namespace, entry.name)
        for entry in reach.decision.examined.selecting()
        if entry.verdict in _REACH_CULPRIT_VERDICTS
    }
    kept = _union_findings(judged, refused, blamed)
    refusal = reach.decision.refusal
    if kept or reach_findings or refusal != EgressRefusal.NO_ENFORCING_POLICY:
        return kept
    rule_id = rule_for(EgressRefusal.NO_ENFORCING_POLICY).id
    message = reach.decision.summary or rule(rule_id).summary
    remedy = remedy_text(rule_id, "unnamed")
    return [rule_finding(rule_id, message, given.declaration, sandbox=given.sandbox, remedy=remedy)]


_REACH_CULPRIT_VERDICTS: Final = frozenset(culprit_rules("union"))


def _reach_input(
    ctx: CheckContext,
    given: EgressInput,
    allowance: Allowance,
    judged: Judged,
    *,
    union_reported: bool = True,
) -> ReachInput:
    return ReachInput(
        sandbox=given.sandbox,
        declaration=given.declaration,
        subject=given.subject,
        template=given.template,
        allowance=allowance,
        context=_context(ctx, given.translation),
        cilium=_reads_cilium(ctx, given),
        union=judged,
        cilium_under_core=_cilium_under_core(ctx, given, allowance),
        claim_annotations=given.claim_annotations,
        union_reported=union_reported,
    )


def _named_copy(
    copies: list[KubeObject], translation: Translation
) -> tuple[KubeObject | None, NamedResult]:
    """The copy of the named object the comparison reports: the first that
    does not match, so with two copies the file order never hides a
    mismatch (``duplicate-object``); else the last, as a later apply wins."""
    if not copies:
        return None, compare_named(None, translation)
    results = [(obj, compare_named(obj.value, translation)) for obj in copies]
    ordered = sorted(results, key=lambda pair: (pair[0].document.file, pair[0].document.line))
    for obj, result in ordered:
        if result.result is not NamedOutcome.MATCH:
            return obj, result
    return results[-1]


def judge_union(
    ctx: CheckContext, given: EgressInput, allowance: Allowance
) -> tuple[DecisionReport, Judged, list[Finding]]:
    """The union decision (SEMANTICS §11) for one sandbox path, with its
    judged entries and findings."""
    report, judged, refused = _union_judged(ctx, given, allowance)
    return report, judged, _union_findings(judged, refused)


class UnionRefused(msgspec.Struct, frozen=True):
    """Why the union refuses a path, and what its findings are made with."""

    summary: str | None
    refusal: RefusalContext


def _union_judged(
    ctx: CheckContext, given: EgressInput, allowance: Allowance
) -> tuple[DecisionReport, Judged, UnionRefused | None]:
    """The union decision for one sandbox path, its judged entries, and
    its refusal, if it refuses (``_union_findings`` makes the findings)."""
    scope = _scope(given, given.declared.engine == "cilium")
    judged = judged_entries(ctx, scope, given.subject.labels, _judging(ctx, given, allowance))
    # Only the entries that select can refuse, or be a culprit.
    refused, summary = union_refusal(examined_of(judged.selecting), allowance)
    report = decision_report(refused, summary, judged)
    if refused is None:
        return report, judged, None
    rule_id = rule_for(refused).id
    refusal = RefusalContext(
        sandbox=given.sandbox,
        declaration=given.declaration,
        rule_id=rule_id,
        remedy=remedy_text(rule_id, "named" if given.translation.named else "unnamed"),
        culprit_rules=culprit_rules("union"),
        rules_key="egress",
        template=given.template,
        translation=given.translation,
        data=reach_data_of(ctx),
        allowance=allowance,
        memo=ctx.memo.scopes,
        context=_context(ctx, given.translation),
    )
    return report, judged, UnionRefused(summary, refusal)


def _union_findings(
    judged: Judged,
    refused: UnionRefused | None,
    blamed: Collection[tuple[str, str | None, str]] | None = None,
) -> list[Finding]:
    """The union's findings; with ``blamed``, only those of its culprits
    whose kind, namespace and name are among them, in the same order."""
    if refused is None:
        return []
    if blamed is None:
        return refusal_findings(judged.selecting, refused.summary, refused.refusal)
    chosen = [
        j for j in judged.selecting if (j.entry.kind, j.entry.namespace, j.entry.name) in blamed
    ]
    # With no culprit left, the refusal's one finding at the declaration
    # names none: it is not kept either.
    findings = refusal_findings(chosen, refused.summary, refused.refusal)
    return [finding for finding in findings if finding.culprit is not None]


def union_context(translation: Translation) -> Hashable:
    """What egress documents depend on besides the candidate, the labels its
    selectors read and whether it is the named object: the allowance, which
    is read from the translation's kind and egress rules (§4)."""
    spec = translation.manifest.get("spec")
    egress = spec.get("egress") if isinstance(spec, dict) else None
    context = ("egress", translation.kind, translation.policy_kind, _key_text(egress))
    if translation.companion is None and translation.named:
        return context
    # An `allow` intent's hosts are part of its allowance; a translation
    # read back by no host exempts no document (issue 17).
    companion = _key_text(translation.companion.get("spec")) if translation.companion else ""
    return (*context, companion, translation.named)


def _key_text(value: JSON) -> tuple[str, str]:
    """A text of ``value`` for a memo key: equal texts, equal values. JSON
    written at C speed where it can be (it tells ``1`` from ``1.0`` and keeps
    key order, so it is never coarser than ``compact_json``), else
    ``compact_json``; the two are told apart, so they never meet."""
    try:
        return ("json", json.dumps(value, separators=(",", ":"), check_circular=False))
    except (TypeError, ValueError, RecursionError):
        return ("compact", compact_json(value))
