"""Every check of one run, once its input is taken in: each declared
sandbox's paths judged (``check_plans``, on several processes), and the
run's own findings, into one Report (``checked_run``). ``explain`` asks the
same judgement of one path (``judge_path``).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from lint.checks.advisories import nat64_advisory
from lint.checks.agent_sandbox_fields import invalid_agent_sandbox_objects
from lint.checks.candidates import declared_location
from lint.checks.context import CheckContext, allowance_of, rule_finding
from lint.checks.controller import (
    controller_setting,
    foreign_templates,
    newer_columns,
    omitted_paths,
    refuse_policy_name_collisions,
    upgrade_facts,
)
from lint.checks.culprits import RENDER_NEEDED, merge_culprits
from lint.checks.duplicates import duplicate_objects
from lint.checks.egress import EgressInput, EgressJudgement, check_egress, judge_egress
from lint.checks.ingress import IngressInput, check_ingress
from lint.checks.prerequisites import (
    admission_fences,
    controller_conflicts,
    declaration_notes,
    label_domains,
    missing_templates,
    undeclared_claim_profiles,
    undeclared_templates,
    unnamed_policies,
)
from lint.checks.reach import IngressReachInput, check_ingress_reach
from lint.checks.reach_candidates import namespace_label_disagreements
from lint.checks.runner import CheckOptions, CheckRun, ReadCilium
from lint.checks.shares import check_plans
from lint.checks.suppressions import malformed_suppressions
from lint.decision.controller_versions import ControllerFacts
from lint.decision.model import Subject
from lint.decision.values import compact_json
from lint.declarations import DeclaredSandbox
from lint.intake import Intake
from lint.inventory import Inventory, KubeObject
from lint.kinds import SANDBOX_TEMPLATE, WORKLOAD_KINDS
from lint.loading import LoadProblem
from lint.loading.shares import processes_for
from lint.report.model import (
    Finding,
    Location,
    ParseErrorReport,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.report.ordering import finding_key, sandbox_key
from lint.sandboxes import (
    Path as AcquisitionPath,
)
from lint.sandboxes import (
    PodVariant,
    declared_paths,
    pod_labels,
    pod_variants,
    sandbox_template,
    target_object,
)
from lint.suppression import suppress


def checked_run(options: CheckOptions, intake: Intake) -> CheckRun:
    """The run of ``options`` on ``intake``: every check, the report sorted
    and the baseline applied."""
    progress = options.progress or _silent
    loaded, inventory, declared = intake.loaded, intake.inventory, intake.sandboxes
    progress(f"judging {len(declared)} declared sandbox(es)")
    declarations = intake.declarations
    ctx = check_context(intake, options.read_cilium)
    controller = controller_setting(options.controller_version, declarations, inventory)
    refuse_policy_name_collisions(declared, inventory, controller.facts)
    sandboxes: list[SandboxReport] = []
    findings = _load_findings(loaded.problems)
    findings.extend(controller.findings)
    findings.extend(foreign_templates(inventory))
    findings.extend(invalid_agent_sandbox_objects(inventory))
    checked, whole_run = check_plans(
        declared,
        lambda sandbox: sandbox.namespace,
        functools.partial(_check_sandbox, ctx, controller.facts),
        processes_for(loaded.bytes, options.jobs),
        whole_run=functools.partial(_whole_run_findings, intake, controller.facts),
    )
    for reports, sandbox_findings in checked:
        sandboxes.extend(reports)
        findings.extend(sandbox_findings)
    findings.extend(whole_run)
    report = Report(
        defaults_applied=intake.declarations.defaults_applied,
        sandboxes=tuple(sorted(sandboxes, key=sandbox_key)),
        findings=tuple(sorted(merge_culprits(_render_once(findings)), key=finding_key)),
        parse_errors=_parse_errors(loaded.problems),
        declaration_file=intake.declarations.file,
        skipped=dict(sorted(loaded.skipped.items())),
        files=loaded.files,
        controller=controller.report,
    )
    # Last, so a library caller gets the findings the command line prints.
    report = suppress(report, options.baseline)
    return CheckRun(report, (intake, ctx, checked))


def _whole_run_findings(intake: Intake, facts: ControllerFacts) -> list[Finding]:
    """The findings of the run as a whole, not of one sandbox path."""
    inventory, declared, declarations = intake.inventory, intake.sandboxes, intake.declarations
    return [
        *_prerequisites(inventory, declared, facts),
        *namespace_label_disagreements(inventory, declarations),
        *malformed_suppressions(inventory),
        *undeclared_templates(inventory, declared, declarations.defaults_applied),
        *declaration_notes(declarations.notes),
    ]


def check_context(intake: Intake, read_cilium: ReadCilium) -> CheckContext:
    """What every decision of one run reads: the inventory, the load
    problems, ``--read-cilium`` and the declared namespace labels."""
    problems = intake.loaded.problems
    labels = intake.declarations.namespaces
    return CheckContext(
        intake.inventory,
        problems,
        read_cilium,
        namespace_labels=labels,
        enforces=intake.declarations.enforces,
    )


def _check_sandbox(
    ctx: CheckContext, facts: ControllerFacts, declared: DeclaredSandbox
) -> tuple[list[SandboxReport], list[Finding]]:
    """Every path of the sandbox, each pod variant of it (a claim's labels)
    judged apart; below the newest controller column, each again under the
    newer columns, for the upgrade hazard."""
    ctx.memo.begin_namespace(declared.namespace)
    namespace = ctx.inventory.namespace(declared.namespace)
    reports, findings = [], omitted_paths(declared, ctx.inventory)
    findings.extend(nat64_advisory(declared, allowance_of(ctx, declared.translation)))
    for path in declared_paths(declared, namespace):
        for variant in pod_variants(path, namespace, declared.template):
            report, variant_findings = _check_variant(ctx, facts, declared, variant)
            reports.append(report)
            findings.extend(variant_findings)
            findings.extend(_upgrade_hazards(ctx, facts, declared, variant, report))
    return reports, findings


def path_input(
    ctx: CheckContext,
    facts: ControllerFacts,
    declared: DeclaredSandbox,
    variant: PodVariant,
    copy: KubeObject | None = None,
) -> EgressInput:
    """One acquisition path of a declared sandbox, as every egress decision
    sees it: its pod (labels under the controller column), the template,
    where it was declared. ``check`` and ``explain`` both start here.
    ``copy`` is the copy of the declared target's name to judge, when it
    has several (None: the only one there is)."""
    namespace = ctx.inventory.namespace(declared.namespace)
    template = sandbox_template(declared, namespace)
    target = target_object(declared, namespace)
    if copy is not None:
        target = copy
        template = copy if template is not None else None
    labels = pod_labels(declared, target, variant, facts.column)
    subject = Subject(declared.namespace, labels)
    ref = SandboxRef(
        declared.namespace, declared.template, declared.profile, variant.path, variant.claim
    )
    at = declared_location(declared)
    return EgressInput(ref, declared, subject, template, at, facts, variant.claim_annotations)


class JudgedPath(msgspec.Struct, frozen=True):
    """One acquisition path's pod and its egress judgement."""

    given: EgressInput
    egress: EgressJudgement


def judge_path(
    ctx: CheckContext, facts: ControllerFacts, declared: DeclaredSandbox, path: AcquisitionPath
) -> JudgedPath:
    """The egress judgement of the path's first pod variant, exactly as
    ``check`` makes it (``explain`` presents it)."""
    ctx.memo.begin_namespace(declared.namespace)
    namespace = ctx.inventory.namespace(declared.namespace)
    variant = pod_variants(path, namespace, declared.template)[0]
    given = path_input(ctx, facts, declared, variant)
    return JudgedPath(given, judge_egress(ctx, given))


def _check_variant(
    ctx: CheckContext, facts: ControllerFacts, declared: DeclaredSandbox, variant: PodVariant
) -> tuple[SandboxReport, list[Finding]]:
    """One path's decisions. When the declared template or workload has
    several copies of its name (``duplicate-object``), any one of them may
    be the one applied: each distinct copy is judged, every copy's findings
    are kept, and the report is the worst copy's, so neither file nor
    document order decides."""
    namespace = ctx.inventory.namespace(declared.namespace)
    named = namespace.named_all(declared.target_kind, declared.template)
    # One copy (the usual case) needs no encoding to be told from others.
    copies = _distinct_copies(named) if len(named) > 1 else named
    if len(copies) < 2:
        return _check_copy(ctx, facts, declared, variant, None)
    judged = [_check_copy(ctx, facts, declared, variant, copy) for copy in copies]
    findings = list(dict.fromkeys(f for _, copy_findings in judged for f in copy_findings))
    worst = max(judged, key=lambda result: _severity(result[1]))  # the first, in content order
    return worst[0], findings


def _distinct_copies(copies: Sequence[KubeObject]) -> list[KubeObject]:
    """The copies of one name with distinct content, in content order."""
    by_content = {compact_json(copy.value): copy for copy in copies}
    return [by_content[key] for key in sorted(by_content)]


def _severity(findings: Sequence[Finding]) -> tuple[int, ...]:
    levels = Counter(finding.level for finding in findings)
    return (levels["error"], levels["warning"], levels["note"])


def _check_copy(
    ctx: CheckContext,
    facts: ControllerFacts,
    declared: DeclaredSandbox,
    variant: PodVariant,
    copy: KubeObject | None,
) -> tuple[SandboxReport, list[Finding]]:
    """One path's decisions with ``copy`` as the declared target."""
    given = path_input(ctx, facts, declared, variant, copy)
    ref, subject, template, at = given.sandbox, given.subject, given.template, given.declaration
    labels = dict(subject.labels)
    findings = []
    egress, egress_findings = check_egress(ctx, given)
    findings.extend(egress_findings)
    ingress = None
    if declared.agent_port is not None:
        engine = declared.ingress_engine or declared.engine
        ingress, ingress_findings = check_ingress(
            ctx, IngressInput(ref, engine, declared.agent_port, subject, template, at, facts)
        )
        findings.extend(ingress_findings)
        allowance = allowance_of(ctx, declared.translation)
        reach_input = IngressReachInput(
            ref, at, subject, template, allowance, variant.claim_annotations
        )
        ingress_reach, reach_findings = check_ingress_reach(ctx, reach_input)
        ingress = replace(ingress, reach=ingress_reach)
        findings.extend(reach_findings)
    workload = declared.workload.kind if declared.workload is not None else None
    report = SandboxReport(ref, labels, egress, ingress, at, declared.host, workload)
    return report, findings


def _refusals(report: SandboxReport) -> tuple[str | None, str | None]:
    """The egress verdict (the union's where it is reported, else reach's,
    the verdict of a pod no namzu host makes) and the ingress one."""
    union, reach = report.egress.union, report.egress.reach
    egress = union if union is not None else (reach.decision if reach is not None else None)
    ingress = report.ingress
    return (
        egress.refusal if egress is not None else None,
        ingress.decision.refusal if ingress is not None else None,
    )


def _upgrade_hazards(
    ctx: CheckContext,
    facts: ControllerFacts,
    declared: DeclaredSandbox,
    variant: PodVariant,
    report: SandboxReport,
) -> list[Finding]:
    """``controller-upgrade-widens``: the first newer §8 column under which
    the path's egress or ingress decision is refused where it is not now."""
    now = _refusals(report)
    # The hazard is a decision open now and refused later: when every
    # decision the path has is refused now, no newer column can give one,
    # so none is judged.
    has_ingress = report.ingress is not None
    if now[0] is not None and (now[1] is not None or not has_ingress):
        return []
    for column in newer_columns(facts):
        upgraded = upgrade_facts(column)
        later, later_findings = _check_variant(ctx, upgraded, declared, variant)
        then = _refusals(later)
        worse = [i for i in range(2) if now[i] is None and then[i] is not None]
        if not worse:
            continue
        refused = [f for f in later_findings if f.sandbox == later.ref and f.level == "error"]
        refused.sort(key=lambda f: (f.location.file, f.location.line, f.rule_id))
        first = refused[0] if refused else None
        what = (first.message if first else None) or f"{then[worse[0]]}"
        message = (
            f"upgrading the agent-sandbox controller from {facts.version} to "
            f"{upgraded.version} or later ({column.title}) changes the {variant.path} path of "
            f"template {declared.template!r}: {what}"
        )
        location = first.location if first else declared_location(declared)
        return [rule_finding("controller-upgrade-widens", message, location, sandbox=report.ref)]
    return []


def _prerequisites(
    inventory: Inventory, declared: Sequence[DeclaredSandbox], facts: ControllerFacts
) -> list[Finding]:
    # The profile and per-sandbox labels, their label domains and fences are
    # the namzu host's own: only its entries are checked for them (issue 25).
    namzu = [entry for entry in declared if entry.host == "namzu"]
    # Before v0.5.0 the controller has no allowed-label-domains (§8).
    domains = label_domains(inventory, namzu) if facts.column.allowed_label_domains else []
    return [
        *missing_templates(inventory, declared),
        *domains,
        *admission_fences(inventory, namzu),
        *undeclared_claim_profiles(inventory, namzu),
        *controller_conflicts(inventory, facts),
        *unnamed_policies(inventory),
        *duplicate_objects(inventory),
        # Each copy's controller policy is judged (candidates.controller_templates),
        # and each copy of a template or workload gives the pods' labels in turn
        # (`_check_variant`).
        *duplicate_objects(inventory, frozenset({SANDBOX_TEMPLATE.key, *WORKLOAD_KEYS})),
    ]


WORKLOAD_KEYS = frozenset(kind.key for kind in WORKLOAD_KINDS)


def _load_findings(problems: Sequence[LoadProblem]) -> list[Finding]:
    findings = []
    for problem in problems:
        location = Location(problem.file, problem.line)
        findings.append(rule_finding(_load_rule(problem), problem.message, location))
    return findings


def _render_once(findings: list[Finding]) -> list[Finding]:
    """The findings, with an unrendered chart's or overlay's own finding
    left out where the sandbox paths it fails closed carry it as their
    culprit: one finding, listing those paths. Repeats are dropped; those
    of a finding with a culprit are left to ``merge_culprits``, which merges
    every finding of one culprit into one and reads their paths, places and
    rules as sets, so a repeat changes nothing there, and hashing a whole
    finding with its culprit costs more than the merge."""
    placed = {f.location for f in findings if f.rule_id == RENDER_NEEDED and f.culprit is not None}
    kept = [
        f
        for f in findings
        if not (f.rule_id == RENDER_NEEDED and f.culprit is None and f.location in placed)
    ]
    plain = dict.fromkeys(f for f in kept if f.culprit is None)
    return [*(f for f in kept if f.culprit is not None), *plain]


def _load_rule(problem: LoadProblem) -> str:
    """A chart or overlay among the paths needs rendering: it is no parse
    error, since nothing in it was parsed."""
    if problem.render is not None:
        return RENDER_NEEDED
    return "parse-error" if problem.severity == "error" else "load-warning"


def _parse_errors(problems: Sequence[LoadProblem]) -> tuple[ParseErrorReport, ...]:
    errors = {
        ParseErrorReport(p.file, p.line, p.message)
        for p in problems
        if p.severity == "error" and p.render is None
    }
    return tuple(sorted(errors, key=lambda e: (e.file, e.line, e.message)))


def _silent(_step: str) -> None:
    """No one is told of the steps."""
