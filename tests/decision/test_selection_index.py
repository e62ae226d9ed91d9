"""The selection index never drops a policy the full scan selects: every
candidate it leaves out for a pod is one ``selects_nothing`` is true for, and
whose documents the readers all judge ``does-not-select``. The check gives
the left-out candidates a shared ``does-not-select`` entry, so a candidate
dropped wrongly would change a verdict."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.model import Candidate, Subject
from lint.decision.selection import selects_nothing
from lint.decision.selection_index import (
    ScopeSelection,
    candidate_requirements,
    directed_requirements,
    selection_index,
    selector_requirements,
)
from tests.decision.test_selection import NAMESPACE, _verdicts

KINDS = ["NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]
# Plain keys, Cilium sources that map (k8s:, any:) and one that does not
# (reserved:), an integer-like key (walked first, JavaScript order), and the
# identity label Cilium adds (§5.4).
_keys = st.sampled_from(
    [
        "app",
        "tier",
        "k8s:app",
        "any:tier",
        "reserved:host",
        "1",
        "io.kubernetes.pod.namespace",
        "k8s:io.kubernetes.pod.namespace",
    ]
)
_values = st.sampled_from(["a", "b", NAMESPACE, "other"])
_label_values = st.sampled_from(["a", "b", NAMESPACE, UNKNOWN_LABEL_VALUE])
_expression = st.one_of(
    st.fixed_dictionaries(
        {
            "key": _keys,
            "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Bogus"]),
            "values": st.one_of(st.lists(_values, max_size=2), st.just("x")),
        }
    ),
    st.fixed_dictionaries({"key": _keys, "operator": st.sampled_from(["In", "Exists"])}),
    st.sampled_from(["x", {}, {"key": "", "operator": "Exists"}, {"key": 3, "operator": "In"}]),
)
_selector = st.one_of(
    st.just({}),
    st.builds(lambda m: {"matchLabels": m}, st.dictionaries(_keys, _values, max_size=3)),
    st.builds(
        lambda m, e: {"matchLabels": m, "matchExpressions": e},
        st.dictionaries(_keys, _values, max_size=2),
        st.lists(_expression, max_size=3),
    ),
    st.builds(lambda e: {"matchExpressions": e}, st.lists(_expression, min_size=1, max_size=3)),
    st.sampled_from([None, "x", [], {"matchLabels": "x"}, {"matchLabels": {"app": 1}}]),
)
_rules = st.sampled_from([None, [], [{}], "x"])


@st.composite
def _core(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 14)) == 0:
        return draw(st.sampled_from(["x", [], {"spec": "x"}]))
    spec: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        spec["podSelector"] = draw(_selector)
    for field in ("egress", "ingress"):
        rules = draw(_rules)
        if rules is not None:
            spec[field] = rules
    if draw(st.booleans()):
        spec["policyTypes"] = draw(st.sampled_from([["Egress"], ["Ingress"], "x"]))
    return {"metadata": {"name": "p"}, "spec": spec}


@st.composite
def _cilium_spec(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 14)) == 0:
        return draw(st.sampled_from([None, "x", 3, []]))
    spec: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        spec["endpointSelector"] = draw(_selector)
    if draw(st.integers(0, 6)) == 0:
        spec["nodeSelector"] = {}
    for field in ("egress", "ingress", "egressDeny"):
        rules = draw(_rules)
        if rules is not None:
            spec[field] = rules
    if draw(st.integers(0, 4)) == 0:
        spec["enableDefaultDeny"] = draw(st.sampled_from([{}, {"egress": "x"}, None]))
    return spec


@st.composite
def _candidate(draw: st.DrawFn, position: int) -> Candidate:
    kind = draw(st.sampled_from(KINDS))
    if kind == "NetworkPolicy":
        return Candidate(kind, draw(_core()), position)
    raw: dict[str, Any] = {"metadata": {"name": "c"}}
    if draw(st.integers(0, 5)):
        raw["spec"] = draw(_cilium_spec())
    if draw(st.booleans()):
        raw["specs"] = draw(st.one_of(st.lists(_cilium_spec(), max_size=3), st.just("x")))
    return Candidate(kind, raw, position, clusterwide=kind == KINDS[2])


@st.composite
def _scopes(draw: st.DrawFn) -> list[Candidate]:
    count = draw(st.integers(1, 6))
    return [draw(_candidate(position)) for position in range(count)]


_pod_labels = st.dictionaries(
    st.sampled_from(["app", "tier", "1", "host", "io.kubernetes.pod.namespace"]),
    _label_values,
    max_size=3,
)


def _index(candidates: list[Candidate], direction: Any) -> ScopeSelection:
    return selection_index(candidates, [candidate_requirements(c, direction) for c in candidates])


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_scopes(), _pod_labels, st.sampled_from(["egress", "ingress"]))
def test_the_index_never_drops_a_selecting_policy(
    candidates: list[Candidate], labels: dict[str, str], direction: Any
) -> None:
    subject = Subject(NAMESPACE, labels)
    selecting = _index(candidates, direction).selecting(subject)
    for position, candidate in enumerate(candidates):
        if position in selecting:
            continue
        assert selects_nothing(candidate, subject, direction), candidate.raw
        verdicts = _verdicts(candidate, subject, direction)
        assert all(v == "does-not-select" for v in verdicts), (candidate.raw, verdicts)


def test_the_index_leaves_out_what_cannot_select() -> None:
    """The point of the index: a policy for another template is not visited."""
    candidates = [
        Candidate(
            "NetworkPolicy",
            {"spec": {"podSelector": {"matchLabels": {"template": f"t{i}"}}, "egress": []}},
            i,
        )
        for i in range(50)
    ]
    candidates.append(Candidate("NetworkPolicy", {"spec": {"podSelector": {}}}, 50))
    candidates.append(
        Candidate(
            "CiliumNetworkPolicy",
            {"spec": {"endpointSelector": {"matchLabels": {"k8s:template": "t7"}}}},
            51,
        )
    )
    index = _index(candidates, "egress")
    assert index.selecting(Subject(NAMESPACE, {"template": "t7"})) == {7, 50, 51}
    assert index.selecting(Subject(NAMESPACE, {"template": UNKNOWN_LABEL_VALUE})) == set(range(52))


@pytest.mark.parametrize(
    ("selector", "cilium", "required"),
    [
        ({"matchLabels": {"a": "1", "b": "2"}}, False, (("a", "1"), ("b", "2"))),
        ({"matchLabels": {"k8s:a": "1"}}, True, (("a", "1"),)),
        ({"matchLabels": {"k8s:a": "1"}}, False, (("k8s:a", "1"),)),
        # A source other than k8s or any answers unknown: nothing after it counts.
        ({"matchLabels": {"a": "1", "reserved:b": "2", "c": "3"}}, True, (("a", "1"),)),
        ({"matchLabels": {"b": "2", "1": "x"}}, False, (("1", "x"), ("b", "2"))),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, False, (("a", None),)),
        (
            {
                "matchExpressions": [
                    {"key": "a", "operator": "NotIn", "values": ["x"]},
                    {"key": "b", "operator": "In", "values": ["y"]},
                    {"key": "c", "operator": "Bogus"},
                    {"key": "d", "operator": "Exists"},
                ]
            },
            False,
            (("b", None),),
        ),
        ({"matchExpressions": [{"key": "b", "operator": "In"}]}, False, ()),
        ({}, False, ()),
        ({"matchLabels": {"a": 1}}, False, ()),
    ],
)
def test_selector_requirements(selector: Any, cilium: bool, required: Any) -> None:
    assert selector_requirements(selector, cilium=cilium) == required


def test_each_direction_keeps_its_own_shape_checks() -> None:
    """Both directions are read at once, but a list only one of them reads
    makes only that one unreadable: the other still has its requirements."""
    selector = {"matchLabels": {"app": "a"}}
    core = Candidate("NetworkPolicy", {"spec": {"podSelector": selector, "egress": "x"}}, 0)
    assert directed_requirements(core) == {"egress": None, "ingress": [(("app", "a"),)]}
    cilium = Candidate(
        "CiliumNetworkPolicy",
        {
            "specs": [
                {"endpointSelector": {"matchLabels": {"k8s:app": "a"}}},
                {"endpointSelector": {"matchLabels": {"app": "b"}}, "ingress": "x"},
                {"nodeSelector": {}, "egress": "x"},
            ]
        },
        1,
    )
    assert directed_requirements(cilium) == {
        "egress": [(("app", "a"),), (("app", "b"),)],
        "ingress": None,
    }
    for candidate in (core, cilium):
        for direction in ("egress", "ingress"):
            expected = directed_requirements(candidate)[direction]
            assert candidate_requirements(candidate, direction) == expected
