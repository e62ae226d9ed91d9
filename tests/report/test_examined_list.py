"""A decision's examined list held as shared entries with its own cut in
(``ExaminedList``) reads exactly as the list put together whole: in order,
length, the entries that select, equality and hashing, and across the pipe
from a worker, where the shared entries come back as one object."""

from __future__ import annotations

import bisect
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.checks.reach import merged_in_order
from lint.decision.model import EgressVerdict, IngressVerdict
from lint.parallel.records import Records
from lint.report.examined import Examined
from lint.report.json_report import render_json, report_document
from lint.report.model import (
    QUIET_VERDICT,
    Cut,
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    ExaminedList,
    Location,
    NamedReport,
    Report,
    SandboxRef,
    SandboxReport,
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
    # Places next to one another make one cut: the cuts are apart.
    assert all(a.stop < b.start for a, b in zip(merged.cuts, merged.cuts[1:], strict=False))


@st.composite
def _sharing(draw: st.DrawFn) -> list[tuple[ExaminedList, list[ExaminedEntry]]]:
    """Lists that share one stretch of entries, each with its own cuts."""
    shared = draw(_entries)
    held = shared_entries(shared)
    lists = []
    for _ in range(draw(st.integers(1, 4))):
        bounds = sorted(draw(st.lists(st.integers(0, len(shared)), max_size=6)))
        cuts = tuple(
            Cut(start, stop, tuple(draw(_entries)))
            for start, stop in zip(bounds[::2], bounds[1::2], strict=False)
        )
        examined = ExaminedList(held, cuts, tuple(draw(_entries)))
        lists.append((examined, list(examined.whole())))
    return lists


@settings(max_examples=200, deadline=None)
@given(_sharing(), st.sampled_from(["all", "selecting"]))
def test_lists_that_share_entries_write_the_json_of_each_list_whole(
    lists: list[tuple[ExaminedList, list[ExaminedEntry]]], examined: Examined
) -> None:
    """The JSON writer takes the shared entries' texts once for every list
    that shares them and copies each list's from them; the report reads as
    the one built from each list put together by hand."""
    held = _report([listed for listed, _ in lists])
    whole = _report([examined_list(entries) for _, entries in lists])
    text = render_json(held, examined)
    assert text == render_json(whole, examined)
    assert json.loads(text) == json.loads(json.dumps(report_document(whole, examined)))


def _report(lists: list[ExaminedList]) -> Report:
    def sandbox(index: int, listed: ExaminedList) -> SandboxReport:
        egress = EgressReport(
            policy_kind="deny-all",
            engine="core",
            verify="union",
            expected_kind="NetworkPolicy",
            expected_name=f"t{index}-egress",
            named=NamedReport("missing", None, None, None),
            union=DecisionReport(None, None, listed),
        )
        return SandboxReport(
            ref=SandboxRef("ns", f"t{index}", None, "direct"),
            pod_labels={},
            egress=egress,
            ingress=None,
            declaration=None,
        )

    sandboxes = tuple(sandbox(index, listed) for index, listed in enumerate(lists))
    return Report(defaults_applied=True, sandboxes=sandboxes, findings=(), parse_errors=())
