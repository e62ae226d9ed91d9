"""Calico policies and tiers for the reach decision (CLUSTER-POLICIES.md §5).

A placeholder until the CALICO helper's branch lands: it judges nothing and
returns no document. CALICO replaces this module as a whole.
"""

from __future__ import annotations

from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
)


def calico_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...] | Skipped:
    """§5: no Calico document yet (CALICO writes this)."""
    return ()


def calico_tier_documents(data: ReachData, subject: ReachSubject) -> tuple[ReachDocument, ...]:
    """§5.11: no Tier document yet (CALICO writes this)."""
    return ()


def deftier(data: ReachData) -> bool:
    """§5.11 DEFTIER; true until CALICO implements the Tier check."""
    return True
