"""Evaluating one point through the cluster's tiers (CLUSTER-POLICIES.md §12.3).

``FIRST`` and ``TIE`` (§12.3.1), the slot list with every position of a tier
whose order is unknown (§12.3.2), what each slot does (§12.3.3), and the
verdict ``V(p)`` with, per path, the deciding step of each slot visited, the
culprit of an ``allow`` and the doubts (undecided documents) of an
undecided point (§12.3.4). §12.3.5's isolation per document is ``isolates``.

The evaluator reads the destination through a probe (``match.Probe``), so a
single point and a cell of points are evaluated by the same code; every
step is monotone in the probe's answers (an ``M`` only adds outcomes), which
is why a cell's verdict contains the verdict of each of its points.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import groupby
from typing import Final, Literal, TypeAlias, cast

import msgspec

from lint.decision.model import Tri
from lint.decision.tiers.kleene import kleene_and, kleene_or
from lint.decision.tiers.match import MaskedProbe, Probe, applies, destination
from lint.decision.tiers.model import (
    SLOT_ORDER,
    Action,
    CalicoTier,
    Slot,
    TierDocument,
    TierInput,
    TierRule,
)
from lint.kinds import NETWORK_POLICY

INFINITE: Final = float("inf")
MAX_ORDERS: Final = 120
"""How many orders of the slots are tried when several tiers' positions are
unknown (five unknown tiers among the built-in slots give 6,720)."""
UNKNOWN_POSITION: Final = "the position of a tier among the tiers is unknown"
DEFAULT_ALLOW: Final = "default-allow"
UNDECIDABLE_SLOT: Final = "undecidable"
UNKNOWN_SLOT: Final = "unknown-position"
NOMATCH: Final = "nomatch"
KEEP_DENY: Final = "pass-keep-deny"
"""A NetworkPolicy-slot isolation deny that may still go to the baseline
(Cilium's order against the baseline is not settled, §12.3.3): on the
baseline's ``nomatch`` it stays ``deny``."""

Outcome: TypeAlias = Action | Literal["nomatch", "pass-keep-deny"]

# Slot ends (§12.3.4).
END_DENY: Final = "end of tier: Deny"
END_PASS: Final = "end of tier: Pass"
ISOLATED: Final = "isolated, no rule allows it"
NOT_ISOLATED: Final = "not isolated"
NO_RULE: Final = "no rule matched"
DOES_NOT_APPLY: Final = "the tier does not apply"
MAY_NOT_APPLY: Final = "the tier may not apply"
MAY_REACH_BASELINE: Final = (
    "isolated; the baseline may still decide, as Cilium's order against it is not settled"
)
DENY_STANDS: Final = "no baseline rule matched: the default deny stands"
NOTHING_BOUNDS: Final = "default allow: nothing bounds it"

# Why a document leaves a point undecided (§12.3.4), for details.
UNREADABLE: Final = "unreadable"
SUBJECT: Final = "subject"
TYPES: Final = "types"
CREDIT: Final = "credit"
ACTION: Final = "action"
RULE: Final = "rule"
TIE: Final = "tie"
POSITION: Final = "position"
BASELINE_ORDER: Final = "baseline-order"
OBJECT: Final = "object"


class Doubt(msgspec.Struct, frozen=True):
    """One reason a point may have more than one outcome. ``document`` is an
    index into ``TierInput.documents``, or, for ``OBJECT``, into
    ``TierInput.undecidable``. ``rule`` is the rule whose match is ``M``
    (``RULE``, ``ACTION``); ``others`` the documents tied with it (``TIE``)."""

    document: int
    reason: str
    rule: int | None = None
    others: tuple[int, ...] = ()


# Its hash is kept once worked out: the evaluator hashes every path's steps,
# their rules and the slots' outcomes many times over.
class Step(msgspec.Struct, frozen=True, cache_hash=True):
    """What one slot did on one path (§12.3.4): the rule whose action ended
    or passed the slot (``document``, ``rule``), or the slot's ``end``.
    ``tie`` marks a rule chosen among tied policies."""

    slot: str
    action: Action
    document: int | None = None
    rule: TierRule | None = None
    end: str | None = None
    tie: bool = False


class Path(msgspec.Struct, frozen=True):
    """One path through the slots and its final result."""

    result: Action
    steps: tuple[Step, ...]
    doubts: frozenset[Doubt] = frozenset()

    @property
    def culprit(self) -> Step | None:
        """The culprit of an ``allow`` (§12.3.4): the deciding Allow rule,
        else the last Pass rule on the path; None for the default allow
        itself (and for a ``deny``)."""
        if self.result is not Action.ALLOW:
            return None
        last = self.steps[-1] if self.steps else None
        if last is not None and last.rule is not None and last.action is Action.ALLOW:
            return last
        passes = [s for s in self.steps if s.rule is not None and s.action is Action.PASS]
        return passes[-1] if passes else None

    @property
    def undecidable(self) -> int | None:
        """The §7 object this path stands for, if it is one."""
        last = self.steps[-1] if self.steps else None
        return last.document if last is not None and last.slot == UNDECIDABLE_SLOT else None


class Verdict(msgspec.Struct, frozen=True):
    """``V(p)``: the results over every path, and the paths."""

    results: frozenset[Action]
    paths: tuple[Path, ...]

    @property
    def undecided(self) -> bool:
        return len(self.results) > 1

    @property
    def doubts(self) -> frozenset[Doubt]:
        """The undecided documents' reasons, for an ``{allow, deny}`` point."""
        if not self.undecided:
            return frozenset()
        return frozenset().union(*(path.doubts for path in self.paths))


# --- the plan: slots, their documents in order, every configuration ---------------------


Entry: TypeAlias = tuple[int, TierDocument, TierRule]
"""A rule with its document and the document's index."""


class SlotPlan(msgspec.Struct, frozen=True):
    """One slot: ``kind`` is admin, calico, network-policy or baseline;
    ``groups`` its policy groups in order, each a tuple of tie members, each
    member the entries it runs in order (§12.3.1)."""

    name: str
    kind: str
    documents: tuple[int, ...]
    groups: tuple[tuple[tuple[Entry, ...], ...], ...] = ()
    tier: CalicoTier | None = None
    baseline_tie: tuple[Entry, ...] | None = None


class Plan(msgspec.Struct, frozen=True):
    """The input, its slots, and every order of them to try (§12.3.2)."""

    input: TierInput
    slots: dict[str, SlotPlan]
    orders: tuple[tuple[str, ...], ...]
    unknown_documents: tuple[int, ...] = ()
    cut: bool = False
    """More orders than ``MAX_ORDERS``: only the first are tried, and a
    verdict then holds both results (fail closed)."""
    reads: dict[str, tuple[TierRule, ...]] = msgspec.field(default_factory=dict)
    """Per slot, the rules whose match its outcome reads (``slot_reads``)."""
    undecidable_paths: tuple[Path, ...] = ()
    """The path of each §7 object, the same at every point (``_verdict``)."""


ADMIN: Final = "admin"
CALICO: Final = "calico"
NETWORK: Final = "network-policy"
BASELINE: Final = "baseline"


def _order(document: TierDocument) -> float:
    return INFINITE if document.order is None else document.order


def _entries(index: int, document: TierDocument) -> tuple[Entry, ...]:
    # A Cilium egressDeny beats every allow of its document (CIL-DENY).
    return tuple((index, document, rule) for rule in (*document.deny_rules, *document.rules))


def _ordered_groups(
    indexed: Sequence[tuple[int, TierDocument]], by_class: bool
) -> tuple[tuple[tuple[Entry, ...], ...], ...]:
    """Groups of equal order. For Calico (``by_class``) documents of one tie
    class run in name order as one member, and classes tie; otherwise each
    document of the group is a member (ties by priority)."""
    ordered = sorted(indexed, key=lambda item: (_order(item[1]), item[1].name, item[0]))
    groups: list[tuple[tuple[Entry, ...], ...]] = []
    for _, same in groupby(ordered, key=lambda item: _order(item[1])):
        members = list(same)
        if by_class:
            classes: dict[str, list[Entry]] = {}
            for index, document in members:
                classes.setdefault(document.tie_class, []).extend(_entries(index, document))
            groups.append(tuple(tuple(entries) for entries in classes.values()))
        else:
            groups.append(tuple(_entries(index, document) for index, document in members))
    return tuple(groups)


def build_plan(tier_input: TierInput) -> Plan:
    """The slots of ``tier_input`` and every order to try."""
    by_slot: dict[str, list[tuple[int, TierDocument]]] = {}
    for index, document in enumerate(tier_input.documents):
        by_slot.setdefault(document.slot, []).append((index, document))
    tiers = {tier.name: tier for tier in tier_input.tiers}
    for name in by_slot:
        if name not in SLOT_ORDER and name not in tiers:
            tiers[name] = CalicoTier(name, None, None)
    slots = {
        Slot.ADMIN.value: _admin_slot(by_slot),
        Slot.NETWORK_POLICY.value: _network_slot(by_slot, tier_input),
        Slot.BASELINE.value: _baseline_slot(by_slot),
    }
    for name, tier in tiers.items():
        docs = by_slot.get(name, [])
        slots[name] = SlotPlan(
            name, CALICO, tuple(i for i, _ in docs), _ordered_groups(docs, True), tier
        )
    known = sorted(
        [(float(order), name) for name, order in SLOT_ORDER.items()]
        + [(t.order, n) for n, t in tiers.items() if t.order is not None]
    )
    orders: list[tuple[str, ...]] = [tuple(name for _, name in known)]
    unknown = sorted(name for name, tier in tiers.items() if tier.order is None)
    cut = False
    for name in unknown:
        orders = [(*o[:at], name, *o[at:]) for o in orders for at in range(len(o) + 1)]
        cut = cut or len(orders) > MAX_ORDERS
        orders = orders[:MAX_ORDERS]
    unknown_documents = tuple(i for name in unknown for i, _ in by_slot.get(name, []))
    reads = {name: slot_reads(tier_input, slot, slots) for name, slot in slots.items()}
    undecidable = tuple(
        Path(
            Action.ALLOW, (Step(UNDECIDABLE_SLOT, Action.ALLOW, j),), frozenset({Doubt(j, OBJECT)})
        )
        for j in range(len(tier_input.undecidable))
    )
    return Plan(tier_input, slots, tuple(orders), unknown_documents, cut, reads, undecidable)


def slot_reads(
    tier_input: TierInput, slot: SlotPlan, slots: dict[str, SlotPlan]
) -> tuple[TierRule, ...]:
    """The rules a slot's outcome reads at a point: those of its documents
    that may apply, and for the NetworkPolicy slot in API form also the
    baseline's (whether an isolation may go on to it)."""
    documents = tier_input.documents
    indices = list(slot.documents)
    if slot.kind == NETWORK:
        indices += slots[Slot.BASELINE.value].documents
    return tuple(
        rule
        for i in indices
        if applies(documents[i]) is not Tri.NO
        for rule in (*documents[i].deny_rules, *documents[i].rules)
    )


def _admin_slot(by_slot: dict[str, list[tuple[int, TierDocument]]]) -> SlotPlan:
    docs = by_slot.get(Slot.ADMIN.value, [])
    return SlotPlan(
        Slot.ADMIN.value, ADMIN, tuple(i for i, _ in docs), _ordered_groups(docs, False)
    )


def _network_slot(
    by_slot: dict[str, list[tuple[int, TierDocument]]], tier_input: TierInput
) -> SlotPlan:
    docs = by_slot.get(Slot.NETWORK_POLICY.value, [])
    indices = tuple(i for i, _ in docs)
    if tier_input.calico_form:
        tier = CalicoTier(
            Slot.NETWORK_POLICY.value,
            SLOT_ORDER[Slot.NETWORK_POLICY],
            tier_input.default_tier_passes,
        )
        return SlotPlan(
            Slot.NETWORK_POLICY.value, CALICO, indices, _ordered_groups(docs, True), tier
        )
    return SlotPlan(Slot.NETWORK_POLICY.value, NETWORK, indices)


def _baseline_slot(by_slot: dict[str, list[tuple[int, TierDocument]]]) -> SlotPlan:
    """The BaselineAdminNetworkPolicy (no order) ties with the whole ordered
    run of baseline ClusterNetworkPolicies (§12.3.1)."""
    docs = by_slot.get(Slot.BASELINE.value, [])
    unordered = [(i, d) for i, d in docs if d.order is None]
    ordered = [(i, d) for i, d in docs if d.order is not None]
    tie = tuple(entry for i, d in unordered for entry in _entries(i, d)) if unordered else None
    return SlotPlan(
        Slot.BASELINE.value,
        BASELINE,
        tuple(i for i, _ in docs),
        _ordered_groups(ordered, False),
        baseline_tie=tie,
    )


# --- FIRST and TIE (§12.3.1) -------------------------------------------------------------


class Out(msgspec.Struct, frozen=True):
    """One outcome of a rule list: the action (or ``nomatch``), the deciding
    rule, and the doubts that made it one of several."""

    outcome: Outcome
    document: int | None = None
    rule: TierRule | None = None
    doubts: frozenset[Doubt] = frozenset()
    tie: bool = False


def doubt_of(index: int, document: TierDocument, rule: TierRule | None) -> Doubt:
    """Why ``document`` (at ``rule``) may or may not match."""
    if document.unreadable is not None:
        return Doubt(index, UNREADABLE)
    for reason, value in (
        (SUBJECT, document.subject),
        (CREDIT, document.credit),
        (TYPES, document.types),
    ):
        if value is Tri.UNKNOWN:
            return Doubt(index, reason)
    return Doubt(index, RULE, None if rule is None else rule.index)


def first(entries: Iterable[Entry], probe: Probe) -> list[Out]:
    """``FIRST`` over rules in order: each rule that may match adds its
    actions; a certain match ends the list; else ``nomatch`` too."""
    if isinstance(probe, MaskedProbe) and isinstance(entries, tuple):
        if probe.may_match(entries) is False:
            return [NO_MATCH]  # what ``_first`` gives when no rule may match
        return probe.remembered(entries, lambda: _first(entries, probe))
    return _first(entries, probe)


def _first(entries: Iterable[Entry], probe: Probe) -> list[Out]:
    outs: list[Out] = []
    doubts: set[Doubt] = set()
    for index, document, rule in entries:
        head = applies(document)
        if head is Tri.NO:
            continue
        matched = kleene_and(head, destination(rule, probe))
        if matched is Tri.NO:
            continue
        if matched is Tri.UNKNOWN:
            doubts.add(doubt_of(index, document, rule))
        if len(rule.actions) > 1:
            doubts.add(Doubt(index, ACTION, rule.index))
        seen = frozenset(doubts)
        outs.extend(Out(action, index, rule, seen) for action in sorted(rule.actions))
        if matched is Tri.YES:
            return _settle(outs)
    outs.append(Out(NOMATCH, doubts=frozenset(doubts)))
    return _settle(outs)


def _no_rule_may_match(document: TierDocument, probe: Probe) -> bool:
    """Whether a cell's probe knows that none of the document's rules may match."""
    return isinstance(probe, MaskedProbe) and probe.may_match_document(document) is False


def _none_may_match_in_group(group: tuple[tuple[Entry, ...], ...], probe: Probe) -> bool:
    """Whether a cell's probe knows that no rule of any member may match."""
    return isinstance(probe, MaskedProbe) and probe.may_match_group(group) is False


NO_MATCH: Final = Out(NOMATCH)
"""``FIRST`` of rules none of which may match."""


def _settle(outs: list[Out]) -> list[Out]:
    """Doubts matter only where they leave more than one outcome."""
    if len({out.outcome for out in outs}) > 1:
        return outs
    return [Out(o.outcome, o.document, o.rule, tie=o.tie) for o in outs]


def tie(members: Sequence[list[Out]]) -> list[Out]:
    """``TIE``: every member's actions, and ``nomatch`` only when every
    member may give it. Tied documents that disagree doubt each other."""
    if len(members) == 1:
        return members[0]
    outs = [o for outs in members for o in outs if o.outcome != NOMATCH]
    nomatches = [o for outs in members for o in outs if o.outcome == NOMATCH]
    if len(nomatches) == len(members):
        outs.append(Out(NOMATCH, doubts=frozenset().union(*(o.doubts for o in nomatches))))
    outs = [Out(o.outcome, o.document, o.rule, o.doubts, tie=True) for o in outs]
    if len({o.outcome for o in outs}) <= 1:
        return outs
    deciders = sorted({o.document for o in outs if o.document is not None})
    tied = frozenset(Doubt(d, TIE, others=tuple(x for x in deciders if x != d)) for d in deciders)
    return [Out(o.outcome, o.document, o.rule, o.doubts | tied, o.tie) for o in outs]


def sequence(groups: Sequence[tuple[tuple[Entry, ...], ...]], probe: Probe) -> list[Out]:
    """Policy groups in order: a group's ``nomatch`` goes on to the next."""
    return _carried_on(_groups_read(groups, probe))


def _groups_read(groups: Sequence[tuple[tuple[Entry, ...], ...]], probe: Probe) -> list[list[Out]]:
    """``TIE`` of each group that may match, in order, up to the first one
    that gives no ``nomatch``: what ``sequence`` reads of the point."""
    read: list[list[Out]] = []
    for group in groups:
        if _none_may_match_in_group(group, probe):
            continue  # every member gives a doubtless ``nomatch``: nothing changes
        outs = _tied(group, probe)
        read.append(outs)
        if all(o.outcome != NOMATCH for o in outs):
            break
    return read


def _carried_on(read: list[list[Out]]) -> list[Out]:
    """``sequence`` from the groups' outcomes it reads (``_groups_read``)."""
    results: list[Out] = []
    carried: frozenset[Doubt] = frozenset()
    for outs in read:
        going = [o for o in outs if o.outcome == NOMATCH]
        if carried:
            results.extend(
                Out(o.outcome, o.document, o.rule, o.doubts | carried, o.tie)
                for o in outs
                if o.outcome != NOMATCH
            )
        else:
            results.extend(o for o in outs if o.outcome != NOMATCH)  # nothing to add
        if not going:
            return results
        carried = carried | going[0].doubts
    results.append(Out(NOMATCH, doubts=carried))
    return results


def _tied(group: tuple[tuple[Entry, ...], ...], probe: Probe) -> list[Out]:
    """``TIE`` over a group's members: on a cell, once per its rules'
    answers (a slot's groups meet the same answers at many cells)."""
    if isinstance(probe, MaskedProbe):
        # Equal outcomes are one list, so that a slot's outcome can be kept
        # by the lists its groups give (``_ordered_slot``).
        def tied() -> list[Out]:
            outs = tie([first(member, probe) for member in group])
            return probe.one_of_equal((_EQUAL_TIES, id(group), *outs), outs)

        return probe.remembered_group(group, tied)
    return tie([first(member, probe) for member in group])


# --- the slots (§12.3.3) ------------------------------------------------------------------


# Its hash is kept once worked out: the evaluator hashes every path's steps,
# their rules and the slots' outcomes many times over.
class SlotOut(msgspec.Struct, frozen=True, cache_hash=True):
    """A slot's outcome: ``allow``, ``deny``, ``pass`` or ``pass-keep-deny``,
    with its step and doubts. ``end_pass``: a pass from the slot's end (the
    baseline's end after a kept deny is a deny)."""

    outcome: Outcome
    step: Step
    doubts: frozenset[Doubt] = frozenset()
    end_pass: bool = False


def _final(slot: str, outs: list[Out], end: list[SlotOut]) -> list[SlotOut]:
    result: list[SlotOut] = []
    for out in outs:
        if out.outcome == NOMATCH:
            result.extend(
                SlotOut(e.outcome, e.step, e.doubts | out.doubts, e.end_pass) for e in end
            )
            continue
        action = cast(Action, out.outcome)  # not ``nomatch``: an action
        step = Step(slot, action, out.document, out.rule, tie=out.tie)
        result.append(SlotOut(action, step, out.doubts))
    return result


SlotSource: TypeAlias = Callable[[Plan, SlotPlan, Probe], list["SlotOut"]]
"""How a slot's outcome is worked out at a point: ``evaluate_slot``, or a
caller's source that may take it from other inputs' evaluation."""


def _slot_outcome(
    plan: Plan,
    name: str,
    slot: SlotPlan,
    probe: Probe,
    memo: SlotMemo | None,
    keys: dict[str, Hashable] | None,
    source: SlotSource,
) -> list[SlotOut]:
    if memo is None:
        return source(plan, slot, probe)
    if keys is not None:
        key = keys[name]
    else:
        key = (name, tuple(destination(rule, probe) for rule in plan.reads[name]))
    found = memo.get(key)
    if found is None:
        fresh = source(plan, slot, probe)
        # Equal outcomes are one list, so verdicts kept by the identities of
        # the slot outcomes (``evaluate``'s ``verdicts``) are shared by them.
        found = memo[key] = memo.setdefault((_EQUAL_OUTCOMES, name, *fresh), fresh)
    return found


SHAREABLE: Final = frozenset({ADMIN, CALICO, BASELINE})
"""The slot kinds whose outcome reads nothing but the slot's own documents
(their indices, pod side and rules) and the rules' answers: inputs that
hold the same such slot (the cluster-scoped policies every path meets, at
the same indices) have the same outcomes. The NetworkPolicy slot in API
form also reads the input's CNI evidence and the baseline."""


def evaluate_slot(plan: Plan, slot: SlotPlan, probe: Probe) -> list[SlotOut]:
    if slot.kind == CALICO:
        return _calico_slot(plan, slot, probe)
    if slot.kind == NETWORK:
        return _network_api(plan, slot, probe)
    if slot.baseline_tie is None and isinstance(probe, MaskedProbe):
        return _ordered_slot(slot, probe)
    outs = sequence(slot.groups, probe)
    if slot.baseline_tie is not None:
        outs = tie([first(slot.baseline_tie, probe), outs])
    return _final(slot.name, outs, _slot_end(slot))


def _slot_end(slot: SlotPlan) -> list[SlotOut]:
    return [SlotOut(Action.PASS, Step(slot.name, Action.PASS, end=NO_RULE), end_pass=True)]


def _ordered_slot(slot: SlotPlan, probe: Probe) -> list[SlotOut]:
    """An Admin (or baseline) slot's outcome on a cell, once per the
    outcomes of the groups it reads: cells whose rules answer differently
    beyond the deciding group, or alike within a group, share it."""
    read = _groups_read(slot.groups, probe)
    assert isinstance(probe, MaskedProbe)
    key = (_BY_GROUPS, slot.name, *map(id, read))  # lists kept by ``one_of_equal``
    return probe.kept(key, lambda: _final(slot.name, _carried_on(read), _slot_end(slot)))


_BY_GROUPS: Final = object()
"""Heads the keys of ``_ordered_slot``'s outcomes."""
_EQUAL_TIES: Final = object()
"""Heads the keys of a group's outcomes by value (``_tied``)."""


def _calico_slot(plan: Plan, slot: SlotPlan, probe: Probe) -> list[SlotOut]:
    documents = plan.input.documents
    parts = [(i, applies(documents[i])) for i in slot.documents]
    applied = kleene_or(*(part for _, part in parts))
    skip = SlotOut(Action.PASS, Step(slot.name, Action.PASS, end=DOES_NOT_APPLY), end_pass=True)
    if applied is Tri.NO:
        return [skip]
    tier = slot.tier
    ends: list[SlotOut] = []
    defaults = (
        (False, True) if tier is None or tier.pass_by_default is None else (tier.pass_by_default,)
    )
    for passes in defaults:
        action = Action.PASS if passes else Action.DENY
        ends.append(
            SlotOut(
                action,
                Step(slot.name, action, end=END_PASS if passes else END_DENY),
                end_pass=passes,
            )
        )
    result = _final(slot.name, sequence(slot.groups, probe), ends)
    if applied is Tri.UNKNOWN:
        doubts = frozenset(
            doubt_of(i, documents[i], None) for i, part in parts if part is Tri.UNKNOWN
        )
        maybe = SlotOut(Action.PASS, Step(slot.name, Action.PASS, end=MAY_NOT_APPLY), doubts, True)
        result = [SlotOut(o.outcome, o.step, o.doubts | doubts, o.end_pass) for o in result]
        result.append(maybe)
    return result


def _best(matches: list[tuple[int, TierRule, Tri]]) -> list[tuple[int, TierRule, Tri]]:
    """The deciding rules: per document its first certain match, else its
    first possible one; only certain ones when some match is certain."""
    certain = any(m is Tri.YES for _, _, m in matches)
    chosen: dict[int, tuple[int, TierRule, Tri]] = {}
    for index, rule, matched in matches:
        if certain and matched is not Tri.YES:
            continue
        chosen.setdefault(index, (index, rule, matched))
    return list(chosen.values())


def _network_api(plan: Plan, slot: SlotPlan, probe: Probe) -> list[SlotOut]:
    """The NetworkPolicy slot in API form: ``iso``, ``al``, ``dn`` (§12.3.3)."""
    tier_input = plan.input
    documents = tier_input.documents
    allows: list[tuple[int, TierRule, Tri]] = []
    denies: list[tuple[int, TierRule, Tri]] = []
    for i in slot.documents:
        document = documents[i]
        head = applies(document)
        if head is Tri.NO or _no_rule_may_match(document, probe):
            continue  # it adds no allow and no deny here
        denying = len(document.deny_rules)
        for at, rule in enumerate((*document.deny_rules, *document.rules)):
            matched = kleene_and(head, destination(rule, probe))
            if matched is Tri.NO:
                continue
            # A Calico rule here (both CNIs) may deny; a Pass lands in the profile's allow.
            if at < denying or Action.DENY in rule.actions:
                if matched is Tri.YES:
                    # The first certain deny decides alone (``dn`` is ``Y``):
                    # what any later rule or the isolation adds is never read.
                    return [SlotOut(Action.DENY, Step(slot.name, Action.DENY, i, rule))]
                denies.append((i, rule, matched))
            if at >= denying and rule.actions & {Action.ALLOW, Action.PASS}:
                allows.append((i, rule, matched))
    iso_parts = [(i, applies(documents[i])) for i in slot.documents if documents[i].isolates]
    iso = kleene_or(*(part for _, part in iso_parts))
    al = kleene_or(*(m for _, _, m in allows))
    dn = kleene_or(*(m for _, _, m in denies))
    name = slot.name
    outs: list[SlotOut] = []
    if dn is not Tri.NO:
        index, rule, _ = _best(denies)[0]
        outs.append(SlotOut(Action.DENY, Step(name, Action.DENY, index, rule)))
    if dn is not Tri.YES and al is not Tri.NO:
        outs.extend(
            SlotOut(Action.ALLOW, Step(name, Action.ALLOW, i, rule)) for i, rule, _ in _best(allows)
        )
    if dn is not Tri.YES and al is not Tri.YES and iso is not Tri.NO:
        isolating = next((i for i, part in iso_parts if part is Tri.YES), iso_parts[0][0])
        outs.append(SlotOut(Action.DENY, Step(name, Action.DENY, isolating, end=ISOLATED)))
        if _may_reach_baseline(plan, iso_parts, probe):
            step = Step(name, Action.PASS, isolating, end=MAY_REACH_BASELINE)
            outs.append(SlotOut(KEEP_DENY, step, frozenset({Doubt(isolating, BASELINE_ORDER)})))
    if dn is not Tri.YES and al is not Tri.YES and iso is not Tri.YES:
        outs.append(SlotOut(Action.PASS, Step(name, Action.PASS, end=NOT_ISOLATED), end_pass=True))
    if len({o.outcome for o in outs}) > 1:
        doubts = frozenset(
            doubt_of(i, documents[i], rule)
            for i, rule, m in (*allows, *denies, *((i, None, p) for i, p in iso_parts))
            if m is Tri.UNKNOWN
        )
        outs = [SlotOut(o.outcome, o.step, o.doubts | doubts, o.end_pass) for o in outs]
    return outs


def _may_reach_baseline(plan: Plan, iso_parts: list[tuple[int, Tri]], probe: Probe) -> bool:
    """The conservative rule of §12.3.3: where the isolation rests on Cilium
    (CILIUM-R, or no core NetworkPolicy isolates for certain), an isolation
    deny may go on to the baseline when a baseline Allow or Pass may match."""
    documents = plan.input.documents
    core_certain = any(
        part is Tri.YES and documents[i].kind == NETWORK_POLICY.key for i, part in iso_parts
    )
    if core_certain and not plan.input.cilium_r:
        return False
    baseline = plan.slots[Slot.BASELINE.value]
    for i in baseline.documents:
        document = documents[i]
        head = applies(document)
        if head is Tri.NO:
            continue
        for rule in document.rules:
            if (
                rule.actions & {Action.ALLOW, Action.PASS}
                and kleene_and(head, destination(rule, probe)) is not Tri.NO
            ):
                return True
    return False


# --- the verdict (§12.3.4) ---------------------------------------------------------------


class _Branch(msgspec.Struct, frozen=True):
    steps: tuple[Step, ...]
    doubts: frozenset[Doubt]
    keep_deny: bool = False


def _run(plan: Plan, order: tuple[str, ...], outs: dict[str, list[SlotOut]]) -> list[Path]:
    paths: list[Path] = []
    branches = [_Branch((), frozenset())]
    for name in order:
        going: list[_Branch] = []
        for branch in branches:
            for out in outs[name]:
                steps = (*branch.steps, out.step)
                doubts = branch.doubts | out.doubts
                if branch.keep_deny and name == Slot.BASELINE.value and out.end_pass:
                    stand = Step(name, Action.DENY, end=DENY_STANDS)
                    paths.append(Path(Action.DENY, (*branch.steps, stand), doubts))
                elif out.outcome in (Action.ALLOW, Action.DENY):
                    paths.append(Path(cast(Action, out.outcome), steps, doubts))
                else:
                    keep = branch.keep_deny or out.outcome == KEEP_DENY
                    going.append(_Branch(steps, doubts, keep))
        branches = list(dict.fromkeys(going))
    last = Step(DEFAULT_ALLOW, Action.ALLOW, end=NOTHING_BOUNDS)
    paths.extend(Path(Action.ALLOW, (*b.steps, last), b.doubts) for b in branches)
    return paths


_EQUAL_OUTCOMES: Final = object()
"""Heads the ``SlotMemo`` keys of outcomes by value, apart from every key
by the rules' answers."""

SlotMemo: TypeAlias = dict[Hashable, list[SlotOut]]
"""Slot outcomes by slot and the answers of the rules it reads."""


VerdictMemo: TypeAlias = dict[tuple[int, ...], tuple[list[list["SlotOut"]], "Verdict"]]
"""Verdicts by the identities of the slot outcomes they were made from."""


def evaluate(
    plan: Plan,
    probe: Probe,
    memo: SlotMemo | None = None,
    keys: dict[str, Hashable] | None = None,
    verdicts: VerdictMemo | None = None,
    source: SlotSource = evaluate_slot,
) -> Verdict:
    """``V(p)`` over every order of the slots, plus every §7 object.
    ``memo``: the outcomes of slots at earlier points of this plan; a slot
    reads a point only through its rules' matches (``Plan.reads``), so
    points whose matches agree on a slot's rules share its outcome.
    ``keys``: each slot's key for the memo when the caller knows those
    matches already. ``verdicts``: the verdicts of earlier points of this
    plan, by the slot outcomes (kept in ``memo``) they were made from: the
    verdict reads the point through those alone. ``source``: where a slot's
    outcome not in ``memo`` comes from."""
    outs = {
        name: _slot_outcome(plan, name, slot, probe, memo, keys, source)
        for name, slot in plan.slots.items()
    }
    if memo is None or verdicts is None:
        return _verdict(plan, outs)
    key = tuple(map(id, outs.values()))
    hit = verdicts.get(key)
    if hit is not None and all(map(operator.is_, hit[0], outs.values())):
        return hit[1]
    verdict = _verdict(plan, outs)
    verdicts[key] = (list(outs.values()), verdict)
    return verdict


def _verdict(plan: Plan, outs: dict[str, list[SlotOut]]) -> Verdict:
    """``V(p)`` from each slot's outcomes at the point."""
    runs = [_run(plan, order, outs) for order in plan.orders]
    if len(runs) > 1 and len({frozenset(p.result for p in run) for run in runs}) > 1:
        # Where the unknown tier goes changes the result: its documents are in doubt.
        doubts = frozenset(Doubt(i, POSITION) for i in plan.unknown_documents)
        runs = [[Path(p.result, p.steps, p.doubts | doubts) for p in run] for run in runs]
    paths = [p for run in runs for p in run]
    if plan.cut:
        doubts = frozenset(Doubt(i, POSITION) for i in plan.unknown_documents)
        found = {p.result for p in paths}
        paths = [Path(p.result, p.steps, p.doubts | doubts) for p in paths]
        for action in (Action.ALLOW, Action.DENY):
            if action not in found:
                step = Step(UNKNOWN_SLOT, action, end=UNKNOWN_POSITION)
                paths.append(Path(action, (step,), doubts))
    paths += plan.undecidable_paths  # one object each for every point of the plan
    unique = tuple(dict.fromkeys(paths))
    return Verdict(frozenset(p.result for p in unique), unique)


# --- §12.3.5 what isolates the pod ---------------------------------------------------------


def _covers_everything(rule: TierRule) -> bool:
    """A rule with no ports whose peers cover every address of both families."""
    if not rule.ports.every or rule.ports.exclude is not None:
        return False
    if rule.peers is None:
        return True
    families = set()
    for peer in rule.peers:
        if peer.out is not Tri.YES or peer.node is not Tri.YES or peer.pod is not Tri.YES:
            continue
        if peer.blocks is None:
            return True
        families |= {b.cidr.family for b in peer.blocks if b.cidr.prefix == 0 and not b.excepts}
    return families == {4, 6}


def isolates(tier_input: TierInput, index: int) -> Tri:
    """§12.3.5 for one document: does it end every point that reaches its slot?"""
    document = tier_input.documents[index]
    head = applies(document)
    if document.slot in (Slot.ADMIN.value, Slot.BASELINE.value):
        for rule in document.rules:
            if Action.PASS in rule.actions:
                # An earlier Pass may let points through the slot.
                return Tri.NO
            if Action.DENY in rule.actions and _covers_everything(rule):
                return head
        return Tri.NO
    if document.slot == Slot.NETWORK_POLICY.value and not tier_input.calico_form:
        return head if document.isolates else Tri.NO
    if document.slot == Slot.NETWORK_POLICY.value:
        return Tri.NO if tier_input.default_tier_passes else head
    tier = next((t for t in tier_input.tiers if t.name == document.slot), None)
    if tier is None or tier.pass_by_default is not False:
        return Tri.NO
    return head


def slot_isolation(tier_input: TierInput) -> dict[str, Tri]:
    """§12.3.5 per slot: does the slot end every point that reaches it
    without ``pass``? A slot of Admin or Baseline isolates through one of its
    documents, unless a document ordered before it may Pass; a Calico tier
    when it applies and ends in Deny; the NetworkPolicy slot by ``iso``."""
    plan = build_plan(tier_input)
    documents = tier_input.documents
    result: dict[str, Tri] = {}
    for name, slot in plan.slots.items():
        if slot.kind == CALICO:
            tier = slot.tier
            ends_in_deny = tier is not None and tier.pass_by_default is False
            applied = kleene_or(*(applies(documents[i]) for i in slot.documents))
            result[name] = applied if ends_in_deny else Tri.NO
        elif slot.kind == NETWORK:
            result[name] = kleene_or(
                *(applies(documents[i]) for i in slot.documents if documents[i].isolates)
            )
        else:
            result[name] = _ordered_isolation(tier_input, slot)
    return result


def _ordered_isolation(tier_input: TierInput, slot: SlotPlan) -> Tri:
    documents = tier_input.documents
    ordered = sorted(slot.documents, key=lambda i: (_order(documents[i]), documents[i].name))
    answers: list[Tri] = []
    for i in ordered:
        answers.append(isolates(tier_input, i))
        passing = any(Action.PASS in rule.actions for rule in documents[i].rules)
        if passing and applies(documents[i]) is not Tri.NO:
            break  # a Pass before the rest may let points through
    return kleene_or(*answers)
