"""C§1.5: the order of the documents, S§11.3 precedence over the union's and
the new documents, the enforcing count, summaries and remedies."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.model import EgressRefusal, EgressVerdict, PolicyDocument, RuleVerdict, Tri
from lint.decision.reach import decide_reach, order_documents
from lint.decision.reach.model import Group, ReachDocument, Skipped
from lint.decision.union import examine, summarize_union
from tests.decision.reach.scenario import allowance, union_documents


def doc(
    name: str,
    verdict: EgressVerdict = EgressVerdict.WITHIN,
    kind: str = "AdminNetworkPolicy",
    group: Group = "admin",
    detail: str | None = None,
) -> ReachDocument:
    return ReachDocument(kind, name, verdict, detail, None, (), group)


WIDENING_RULE = RuleVerdict(Tri.YES, "opens everything", 0)


def old(name: str, verdict: str) -> Any:
    """An examined union entry with the given verdict."""
    documents = {
        "within": PolicyDocument("NetworkPolicy", name, Tri.YES, True),
        "widens-egress": PolicyDocument("NetworkPolicy", name, Tri.YES, True, (WIDENING_RULE,)),
        "not-evaluable": PolicyDocument("NetworkPolicy", name, Tri.UNKNOWN, True),
        "does-not-select": PolicyDocument("NetworkPolicy", name, Tri.NO, True),
    }
    entry = examine(documents[verdict])
    assert str(entry.verdict) == verdict
    return entry


D = allowance("D")
A = allowance("A")


def test_order_groups_kinds_and_names() -> None:
    documents = [
        doc("z", kind="pod condition", group="other"),
        doc("b", kind="EgressFirewall.k8s.ovn.org", group="other"),
        doc("a", kind="ClusterNetworkPolicy", group="baseline"),
        doc("default", kind="BaselineAdminNetworkPolicy", group="baseline"),
        doc("a", kind="ClusterNetworkPolicy", group="admin"),
        doc("b", kind="AdminNetworkPolicy"),
        doc("B", kind="AdminNetworkPolicy"),
        doc("\u00e9", kind="AdminNetworkPolicy"),
        doc("t", kind="Tier.projectcalico.org", group="calico"),
        doc("n", kind="NetworkPolicy.projectcalico.org", group="calico"),
        doc("g", kind="GlobalNetworkPolicy.projectcalico.org", group="calico"),
    ]
    ordered = [(d.group, d.kind, d.name) for d in order_documents(documents)]
    assert ordered == [
        ("admin", "AdminNetworkPolicy", "B"),
        ("admin", "AdminNetworkPolicy", "b"),
        ("admin", "AdminNetworkPolicy", "\u00e9"),
        ("admin", "ClusterNetworkPolicy", "a"),
        ("calico", "GlobalNetworkPolicy.projectcalico.org", "g"),
        ("calico", "NetworkPolicy.projectcalico.org", "n"),
        ("calico", "Tier.projectcalico.org", "t"),
        ("baseline", "BaselineAdminNetworkPolicy", "default"),
        ("baseline", "ClusterNetworkPolicy", "a"),
        ("other", "EgressFirewall.k8s.ovn.org", "b"),
        ("other", "pod condition", "z"),
    ]
    assert order_documents(list(reversed(documents))) == order_documents(documents)


def test_duplicates_put_the_wider_verdict_first() -> None:
    """Two objects of one kind and name: the wider verdict names the refusal,
    whatever the file order."""
    narrow = doc("x", EgressVerdict.NOT_EVALUABLE, detail="n")
    wide = doc("x", EgressVerdict.WIDENS_EGRESS, detail="w")
    assert order_documents([narrow, wide])[0] is wide
    assert order_documents([wide, narrow])[0] is wide


def test_the_first_widening_document_in_procedure_order_is_named() -> None:
    union = [old("np", "within")]
    new = [
        doc("b", EgressVerdict.WIDENS_EGRESS, detail="b opens"),
        doc("a", EgressVerdict.WIDENS_EGRESS, detail="a opens"),
    ]
    decision = decide_reach(union, (), new, D)
    assert decision.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    assert decision.summary == "AdminNetworkPolicy/a selects the pod and widens its egress: a opens"
    assert decision.culprit is not None and decision.culprit.name == "a"
    assert not decision.culprit_in_union


def test_a_union_widening_comes_first_and_is_flagged() -> None:
    decision = decide_reach(
        [old("np", "widens-egress")], (), [doc("a", EgressVerdict.WIDENS_EGRESS)], D
    )
    assert (
        decision.culprit_in_union and decision.culprit is not None and decision.culprit.name == "np"
    )
    assert [d.name for d in decision.documents] == ["a"], (
        "documents hold only entries beyond the union's"
    )


def test_widening_beats_undecided_beats_no_enforcing() -> None:
    undecided = old("np", "not-evaluable")
    widening = doc("a", EgressVerdict.WIDENS_EGRESS, detail="d")
    assert (
        decide_reach([undecided], (), [widening], D).refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    )
    decision = decide_reach([], (), [doc("a", EgressVerdict.NOT_EVALUABLE, detail="why")], D)
    assert decision.refusal is EgressRefusal.NOT_EVALUABLE
    assert decision.summary == (
        "AdminNetworkPolicy/a cannot be evaluated: why; the pod's egress reach cannot be decided "
        "from the objects"
    )


def test_new_kinds_never_count_as_enforcing() -> None:
    decision = decide_reach([old("np", "does-not-select")], (), [doc("a"), doc("b")], D)
    assert decision.refusal is EgressRefusal.NO_ENFORCING_POLICY
    assert (
        decision.summary is not None and "'deny-all' translation bounds nothing" in decision.summary
    )
    assert "never count as enforcing" in decision.summary
    bare = decide_reach([], (), [], D)
    assert bare.summary == (
        "no policy puts the pod in egress default-deny, so the configured 'deny-all' "
        "translation bounds nothing"
    )


def test_old_documents_count_as_enforcing() -> None:
    assert decide_reach([old("np", "within")], (), [doc("a")], D).refusal is None
    cilium = examine(PolicyDocument("CiliumNetworkPolicy", "c", Tri.YES, True))
    decision = decide_reach([], (cilium,), [], D)
    assert decision.refusal is None
    assert decision.documents == (cilium,)


def test_allow_all_passes_without_an_enforcing_document() -> None:
    assert decide_reach([], (), [doc("a")], A).refusal is None
    assert (
        decide_reach([], (), [doc("a", EgressVerdict.NOT_EVALUABLE)], A).refusal
        is EgressRefusal.NOT_EVALUABLE
    )


def test_real_union_entries() -> None:
    """The named object of a real translation is the enforcing document."""
    union = [examine(d) for d in union_documents("D")]
    assert decide_reach(union, (), [doc("a")], D).refusal is None


def test_skipped_are_kept_in_a_stable_order() -> None:
    skipped = [
        Skipped("StagedNetworkPolicy.projectcalico.org", "b", "staged"),
        Skipped("GlobalNetworkPolicy.projectcalico.org", "a", "host endpoints only"),
    ]
    first = decide_reach([], (), [], D, skipped=skipped)
    second = decide_reach([], (), [], D, skipped=list(reversed(skipped)))
    assert first.skipped == second.skipped and len(first.skipped) == 2


_old_verdicts = st.lists(
    st.sampled_from(["within", "widens-egress", "not-evaluable", "does-not-select"]), max_size=4
)
_new_verdicts = st.lists(st.sampled_from(list(EgressVerdict)), max_size=4)


@settings(max_examples=200, deadline=None)
@given(_old_verdicts, _new_verdicts, st.sampled_from(["D", "P", "A", "N", "S"]))
def test_reach_never_passes_where_the_union_refuses(
    old_verdicts: list[str], new_verdicts: list[EgressVerdict], code: str
) -> None:
    """The union's documents are reach's first documents, judged the same, so
    a union refusal is always a reach refusal, at least as strong."""
    allowed = allowance(code)
    union = [old(f"np{i}", verdict) for i, verdict in enumerate(old_verdicts)]
    new = [doc(f"n{i}", verdict, detail="d") for i, verdict in enumerate(new_verdicts)]
    union_decision = summarize_union(union, allowed)
    reach = decide_reach(union, (), new, allowed)
    rank = {None: 0, "no-enforcing-policy": 1, "not-evaluable": 2, "policy-widens-egress": 3}
    assert rank[reach.refusal] >= rank[union_decision.refusal]
    if reach.culprit_in_union:
        # A culprit the union already names is worded as the union words it.
        assert (reach.refusal, reach.summary) == (union_decision.refusal, union_decision.summary)


@settings(max_examples=300, deadline=None)
@given(_old_verdicts, _old_verdicts, _new_verdicts, st.sampled_from(["D", "P", "A", "N", "S"]))
def test_the_selecting_entries_alone_decide_alike(
    old_verdicts: list[str],
    cilium_verdicts: list[str],
    new_verdicts: list[EgressVerdict],
    code: str,
) -> None:
    """No ``does-not-select`` entry takes part in the search: the union's
    entries without them, and ``cilium_selecting``, give the same decision,
    culprit object included (the check passes only those, issue 18)."""
    allowed = allowance(code)
    union = [old(f"np{i}", verdict) for i, verdict in enumerate(old_verdicts)]
    cilium = [old(f"cnp{i}", verdict) for i, verdict in enumerate(cilium_verdicts)]
    new = [doc(f"n{i}", verdict, detail="d") for i, verdict in enumerate(new_verdicts)]

    def selecting(entries: list[Any]) -> list[Any]:
        return [e for e in entries if e.verdict != EgressVerdict.DOES_NOT_SELECT]

    whole = decide_reach(union, cilium, new, allowed)
    searched = decide_reach(
        selecting(union), cilium, new, allowed, cilium_selecting=selecting(cilium)
    )
    assert searched == whole
    assert searched.culprit is whole.culprit
