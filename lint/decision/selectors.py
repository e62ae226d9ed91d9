"""Label selectors: readability, matching, Cilium keys, narrower-than (SEMANTICS.md §6, §9.2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.model import Tri
from lint.decision.values import (
    ABSENT,
    JSON,
    UNREADABLE,
    Absent,
    deep_equal,
    is_number,
    is_object,
    js_items,
    read_list,
)

CILIUM_MAPPED_SOURCES: Final = ("k8s", "any")
KeyMapper = Callable[[str], str | None]


def selector_readable(selector: JSON | Absent) -> bool:
    """§6.1: absent is readable; a non-object (null included) is not; a
    present matchLabels must be an object of strings; a present
    matchExpressions must be a list."""
    return selector is ABSENT or selector_parts(selector) is not None


SelectorParts = tuple[dict[str, str] | None, list[JSON] | None]
"""A readable selector's ``matchLabels`` and ``matchExpressions``, each None
when absent."""


def selector_parts(selector: JSON) -> SelectorParts | None:
    """The parts of a present selector when it is readable (§6.1), else
    None: read and checked in one pass, so a matcher does not read the
    selector again after asking whether it can."""
    if not isinstance(selector, dict):
        return None
    match_labels = selector.get("matchLabels", ABSENT)
    if match_labels is ABSENT:
        match_labels = None
    elif not isinstance(match_labels, dict):
        return None
    else:
        # A plain loop, not all() over a generator: every selector read asks this.
        for item in match_labels.values():
            if not isinstance(item, str):
                return None
    expressions = selector.get("matchExpressions", ABSENT)
    if expressions is ABSENT:
        expressions = None
    elif not isinstance(expressions, list):
        return None
    return match_labels, expressions


def map_cilium_key(key: str) -> str | None:
    """§6.3: a key with no ``:`` is unchanged; otherwise split at the first
    ``:`` and strip a ``k8s``/``any`` source. None for any other source."""
    if ":" not in key:
        return key
    source, rest = key.split(":", 1)
    return rest if source in CILIUM_MAPPED_SOURCES else None


def _identity_key(key: str) -> str | None:
    return key


def unknown_value_keys(labels: Mapping[str, str]) -> frozenset[str]:
    """The pod label keys known present with a value nobody can tell offline
    (``UNKNOWN_LABEL_VALUE``: ``sandbox-name-hash``, a claim's
    ``claim-uid``, an unknown warm pool's hash). The one source of truth for
    both decisions: ``match_selector`` below answers ``unknown`` for a
    requirement on such a value, and reach's pod label view
    (``reach.model.pod_label_view``) holds exactly these keys as present
    with an unknown value, so its matcher answers the same."""
    return frozenset(key for key, value in labels.items() if value == UNKNOWN_LABEL_VALUE)


def match_selector(selector: JSON | Absent, labels: Mapping[str, str], *, cilium: bool) -> Tri:
    """§6.2 (with the §6.3 key mapping when ``cilium``).

    The first decisive outcome wins. ``matchLabels`` is walked in JavaScript
    key order (quirk Q10), so an integer-like key is judged first and can
    decide ``no`` before a later key would have given ``unknown``.

    A label present with an unknown value (``UNKNOWN_LABEL_VALUE``) decides
    nothing: a requirement on its value is unknown unless another
    requirement gives ``no`` (CLUSTER-POLICIES §11, last paragraph).
    """
    if selector is ABSENT:
        return Tri.YES
    parts = selector_parts(selector)
    if parts is None:
        return Tri.UNKNOWN
    match_labels, expressions = parts
    # Readable, so each is None or of its type, and falsy exactly when
    # empty: this is is_empty_for_matching (§6.4), without reading again.
    if not match_labels and not expressions:
        return Tri.YES
    mapper: KeyMapper = map_cilium_key if cilium else _identity_key
    value_unknown = False
    for key, wanted in js_items(match_labels or {}):
        mapped = mapper(key)
        if mapped is None:
            return Tri.UNKNOWN
        value = labels.get(mapped)
        if value == UNKNOWN_LABEL_VALUE:
            value_unknown = True
        elif value != wanted:
            return Tri.NO
    for expression in expressions or []:
        outcome = _match_expression(expression, labels, mapper)
        if outcome is None:
            value_unknown = True
        elif outcome is not Tri.YES:
            return outcome
    return Tri.UNKNOWN if value_unknown else Tri.YES


def _match_expression(expression: JSON, labels: Mapping[str, str], mapper: KeyMapper) -> Tri | None:
    """§6.2 step 4 for one expression: YES when it is satisfied; None when
    it reads the value of a label whose value is unknown."""
    if not is_object(expression):
        return Tri.UNKNOWN
    key = expression.get("key")
    if not isinstance(key, str) or key == "":
        return Tri.UNKNOWN
    mapped = mapper(key)
    if mapped is None:
        return Tri.UNKNOWN
    present = mapped in labels
    operator = expression.get("operator")
    if operator == "Exists":
        return Tri.YES if present else Tri.NO
    if operator == "DoesNotExist":
        return Tri.NO if present else Tri.YES
    if operator not in ("In", "NotIn"):
        return Tri.UNKNOWN
    values = read_list(expression, "values")
    if values is None or values is UNREADABLE:
        return Tri.UNKNOWN
    if present and labels[mapped] == UNKNOWN_LABEL_VALUE:
        return None
    listed = present and any(isinstance(v, str) and v == labels[mapped] for v in values)
    if operator == "In":
        return Tri.YES if listed else Tri.NO
    return Tri.NO if listed else Tri.YES


def is_empty_for_matching(selector: JSON | Absent) -> bool:
    """§6.4 first sense: absent, or no non-empty matchLabels and no
    non-empty matchExpressions. Only meaningful for a readable selector.
    ``{"matchLabels": {}}`` is empty here (quirk Q6)."""
    if selector is ABSENT:
        return True
    if not is_object(selector):
        return False
    match_labels = selector.get("matchLabels")
    expressions = selector.get("matchExpressions")
    has_labels = is_object(match_labels) and len(match_labels) > 0
    has_expressions = isinstance(expressions, list) and len(expressions) > 0
    return not has_labels and not has_expressions


def narrower_than(outer: JSON | Absent, inner: JSON | Absent) -> bool:
    """§9.2: does ``inner`` select a subset of ``outer``.

    Only a selector with no ``matchLabels`` key and no expressions is empty
    here; ``{"matchLabels": {}}`` is not (§6.4, quirk Q6), so it demands that
    ``inner`` carry a ``matchLabels`` object.
    """
    if outer is ABSENT:
        return True
    if not is_object(outer):
        return False
    outer_expressions = read_list(outer, "matchExpressions")
    if outer_expressions is UNREADABLE:
        return False
    if "matchLabels" not in outer and not outer_expressions:
        return True
    if inner is ABSENT or not is_object(inner):
        return False
    if "matchLabels" in outer and not _labels_within(outer["matchLabels"], inner):
        return False
    inner_expressions = read_list(inner, "matchExpressions")
    if inner_expressions is UNREADABLE:
        return False
    return all(
        any(deep_equal(wanted, candidate) for candidate in inner_expressions or [])
        for wanted in outer_expressions or []
    )


def _labels_within(outer_labels: JSON, inner: Mapping[str, JSON]) -> bool:
    """§9.2 step 6: every outer label is an own key of inner's matchLabels
    with an identical value."""
    inner_labels = inner.get("matchLabels", ABSENT)
    if not is_object(outer_labels) or not is_object(inner_labels):
        return False
    return all(
        key in inner_labels and _identical(value, inner_labels[key])
        for key, value in outer_labels.items()
    )


def _identical(left: JSON, right: JSON) -> bool:
    """JavaScript ``===``: scalars compare by type and value; two objects or
    lists are never identical unless they are the same one."""
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    if is_number(left) and is_number(right):
        return bool(left == right)
    return deep_equal(left, right)


def selector_label_keys(selector: JSON | Absent, *, cilium: bool) -> frozenset[str]:
    """The label keys :func:`match_selector` can read for this selector.

    Matching reads a pod's labels only through these (mapped) keys, so two
    label sets that agree on them get the same answer. Callers use this to
    judge a policy once for many pods (DESIGN §7).
    """
    if not isinstance(selector, dict):
        return frozenset()
    match_labels = selector.get("matchLabels")
    keys = list(match_labels) if isinstance(match_labels, dict) else []
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        keys += [e["key"] for e in expressions if is_object(e) and isinstance(e.get("key"), str)]
    if not cilium:
        # Keys read as written: no mapping to apply, none to drop.
        return frozenset(key for key in keys if isinstance(key, str))
    mapped = (map_cilium_key(key) for key in keys if isinstance(key, str))
    return frozenset(key for key in mapped if key is not None)
