"""Label selectors: readability, matching, Cilium keys, narrower-than (SEMANTICS.md §6, §9.2)."""

from __future__ import annotations

from collections.abc import Mapping

from lint.decision.model import Tri
from lint.decision.values import JSON, Absent


def selector_readable(selector: JSON | Absent) -> bool:
    """§6.1: absent is readable; a non-object (null included) is not; a
    present matchLabels must be an object of strings; a present
    matchExpressions must be a list."""
    raise NotImplementedError


def map_cilium_key(key: str) -> str | None:
    """§6.3: strip a ``k8s:``/``any:`` source prefix; None for any other source."""
    raise NotImplementedError


def match_selector(selector: JSON | Absent, labels: Mapping[str, str], *, cilium: bool) -> Tri:
    """§6.2 (with the §6.3 key mapping when ``cilium``)."""
    raise NotImplementedError


def is_empty_for_matching(selector: JSON | Absent) -> bool:
    """§6.4 first sense: absent, or no non-empty matchLabels and no
    non-empty matchExpressions. Only meaningful for a readable selector."""
    raise NotImplementedError


def narrower_than(outer: JSON | Absent, inner: JSON | Absent) -> bool:
    """§9.2: does ``inner`` select a subset of ``outer``."""
    raise NotImplementedError
