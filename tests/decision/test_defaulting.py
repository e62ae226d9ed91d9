"""Objects read as the API server stores them (SEMANTICS §5.3, CLUSTER-POLICIES
§5.6): the defaulting of a NetworkPolicy's ``policyTypes`` and a Calico
policy's ``types``, and what it changes in the union's verdict."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.defaulting import calico_governs_egress, enforces, stored_policy_types
from lint.decision.egress_documents import egress_documents
from lint.decision.model import EgressRefusal, Subject
from lint.decision.union import examine, union_refusal
from tests.decision import manifests as m

SUBJECT = Subject(m.NAMESPACE, dict(m.POD_LABELS))


@pytest.mark.parametrize(
    ("policy_types", "egress", "stored"),
    [
        (None, None, ("Ingress",)),
        (None, [], ("Ingress",)),
        ([], [], ("Ingress",)),
        (None, [{}], ("Ingress", "Egress")),
        ([], [{}], ("Ingress", "Egress")),
        (["Egress"], None, ("Egress",)),
        (["Ingress"], [{}], ("Ingress",)),
    ],
)
def test_policy_types_as_stored(
    policy_types: list[Any] | None, egress: list[Any] | None, stored: tuple[str, ...]
) -> None:
    assert stored_policy_types(policy_types, egress) == stored
    assert enforces("egress", policy_types, egress) is ("Egress" in stored)
    assert enforces("ingress", policy_types, egress) is ("Ingress" in stored)


@pytest.mark.parametrize(
    ("types", "egress", "governed"),
    [
        (None, [{}], True),
        ([], [{}], True),
        (None, [], False),
        (["Ingress"], [{}], False),
        (["Egress"], [], True),
    ],
)
def test_calico_types_as_stored(types: list[Any] | None, egress: list[Any], governed: bool) -> None:
    assert calico_governs_egress(types, egress) is governed


def _union(spec: dict[str, Any]) -> EgressRefusal | None:
    """The union over one NetworkPolicy selecting the pod, under deny-all."""
    translation = m.deny_all()
    allowance = build_allowance(translation)
    candidate = m.core_candidate(m.network_policy("p", spec=spec))
    documents = egress_documents(candidate, SUBJECT, allowance, translation)
    return union_refusal([examine(d) for d in documents], allowance)[0]


def test_no_policy_types_and_empty_egress_does_not_isolate() -> None:
    """Stored as ``policyTypes: [Ingress]``: the pod is not isolated for
    egress, so deny-all is not bounded (it used to read as a default-deny)."""
    refusal = _union({"podSelector": {}, "egress": []})
    assert refusal is EgressRefusal.NO_ENFORCING_POLICY


def test_empty_policy_types_and_an_empty_rule_widens() -> None:
    """Stored as ``[Ingress, Egress]``: the empty rule lets everything out
    (it used to read as no egress at all)."""
    refusal = _union({"podSelector": {}, "policyTypes": [], "egress": [{}]})
    assert refusal is EgressRefusal.POLICY_WIDENS_EGRESS


def test_written_egress_type_still_isolates_with_no_rule() -> None:
    assert _union({"podSelector": {}, "policyTypes": ["Egress"], "egress": []}) is None


_types: st.SearchStrategy[list[Any] | None] = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["Ingress", "Egress", "egress", "", 1, None]), max_size=3),
)
_rules: st.SearchStrategy[list[Any] | None] = st.one_of(
    st.none(), st.lists(st.sampled_from([{}, {"to": []}]), max_size=2)
)


@given(
    direction=st.sampled_from(["egress", "ingress"]),
    types=_types,
    egress=_rules,
)
def test_enforces_is_the_type_listed_as_stored(
    direction: str, types: list[Any] | None, egress: list[Any] | None
) -> None:
    """``enforces`` answers without building the stored list, and answers
    what looking the type up in it does."""
    wanted = "Egress" if direction == "egress" else "Ingress"
    assert enforces(direction, types, egress) is (wanted in stored_policy_types(types, egress))
