"""Kleene's three-valued connectives (CLUSTER-POLICIES.md §12.1, "Certainty").

``N and x = N``, ``Y or x = Y``, ``not M = M``. The ``and`` is the reach
readers' own ``combine`` (§2.4), so the two decisions join answers the same way.
"""

from __future__ import annotations

from lint.decision.model import Tri
from lint.decision.reach.common import combine

kleene_and = combine
"""``N`` if any is ``N``, else ``M`` if any is ``M``, else ``Y`` (``Y`` for none)."""


def kleene_or(*values: Tri) -> Tri:
    """``Y`` if any is ``Y``, else ``M`` if any is ``M``, else ``N`` (``N`` for none)."""
    if Tri.YES in values:
        return Tri.YES
    if Tri.UNKNOWN in values:
        return Tri.UNKNOWN
    return Tri.NO


def kleene_not(value: Tri) -> Tri:
    """``Y`` and ``N`` swap; ``M`` stays."""
    if value is Tri.YES:
        return Tri.NO
    if value is Tri.NO:
        return Tri.YES
    return Tri.UNKNOWN


def lower(value: Tri) -> Tri:
    """``Y`` lowered to ``M`` (a test the cluster may not apply, §12.2.2)."""
    return Tri.UNKNOWN if value is Tri.YES else value


def of_bool(value: bool) -> Tri:
    return Tri.YES if value else Tri.NO
