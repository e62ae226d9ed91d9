"""``duplicate-object``: two objects of one kind with the same namespace and
name (issue 12; CLUSTER-POLICIES §1.6).

Only one of them can exist in the cluster, and which one depends on the
order they are applied, so the decisions judge both (``candidates.by_name``
keeps every copy) and the wider verdict stands; this check says so, naming
every copy's file and line. It is generic over kinds: the caller says which
kinds it covers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lint.checks.candidates import location_of
from lint.checks.context import rule_finding
from lint.inventory import Inventory, KubeObject
from lint.kinds import KINDS, Decision
from lint.report.model import Finding

RULE_ID = "duplicate-object"

DUPLICATE_CHECKED_KINDS: frozenset[str] = frozenset(
    kind.key
    for kind in KINDS
    if kind.read and (kind.network_policy or kind.decision is Decision.REACH_DATA)
)
"""The kinds whose duplicates the check reports: every policy kind and the
data reach reads."""


def duplicate_objects(
    inventory: Inventory, kinds: frozenset[str] = DUPLICATE_CHECKED_KINDS
) -> list[Finding]:
    """One finding per set of same-named objects of one kind and namespace."""
    findings: list[Finding] = []
    for key in sorted(kinds):
        findings += _duplicates(inventory.cluster_objects(key))
        for namespace in sorted(inventory.namespaces):
            findings += _duplicates(inventory.namespace(namespace).of_kind(key))
    return findings


def _duplicates(objects: Iterable[KubeObject]) -> list[Finding]:
    by_name: dict[str, list[KubeObject]] = {}
    for obj in objects:
        if obj.name is not None:
            by_name.setdefault(obj.name, []).append(obj)
    return [_finding(copies) for _, copies in sorted(by_name.items()) if len(copies) > 1]


def _finding(copies: Sequence[KubeObject]) -> Finding:
    ordered = sorted(copies, key=lambda obj: (obj.document.file, obj.document.line))
    first, last = ordered[0], ordered[-1]
    places = ", ".join(f"{o.document.file}:{o.document.line}" for o in ordered)
    where = f"{first.namespace}/{first.name}" if first.namespace else str(first.name)
    message = (
        f"{first.kind} {where} is defined {len(ordered)} times ({places}); only one "
        "can exist in the cluster, and which one depends on the order they are applied, "
        "so each copy is judged and the wider verdict stands"
    )
    related = [location_of(obj) for obj in ordered[:-1]]
    return rule_finding(RULE_ID, message, location_of(last), obj=last, related=related)
