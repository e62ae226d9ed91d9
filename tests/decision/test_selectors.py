"""Label selectors (SEMANTICS.md §6.1-§6.4, §9.2, quirks Q6 and Q10)."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.model import Tri
from lint.decision.selectors import (
    is_empty_for_matching,
    map_cilium_key,
    match_selector,
    narrower_than,
    selector_readable,
)
from lint.decision.values import ABSENT

YES, NO, UNKNOWN = Tri.YES, Tri.NO, Tri.UNKNOWN

# --- §6.1 readability -----------------------------------------------------------

READABLE = [
    (ABSENT, True),
    ({}, True),
    ({"matchLabels": {}}, True),
    ({"matchLabels": {"a": "b"}}, True),
    ({"matchExpressions": []}, True),
    ({"matchExpressions": [5]}, True),  # entries are judged while matching, not here
    ({"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "a", "operator": "Exists"}]}, True),
    ({"other": 1}, True),
    (None, False),
    ([], False),
    ("app=x", False),
    ({"matchLabels": None}, False),
    ({"matchLabels": []}, False),
    ({"matchLabels": {"a": 1}}, False),
    ({"matchLabels": {"a": None}}, False),
    ({"matchLabels": {"a": True}}, False),
    ({"matchExpressions": None}, False),
    ({"matchExpressions": {}}, False),
]


@pytest.mark.parametrize(("selector", "expected"), READABLE)
def test_selector_readable(selector: Any, expected: bool) -> None:
    assert selector_readable(selector) is expected


# --- §6.3 Cilium key mapping ----------------------------------------------------------

CILIUM_KEYS = [
    ("app", "app"),
    ("k8s:app", "app"),
    ("any:app", "app"),
    ("k8s:io.kubernetes.pod.namespace", "io.kubernetes.pod.namespace"),
    ("k8s:a:b", "a:b"),  # split at the first colon only
    (":app", None),  # an empty source is not k8s or any
    ("reserved:host", None),
    ("cidr:10.0.0.0/8", None),
    ("fqdn:example.com", None),
    ("unspec:app", None),
    ("K8S:app", None),  # sources are case-sensitive
]


@pytest.mark.parametrize(("key", "expected"), CILIUM_KEYS)
def test_map_cilium_key(key: str, expected: str | None) -> None:
    assert map_cilium_key(key) == expected


# --- §6.2 matching --------------------------------------------------------------------

POD = {"app": "web", "tier": "front", "5": "five"}


def exists(key: str) -> dict[str, Any]:
    return {"key": key, "operator": "Exists"}


CORE_MATCHES = [
    # unreadable
    (None, UNKNOWN),
    ({"matchLabels": {"app": 1}}, UNKNOWN),
    ({"matchExpressions": None}, UNKNOWN),
    # empty selects everything
    (ABSENT, YES),
    ({}, YES),
    ({"matchLabels": {}}, YES),
    ({"matchExpressions": []}, YES),
    ({"matchLabels": {}, "matchExpressions": []}, YES),
    # matchLabels
    ({"matchLabels": {"app": "web"}}, YES),
    ({"matchLabels": {"app": "web", "tier": "front"}}, YES),
    ({"matchLabels": {"app": "api"}}, NO),
    ({"matchLabels": {"missing": "x"}}, NO),
    ({"matchLabels": {"app": "WEB"}}, NO),  # values are compared exactly
    # core keys are not mapped: a prefixed key is just a missing label
    ({"matchLabels": {"k8s:app": "web"}}, NO),
    # matchExpressions
    ({"matchExpressions": [exists("app")]}, YES),
    ({"matchExpressions": [exists("missing")]}, NO),
    ({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}, NO),
    ({"matchExpressions": [{"key": "missing", "operator": "DoesNotExist"}]}, YES),
    ({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]}, YES),
    ({"matchExpressions": [{"key": "app", "operator": "In", "values": ["api"]}]}, NO),
    ({"matchExpressions": [{"key": "missing", "operator": "In", "values": ["x"]}]}, NO),
    ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, NO),
    ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["api"]}]}, YES),
    ({"matchExpressions": [{"key": "missing", "operator": "NotIn", "values": ["x"]}]}, YES),
    ({"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}, NO),
    # values read with the list reader: null and absent are absent, which is unknown
    ({"matchExpressions": [{"key": "app", "operator": "In"}]}, UNKNOWN),
    ({"matchExpressions": [{"key": "app", "operator": "In", "values": None}]}, UNKNOWN),
    ({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": "web"}]}, UNKNOWN),
    # Exists ignores values entirely
    ({"matchExpressions": [{"key": "app", "operator": "Exists", "values": "junk"}]}, YES),
    # bad entries
    ({"matchExpressions": [5]}, UNKNOWN),
    ({"matchExpressions": [{"operator": "Exists"}]}, UNKNOWN),
    ({"matchExpressions": [{"key": "", "operator": "Exists"}]}, UNKNOWN),
    ({"matchExpressions": [{"key": 5, "operator": "Exists"}]}, UNKNOWN),
    ({"matchExpressions": [{"key": "app", "operator": "exists"}]}, UNKNOWN),  # case-sensitive
    ({"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]}, UNKNOWN),
    ({"matchExpressions": [{"key": "app"}]}, UNKNOWN),
    # the first decisive outcome wins
    ({"matchExpressions": [exists("missing"), 5]}, NO),
    ({"matchExpressions": [5, exists("missing")]}, UNKNOWN),
    ({"matchLabels": {"app": "api"}, "matchExpressions": [5]}, NO),
    ({"matchLabels": {"app": "web"}, "matchExpressions": [5]}, UNKNOWN),
]


@pytest.mark.parametrize(("selector", "expected"), CORE_MATCHES)
def test_match_core(selector: Any, expected: Tri) -> None:
    assert match_selector(selector, POD, cilium=False) is expected


IDENTITY = {"app": "web", "io.kubernetes.pod.namespace": "ns1"}

CILIUM_MATCHES = [
    ({"matchLabels": {"k8s:app": "web"}}, YES),
    ({"matchLabels": {"any:app": "web"}}, YES),
    ({"matchLabels": {"app": "web"}}, YES),
    ({"matchLabels": {"k8s:io.kubernetes.pod.namespace": "ns1"}}, YES),
    ({"matchLabels": {"k8s:io.kubernetes.pod.namespace": "ns2"}}, NO),
    # other Cilium-derived identity labels are absent
    ({"matchLabels": {"k8s:io.cilium.k8s.policy.serviceaccount": "default"}}, NO),
    # an unmapped source makes the whole selector unknown
    ({"matchLabels": {"reserved:host": ""}}, UNKNOWN),
    ({"matchLabels": {"app": "web", "reserved:host": ""}}, UNKNOWN),
    # ...unless a no was decided first
    ({"matchLabels": {"app": "api", "reserved:host": ""}}, NO),
    ({"matchExpressions": [{"key": "k8s:app", "operator": "Exists"}]}, YES),
    ({"matchExpressions": [{"key": "reserved:world", "operator": "Exists"}]}, UNKNOWN),
]


@pytest.mark.parametrize(("selector", "expected"), CILIUM_MATCHES)
def test_match_cilium(selector: Any, expected: Tri) -> None:
    assert match_selector(selector, IDENTITY, cilium=True) is expected


def test_integer_like_key_is_judged_first() -> None:
    """Q10: matchLabels are walked in JavaScript key order, so the
    integer-like key "7" comes before "reserved:x" although it is written
    after it. It decides `no` before the unmappable key can give `unknown`."""
    selector = {"matchLabels": {"reserved:x": "", "7": "seven"}}
    assert list(selector["matchLabels"]) == ["reserved:x", "7"]
    assert match_selector(selector, IDENTITY, cilium=True) is NO
    # when the integer-like key matches, the walk reaches the unmappable key
    assert match_selector(selector, {**IDENTITY, "7": "seven"}, cilium=True) is UNKNOWN
    # a non-index key written second stays second
    later = {"matchLabels": {"reserved:x": "", "x7": "seven"}}
    assert match_selector(later, IDENTITY, cilium=True) is UNKNOWN


def test_labels_only_own_keys_count() -> None:
    assert match_selector({"matchLabels": {"app": "web"}}, {}, cilium=False) is NO


# --- §6.4 empty for matching -----------------------------------------------------------------

EMPTY_FOR_MATCHING = [
    (ABSENT, True),
    ({}, True),
    ({"matchLabels": {}}, True),
    ({"matchExpressions": []}, True),
    ({"matchLabels": {}, "matchExpressions": []}, True),
    ({"matchLabels": {"a": "b"}}, False),
    ({"matchExpressions": [exists("a")]}, False),
]


@pytest.mark.parametrize(("selector", "expected"), EMPTY_FOR_MATCHING)
def test_is_empty_for_matching(selector: Any, expected: bool) -> None:
    assert is_empty_for_matching(selector) is expected


# --- §9.2 narrower-than --------------------------------------------------------------------

KUBE_SYSTEM = {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}
KUBE_DNS = {"matchLabels": {"k8s-app": "kube-dns"}}

NARROWER = [
    # 1. absent outer contains everything, even an unreadable inner
    (ABSENT, ABSENT, True),
    (ABSENT, None, True),
    # 2. a non-object outer contains nothing
    (None, ABSENT, False),
    ("x", {}, False),
    # 3. unreadable outer expressions
    ({"matchExpressions": "x"}, {}, False),
    # 4. no matchLabels key and no expressions: everything is inside
    ({}, ABSENT, True),
    ({"matchExpressions": []}, ABSENT, True),
    ({"matchExpressions": None}, ABSENT, True),  # the list reader reads null as absent
    # Q6: {"matchLabels": {}} is not empty here, so inner must have a matchLabels object
    ({"matchLabels": {}}, ABSENT, False),
    ({"matchLabels": {}}, {}, False),
    ({"matchLabels": {}}, {"matchExpressions": [exists("a")]}, False),
    ({"matchLabels": {}}, {"matchLabels": {}}, True),
    ({"matchLabels": {}}, KUBE_DNS, True),
    # 5. inner absent or not an object
    (KUBE_SYSTEM, ABSENT, False),
    (KUBE_SYSTEM, None, False),
    # 6. matchLabels subset
    (KUBE_SYSTEM, KUBE_SYSTEM, True),
    (KUBE_DNS, {"matchLabels": {"k8s-app": "kube-dns", "extra": "x"}}, True),
    (KUBE_DNS, {"matchLabels": {"k8s-app": "coredns"}}, False),
    (KUBE_DNS, {"matchLabels": {}}, False),
    (KUBE_DNS, {"matchLabels": None}, False),
    (
        KUBE_DNS,
        {"matchExpressions": [{"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
        False,
    ),
    ({"matchLabels": None}, KUBE_DNS, False),
    ({"matchLabels": {"a": "1"}}, {"matchLabels": {"a": 1}}, False),  # identical means same type
    # 7. unreadable inner expressions
    (KUBE_DNS, {"matchLabels": {"k8s-app": "kube-dns"}, "matchExpressions": 5}, False),
    # 8. every outer expression must equal some inner expression
    ({"matchExpressions": [exists("a")]}, {"matchExpressions": [exists("b"), exists("a")]}, True),
    ({"matchExpressions": [exists("a")]}, {"matchExpressions": [exists("b")]}, False),
    ({"matchExpressions": [exists("a")]}, {}, False),
    (
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]},
        {"matchExpressions": [{"values": ["x", "y"], "operator": "In", "key": "a"}]},
        True,
    ),
    (
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]},
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["y", "x"]}]},
        False,
    ),
    # 9. inner expressions beyond outer's narrow further
    (KUBE_DNS, {"matchLabels": {"k8s-app": "kube-dns"}, "matchExpressions": [exists("z")]}, True),
]


@pytest.mark.parametrize(("outer", "inner", "expected"), NARROWER)
def test_narrower_than(outer: Any, inner: Any, expected: bool) -> None:
    assert narrower_than(outer, inner) is expected


def test_matchlabels_empty_differs_between_the_two_senses() -> None:
    """Q6: one selector, two meanings of empty."""
    selector = {"matchLabels": {}}
    assert is_empty_for_matching(selector)
    assert match_selector(selector, {}, cilium=False) is YES
    assert not narrower_than(selector, ABSENT)
    assert narrower_than({}, ABSENT)
