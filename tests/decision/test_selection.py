"""``selects_nothing`` agrees with the document readers: it is true exactly
when every document the readers give is ``does-not-select``. The check
reuses judged entries on that basis, so a disagreement either way would
change a verdict (or waste the reuse)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import egress_documents
from lint.decision.ingress import examine_ingress, ingress_documents
from lint.decision.model import Candidate, Subject
from lint.decision.selection import required_labels, selects_nothing
from lint.decision.translation import translate
from lint.decision.union import examine

NAMESPACE = "sbx"
TRANSLATION = translate({"policy": {"kind": "deny-all"}}, "task", NAMESPACE)
ALLOWANCE = build_allowance(TRANSLATION)
KINDS = ["NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]

_keys = st.sampled_from(["app", "tier", "k8s:app", "io.kubernetes.pod.namespace"])
_values = st.sampled_from(["a", "b", NAMESPACE, "other"])
_match_labels = st.dictionaries(_keys, _values, max_size=2)
_expression = st.fixed_dictionaries(
    {
        "key": _keys,
        "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Bogus"]),
        "values": st.lists(_values, max_size=2),
    }
)
_selector = st.one_of(
    st.just({}),
    st.builds(lambda m: {"matchLabels": m}, _match_labels),
    st.builds(lambda e: {"matchExpressions": e}, st.lists(_expression, min_size=1, max_size=2)),
    st.sampled_from([None, "x", [], {"matchLabels": "x"}]),
)
# Rule lists that are readable, empty, absent (None drops the key) or not lists.
_rules = st.sampled_from([None, [], [{}], [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}], "x"])
_odd = st.sampled_from([None, "x", 3, []])


@st.composite
def _core(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["x", [], {"spec": "x"}]))
    spec: dict[str, Any] = {"podSelector": draw(_selector)}
    for field in ("egress", "ingress"):
        rules = draw(_rules)
        if rules is not None:
            spec[field] = rules
    if draw(st.booleans()):
        spec["policyTypes"] = draw(st.sampled_from([["Egress"], ["Ingress"], [], "x", None]))
    return {"metadata": {"name": "p"}, "spec": spec}


@st.composite
def _cilium_spec(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(_odd)
    spec: dict[str, Any] = {"endpointSelector": draw(_selector)}
    if draw(st.integers(0, 5)) == 0:
        spec["nodeSelector"] = draw(st.sampled_from([{}, None]))
    for field in ("egress", "ingress", "egressDeny", "ingressDeny"):
        rules = draw(_rules)
        if rules is not None:
            spec[field] = rules
    if draw(st.booleans()):
        spec["enableDefaultDeny"] = draw(
            st.sampled_from([{}, {"egress": False}, {"ingress": True}, {"egress": "x"}, None])
        )
    return spec


@st.composite
def _cilium(draw: st.DrawFn) -> Any:
    raw: dict[str, Any] = {"metadata": {"name": "c"}}
    if draw(st.booleans()):
        raw["spec"] = draw(_cilium_spec())
    if draw(st.booleans()):
        raw["specs"] = draw(st.one_of(st.lists(_cilium_spec(), max_size=3), _odd))
    return raw


@st.composite
def candidates(draw: st.DrawFn) -> Candidate:
    kind = draw(st.sampled_from(KINDS))
    raw = draw(_core()) if kind == "NetworkPolicy" else draw(_cilium())
    return Candidate(kind, raw, 0, clusterwide=kind == KINDS[2])


def _verdicts(candidate: Candidate, subject: Subject, direction: str) -> list[str]:
    if direction == "egress":
        documents = egress_documents(candidate, subject, ALLOWANCE, TRANSLATION)
        return [examine(d).verdict for d in documents]
    return [examine_ingress(d).verdict for d in ingress_documents(candidate, subject)]


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(
    candidates(),
    st.dictionaries(st.sampled_from(["app", "tier"]), _values, max_size=2),
    st.sampled_from(["egress", "ingress"]),
)
def test_selects_nothing_agrees_with_the_readers(
    candidate: Candidate, labels: dict[str, str], direction: Any
) -> None:
    subject = Subject(NAMESPACE, labels)
    verdicts = _verdicts(candidate, subject, direction)
    expected = all(v == "does-not-select" for v in verdicts)
    assert selects_nothing(candidate, subject, direction) is expected
    required = required_labels(candidate, direction)
    if required is not None:
        assert any(labels.get(key) != value for key, value in required) is expected


SELECTOR = {"matchLabels": {"app": "a"}}


@pytest.mark.parametrize(
    ("kind", "raw", "labels", "expected"),
    [
        ("NetworkPolicy", {"spec": {"podSelector": SELECTOR, "egress": []}}, {"app": "b"}, True),
        ("NetworkPolicy", {"spec": {"podSelector": SELECTOR, "egress": []}}, {"app": "a"}, False),
        # Unreadable in one direction only: never reused there.
        ("NetworkPolicy", {"spec": {"podSelector": SELECTOR, "egress": "x"}}, {}, (False, True)),
        ("NetworkPolicy", "not an object", {}, False),
        ("CiliumNetworkPolicy", {"spec": {"endpointSelector": SELECTOR}}, {"app": "b"}, True),
        ("CiliumNetworkPolicy", {"specs": [{"endpointSelector": {}}]}, {}, False),
        ("CiliumNetworkPolicy", {"specs": [{"nodeSelector": {}}]}, {}, True),
        ("CiliumNetworkPolicy", {"specs": ["x"]}, {}, False),
        ("CiliumNetworkPolicy", {"metadata": {}}, {}, False),
        # Identity labels include the namespace (§5.4).
        (
            "CiliumNetworkPolicy",
            {
                "spec": {
                    "endpointSelector": {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "sbx"}}
                }
            },
            {},
            False,
        ),
    ],
)
def test_selects_nothing_cases(
    kind: str, raw: Any, labels: dict[str, str], expected: bool | tuple[bool, bool]
) -> None:
    """``expected`` is the answer for both directions, or (egress, ingress)."""
    candidate = Candidate(kind, raw, 0)
    subject = Subject(NAMESPACE, labels)
    both = expected if isinstance(expected, tuple) else (expected, expected)
    assert (
        selects_nothing(candidate, subject, "egress"),
        selects_nothing(candidate, subject, "ingress"),
    ) == both


@pytest.mark.parametrize(
    ("raw", "required"),
    [
        (
            {"spec": {"podSelector": {"matchLabels": {"a": "1", "b": "2"}}}},
            (("a", "1"), ("b", "2")),
        ),
        ({"spec": {"podSelector": {"matchLabels": {}}}}, None),  # empty: selects every pod
        ({"spec": {"podSelector": {}}}, None),
        ({"spec": {"podSelector": {"matchLabels": {"a": 1}}}}, None),  # unreadable selector
        ({"spec": {"podSelector": {"matchLabels": {"a": "1"}, "matchExpressions": []}}}, None),
        ({"spec": {"podSelector": {"matchLabels": {"a": "1"}}, "egress": "x"}}, None),
        ({"spec": "x"}, None),
    ],
)
def test_required_labels(raw: Any, required: Any) -> None:
    assert required_labels(Candidate("NetworkPolicy", raw, 0), "egress") == required


def test_required_labels_are_for_core_policies_only() -> None:
    raw = {"spec": {"endpointSelector": {"matchLabels": {"a": "1"}}}}
    assert required_labels(Candidate("CiliumNetworkPolicy", raw, 0), "egress") is None
