"""The ingress agent-port check for one sandbox and path (SEMANTICS §13)."""

from __future__ import annotations

from dataclasses import dataclass

from lint.checks.advisories import ingress_advisories
from lint.checks.context import CheckContext
from lint.checks.culprits import INGRESS_CULPRIT_RULES, RefusalContext, refusal_findings
from lint.checks.judging import (
    Judging,
    Scope,
    decision_report,
    examined_of,
    judged_entries,
    with_controller,
)
from lint.checks.reach import reach_data_of
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.ingress import (
    examine_ingress,
    ingress_documents,
    ingress_remedy,
    summarize_ingress,
)
from lint.decision.model import (
    Candidate,
    PolicyDocument,
    Subject,
)
from lint.inventory import KubeObject
from lint.report.model import Finding, IngressReport, Location, SandboxRef
from lint.rules import rule_for


@dataclass(frozen=True)
class IngressInput:
    sandbox: SandboxRef
    engine: str
    agent_port: int
    subject: Subject
    template: KubeObject | None
    declaration: Location
    facts: ControllerFacts = DEFAULT_FACTS


def check_ingress(ctx: CheckContext, given: IngressInput) -> tuple[IngressReport, list[Finding]]:
    scope = Scope(
        given.subject.namespace,
        given.template,
        with_controller(given.sandbox.path, given.facts),
        given.engine == "cilium",
        facts=given.facts,
    )

    groups = reach_data_of(ctx).cidr_groups

    def read(candidate: Candidate) -> list[PolicyDocument]:
        return ingress_documents(candidate, given.subject, given.agent_port, groups)

    judging = Judging(
        read, examine_ingress, ("ingress", given.agent_port), "ingress", given.subject
    )
    judged = judged_entries(ctx, scope, given.subject.labels, judging)
    decision = summarize_ingress(examined_of(judged), given.agent_port)
    report = decision_report(decision, judged)
    # Warnings of their own, which change no verdict (issue 15, item 7).
    advisories = ingress_advisories(judged, given.agent_port)
    if decision.refusal is None:
        return IngressReport(given.agent_port, report), advisories
    refusal = RefusalContext(
        sandbox=given.sandbox,
        declaration=given.declaration,
        rule_id=rule_for(decision.refusal).id,
        remedy=ingress_remedy(decision.refusal),
        culprit_rules=INGRESS_CULPRIT_RULES,
        rules_key="ingress",
        template=given.template,
    )
    findings = refusal_findings(judged, decision.summary, refusal)
    return IngressReport(given.agent_port, report), [*findings, *advisories]
