"""The worked examples of the exact tier model, through both questions."""

from __future__ import annotations

import pytest

from lint.decision.model import EgressVerdict
from lint.decision.tiers.questions import explain, reach
from tests.decision.tiers.worked import Row, rows, to

ROWS = rows()


def _name(row: Row, index: int, undecidable: bool) -> str:
    if undecidable:
        item = row.input.undecidable[index]
        return f"{item.kind}/{item.name}"
    document = row.input.documents[index]
    return f"{document.kind}/{document.name}"


@pytest.mark.parametrize("row", ROWS, ids=[f"row{r.number}" for r in ROWS])
def test_reach(row: Row) -> None:
    answer = reach(row.input)
    assert answer.refusal == row.refusal, answer.summary
    if row.names is not None:
        assert answer.document is not None
        assert _name(row, answer.document, answer.undecidable) == row.names, answer.summary
    listed = {
        _name(row, item.document, item.undecidable): item.verdict
        for item in answer.listed
        if item.verdict is not EgressVerdict.WITHIN
    }
    expected = dict(row.listed)
    for item in row.input.undecidable:
        expected[f"{item.kind}/{item.name}"] = EgressVerdict.NOT_EVALUABLE
    assert listed == expected


@pytest.mark.parametrize("row", ROWS, ids=[f"row{r.number}" for r in ROWS])
def test_explain(row: Row) -> None:
    answer = explain(row.input, to(row.dest))
    assert answer.verdict == row.verdict
    assert answer.outside_verdict == (row.outside or row.verdict)
    assert answer.exit_status == row.exit_status, answer.reach.summary
    if row.allowance is not None:
        assert answer.allowance == row.allowance
    if row.exit_status == 1:
        assert answer.reach.refusal is not None


PARTS = {21: "10.0.0.0/8 on TCP 5432", 10: "IPv6", 18: "every point"}


@pytest.mark.parametrize("number", sorted(PARTS))
def test_the_part_reach_names(number: int) -> None:
    assert reach(ROWS[number - 1].input).part == PARTS[number]


def test_a_selector_culprit_names_its_pods() -> None:
    part = reach(ROWS[31].input).part
    assert part is not None and part.startswith("pods of ")
