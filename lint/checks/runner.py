"""One check run: declarations and manifests in, a Report out.

Data flows one way: the front door (``lint.intake``: declarations, load,
inventory, declared sandboxes) -> per-sandbox checks -> report.
This function is callable without click; the CLI only gathers options.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lint.checks.candidates import declared_location
from lint.checks.context import CheckContext, ReadCilium, rule_finding
from lint.checks.duplicates import duplicate_objects
from lint.checks.egress import EgressInput, check_egress
from lint.checks.ingress import IngressInput, check_ingress
from lint.checks.prerequisites import (
    admission_fences,
    controller_conflicts,
    label_domains,
    missing_templates,
    undeclared_claim_profiles,
    unnamed_policies,
)
from lint.checks.reach import IngressReachInput, check_ingress_reach
from lint.checks.reach_candidates import namespace_label_disagreements
from lint.checks.shares import check_plans
from lint.decision.allowance import build_allowance
from lint.decision.model import Subject
from lint.declarations import DeclaredSandbox
from lint.intake import take_in
from lint.inventory import Inventory
from lint.kinds import SANDBOX_TEMPLATE
from lint.loading import DEFAULT_LIMITS, LoadLimits, LoadProblem
from lint.parallel.lifetime import collector_paused
from lint.report.model import (
    Finding,
    Location,
    ParseErrorReport,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.report.ordering import finding_key, sandbox_key
from lint.sandboxes import acquisition_paths, pod_labels
from lint.suppression import suppress


@dataclass(frozen=True)
class CheckOptions:
    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    namespace: str | None = None
    read_cilium: ReadCilium = "auto"
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load and judge on (``lint.parallel``); 1 stays in this one."""
    baseline: Path | None = None
    """Baseline file whose findings the run marks suppressed (after the
    annotations); an unreadable one raises BaselineError, a usage error."""


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
    intake = take_in(options, stdin=stdin)
    loaded, inventory, declared = intake.loaded, intake.inventory, intake.sandboxes
    declarations = intake.declarations
    ctx = CheckContext(
        inventory, loaded.problems, options.read_cilium, namespace_labels=declarations.namespaces
    )
    sandboxes: list[SandboxReport] = []
    findings = _load_findings(loaded.problems)
    checked = check_plans(
        declared,
        lambda sandbox: sandbox.namespace,
        functools.partial(_check_sandbox, ctx),
        options.jobs,
    )
    for reports, sandbox_findings in checked:
        sandboxes.extend(reports)
        findings.extend(sandbox_findings)
    findings.extend(_prerequisites(inventory, declared))
    findings.extend(namespace_label_disagreements(inventory, declarations))
    report = Report(
        defaults_applied=intake.declarations.defaults_applied,
        sandboxes=tuple(sorted(sandboxes, key=sandbox_key)),
        findings=tuple(sorted(set(findings), key=finding_key)),
        parse_errors=_parse_errors(loaded.problems),
        declaration_file=intake.declarations.file,
        skipped=dict(sorted(loaded.skipped.items())),
        files=loaded.files,
    )
    # Last, so a library caller gets the findings the command line prints.
    report = suppress(report, options.baseline)
    return CheckRun(report, (intake, ctx, checked))


def _check_sandbox(
    ctx: CheckContext, declared: DeclaredSandbox
) -> tuple[list[SandboxReport], list[Finding]]:
    namespace = ctx.inventory.namespace(declared.namespace)
    template = namespace.named(SANDBOX_TEMPLATE.name, declared.template)
    at = declared_location(declared)
    reports, findings = [], []
    for path in acquisition_paths(declared.paths, namespace, declared.template):
        labels = pod_labels(declared, template, path)
        subject = Subject(declared.namespace, labels)
        ref = SandboxRef(declared.namespace, declared.template, declared.profile, path)
        egress, egress_findings = check_egress(
            ctx, EgressInput(ref, declared, subject, template, at)
        )
        findings.extend(egress_findings)
        ingress = None
        if declared.agent_port is not None:
            engine = declared.ingress_engine or declared.engine
            ingress, ingress_findings = check_ingress(
                ctx, IngressInput(ref, engine, declared.agent_port, subject, template, at)
            )
            findings.extend(ingress_findings)
            reach_input = IngressReachInput(
                ref, at, subject, template, build_allowance(declared.translation)
            )
            ingress_reach, reach_findings = check_ingress_reach(ctx, reach_input)
            ingress = dataclasses.replace(ingress, reach=ingress_reach)
            findings.extend(reach_findings)
        reports.append(SandboxReport(ref, labels, egress, ingress, at))
    return reports, findings


def _prerequisites(inventory: Inventory, declared: Sequence[DeclaredSandbox]) -> list[Finding]:
    return [
        *missing_templates(inventory, declared),
        *label_domains(inventory, declared),
        *admission_fences(inventory, declared),
        *undeclared_claim_profiles(inventory, declared),
        *controller_conflicts(inventory),
        *unnamed_policies(inventory),
        *duplicate_objects(inventory),
    ]


def _load_findings(problems: Sequence[LoadProblem]) -> list[Finding]:
    findings = []
    for problem in problems:
        rule_id = "parse-error" if problem.severity == "error" else "load-warning"
        location = Location(problem.file, problem.line)
        findings.append(rule_finding(rule_id, problem.message, location))
    return findings


def _parse_errors(problems: Sequence[LoadProblem]) -> tuple[ParseErrorReport, ...]:
    errors = {
        ParseErrorReport(p.file, p.line, p.message) for p in problems if p.severity == "error"
    }
    return tuple(sorted(errors, key=lambda e: (e.file, e.line, e.message)))
