"""The record encoding: what a child sends comes back equal, records met
twice come back as one object, and data of another shape is refused."""

from __future__ import annotations

import enum
import marshal
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lint.loading.documents import LoadedDocument, LoadProblem
from lint.loading.lists import Harvest
from lint.parallel.records import Records
from lint.report.model import DecisionReport, ExaminedEntry, Location, examined_list

LOCATION = Location("a.yaml", 3, "templates/x.yaml", 2)
ENTRY = ExaminedEntry("NetworkPolicy", "np", "ns", "does-not-select", None, "manifest", LOCATION)
OTHER = ExaminedEntry("NetworkPolicy", "np2", None, "widens-egress", "é\ud800", "manifest", None)


def _round_trip(records: Records[Any], results: list[Any]) -> list[Any]:
    return records.loads(records.dumps(results))


def test_records_cross_the_pipe_whole_and_shared() -> None:
    value = (
        DecisionReport(None, None, examined_list([ENTRY, OTHER, ENTRY])),
        DecisionReport("refusal", "summary", examined_list()),
        {"labels": ("x", 1, None, True, 2**70)},
    )
    shape = tuple[DecisionReport, DecisionReport, dict[str, Any]]
    (back,) = _round_trip(Records(shape), [value])
    assert back == value
    assert back[0].examined[0] is back[0].examined[2]


def test_a_record_met_in_two_results_comes_back_once() -> None:
    first = DecisionReport(None, None, examined_list([ENTRY]))
    second = DecisionReport("r", None, examined_list([ENTRY]))
    back = _round_trip(Records(DecisionReport), [first, second])
    assert back == [first, second]
    assert back[0].examined[0] is back[1].examined[0]


def test_harvests_keep_their_json_values_counters_and_hidden_fields() -> None:
    shared = {"k": ["v"]}
    value = {
        "floats": [math.inf, -math.inf, 1e308, -0.0],
        "ints": [2**63, -(2**64), 0],
        "text": ["\ud800 lone surrogate", "é😀", ""],
        "shared": [shared, shared],
        "scalars": [True, False, None],
    }
    document = LoadedDocument("a.yaml", 2, 9, 0, value, "t.yaml", "List", 1, "text", 1)
    harvest = Harvest([document], [LoadProblem("b.yaml", 1, "broken", "NetworkPolicy")])
    harvest.skipped.update({"Service": 2})
    (back,) = _round_trip(Records(Harvest), [harvest])
    assert back == harvest
    assert (back.documents[0].text, back.documents[0].text_line) == ("text", 1)
    assert isinstance(back.skipped, Counter)
    assert back.documents[0].value["shared"][0] is back.documents[0].value["shared"][1]
    assert math.copysign(1.0, back.documents[0].value["floats"][3]) == -1.0


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Painted:
    colour: Colour
    others: tuple[Colour, ...] = ()
    where: Location | None = None


def test_enum_members_cross_as_members() -> None:
    painted = [Painted(Colour.RED, (Colour.BLUE,)), Painted(Colour.BLUE, where=LOCATION)]
    back = _round_trip(Records(Painted), painted)
    assert back == painted
    assert back[0].colour is Colour.RED


@dataclass(frozen=True)
class Single:
    only: Location


def test_a_record_of_one_field_crosses() -> None:
    assert _round_trip(Records(Single), [Single(LOCATION)]) == [Single(LOCATION)]


@pytest.mark.parametrize(
    ("shape", "data"),
    [
        (Location, [("a.yaml", 1, None)]),
        (Location, [("a.yaml", 1, None, None, "extra")]),
        (DecisionReport, [[None, None]]),
        (DecisionReport, [(None, None, ())]),
        (Painted, [["green", (), None]]),
        (Harvest, [[[], [], 3]]),
        (Location, ("not", "a list")),
        (tuple[Location, Location], [[("a", 1, None, None)]]),
        # Where a sequence of records belongs, something falsy that is none.
        (tuple[Painted, ...], [0]),
        (tuple[Painted, ...], [None]),
        (Painted, [[Colour.RED.value, (), ("a.yaml",)]]),
    ],
)
def test_data_of_another_shape_is_refused(shape: Any, data: Any) -> None:
    with pytest.raises(ValueError):
        Records(shape).loads(marshal.dumps(data))


@pytest.mark.parametrize(
    "data", [b"", b"\x00garbage", marshal.dumps([("a.yaml", 1, None, None)])[:-2]]
)
def test_bytes_that_are_no_answer_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        Records(Location).loads(data)


@dataclass(frozen=True)
class WithPath:
    path: Path


@dataclass(frozen=True)
class Hidden:
    shown: str
    hidden: str = field(init=False, default="")


@pytest.mark.parametrize(
    "shape", [WithPath, Hidden, Location | DecisionReport, dict[Location, str], object]
)
def test_a_shape_that_cannot_be_sent_is_refused_when_first_used(shape: Any) -> None:
    records: Records[Any] = Records(shape)
    with pytest.raises(TypeError):
        records.dumps([])
