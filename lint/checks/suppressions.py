"""Suppression annotations that suppress nothing (DESIGN §4, issue 13): an
``egress-lint.io/ignore`` value with no ``reason=``, or naming a rule id
that is not one, is a warning at its line, so a typo never passes silently."""

from __future__ import annotations

from lint.checks.context import precise_location, rule_finding
from lint.inventory import Inventory
from lint.report.model import Finding
from lint.rules import RULES_BY_ID
from lint.suppression import IGNORE_ANNOTATION, annotation_problem

RULE_ID = "suppression-malformed"


def malformed_suppressions(inventory: Inventory) -> list[Finding]:
    known = frozenset(RULES_BY_ID)
    findings = []
    for obj in inventory.every_object():
        value = obj.value
        metadata = value.get("metadata") if isinstance(value, dict) else None
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        if not isinstance(annotations, dict) or IGNORE_ANNOTATION not in annotations:
            continue
        raw = annotations[IGNORE_ANNOTATION]
        problem = (
            annotation_problem(raw, known)
            if isinstance(raw, str)
            else "its value is not a string, so it suppresses nothing"
        )
        if problem is None:
            continue
        message = (
            f"the {IGNORE_ANNOTATION} annotation of {obj.kind}/{obj.display_name} is not "
            f"honoured: {problem}"
        )
        location = precise_location(obj, ("metadata", "annotations", IGNORE_ANNOTATION))
        findings.append(rule_finding(RULE_ID, message, location, obj=obj))
    return findings
