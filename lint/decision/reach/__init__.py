"""The reach decision (CLUSTER-POLICIES.md §1.5, §11): can the pod, in a real
cluster, get out of its allowance?

Reach judges the union's documents as the union does, plus every document of
CLUSTER-POLICIES §3 to §7, and refuses with the union's three refusals by
S§11.3 precedence. Pure: plain data in, frozen results out.
"""

from __future__ import annotations

from collections.abc import Sequence

from lint.decision.model import Allowance, Examined
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDecision,
    ReachDocument,
    ReachSubject,
    Skipped,
)


def reach_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """The judged documents of one candidate; () for kinds reach does not handle."""
    raise NotImplementedError("milestone 0: reach_documents is not implemented yet")


def decide_reach(
    union_examined: Sequence[Examined],
    cilium_under_core: Sequence[Examined],
    new: Sequence[ReachDocument],
    allowance: Allowance,
    *,
    skipped: Sequence[Skipped] = (),
) -> ReachDecision:
    """§1.5: the refusal by S§11.3 precedence over every document."""
    raise NotImplementedError("milestone 0: decide_reach is not implemented yet")


__all__ = ["ReachDecision", "decide_reach", "reach_documents"]
