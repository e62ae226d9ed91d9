"""Whether a policy object selects a pod at all, decided without reading
its rules (SEMANTICS §5.3, §5.4, §13.1).

When every document of an object is readable and none selects the pod, the
object's documents are all ``does-not-select``, whatever the translation or
the agent port: rules are read only for a document that can select the pod
(§11.1 step 2, §13.4 step 2). A caller may then reuse the entries it judged
for that object under any other context or label set with the same outcome.
This mirrors the readers in ``egress_documents`` and ``ingress``: the same
shape checks, in the same order, and the same selector matching.
"""

from __future__ import annotations

from lint.decision.constants import CORE_KIND
from lint.decision.egress_documents import identity_labels
from lint.decision.model import Candidate, Subject, Tri
from lint.decision.policy_shape import (
    Direction,
    read_cilium_shape,
    read_core_shape,
    spec_entries,
)
from lint.decision.selectors import match_selector
from lint.decision.values import ABSENT


def selects_nothing(candidate: Candidate, subject: Subject, direction: Direction) -> bool:
    """True when every document the candidate gives in ``direction`` is
    readable and does not select ``subject`` (also when it gives none: a
    Cilium object whose every spec is node-scoped). False otherwise, which
    includes every object with an unreadable document."""
    raw = candidate.raw
    if not isinstance(raw, dict) or candidate.unreadable is not None:
        return False
    if candidate.kind == CORE_KIND:
        shape = read_core_shape(raw, direction)
        if isinstance(shape, str):
            return False
        selector = shape.spec.get("podSelector", ABSENT)
        return match_selector(selector, subject.labels, cilium=False) is Tri.NO
    entries = spec_entries(raw)
    if isinstance(entries, str):
        return False
    labels = identity_labels(subject)
    for spec, spec_index in entries:
        if not isinstance(spec, dict):
            return False
        if "nodeSelector" in spec:
            continue
        if isinstance(read_cilium_shape(spec, direction, spec_index), str):
            return False
        if match_selector(spec.get("endpointSelector", ABSENT), labels, cilium=True) is not Tri.NO:
            return False
    return True


def required_labels(
    candidate: Candidate, direction: Direction
) -> tuple[tuple[str, str], ...] | None:
    """The labels, key and value, a pod must carry for the candidate to
    select it, when its selection is no more than that: a NetworkPolicy
    readable in ``direction`` whose ``podSelector`` holds only a non-empty
    ``matchLabels`` of strings. For such a candidate ``selects_nothing`` is
    true exactly when a pair is missing from the pod's labels (§6.2: each
    label must be equal; no key maps to nothing for a core selector, so no
    outcome is unknown). None for every other candidate."""
    raw = candidate.raw
    if candidate.kind != CORE_KIND or not isinstance(raw, dict):
        return None
    shape = read_core_shape(raw, direction)
    if isinstance(shape, str):
        return None
    selector = shape.spec.get("podSelector", ABSENT)
    if not isinstance(selector, dict) or list(selector) != ["matchLabels"]:
        return None
    labels = selector["matchLabels"]
    if not isinstance(labels, dict) or not labels:
        return None
    if not all(isinstance(value, str) for value in labels.values()):
        return None
    return tuple(labels.items())
