"""Spaces and scans shared between inputs the engine reads alike (``content_key``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from lint.decision.model import Destination, EgressRefusal, EgressVerdict, SelectorPeer, Tri
from lint.decision.tiers.cells import SharedSlots
from lint.decision.tiers.content import content_key
from lint.decision.tiers.model import Action, Slot, TierInput
from lint.decision.tiers.questions import MAX_PARTS, MAX_SHARED, Shared, reach
from lint.decision.values import ABSENT
from tests.decision.tiers.build import base, core_np, networks, port, rule, rules
from tests.decision.tiers.strategies import tier_inputs
from tests.decision.tiers.worked import rows

ROWS = rows()


def _renamed(tier_input: TierInput, suffix: str) -> TierInput:
    """Every name changed, nothing the engine reads."""
    documents = tuple(replace(d, name=d.name + suffix) for d in tier_input.documents)
    return replace(tier_input, documents=documents)


def test_every_worked_example_answers_the_same_from_a_shared_memo() -> None:
    shared: Shared = {}
    for row in [*ROWS, *reversed(ROWS)]:
        for by_name in (False, True):
            assert reach(row.input, by_name=by_name, shared=shared) == reach(
                row.input, by_name=by_name
            ), row.number
    assert 0 < len(shared) <= 2 * len(ROWS)


@settings(max_examples=150, deadline=None)
@given(st.lists(tier_inputs(), min_size=1, max_size=4))
def test_answers_from_a_shared_memo_are_the_fresh_answers(inputs: list[TierInput]) -> None:
    shared: Shared = {}
    renamed = [_renamed(i, "-other") for i in inputs]
    moved = [_moved(i, "elsewhere") for i in inputs]
    for tier_input in [*inputs, *renamed, *moved, *inputs]:
        assert reach(tier_input, shared=shared) == reach(tier_input)
        assert reach(tier_input, by_name=True, shared=shared) == reach(tier_input, by_name=True)


def test_inputs_differing_only_in_names_share_one_space_and_keep_their_names() -> None:
    row = next(
        r
        for r in ROWS
        if r.names is not None
        and all(d.slot == Slot.NETWORK_POLICY for d in r.input.documents)
        and not r.input.calico_form
    )
    other = _renamed(row.input, "-copy")
    assert content_key(other) == content_key(row.input)
    shared: Shared = {}
    first = reach(row.input, shared=shared)
    second = reach(other, shared=shared)
    assert len(shared) == 1
    assert second == reach(other)
    assert second.summary is not None and "-copy" in second.summary
    assert first.summary is not None and "-copy" not in first.summary


def test_a_name_that_orders_documents_is_read() -> None:
    # Outside the NetworkPolicy slot in API form, documents of one order run
    # by name, so a renamed input is another input.
    row = next(r for r in ROWS if any(d.slot != Slot.NETWORK_POLICY for d in r.input.documents))
    assert content_key(_renamed(row.input, "-copy")) != content_key(row.input)


def test_what_the_engine_reads_is_in_the_key() -> None:
    row = ROWS[0]
    base = content_key(row.input)
    document = row.input.documents[0]
    for changed in (
        replace(document, subject=Tri.NO if document.subject is Tri.UNKNOWN else Tri.UNKNOWN),
        replace(document, isolates=not document.isolates),
        replace(document, rules=document.rules[1:] if document.rules else document.rules * 2),
    ):
        if changed == document:
            continue
        documents = (changed, *row.input.documents[1:])
        assert content_key(replace(row.input, documents=documents)) != base
    assert content_key(replace(row.input, cilium_r=not row.input.cilium_r)) != base


def _selector_allowance(tier_input: TierInput) -> TierInput:
    """The allowance with one more destination, a pod selector with no
    namespaceSelector: the sandbox's own namespace, so the allowance reads
    differently in each namespace."""
    allowance = tier_input.allowance
    peer = SelectorPeer(ABSENT, {"matchLabels": {"app": "db"}}, "app=db")
    destinations = (*allowance.destinations, Destination(peer, "all"))
    return replace(tier_input, allowance=replace(allowance, destinations=destinations))


def test_the_namespace_is_read_only_through_the_allowance() -> None:
    row = ROWS[0]
    # An allowance that names no namespace reads alike everywhere: one space.
    assert content_key(_moved(row.input, "elsewhere")) == content_key(row.input)
    shared: Shared = {}
    reach(row.input, shared=shared)
    moved = _moved(row.input, "elsewhere")
    assert reach(moved, shared=shared) == reach(moved)
    assert len(shared) == 1
    # One whose selector means the sandbox's namespace does not.
    own = _selector_allowance(row.input)
    assert content_key(_moved(own, "elsewhere")) != content_key(own)
    reach(_moved(own, "elsewhere"), shared=shared)
    assert reach(own, shared=shared) == reach(own)
    assert len(shared) == 3


def test_the_shared_memo_is_bounded() -> None:
    shared: Shared = {}
    own = _selector_allowance(ROWS[0].input)
    for number in range(MAX_SHARED + 3):
        reach(_moved(own, f"ns-{number}"), shared=shared)
    assert len(shared) == MAX_SHARED


def test_more_rules_than_reach_evaluates_fail_closed_naming_the_largest_policy() -> None:
    wide = rules(
        *(
            rule(Action.ALLOW, [networks(f"10.{i // 250}.{i % 250}.0/24")], port("TCP", 1 + i))
            for i in range(600)
        )
    )
    small = core_np("small", rule(Action.ALLOW, [networks("10.0.0.0/8")]))
    tier_input = base("Dn", small, core_np("wide", *wide))
    answer = reach(tier_input)
    assert answer.refusal is EgressRefusal.NOT_EVALUABLE
    assert answer.summary is not None and answer.summary.startswith("NetworkPolicy/wide")
    assert {item.verdict for item in answer.listed} == {EgressVerdict.NOT_EVALUABLE}
    assert len(wide) ** 2 > MAX_PARTS
    # Below the bound the rules are still evaluated exactly: a culprit is named.
    within = base("Dn", small, core_np("wide", *wide[:40]))
    assert reach(within).refusal is EgressRefusal.POLICY_WIDENS_EGRESS


def _moved(tier_input: TierInput, namespace: str) -> TierInput:
    """The same documents (the same objects) in another namespace."""
    return replace(tier_input, namespace=namespace)


def _other_cni(tier_input: TierInput) -> TierInput:
    """The same documents (the same objects) read with the other answer to
    whether Cilium enforces: another space, whose cluster-scoped slots are
    held alike (only the NetworkPolicy slot reads that answer)."""
    return replace(tier_input, cilium_r=not tier_input.cilium_r)


def _pod_side_flipped(tier_input: TierInput) -> TierInput:
    """Each document's credit and subject changed, its rules (the same
    objects) kept: what the slots read of the pod side differs."""

    def flipped(value: Tri) -> Tri:
        return Tri.UNKNOWN if value is Tri.YES else Tri.YES

    documents = tuple(
        replace(d, credit=flipped(d.credit), subject=flipped(d.subject))
        for d in tier_input.documents
    )
    return replace(tier_input, documents=documents)


def test_every_worked_example_answers_the_same_from_shared_slots() -> None:
    slots = SharedSlots()
    for row in [*ROWS, *reversed(ROWS)]:
        for tier_input in (row.input, _moved(row.input, "elsewhere"), _pod_side_flipped(row.input)):
            for by_name in (False, True):
                assert reach(tier_input, by_name=by_name, slots=slots) == reach(
                    tier_input, by_name=by_name
                ), row.number
    assert slots.outcomes


@settings(max_examples=150, deadline=None)
@given(st.lists(tier_inputs(), min_size=1, max_size=4))
def test_answers_from_shared_slots_are_the_fresh_answers(inputs: list[TierInput]) -> None:
    slots = SharedSlots()
    shared: Shared = {}
    variants = [
        variant
        for tier_input in inputs
        for variant in (
            tier_input,
            _moved(tier_input, "elsewhere"),
            _other_cni(tier_input),
            _pod_side_flipped(tier_input),
        )
    ]
    for tier_input in [*variants, *reversed(variants)]:
        assert reach(tier_input, slots=slots, shared=shared) == reach(tier_input)


def test_a_cluster_scoped_slot_is_worked_out_once_for_the_spaces_that_hold_it() -> None:
    row = next(
        r
        for r in ROWS
        if any(d.slot == Slot.ADMIN and d.rules for d in r.input.documents) and not r.input.tiers
    )
    slots = SharedSlots()
    reach(row.input, slots=slots)
    shapes, outcomes = len(slots.shapes), len(slots.outcomes)
    assert outcomes > 0
    moved = _other_cni(row.input)
    assert content_key(moved) != content_key(row.input)  # another space
    assert reach(moved, slots=slots) == reach(moved)
    # Its slots were taken whole from the first space's.
    assert (len(slots.shapes), len(slots.outcomes)) == (shapes, outcomes)
    flipped = _pod_side_flipped(row.input)
    assert reach(flipped, slots=slots) == reach(flipped)
    assert len(slots.shapes) > shapes  # the same rules, read for another pod side
