"""FIRST, TIE, the slots, and the verdict of one point."""

from __future__ import annotations

from lint.decision.model import Tri
from lint.decision.tiers.evaluate import (
    ISOLATED,
    MAX_ORDERS,
    NOTHING_BOUNDS,
    POSITION,
    RULE,
    TIE,
    Doubt,
    SlotOut,
    Step,
    Verdict,
    build_plan,
    evaluate,
    first,
    isolates,
    slot_isolation,
    tie,
)
from lint.decision.tiers.match import PointProbe, match
from lint.decision.tiers.model import Action, CalicoTier, Protocol, TierInput, Undecidable
from lint.decision.tiers.points import OUT, Point
from tests.decision.tiers.build import (
    ALL2,
    ALLOW,
    DENY,
    PASS,
    M,
    N,
    Y,
    anp,
    banp,
    base,
    cidr,
    cilium,
    core_np,
    gnp,
    networks,
    port,
    rule,
)

EIGHTS = Point(4, cidr("8.8.8.8/32").base, OUT, Protocol.TCP, 443)
PROBE = PointProbe(EIGHTS)
ALLOW_8 = rule(ALLOW, [networks("8.8.8.8/32")])
DENY_8 = rule(DENY, [networks("8.8.8.8/32")])


def verdict(tier_input: TierInput, point: Point = EIGHTS) -> Verdict:
    return evaluate(build_plan(tier_input), PointProbe(point))


def entries(document, index: int = 0):  # type: ignore[no-untyped-def]
    return [(index, document, r) for r in document.rules]


def test_match_is_the_kleene_and_of_its_parts() -> None:
    document = anp("a", 1, ALLOW_8)
    assert match(document, document.rules[0], PROBE) is Tri.YES
    assert match(anp("a", 1, ALLOW_8, subject=N), document.rules[0], PROBE) is Tri.NO
    assert match(anp("a", 1, ALLOW_8, credit=M), document.rules[0], PROBE) is Tri.UNKNOWN
    off_port = rule(ALLOW, None, port("UDP", 53))
    assert match(document, off_port, PROBE) is Tri.NO
    assert match(document, rule(ALLOW, []), PROBE) is Tri.NO
    assert match(document, rule(ALLOW), PROBE) is Tri.YES


def test_first_stops_at_a_certain_match_and_goes_on_past_a_possible_one() -> None:
    maybe = anp("a", 1, ALLOW_8, DENY_8, credit=M)
    outs = first(entries(maybe), PROBE)
    assert [o.outcome for o in outs] == [Action.ALLOW, Action.DENY, "nomatch"]
    assert all(o.doubts for o in outs)
    certain = anp("a", 1, DENY_8, ALLOW_8)
    assert [o.outcome for o in first(entries(certain), PROBE)] == [Action.DENY]
    unmatched = anp("a", 1, rule(DENY, [networks("1.1.1.1/32")]))
    assert [o.outcome for o in first(entries(unmatched), PROBE)] == ["nomatch"]


def test_a_tie_is_certain_only_when_every_member_agrees() -> None:
    deny = first(entries(anp("a", 1, DENY_8)), PROBE)
    silent = first(entries(anp("b", 1, rule(ALLOW, [networks("1.1.1.1/32")])), 1), PROBE)
    assert [o.outcome for o in tie([deny, silent])] == [Action.DENY]
    maybe_allow = first(entries(anp("b", 1, ALLOW_8, credit=M), 1), PROBE)
    outs = tie([deny, maybe_allow])
    assert {o.outcome for o in outs} == {Action.ALLOW, Action.DENY}
    assert any(d.reason == TIE for o in outs for d in o.doubts)


def test_admin_deny_shadows_a_later_allow_and_same_priority_ties() -> None:
    assert verdict(base("Dn", anp("a", 10, DENY_8), anp("b", 20, ALLOW_8))).results == {Action.DENY}
    tied = verdict(base("Dn", anp("a", 10, DENY_8), anp("b", 10, ALLOW_8)))
    assert tied.results == {Action.ALLOW, Action.DENY}
    assert {d.document for d in tied.doubts} == {0, 1}


def test_culprits_are_the_allow_rule_the_last_pass_rule_or_the_default_allow() -> None:
    allowed = verdict(base("Dn", anp("a", 10, ALLOW_8)))
    (path,) = allowed.paths
    assert path.culprit is not None and path.culprit.document == 0
    passed = verdict(base("Dn", anp("a", 10, rule(PASS, [ALL2]))))
    (path,) = passed.paths
    assert path.culprit is not None and path.culprit.action is Action.PASS
    assert path.steps[-1].end == NOTHING_BOUNDS
    (open_path,) = verdict(base("Dn")).paths
    assert open_path.culprit is None


def test_the_network_policy_slot_in_api_form() -> None:
    isolated = verdict(base("D"))
    assert isolated.results == {Action.DENY}
    assert isolated.paths[0].steps[-1].end == ISOLATED
    denied = cilium("c", rule(ALLOW), deny=[rule(DENY, [networks("8.8.8.0/24")])])
    assert verdict(base("Dn", denied, cilium_r=True)).results == {Action.DENY}
    maybe_isolating = core_np("np", subject=M)
    assert verdict(base("Dn", maybe_isolating)).results == {Action.ALLOW, Action.DENY}


def test_an_isolation_resting_on_cilium_may_still_reach_a_baseline_allow() -> None:
    allow_all = banp(rule(ALLOW, [ALL2]))
    assert verdict(base("D", allow_all)).results == {Action.DENY}
    cilium_only = cilium("c", rule(ALLOW, [networks("1.1.1.1/32")]))
    assert verdict(base("Dn", cilium_only, allow_all, cilium_r=True)).results == {
        Action.ALLOW,
        Action.DENY,
    }
    baseline_silent = banp(rule(ALLOW, [networks("1.1.1.1/32")]))
    assert verdict(base("Dn", cilium_only, baseline_silent, cilium_r=True)).results == {Action.DENY}


def test_calico_tiers_apply_order_by_name_and_tie_across_kinds() -> None:
    same_kind = base(
        "D", gnp("a", rule(DENY), order=100), gnp("b", rule(ALLOW), order=100), calico=True
    )
    assert verdict(same_kind).results == {Action.DENY}
    kinds = base(
        "D",
        gnp("a", rule(DENY), order=100),
        gnp("b", rule(ALLOW), order=100, tie_class="NetworkPolicy.projectcalico.org"),
        calico=True,
    )
    assert verdict(kinds).results == {Action.ALLOW, Action.DENY}
    skipped = base(
        "Dn", gnp("g", rule(DENY), tier="t", subject=N), tiers=[CalicoTier("t", 10)], calico=True
    )
    assert verdict(skipped).results == {Action.ALLOW}
    maybe = base(
        "Dn", gnp("g", ALLOW_8, tier="t", subject=M), tiers=[CalicoTier("t", 10)], calico=True
    )
    # The tier's "applies" and its rule share the unknown subject but are read
    # as independent, which may add an outcome (here the end-of-tier deny).
    assert verdict(maybe).results == {Action.ALLOW, Action.DENY}


def test_an_unknown_tier_position_is_tried_in_every_gap() -> None:
    unknown = base("Dn", anp("a", 10, ALLOW_8), gnp("g", DENY_8, tier="platform"), calico=True)
    result = verdict(unknown)
    assert result.results == {Action.ALLOW, Action.DENY}
    assert any(d.reason == POSITION and d.document == 1 for d in result.doubts)
    known = base(
        "Dn",
        anp("a", 10, ALLOW_8),
        gnp("g", DENY_8, tier="platform"),
        tiers=[CalicoTier("platform", 100)],
        calico=True,
    )
    assert verdict(known).results == {Action.DENY}


def test_every_verdict_gains_allow_from_an_undecidable_object() -> None:
    result = verdict(base("D", undecidable=[Undecidable("Antrea", "x", "not modelled")]))
    assert result.results == {Action.ALLOW, Action.DENY}
    assert any(p.undecidable == 0 for p in result.paths)


def test_isolation_per_document() -> None:
    tier_input = base(
        "Dn",
        anp("a", 10, rule(DENY, [ALL2])),
        anp("b", 5, rule(PASS, [ALL2]), rule(DENY, [ALL2])),
        anp("c", 3, DENY_8),
    )
    assert isolates(tier_input, 0) is Tri.YES
    assert isolates(tier_input, 1) is Tri.NO
    assert isolates(tier_input, 2) is Tri.NO
    assert isolates(base("D"), 0) is Tri.YES
    assert Y is Tri.YES


def test_isolation_per_slot() -> None:
    admin = slot_isolation(base("Dn", anp("a", 10, rule(DENY, [ALL2]))))
    assert admin["kube-admin"] is Tri.YES
    assert admin["default"] is Tri.NO
    passing_first = slot_isolation(
        base("Dn", anp("p", 5, rule(PASS, [ALL2])), anp("a", 10, rule(DENY, [ALL2])))
    )
    assert passing_first["kube-admin"] is Tri.NO
    assert slot_isolation(base("D"))["default"] is Tri.YES
    calico = slot_isolation(base("Dn", gnp("g", ALLOW_8, subject=M), calico=True))
    assert calico["default"] is Tri.UNKNOWN


def test_calico_rules_in_the_api_forms_network_policy_slot_count_by_action() -> None:
    both = base("D", gnp("g", DENY_8), cilium_r=True)
    assert verdict(both).results == {Action.DENY}
    passing = base("Dn", gnp("g", rule(PASS, [networks("8.8.8.8/32")])), cilium_r=True)
    assert verdict(passing).results == {Action.ALLOW}


def test_too_many_unknown_tier_positions_fail_closed() -> None:
    tiers = [gnp(f"g{i}", DENY_8, tier=f"t{i}") for i in range(5)]
    plan = build_plan(base("Dn", *tiers, calico=True))
    assert plan.cut and len(plan.orders) == MAX_ORDERS
    result = evaluate(plan, PROBE)
    assert result.results == {Action.ALLOW, Action.DENY}
    assert {d.reason for d in result.doubts} == {POSITION}


def test_many_unknown_tiers_stay_bounded() -> None:
    tiers = [gnp(f"g{i}", DENY_8, tier=f"t{i:02}") for i in range(30)]
    plan = build_plan(base("Dn", *tiers, calico=True))
    assert plan.cut and len(plan.orders) <= MAX_ORDERS


def test_a_kept_hash_is_the_hash_of_the_values_and_plays_no_part_in_equality() -> None:
    (allow,) = anp("a", 1, rule(ALLOW, [ALL2])).rules
    step = Step("default", Action.ALLOW, 1, allow)
    out = SlotOut(Action.ALLOW, step, frozenset({Doubt(1, RULE, 0)}))
    first = (hash(step), hash(out))  # worked out and kept
    again = Step("default", Action.ALLOW, 1, allow)
    twin = SlotOut(Action.ALLOW, again, frozenset({Doubt(1, RULE, 0)}))
    assert (step, out) == (again, twin)
    assert first == (hash(again), hash(twin)) == (hash(step), hash(out))
    assert len({out, twin, SlotOut(Action.DENY, again)}) == 2
    assert Step("default", Action.DENY, 1, allow) != step
    assert Step("default", Action.ALLOW, 2, allow) not in {step}
