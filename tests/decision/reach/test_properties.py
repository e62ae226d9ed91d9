"""Reach properties at the pure level (issue 12, tests):

- adding any new-kind object never turns a reach refusal into a pass, nor
  into a weaker refusal (new kinds never count as enforcing);
- the order of the objects never changes the decision.

Objects are drawn from a universe of AdminNetworkPolicy, Baseline-
AdminNetworkPolicy, ClusterNetworkPolicy and catch-all objects, good and
bad, judged by the real readers against real translations.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.reach import decide_reach, reach_outcome
from lint.decision.reach.model import ReachCandidate, ReachDecision
from lint.decision.union import examine
from tests.decision.reach.scenario import (
    DECLARATIONS,
    DNSPORTS1,
    DNSPROTO2,
    KDNS,
    NAMESPACE,
    Scenario,
    data_for,
    subject_for,
    union_documents,
)

_selector = st.sampled_from(
    [
        {},
        {"matchLabels": {"team": "ml"}},
        {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
        {"matchLabels": {"kubernetes.io/metadata.name": "other"}},
        {"matchExpressions": [{"key": "app", "operator": "In", "values": ["agent"]}]},
        {"matchExpressions": [{"key": "agents.x-k8s.io/sandbox-name-hash", "operator": "Exists"}]},
        {"namespaceSelector": {}},
        None,
    ]
)
_subject = st.one_of(
    st.builds(lambda s: {"namespaces": s}, _selector),
    st.builds(
        lambda n, p: {"pods": {"namespaceSelector": n, "podSelector": p}}, _selector, _selector
    ),
    st.just({}),
)
_peer = st.sampled_from(
    [
        KDNS,
        {"networks": ["0.0.0.0/0"]},
        {"networks": ["8.8.8.8/32"]},
        {"networks": ["10.0.0.0/8"]},
        {"namespaces": {}},
        {"nodes": {}},
        {"domainNames": ["api.github.com"]},
        {"domainNames": ["*.example"]},
        {"pods": {"podSelector": {"matchLabels": {"app": "x"}}}},
        {"unknownPeer": {}},
        "junk",
    ]
)
_anp_ports = st.sampled_from(
    [None, DNSPORTS1, [{"namedPort": "dns"}], [{"portRange": {"start": 1, "end": 9}}], "bad"]
)
_cnp_protocols = st.sampled_from(
    [None, DNSPROTO2, [{"tcp": {}}], [{"icmp": {}}], [{"destinationNamedPort": "dns"}]]
)


def _rule(action: str, to: list[Any] | None, ports_key: str, ports: Any) -> dict[str, Any]:
    rule: dict[str, Any] = {"action": action}
    if to is not None:
        rule["to"] = to
    if ports is not None:
        rule[ports_key] = ports
    return rule


_to = st.one_of(st.none(), st.lists(_peer, max_size=2))
_anp_rule = st.builds(
    _rule, st.sampled_from(["Allow", "Deny", "Pass", "Accept"]), _to, st.just("ports"), _anp_ports
)
_cnp_rule = st.builds(
    _rule,
    st.sampled_from(["Accept", "Deny", "Pass", "Allow"]),
    _to,
    st.just("protocols"),
    _cnp_protocols,
)
_name = st.sampled_from(["a", "b", "c", "default", ""])


def _object(api_version: str, kind: str, name: str, spec: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec}


_anp = st.builds(
    lambda name, subject, rules: _object(
        "policy.networking.k8s.io/v1alpha1",
        "AdminNetworkPolicy",
        name,
        {"subject": subject, "egress": rules},
    ),
    _name,
    _subject,
    st.lists(_anp_rule, max_size=2),
)
_banp = st.builds(
    lambda subject, rules: _object(
        "policy.networking.k8s.io/v1alpha1",
        "BaselineAdminNetworkPolicy",
        "default",
        {"subject": subject, "egress": rules},
    ),
    _subject,
    st.lists(_anp_rule, max_size=2),
)
_cnp = st.builds(
    lambda name, tier, subject, rules: _object(
        "policy.networking.k8s.io/v1alpha2",
        "ClusterNetworkPolicy",
        name,
        {"tier": tier, "subject": subject, "egress": rules},
    ),
    _name,
    st.sampled_from(["Admin", "Baseline", "admin"]),
    _subject,
    st.lists(_cnp_rule, max_size=2),
)
_other = st.sampled_from(
    [
        _object("crd.antrea.io/v1beta1", "ClusterNetworkPolicy", "x", {}),
        _object("k8s.ovn.org/v1", "EgressFirewall", "y", {}),
        _object("policy.networking.k8s.io/v1beta1", "ClusterNetworkPolicy", "z", {}),
        _object("apps/v1", "Deployment", "d", {}),
    ]
)
_objects = st.lists(st.one_of(_anp, _banp, _cnp, _other), max_size=4)
_code = st.sampled_from(sorted(DECLARATIONS))
_namespace_labels = st.sampled_from([None, {}, {"team": "ml"}])

RANK = {None: 0, "no-enforcing-policy": 1, "not-evaluable": 2, "policy-widens-egress": 3}


def decide(
    code: str, objects: list[dict[str, Any]], labels: dict[str, str] | None, named: bool
) -> ReachDecision:
    scenario = Scenario(code, namespace_labels=labels, named_object=named)
    documents = union_documents(code, named)
    subject = subject_for(scenario, documents)
    data = data_for(scenario)
    # Positions are per kind in name order, as WIRING gives them.
    new = []
    skipped = []
    for raw in objects:
        position = sum(
            1
            for other in objects
            if other["kind"] == raw["kind"]
            and other is not raw
            and other["metadata"]["name"] < raw["metadata"]["name"]
        )
        judged, skips = reach_outcome(
            ReachCandidate(raw["apiVersion"], raw["kind"], raw, position), subject, data
        )
        new.extend(judged)
        skipped.extend(skips)
    return decide_reach(
        [examine(d) for d in documents], (), new, subject.allowance, skipped=skipped
    )


def _rank(decision: ReachDecision) -> int:
    return RANK[None if decision.refusal is None else str(decision.refusal)]


@settings(max_examples=200, deadline=None)
@given(_code, _objects, st.one_of(_anp, _banp, _cnp, _other), _namespace_labels, st.booleans())
def test_adding_an_object_never_weakens_a_refusal(
    code: str,
    objects: list[dict[str, Any]],
    extra: dict[str, Any],
    labels: dict[str, str] | None,
    named: bool,
) -> None:
    before = decide(code, objects, labels, named)
    after = decide(code, [*objects, extra], labels, named)
    assert _rank(after) >= _rank(before), (before.summary, after.summary)
    if before.refusal is not None:
        assert after.refusal is not None


@settings(max_examples=150, deadline=None)
@given(_code, _objects, _namespace_labels, st.randoms(use_true_random=False))
def test_object_order_never_changes_the_decision(
    code: str, objects: list[dict[str, Any]], labels: dict[str, str] | None, random: Any
) -> None:
    shuffled = list(objects)
    random.shuffle(shuffled)
    first = decide(code, objects, labels, True)
    second = decide(code, shuffled, labels, True)
    assert (first.refusal, first.summary, first.documents) == (
        second.refusal,
        second.summary,
        second.documents,
    )


@settings(max_examples=100, deadline=None)
@given(_objects, _namespace_labels)
def test_reach_never_passes_without_an_enforcing_policy(
    objects: list[dict[str, Any]], labels: dict[str, str] | None
) -> None:
    """Without the named object (nothing isolates the pod), reach refuses
    under every allowance but allow-all, whatever new-kind objects exist."""
    for code in ("D", "P", "N"):
        assert decide(code, objects, labels, False).refusal is not None
