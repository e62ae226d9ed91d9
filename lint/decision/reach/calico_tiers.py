"""Calico tiers for the reach decision (CLUSTER-POLICIES.md §5.2, §5.11).

Where a tier sits relative to the ``default`` tier, read from the built-in
orders and the ``Tier`` manifests, and DEFTIER: whether the ``default``
tier still ends in Deny. Moved out of ``calico`` unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from typing import Final, Literal, TypeAlias

from lint.decision.model import (
    EgressVerdict,
)
from lint.decision.reach.common import (
    display_kind,
    object_name,
)
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
)
from lint.decision.values import JSON, compact_json

GROUP: Final = "calico"
DEFAULT_TIER: Final = "default"
DEFAULT_TIER_ORDER: Final = 1_000_000
BUILT_IN_TIER_ORDERS: Final[Mapping[str, float]] = {
    "adminnetworkpolicy": 1_000,
    "kube-admin": 1_000,
    DEFAULT_TIER: DEFAULT_TIER_ORDER,
    "baselineadminnetworkpolicy": 10_000_000,
    "kube-baseline": 10_000_000,
}


# --- Tiers (§5.2, §5.11) --------------------------------------------------------------


class Position(Enum):
    """Where a policy's tier sits relative to the ``default`` tier (§5.2)."""

    BEFORE = "before"
    DEFAULT = "default"
    AFTER = "after"
    UNKNOWN = "unknown"


_LAST: Final = "last"
TierOrder: TypeAlias = float | Literal["last"] | None
"""A readable order, ``last`` for an absent one, None when it cannot be read."""


def _tier_manifest_order(raw: JSON) -> TierOrder:
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return None
    order = spec.get("order")
    if order is None:
        return _LAST
    if isinstance(order, bool) or not isinstance(order, int | float):
        return None
    return float(order) if math.isfinite(order) else None


def _position_of(name: str, order: TierOrder) -> Position:
    if order is None:
        return Position.UNKNOWN
    if order == _LAST:
        return Position.AFTER
    if order < DEFAULT_TIER_ORDER or (order == DEFAULT_TIER_ORDER and name < DEFAULT_TIER):
        return Position.BEFORE
    return Position.AFTER


def tier_position(name: str, data: ReachData) -> Position:
    """§5.2: the position of tier ``name``. Every source of its order (the
    built-in table and each Tier manifest of that name) must agree, else
    the position is ``unknown``; a custom tier with no manifest is too."""
    if name == DEFAULT_TIER:
        return Position.DEFAULT
    positions = {
        _position_of(name, _tier_manifest_order(tier.raw))
        for tier in data.calico_tiers
        if object_name(tier.raw, tier.position) == name
    }
    if name in BUILT_IN_TIER_ORDERS:
        positions.add(_position_of(name, BUILT_IN_TIER_ORDERS[name]))
    return positions.pop() if len(positions) == 1 else Position.UNKNOWN


def _default_tier_problem(raw: JSON) -> str | None:
    """§5.11: why a ``default`` Tier manifest no longer ends in Deny, or None."""
    spec = raw.get("spec")
    consequence = (
        "so the default tier may pass unmatched traffic on to later tiers and to the "
        "namespace profile, which allows everything, and NetworkPolicy isolation is no "
        "longer final"
    )
    if not isinstance(spec, dict):
        return f"the `default` Tier's `spec` {compact_json(spec)} cannot be read, {consequence}"
    action = spec.get("defaultAction")
    if action is None or action == "Deny":
        return None
    return (
        f"the `default` Tier sets `defaultAction` {compact_json(action)} instead of Deny, "
        f"{consequence} (Calico up to 3.31 accepted this; 3.32 rejects it)"
    )


def _default_tiers(data: ReachData) -> list[tuple[ReachCandidate, str]]:
    return [
        (tier, problem)
        for tier in data.calico_tiers
        if isinstance(tier.raw, dict)
        and object_name(tier.raw, tier.position) == DEFAULT_TIER
        and (problem := _default_tier_problem(tier.raw)) is not None
    ]


def deftier(data: ReachData) -> bool:
    """§5.11 DEFTIER: true unless a ``default`` Tier manifest passes."""
    return not _default_tiers(data)


def calico_tier_documents(data: ReachData, subject: ReachSubject) -> tuple[ReachDocument, ...]:
    """§5.11: one ``not-evaluable`` document per ``default`` Tier that
    passes; every other Tier yields none."""
    return tuple(
        ReachDocument(
            kind=display_kind(tier.api_version, tier.kind),
            name=DEFAULT_TIER,
            verdict=EgressVerdict.NOT_EVALUABLE,
            detail=problem,
            rule_index=None,
            rule_path=(),
            group=GROUP,
        )
        for tier, problem in _default_tiers(data)
    )
