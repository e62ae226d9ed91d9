"""Which pod labels a policy's selection depends on (SEMANTICS §5.3, §5.4, §6).

A policy's documents depend on the pod only through the labels its
selectors read. Knowing those keys lets a caller judge a policy once and
reuse the result for every pod that agrees on them (DESIGN §7: "selection
depends only on the label set").
"""

from __future__ import annotations

from lint.decision.constants import CORE_KIND
from lint.decision.model import Candidate
from lint.decision.selectors import selector_label_keys
from lint.decision.values import ABSENT


def candidate_label_keys(candidate: Candidate) -> frozenset[str]:
    """The label keys every selector of the candidate can read: the core
    ``podSelector``, or the Cilium ``endpointSelector`` of ``spec`` and of
    each ``specs`` entry (matched on identity labels, §5.4)."""
    raw = candidate.raw
    if not isinstance(raw, dict):
        return frozenset()
    if candidate.kind == CORE_KIND:
        spec = raw.get("spec")
        selector = spec.get("podSelector", ABSENT) if isinstance(spec, dict) else ABSENT
        return selector_label_keys(selector, cilium=False)
    specs = [raw.get("spec")]
    listed = raw.get("specs")
    if isinstance(listed, list):
        specs += listed
    keys: frozenset[str] = frozenset()
    for spec in specs:
        if isinstance(spec, dict):
            selector = spec.get("endpointSelector", ABSENT)
            keys |= selector_label_keys(selector, cilium=True)
    return keys
