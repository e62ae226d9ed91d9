"""``reach.selection`` never drops a candidate the readers let select: when
``selects_nothing`` says so, the egress and ingress readers each give one
``does-not-select`` document, the same for every pod it says so for; and the
answer depends on the pod's labels only through ``mentioned_keys``. The check
reuses one object's documents on that basis, so a wrong answer would change a
verdict. Calico selectors are three-valued: an unknown subject counts as
possibly selecting."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.model import EgressVerdict, IngressVerdict
from lint.decision.reach import reach_outcome
from lint.decision.reach.ingress import ingress_documents
from lint.decision.reach.model import ReachCandidate, ReachData, namespace_label_view
from lint.decision.reach.selection import mentioned_keys, selects_nothing
from tests.decision.reach.test_calico import NAMESPACE, subject

_keys = st.sampled_from(["app", "tier", "kubernetes.io/metadata.name", "projectcalico.org/name"])
_values = st.sampled_from(["a", "b", NAMESPACE, "other"])
_strict = st.one_of(
    st.just({}),
    st.builds(lambda m: {"matchLabels": m}, st.dictionaries(_keys, _values, max_size=2)),
    st.builds(
        lambda e: {"matchExpressions": e},
        st.lists(
            st.fixed_dictionaries(
                {
                    "key": _keys,
                    "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "X"]),
                    "values": st.lists(_values, max_size=2),
                }
            ),
            max_size=2,
        ),
    ),
    st.sampled_from([None, "x", {"matchLabels": "x"}]),
)
_admin_subject = st.one_of(
    st.builds(lambda s: {"namespaces": s}, _strict),
    st.builds(lambda n, p: {"pods": {"namespaceSelector": n, "podSelector": p}}, _strict, _strict),
    st.builds(lambda p: {"pods": {"podSelector": p}}, _strict),
    st.sampled_from([{}, "x", {"pods": {"other": {}}}, {"namespaces": {}, "pods": {}}]),
)
_rules = st.sampled_from(
    [None, [], [{"action": "Allow"}], [{"action": "Deny", "name": "d"}], "x", [{"action": "Pass"}]]
)
_calico_selector = st.sampled_from(
    [
        "",
        "all()",
        "app == 'a'",
        "app == 'b' && has(tier)",
        "!has(app)",
        "app in {'a', 'other'}",
        "tier != 'a'",
        "projectcalico.org/namespace == 'sbx'",
        "pcns.team == 'x'",
        "app ==",
        "global()",
    ]
)


@st.composite
def _candidates(draw: st.DrawFn) -> ReachCandidate:
    family = draw(st.sampled_from(["anp", "banp", "cnp", "gnp", "calico-np", "staged"]))
    spec: dict[str, Any] = {}
    if family in ("anp", "banp", "cnp"):
        spec["subject"] = draw(_admin_subject)
        if family == "cnp":
            spec["tier"] = draw(st.sampled_from(["Admin", "Baseline", "Other", None]))
        for field in ("egress", "ingress"):
            rules = draw(_rules)
            if rules is not None:
                spec[field] = rules
        api_version, kind = {
            "anp": ("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy"),
            "banp": ("policy.networking.k8s.io/v1alpha1", "BaselineAdminNetworkPolicy"),
            "cnp": ("policy.networking.k8s.io/v1alpha2", "ClusterNetworkPolicy"),
        }[family]
    else:
        api_version = "projectcalico.org/v3"
        kind = {
            "gnp": "GlobalNetworkPolicy",
            "calico-np": "NetworkPolicy",
            "staged": "StagedNetworkPolicy",
        }[family]
        for field in ("selector", "namespaceSelector", "serviceAccountSelector"):
            if draw(st.booleans()):
                spec[field] = draw(st.one_of(_calico_selector, st.just(3)))
        for field in ("egress", "ingress"):
            rules = draw(_rules)
            if rules is not None:
                spec[field] = rules
        if draw(st.integers(0, 5)) == 0:
            spec["types"] = draw(st.sampled_from([["Egress"], ["Ingress"], "x"]))
        if kind == "GlobalNetworkPolicy" and draw(st.integers(0, 5)) == 0:
            spec["doNotTrack"] = draw(st.sampled_from([True, "x"]))
    raw: Any = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "p"}, "spec": spec}
    if draw(st.integers(0, 19)) == 0:
        raw = draw(st.sampled_from(["x", {"spec": "x"}]))
    namespace = draw(st.sampled_from([None, NAMESPACE, "elsewhere"]))
    return ReachCandidate(api_version, kind, raw, 0, namespace)


_pods = st.dictionaries(
    st.sampled_from(["app", "tier", "unrelated"]),
    st.sampled_from(["a", "b", "other", UNKNOWN_LABEL_VALUE]),
    max_size=3,
)
_data = st.sampled_from(
    [
        ReachData(),
        ReachData(namespace_labels={NAMESPACE: namespace_label_view(NAMESPACE, {"team": "x"})}),
    ]
)


@settings(max_examples=1500, deadline=None)
@given(_candidates(), _pods, _pods, st.sampled_from(["default", "agent"]), _data)
def test_a_candidate_that_selects_nothing_gives_one_shared_document(
    candidate: ReachCandidate,
    pod: dict[str, str],
    other_pod: dict[str, str],
    service_account: str,
    data: ReachData,
) -> None:
    first = subject("D", pod=pod, service_account=service_account)
    if not selects_nothing(candidate, first, data):
        return
    documents, skipped = reach_outcome(candidate, first, data)
    assert skipped == ()
    assert [d.verdict for d in documents] == [EgressVerdict.DOES_NOT_SELECT]
    inward = ingress_documents(candidate, first, data)
    assert [d.verdict for d in inward] == [IngressVerdict.DOES_NOT_SELECT]
    # Another pod (and another decision context) it selects nothing of
    # gets the very same documents.
    second = subject("S", pod=other_pod, service_account=service_account)
    if selects_nothing(candidate, second, data):
        assert reach_outcome(candidate, second, data) == (documents, skipped)
        assert ingress_documents(candidate, second, data) == inward


@settings(max_examples=1500, deadline=None)
@given(_candidates(), _pods, st.sampled_from(["default", "agent"]), _data)
def test_the_answer_reads_only_the_mentioned_keys(
    candidate: ReachCandidate, pod: dict[str, str], service_account: str, data: ReachData
) -> None:
    keys = mentioned_keys(candidate)
    full = selects_nothing(candidate, subject("D", pod=pod, service_account=service_account), data)
    if keys is None:
        assert not full
        return
    restricted = {key: value for key, value in pod.items() if key in keys}
    alone = subject("D", pod=restricted, service_account=service_account)
    assert selects_nothing(candidate, alone, data) is full


def test_a_subject_for_other_pods_selects_nothing() -> None:
    candidate = ReachCandidate(
        "policy.networking.k8s.io/v1alpha2",
        "ClusterNetworkPolicy",
        {
            "spec": {
                "tier": "Admin",
                "subject": {"pods": {"podSelector": {"matchLabels": {"app": "web"}}}},
                "egress": [{"action": "Accept"}],
            }
        },
    )
    assert selects_nothing(candidate, subject("D", pod={"app": "agent"}), ReachData())
    assert not selects_nothing(candidate, subject("D", pod={"app": "web"}), ReachData())
    assert mentioned_keys(candidate) == frozenset(
        {"pods", "podSelector", "matchLabels", "app", "web"}
    )
