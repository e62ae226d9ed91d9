"""A decision's examined list held as shared entries with its own cut in
(``ExaminedList``) reads exactly as the list put together whole: in order,
length, the entries that select, equality and hashing, and across the pipe
from a worker, where the shared entries come back as one object."""

from __future__ import annotations

import bisect
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.checks.reach import merged_in_order
from lint.decision.model import EgressVerdict, IngressVerdict
from lint.parallel.records import Records
from lint.report.model import (
    QUIET_VERDICT,
    Cut,
    DecisionReport,
    ExaminedEntry,
    ExaminedList,
    Location,
    examined_list,
    shared_entries,
)

_VERDICTS = [QUIET_VERDICT, QUIET_VERDICT, "within", "widens-egress"]


def _entry(name: str, verdict: str) -> ExaminedEntry:
    return ExaminedEntry("NetworkPolicy", name, "ns", verdict, None, "manifest", None)


_entries = st.lists(
    st.builds(_entry, st.sampled_from("abcdef"), st.sampled_from(_VERDICTS)), max_size=12
)


@st.composite
def _lists(draw: st.DrawFn) -> tuple[ExaminedList, list[ExaminedEntry]]:
    """A list with random cuts, and the same list put together by hand."""
    shared = draw(_entries)
    bounds = sorted(draw(st.lists(st.integers(0, len(shared)), max_size=8)))
    cuts: list[Cut] = []
    whole: list[ExaminedEntry] = []
    at = 0
    for start, stop in zip(bounds[::2], bounds[1::2], strict=False):
        placed = tuple(draw(_entries))
        cuts.append(Cut(start, stop, placed))
        whole += [*shared[at:start], *placed]
        at = stop
    tail = tuple(draw(_entries))
    whole += [*shared[at:], *tail]
    return ExaminedList(shared_entries(shared), tuple(cuts), tail), whole


@settings(max_examples=300, deadline=None)
@given(_lists())
def test_a_list_reads_as_the_list_put_together_by_hand(
    pair: tuple[ExaminedList, list[ExaminedEntry]],
) -> None:
    examined, whole = pair
    assert examined.whole() == tuple(whole)
    assert list(examined) == whole
    assert list(reversed(examined)) == whole[::-1]
    assert len(examined) == len(whole)
    assert examined.selecting() == tuple(e for e in whole if e.verdict != QUIET_VERDICT)
    assert len(examined) - len(examined.selecting()) == sum(
        e.verdict == QUIET_VERDICT for e in whole
    )
    assert examined == tuple(whole)
    assert examined == examined_list(whole)
    assert hash(examined) == hash(examined_list(whole))
    if whole:
        assert examined[0] is whole[0]
        assert examined[-1] is whole[-1]


def test_lists_of_other_entries_are_not_equal() -> None:
    one = examined_list([_entry("a", QUIET_VERDICT)])
    assert one != examined_list([_entry("b", QUIET_VERDICT)])
    assert one != examined_list()
    assert one != "a"


def test_the_quiet_verdict_is_both_vocabularies_word() -> None:
    assert str(EgressVerdict.DOES_NOT_SELECT) == QUIET_VERDICT
    assert str(IngressVerdict.DOES_NOT_SELECT) == QUIET_VERDICT


def test_shared_entries_cross_the_pipe_once() -> None:
    """Two decisions cutting into one namespace's shared entries come back
    from a worker sharing one object: the parent's memory stays the size
    of the shared entries plus each decision's own."""
    location = Location("a.yaml", 3, None, None)
    shared = shared_entries(
        [
            ExaminedEntry(
                "NetworkPolicy", f"np-{i}", "ns", QUIET_VERDICT, None, "manifest", location
            )
            for i in range(4)
        ]
    )
    own = _entry("mine", "widens-egress")
    first = DecisionReport(None, None, ExaminedList(shared, (Cut(1, 2, (own,)),)))
    second = DecisionReport("r", "s", ExaminedList(shared, (), (own,)))
    records: Records[Any] = Records(DecisionReport)
    back = records.loads(records.dumps([first, second]))
    assert back == [first, second]
    assert back[0].examined.shared is back[1].examined.shared
    assert back[0].examined[1] is back[1].examined[-1]
    assert back[0].examined.selecting() == (own,)


_keys = st.lists(st.integers(0, 5), max_size=10).map(sorted)


@settings(max_examples=300, deadline=None)
@given(_keys, st.data())
def test_merging_in_order_is_inserting_one_by_one(keys: list[int], data: st.DataObject) -> None:
    """``merged_in_order`` puts a path's entries among the namespace's
    left-out ones as inserting them one by one into the list without the
    ones the path read would: ties keep the shared entry first, then the
    placed ones in their order."""
    shared = [_entry(f"s{i}", QUIET_VERDICT) for i in range(len(keys))]
    taken_out = data.draw(st.sets(st.sampled_from(range(len(keys)))) if keys else st.just(set()))
    placed_keys = sorted(data.draw(st.lists(st.integers(0, 5), max_size=6)))
    placed = [(key, _entry(f"p{i}", "within")) for i, key in enumerate(placed_keys)]
    # By hand: the list without the ones taken out, each placed one inserted.
    left = [(k, e) for i, (k, e) in enumerate(zip(keys, shared, strict=True)) if i not in taken_out]
    left_keys, left_entries = [k for k, _ in left], [e for _, e in left]
    for key, entry in placed:
        at = bisect.bisect_right(left_keys, key)
        left_keys.insert(at, key)
        left_entries.insert(at, entry)
    tail = (_entry("tail", "not-evaluable"),)
    merged = merged_in_order(
        [(k, ("", 0)) for k in keys],  # type: ignore[misc]
        shared_entries(shared),
        set(taken_out),
        [((k, ("", 0)), e) for k, e in placed],  # type: ignore[misc]
        tail,
    )
    assert merged.whole() == (*left_entries, *tail)
