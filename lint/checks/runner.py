"""One check run: declarations and manifests in, a Report out.

Data flows one way: load -> inventory -> per-declaration checks -> report.
This function is callable without click; the CLI only gathers options.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lint.checks.candidates import location_of
from lint.checks.context import CheckContext, ReadCilium
from lint.checks.egress import EgressInput, check_egress
from lint.checks.ingress import IngressInput, check_ingress
from lint.checks.parallel import check_plans
from lint.checks.prerequisites import (
    DeclaredSandbox,
    admission_fences,
    controller_conflicts,
    label_domains,
    missing_templates,
    undeclared_claim_profiles,
    unnamed_policies,
)
from lint.decision.constants import DEFAULT_AGENT_PORT
from lint.decision.model import Subject
from lint.decision.translation import translate
from lint.decision.values import JSON
from lint.declarations import Declarations, find_declaration_file, load_declarations
from lint.inventory import RELEVANT_KINDS, Inventory, KubeObject, build_inventory
from lint.loading import DEFAULT_LIMITS, LoadLimits, LoadProblem, load
from lint.loading.parse import collector_paused
from lint.report.model import (
    Finding,
    Location,
    ParseErrorReport,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.rules import rule
from lint.sandboxes import acquisition_paths, pod_labels

DEFAULT_EGRESS: Mapping[str, JSON] = {"policy": {"kind": "deny-all"}, "engine": "core"}


@dataclass(frozen=True)
class CheckOptions:
    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    namespace: str | None = None
    read_cilium: ReadCilium = "auto"
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load and judge on (``lint.forked``); 1 stays in this one."""


@dataclass(frozen=True)
class Plan:
    """One declaration entry, made concrete: what the checks run on."""

    template: str
    namespace: str
    profile: str | None
    egress: Mapping[str, JSON]
    external: bool
    pod_labels: Mapping[str, str]
    paths: tuple[str, ...] | None
    ingress_engine: str | None
    agent_port: int | None
    declaration: Location


def read_declarations(options: CheckOptions) -> Declarations:
    """The declaration file given with --config, or found upward from the
    current directory. Raises DeclarationError (a usage error, exit 2)."""
    path = options.config
    if path is None:
        path = next(filter(None, map(find_declaration_file, _search_starts(options.paths))), None)
    return load_declarations(path, namespace_override=options.namespace)


def _search_starts(paths: Sequence[str]) -> list[Path]:
    """Where to look for .egress-lint.yaml: upward from the first checked
    directory (so `egress-lint check fixtures/demo` finds the demo's file),
    then upward from the current directory."""
    starts = []
    first = next((p for p in paths if p != "-"), None)
    if first is not None:
        start = Path(first).resolve()
        starts.append(start if start.is_dir() else start.parent)
    starts.append(Path.cwd())
    return starts


def run_check(options: CheckOptions, *, stdin: bytes | None = None) -> Report:
    """Run every check. The cyclic garbage collector is paused meanwhile: a
    run builds hundreds of thousands of small objects and no cycles, and
    each collection would rescan all of them."""
    return check_run(options, stdin=stdin).report


@dataclass(frozen=True)
class CheckRun:
    """A finished run: its report, and what the report was built from.
    Holding it keeps the documents and judgements alive: a caller about to
    leave the process can skip freeing them one by one (the console script
    does; on the 16 MB bench tree that takes about 40 ms)."""

    report: Report
    working: tuple[object, ...]


def check_run(options: CheckOptions, *, stdin: bytes | None = None) -> CheckRun:
    """``run_check``, with the run's working objects."""
    with collector_paused():
        return _run_check(options, stdin)


def _run_check(options: CheckOptions, stdin: bytes | None) -> CheckRun:
    declarations = read_declarations(options)
    default_namespace = options.namespace or declarations.default_namespace or "default"
    loaded = load(
        list(options.paths),
        stdin=stdin,
        relevant_kinds=RELEVANT_KINDS,
        limits=options.limits,
        jobs=options.jobs,
    )
    inventory = build_inventory(loaded.documents, default_namespace)
    plans = _plans(declarations, inventory)
    ctx = CheckContext(inventory, loaded.problems, options.read_cilium)
    sandboxes: list[SandboxReport] = []
    findings = _load_findings(loaded.problems)
    checked = check_plans(
        plans, lambda plan: plan.namespace, functools.partial(_check_plan, ctx), options.jobs
    )
    for reports, plan_findings in checked:
        sandboxes.extend(reports)
        findings.extend(plan_findings)
    findings.extend(_prerequisites(inventory, plans))
    report = Report(
        defaults_applied=declarations.defaults_applied,
        sandboxes=tuple(sorted(sandboxes, key=_sandbox_key)),
        findings=tuple(sorted(set(findings), key=finding_key)),
        parse_errors=_parse_errors(loaded.problems),
        declaration_file=declarations.file,
        skipped=dict(sorted(loaded.skipped.items())),
        files=loaded.files,
    )
    return CheckRun(report, (loaded, inventory, ctx, plans, checked))


def _plans(declarations: Declarations, inventory: Inventory) -> list[Plan]:
    if declarations.defaults_applied:
        # One plan per template: a later apply of the same name (a kustomize
        # overlay over its base) replaces the earlier one.
        templates = {
            (t.namespace, t.name): t
            for t in inventory.all_of_kind("SandboxTemplate")
            if t.name is not None and t.namespace is not None
        }
        return [_default_plan(template) for template in templates.values()]
    plans = []
    for entry in declarations.entries:
        ingress = entry.ingress
        profile = entry.egress.get("profile")
        plans.append(
            Plan(
                template=entry.template,
                namespace=entry.namespace,
                profile=profile if isinstance(profile, str) else None,
                egress=entry.egress,
                external=entry.external,
                pod_labels=dict(entry.pod_labels),
                paths=tuple(entry.paths) if entry.paths else None,
                ingress_engine=None if ingress is None else ingress.engine,
                agent_port=None if ingress is None else ingress.agent_port,
                declaration=Location(entry.file, entry.line),
            )
        )
    return plans


def _default_plan(template: KubeObject) -> Plan:
    return Plan(
        template=template.name or "",
        namespace=template.namespace or "default",
        profile=None,
        egress=DEFAULT_EGRESS,
        external=False,
        pod_labels={},
        paths=None,
        ingress_engine=None,
        agent_port=DEFAULT_AGENT_PORT,
        declaration=location_of(template),
    )


def _check_plan(ctx: CheckContext, plan: Plan) -> tuple[list[SandboxReport], list[Finding]]:
    namespace = ctx.inventory.namespace(plan.namespace)
    template = namespace.named("SandboxTemplate", plan.template)
    translation = translate(plan.egress, plan.template, plan.namespace)
    reports, findings = [], []
    for path in acquisition_paths(plan.paths, namespace, plan.template):
        labels = pod_labels(plan.template, template, plan.egress, plan.pod_labels, path)
        subject = Subject(plan.namespace, labels)
        ref = SandboxRef(plan.namespace, plan.template, plan.profile, path)
        egress, egress_findings = check_egress(
            ctx, EgressInput(ref, plan.egress, translation, subject, template, plan.declaration)
        )
        findings.extend(egress_findings)
        ingress = None
        if plan.agent_port is not None:
            engine = plan.ingress_engine or _egress_engine(plan.egress)
            ingress, ingress_findings = check_ingress(
                ctx, IngressInput(ref, engine, plan.agent_port, subject, template, plan.declaration)
            )
            findings.extend(ingress_findings)
        reports.append(SandboxReport(ref, labels, egress, ingress, plan.declaration))
    return reports, findings


def _egress_engine(egress: Mapping[str, JSON]) -> str:
    engine = egress.get("engine")
    return engine if isinstance(engine, str) else "core"


def _prerequisites(inventory: Inventory, plans: Sequence[Plan]) -> list[Finding]:
    declared = [
        DeclaredSandbox(p.template, p.namespace, p.egress, p.external, p.declaration) for p in plans
    ]
    return [
        *missing_templates(inventory, declared),
        *label_domains(inventory, declared),
        *admission_fences(inventory, declared),
        *undeclared_claim_profiles(inventory, declared),
        *controller_conflicts(inventory),
        *unnamed_policies(inventory),
    ]


def _load_findings(problems: Sequence[LoadProblem]) -> list[Finding]:
    findings = []
    for problem in problems:
        rule_id = "parse-error" if problem.severity == "error" else "load-warning"
        findings.append(
            Finding(
                rule_id=rule_id,
                level=rule(rule_id).level,
                message=problem.message,
                location=Location(problem.file, problem.line),
                remedy=rule(rule_id).remedy,
            )
        )
    return findings


def _parse_errors(problems: Sequence[LoadProblem]) -> tuple[ParseErrorReport, ...]:
    errors = {
        ParseErrorReport(p.file, p.line, p.message) for p in problems if p.severity == "error"
    }
    return tuple(sorted(errors, key=lambda e: (e.file, e.line, e.message)))


_PATH_ORDER = {"direct": 0, "pooled": 1}


def _sandbox_key(report: SandboxReport) -> tuple[str, str, str, int]:
    ref = report.ref
    return (ref.namespace, ref.template, ref.profile or "", _PATH_ORDER.get(ref.path, 2))


def finding_key(finding: Finding) -> tuple[object, ...]:
    """The documented total order of findings: file, line, rule id, sandbox
    (namespace, template, profile, path), message, then everything else a
    finding carries, so no two different findings tie."""
    sandbox = finding.sandbox
    sandbox_key = (
        (
            sandbox.namespace,
            sandbox.template,
            sandbox.profile or "",
            _PATH_ORDER.get(sandbox.path, 2),
        )
        if sandbox is not None
        else ("", "", "", -1)
    )
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
        sandbox_key,
        finding.message,
        location.source or "",
        related,
        subject_key,
        finding.remedy,
    )
