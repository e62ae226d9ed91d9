"""The evaluator against a second, literal reading of the tiers.

``reference`` below writes FIRST, TIE and each slot as plainly as the
model describes them, over sets of outcomes only (no paths, no doubts);
on random inputs and points it must give the evaluator's results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby

from hypothesis import HealthCheck, given, settings

from lint.decision.model import Tri
from lint.decision.tiers.evaluate import build_plan, evaluate
from lint.decision.tiers.match import PointProbe, applies, match
from lint.decision.tiers.model import (
    SLOT_ORDER,
    Action,
    CalicoTier,
    Slot,
    TierDocument,
    TierInput,
    TierRule,
)
from lint.decision.tiers.points import Point
from tests.decision.tiers.strategies import points, tier_inputs

NOMATCH = "nomatch"
ALLOW, DENY, PASS = "allow", "deny", "pass"
Rules = list[tuple[TierDocument, TierRule]]


def _rules(document: TierDocument) -> Rules:
    return [(document, r) for r in (*document.deny_rules, *document.rules)]


def reference(tier_input: TierInput, point: Point) -> set[str]:
    probe = PointProbe(point)

    def first(rules: Rules) -> set[str]:
        out: set[str] = set()
        for document, rule in rules:
            m = match(document, rule, probe)
            if m is not Tri.NO:
                out |= {a.value for a in rule.actions}
            if m is Tri.YES:
                return out
        return out | {NOMATCH}

    def tie(results: Sequence[set[str]]) -> set[str]:
        out = set().union(*(r - {NOMATCH} for r in results))
        return out | ({NOMATCH} if all(NOMATCH in r for r in results) else set())

    def key(d: TierDocument) -> float:
        return float("inf") if d.order is None else d.order

    def ordered(docs: list[TierDocument], by_class: bool) -> set[str]:
        docs = sorted(docs, key=lambda d: (key(d), d.name))
        for _, same_order in groupby(docs, key=key):
            group = list(same_order)
            if by_class:
                classes: dict[str, Rules] = {}
                for d in group:
                    classes.setdefault(d.tie_class, []).extend(_rules(d))
                result = tie([first(rules) for rules in classes.values()])
            else:
                result = tie([first(_rules(d)) for d in group])
            if NOMATCH not in result:
                return result
            rest = result - {NOMATCH}
            later = ordered([d for d in docs if key(d) > key(group[0])], by_class)
            return rest | later
        return {NOMATCH}

    docs = tier_input.documents

    def in_slot(name: str) -> list[TierDocument]:
        return [d for d in docs if d.slot == name]

    def ends(result: set[str], end: set[str]) -> set[str]:
        return (result - {NOMATCH}) | (end if NOMATCH in result else set())

    def calico(name: str, default: bool | None) -> set[str]:
        members = in_slot(name)
        applied = Tri.NO
        for d in members:
            part = applies(d)
            applied = (
                Tri.YES
                if Tri.YES in (applied, part)
                else (Tri.UNKNOWN if Tri.UNKNOWN in (applied, part) else Tri.NO)
            )
        if applied is Tri.NO:
            return {PASS + "-end"}
        end = {DENY} if default is False else {PASS + "-end"} if default else {DENY, PASS + "-end"}
        out = ends(ordered(members, True), end)
        return out | ({PASS + "-end"} if applied is Tri.UNKNOWN else set())

    def baseline() -> set[str]:
        members = in_slot(Slot.BASELINE.value)
        banps = [d for d in members if d.order is None]
        result = ordered([d for d in members if d.order is not None], False)
        if banps:
            result = tie([first([r for d in banps for r in _rules(d)]), result])
        return ends(result, {PASS + "-end"})

    def network() -> set[str]:
        if tier_input.calico_form:
            return calico(Slot.NETWORK_POLICY.value, tier_input.default_tier_passes)
        members = in_slot(Slot.NETWORK_POLICY.value)

        def any_of(items: list[Tri]) -> Tri:
            return Tri.YES if Tri.YES in items else Tri.UNKNOWN if Tri.UNKNOWN in items else Tri.NO

        iso = any_of([applies(d) for d in members if d.isolates])
        al = any_of(
            [
                match(d, r, probe)
                for d in members
                for r in d.rules
                if r.actions & {Action.ALLOW, Action.PASS}
            ]
        )
        dn = any_of(
            [match(d, r, probe) for d in members for r in d.deny_rules]
            + [match(d, r, probe) for d in members for r in d.rules if Action.DENY in r.actions]
        )
        out: set[str] = set()
        if dn is not Tri.NO:
            out.add(DENY)
        if dn is not Tri.YES and al is not Tri.NO:
            out.add(ALLOW)
        if dn is not Tri.YES and al is not Tri.YES and iso is not Tri.NO:
            out.add(DENY)
            core_certain = any(
                applies(d) is Tri.YES and d.isolates and d.kind == "NetworkPolicy" for d in members
            )
            may_open = any(
                match(d, r, probe) is not Tri.NO
                for d in in_slot(Slot.BASELINE.value)
                for r in d.rules
                if r.actions & {Action.ALLOW, Action.PASS}
            )
            if (tier_input.cilium_r or not core_certain) and may_open:
                out.add("keep")
        if dn is not Tri.YES and al is not Tri.YES and iso is not Tri.YES:
            out.add(PASS + "-end")
        return out

    tiers = {t.name: t for t in tier_input.tiers}
    for d in docs:
        if d.slot not in SLOT_ORDER and d.slot not in tiers:
            tiers[d.slot] = CalicoTier(d.slot, None, None)
    slot_results: dict[str, Callable[[], set[str]]] = {
        Slot.ADMIN.value: lambda: ends(ordered(in_slot(Slot.ADMIN.value), False), {PASS + "-end"}),
        Slot.NETWORK_POLICY.value: network,
        Slot.BASELINE.value: baseline,
    }
    for name, tier in tiers.items():
        slot_results[name] = lambda name=name, tier=tier: calico(name, tier.pass_by_default)  # type: ignore[misc]
    known = sorted(
        [(float(o), n) for n, o in SLOT_ORDER.items()]
        + [(t.order, n) for n, t in tiers.items() if t.order is not None]
    )
    orders = [[n for _, n in known]]
    for name in sorted(n for n, t in tiers.items() if t.order is None):
        orders = [[*o[:i], name, *o[i:]] for o in orders for i in range(len(o) + 1)]
    computed = {name: f() for name, f in slot_results.items()}
    results: set[str] = set()
    for order in orders:
        states = {(False,)}  # keep-deny flags of the branches still going
        for name in order:
            going: set[tuple[bool]] = set()
            for (keep,) in states:
                for outcome in computed[name]:
                    if keep and name == Slot.BASELINE.value and outcome == PASS + "-end":
                        results.add(DENY)
                    elif outcome in (ALLOW, DENY):
                        results.add(outcome)
                    else:
                        going.add((keep or outcome == "keep",))
            states = going
        if states:
            results.add(ALLOW)
    if tier_input.undecidable:
        results.add(ALLOW)
    return results


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tier_inputs(), points())
def test_the_evaluator_gives_the_literal_readings_results(
    tier_input: TierInput, point: Point
) -> None:
    found = evaluate(build_plan(tier_input), PointProbe(point)).results
    assert {a.value for a in found} == reference(tier_input, point)
