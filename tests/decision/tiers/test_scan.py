"""Reach's scan against a plain one: every region of the space in order,
each doubt of an uncertain allow recorded at the first region it is met
at. The scan passes over rows of places it has seen and over allow paths
whose doubts it has recorded (a §7 object's path is on every verdict of a
space); neither may move a doubt to another region or lose one."""

from __future__ import annotations

from collections.abc import Hashable

from hypothesis import HealthCheck, given, settings

from lint.decision.tiers.cells import Group, Space, build_space
from lint.decision.tiers.evaluate import Doubt
from lint.decision.tiers.model import TierInput
from lint.decision.tiers.questions import _allowing, _blamed, _filtered, _scan, names_only
from tests.decision.tiers.strategies import tier_inputs

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _plain_doubts(space: Space, place_groups: list[Group]) -> dict[Doubt, Hashable]:
    found: dict[Doubt, Hashable] = {}
    for places in place_groups:
        for ports in space.port_groups:
            if not places.members or not ports.members:
                continue
            masks = space.port_masks(ports.vector), space.place_masks(places.vector)
            verdict = space.judge(ports.vector, places.vector, *masks)
            allowing = None if verdict is None else _allowing(verdict)
            if allowing is None or not allowing.uncertain:
                continue
            for path in allowing.allows:
                for doubt in _blamed(path):
                    found.setdefault(doubt, (id(ports), id(places)))
    return found


@SETTINGS
@given(tier_inputs())
def test_the_scan_records_each_doubt_at_its_first_region(tier_input: TierInput) -> None:
    for judged in (tier_input, names_only(tier_input)):
        space = build_space(judged)
        asked = _filtered(space.name_groups, lambda place: place.name.asked)
        place_groups = [*space.place_groups, *asked]
        found = _scan(space, [(space.port_groups, place_groups)])
        regions = {
            doubt: (id(region.port_group), id(region.place_group))
            for doubt, region in found.doubts.items()
        }
        assert regions == _plain_doubts(space, place_groups)
