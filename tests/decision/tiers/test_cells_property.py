"""The cell engine against single points: on every cell, the verdict
contains the verdict of §12.3 on each point of the cell, and the allowance
on the cell agrees with ``A(p)`` wherever the cell is proven."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from lint.decision.model import Tri
from lint.decision.tiers.cells import (
    MORE_LABELS,
    ONE_LABEL,
    NameClass,
    Place,
    PortCell,
    Space,
    VectorProbe,
    build_space,
)
from lint.decision.tiers.evaluate import build_plan, evaluate
from lint.decision.tiers.match import NameProbe, PointProbe
from lint.decision.tiers.model import Protocol, TierInput
from lint.decision.tiers.points import (
    NODE,
    OUT,
    NamePoint,
    Point,
    allowed,
    name_allowed,
    name_matches,
    normalise_domain,
    read_allowance,
    selector_holds,
)
from tests.decision.tiers.strategies import name_points, points, tier_inputs

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _port_in(cell: PortCell, protocol: Protocol, port: int | None) -> bool:
    if cell.protocol is not protocol:
        return False
    if cell.low is None or port is None:
        return cell.low is None
    return cell.low <= port <= (cell.high or cell.low)


def _owner_holds(place: Place, point: Point) -> bool:
    owner = place.owner
    assert owner is not None
    if owner.owner != point.owner:
        return False
    if owner.owner == OUT:
        return True
    if owner.pods is None:
        return True  # checked below: only when no selector class holds the point
    return (
        (point.owner != NODE or point.host_pod)
        and selector_holds(owner.pods.namespaces, point.namespace_labels) is Tri.YES
        and selector_holds(owner.pods.pods, point.pod_labels) is Tri.YES
    )


def _cells_of(space: Space, point: Point) -> list[tuple[tuple[Tri, ...], tuple[Tri, ...]]]:
    """Every (port vector, place vector) of a cell holding the point."""
    port_vectors = [
        g.vector
        for g in space.port_groups
        for c in g.members
        if _port_in(c, point.protocol, point.port)  # type: ignore[arg-type]
    ]
    assert len(port_vectors) == 1, port_vectors
    places = []
    for group in space.place_groups:
        for place in group.members:
            assert isinstance(place, Place) and place.address is not None
            cell = place.address
            here = cell.family == point.family and cell.low <= point.address <= cell.high
            if here and _owner_holds(place, point):
                places.append((place, group.vector))
    selected = [(p, v) for p, v in places if p.owner is not None and p.owner.pods is not None]
    plain = [(p, v) for p, v in places if p.owner is not None and p.owner.pods is None]
    chosen = selected or plain
    if point.owner == NODE and not point.host_pod:
        chosen = plain
    assert chosen, (point, places)
    return [(port_vectors[0], v) for _, v in chosen]


@SETTINGS
@given(tier_inputs(), points())
def test_a_cell_verdict_contains_each_point_verdict(tier_input: TierInput, point: Point) -> None:
    space = build_space(tier_input)
    exact = evaluate(build_plan(tier_input), PointProbe(point))
    inside = allowed(read_allowance(tier_input.allowance, tier_input.namespace), point)
    for port_vector, place_vector in _cells_of(space, point):
        verdict = space.verdict(port_vector, place_vector)
        assert exact.results <= verdict.results, (exact.results, verdict.results)
        on_cell = space.inside(port_vector, place_vector)
        assert on_cell is not (Tri.NO if inside else Tri.YES), (inside, on_cell)


def _in_class(name: NameClass, host: str) -> bool:
    """Whether a wildcard class holds the host, by its depth."""
    one = name_matches(name.name, host, one_label=True)
    if name.depth == ONE_LABEL:
        return one
    more = name_matches(name.name, host)
    return more and not one if name.depth == MORE_LABELS else more


def _name_vectors(space: Space, point: NamePoint) -> list[tuple[Tri, ...]]:
    host = normalise_domain(point.host)
    found = []
    for group in space.name_groups:
        for place in group.members:
            assert isinstance(place, Place) and place.name is not None
            if place.name.wildcard:
                listed = {
                    p.name.name  # type: ignore[union-attr]
                    for g in space.name_groups
                    for p in g.members
                    if not p.name.wildcard  # type: ignore[attr-defined]
                }
                if _in_class(place.name, host) and host not in listed:
                    found.append(group.vector)
            elif place.name.name == host:
                found.append(group.vector)
    return found


@SETTINGS
@given(tier_inputs(), name_points())
def test_a_name_cell_verdict_contains_each_name_point_verdict(
    tier_input: TierInput, point: NamePoint
) -> None:
    space = build_space(tier_input)
    exact = evaluate(build_plan(tier_input), NameProbe(point))
    inside = name_allowed(read_allowance(tier_input.allowance, tier_input.namespace), point)
    port_vector = next(
        g.vector
        for g in space.port_groups
        for c in g.members
        if _port_in(c, point.protocol, point.port)  # type: ignore[arg-type]
    )
    for place_vector in _name_vectors(space, point):
        verdict = space.verdict(port_vector, place_vector)
        assert exact.results <= verdict.results
        assert space.inside(port_vector, place_vector) is not (Tri.NO if inside else Tri.YES)


@SETTINGS
@given(tier_inputs())
def test_remembered_verdicts_are_fresh_evaluations(tier_input: TierInput) -> None:
    # The space remembers verdicts by the rules' answers and slot outcomes by
    # the answers of each slot's rules: neither may stand in for a different one.
    space = build_space(tier_input)
    for places in [*space.place_groups, *space.name_groups]:
        for ports in space.port_groups:
            remembered = space.verdict(ports.vector, places.vector)
            fresh = evaluate(space.plan, VectorProbe(space, ports.vector, places.vector))
            assert remembered == fresh
