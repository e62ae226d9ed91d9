"""The ``expect`` check of a ``host: none`` entry (issue 17).

No host reads an object back by name, so there is no field-by-field
comparison (SEMANTICS §12). When the entry names one object with
``expect: {kind, name}``, that object must exist in the sandbox namespace,
select the pod, enforce egress, and every egress rule it holds must stay
inside the declared allowance (the rule verdicts of §10). The result is
reported in the named-object slot, with the same rules:
``named-policy-missing`` and ``named-policy-mismatch``.
"""

from __future__ import annotations

from lint.checks.candidates import location_of
from lint.checks.context import precise_location, rule_finding
from lint.decision.constants import CORE_KIND
from lint.decision.egress_documents import egress_documents
from lint.decision.model import Allowance, Candidate, PolicyDocument, Subject, Translation, Tri
from lint.declarations.entries import ExpectedObject
from lint.inventory import Inventory, KubeObject
from lint.report.model import Finding, Location, NamedReport, SandboxRef


def check_expected(
    inventory: Inventory,
    expect: ExpectedObject,
    subject: Subject,
    allowance: Allowance,
    translation: Translation,
    *,
    sandbox: SandboxRef,
    declaration: Location,
) -> tuple[NamedReport, list[Finding]]:
    """The named report and findings for one ``expect`` on one path."""
    obj = inventory.namespace(subject.namespace).named(expect.kind, expect.name)
    if obj is None:
        detail = (
            f"no {expect.kind} named {expect.name!r} in namespace {subject.namespace!r}, "
            "which the declaration expects (`expect`)"
        )
        finding = rule_finding("named-policy-missing", detail, declaration, sandbox=sandbox)
        return NamedReport("missing", None, detail, None), [finding]
    problem = _problem(obj, expect, subject, allowance, translation)
    if problem is None:
        return NamedReport("match", None, None, location_of(obj)), []
    field, detail, path = problem
    location = precise_location(obj, path)
    finding = rule_finding("named-policy-mismatch", detail, location, sandbox=sandbox, obj=obj)
    return NamedReport("mismatch", field, detail, location), [finding]


def _problem(
    obj: KubeObject,
    expect: ExpectedObject,
    subject: Subject,
    allowance: Allowance,
    translation: Translation,
) -> tuple[str, str, tuple[str | int, ...]] | None:
    """The first thing wrong with the expected object: (field, detail, path)."""
    candidate = Candidate(expect.kind, obj.value, 0)
    documents = egress_documents(candidate, subject, allowance, translation)
    shown = f"{expect.kind}/{expect.name}"
    for document in documents:
        problem = _document_problem(document, shown)
        if problem is not None:
            return problem
    return None


def _document_problem(
    document: PolicyDocument, shown: str
) -> tuple[str, str, tuple[str | int, ...]] | None:
    if document.unreadable is not None:
        return "egress", f"{shown} cannot be read: {document.unreadable}", ("spec",)
    if document.selects is not Tri.YES:
        selector = "podSelector" if document.kind == CORE_KIND else "endpointSelector"
        return (
            "selector",
            f"{shown} is the expected policy, but its selector does not select the pod",
            ("spec", selector),
        )
    for verdict in document.rules:
        if verdict.outcome is not Tri.NO:
            return (
                "egress",
                f"{shown} is the expected policy, but its egress rule {verdict.index} goes "
                f"beyond the declared allowance: {verdict.detail}",
                ("spec", "egress", verdict.index),
            )
    if not document.enforces:
        return (
            "policyTypes",
            f"{shown} is the expected policy, but it enforces no egress",
            ("spec", "policyTypes"),
        )
    return None
