"""The ingress agent-port check for one sandbox and path (SEMANTICS §13)."""

from __future__ import annotations

import msgspec

from lint.checks.advisories import ingress_advisories
from lint.checks.context import CheckContext
from lint.checks.culprits import RefusalContext, refusal_findings
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
    ingress_refusal,
)
from lint.decision.model import (
    Candidate,
    PolicyDocument,
    Subject,
)
from lint.inventory import KubeObject
from lint.report.model import Finding, IngressReport, Location, SandboxRef
from lint.rules import culprit_rules, remedy_text, rule_for


class IngressInput(msgspec.Struct, frozen=True):
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
    # Only the entries that select can refuse, be a culprit or draw an advisory.
    refused, summary = ingress_refusal(examined_of(judged.selecting), given.agent_port)
    report = decision_report(refused, summary, judged)
    # Warnings of their own, which change no verdict (issue 15, item 7).
    advisories = ingress_advisories(judged.selecting, given.agent_port)
    if refused is None:
        return IngressReport(given.agent_port, report), advisories
    rule_id = rule_for(refused).id
    refusal = RefusalContext(
        sandbox=given.sandbox,
        declaration=given.declaration,
        rule_id=rule_id,
        remedy=remedy_text(rule_id, "refusal"),
        culprit_rules=culprit_rules("ingress"),
        rules_key="ingress",
        template=given.template,
        memo=ctx.memo.scopes,
    )
    findings = refusal_findings(judged.selecting, summary, refusal)
    return IngressReport(given.agent_port, report), [*findings, *advisories]
