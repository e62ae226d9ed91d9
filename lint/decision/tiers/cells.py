"""Cells: the destination space split where every match is constant
(CLUSTER-POLICIES.md §12.5, "Computing it").

Points are never enumerated. Address cells (per family) lie between every
cidr boundary of the rules, their excepts, the allowance and the query; port
cells (per protocol) between every port boundary, plus ``ICMP`` and ``OTHER``
(split by protocol number); owner classes are ``OUT``, ``NODE`` and the pod
classes: "in no selector", and for each distinct selector ``S`` "in ``S``",
where another selector ``T`` answers ``Y`` when S§9.2 proves ``S ⊆ T``,
``N`` when the disjointness test proves they share no pod, and ``M``
otherwise. Name classes are each name the rules, the allowance or the query
name exactly, and each wildcard pattern of a rule.

A cell's answers form two vectors: one over the distinct port sets (its port
cell) and one over the distinct peers (its address and owner, or its name).
The verdict is evaluated once per pair of vectors, so the cost follows the
number of distinct answers, not the number of cells. Every answer on a cell
contains the answer on each of its points (``M`` where unproven), and the
evaluator is monotone, so each cell's verdict contains each point's.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, NamedTuple, TypeAlias, TypeVar, cast

import msgspec

from lint.decision.model import Tri
from lint.decision.reach.common import StrictSelector, normalise_domain
from lint.decision.selectors import narrower_than
from lint.decision.tiers.evaluate import (
    SHAREABLE,
    Plan,
    SlotMemo,
    SlotOut,
    SlotPlan,
    Verdict,
    VerdictMemo,
    build_plan,
    evaluate,
    evaluate_slot,
)
from lint.decision.tiers.kleene import kleene_and, kleene_not, kleene_or, of_bool
from lint.decision.tiers.match import MaskedProbe, Probe, applies
from lint.decision.tiers.model import (
    PORTED,
    PeerMatch,
    PodSet,
    Ports,
    Protocol,
    TierDocument,
    TierInput,
    TierRule,
)
from lint.decision.tiers.points import (
    FAMILY_BITS,
    MAX_PORT,
    MAX_PROTOCOL_NUMBER,
    MIN_PORT,
    NODE,
    OUT,
    POD,
    AllowanceView,
    Family,
    cidr_bounds,
    in_block,
    name_matches,
    ports_hold,
    read_allowance,
)
from lint.decision.values import ABSENT, JSON, Absent

Vector: TypeAlias = tuple[Tri, ...]
T = TypeVar("T")
R = TypeVar("R")

PROTOCOLS: Final = (*PORTED, Protocol.ICMP, Protocol.OTHER)
FAMILIES: Final[tuple[Family, ...]] = (4, 6)


# --- queries (the points of ``explain --to``) -------------------------------------------


class AddressQuery(msgspec.Struct, frozen=True):
    """Addresses ``low``..``high`` of one family; ``protocol`` None means
    every protocol and port (``ICMP`` and ``OTHER`` included), else that
    protocol on ``port`` (None: every port)."""

    family: Family
    low: int
    high: int
    protocol: Protocol | None = None
    port: int | None = None


class NameQuery(msgspec.Struct, frozen=True):
    """A host name on one protocol (``TCP`` for ``HOST:PORT``) and port;
    ``protocol`` None: every protocol and port."""

    host: str
    protocol: Protocol | None = Protocol.TCP
    port: int | None = None


Query: TypeAlias = AddressQuery | NameQuery


# --- the cells ---------------------------------------------------------------------------


class PortCell(msgspec.Struct, frozen=True):
    """Ports ``low``..``high`` of a protocol (for ``OTHER`` protocol numbers;
    ``ICMP`` has none)."""

    protocol: Protocol
    low: int | None = None
    high: int | None = None


class AddressCell(msgspec.Struct, frozen=True):
    family: Family
    low: int
    high: int


class OwnerClass(msgspec.Struct, frozen=True):
    """``OUT``; ``NODE`` (``pods`` None: a plain node, or a host-networked
    pod no selector names; else the host-networked pods of ``pods``); or
    ``POD``, the pods of ``pods`` (None: in no selector)."""

    owner: str
    pods: PodSet | None = None
    text: str = ""


ANY_DEPTH: Final = 0
"""A wildcard class of every name one or more labels under its suffix."""
ONE_LABEL: Final = 1
"""A wildcard class of the names exactly one label under its suffix."""
MORE_LABELS: Final = 2
"""A wildcard class of the names two or more labels under its suffix."""


class NameClass(msgspec.Struct, frozen=True):
    """One name, or (``wildcard``) the names a pattern matches beyond every
    name listed. ``asked``: a rule or the query names it; a name only the
    allowance lists is a class (so a pattern's class leaves it out) that
    reach does not ask about, as name points exist for FQDN rules.
    ``depth``: how many labels a wildcard class's names hold before the
    suffix. Where some peer reads ``*.`` as one label (Cilium), each
    pattern's names are split into ``ONE_LABEL`` and ``MORE_LABELS``, on
    each of which every peer answers alike; otherwise one ``ANY_DEPTH``."""

    name: str
    wildcard: bool = False
    asked: bool = True
    depth: int = ANY_DEPTH


class Place(NamedTuple):
    """Where a group of cells lies: an address cell under one owner class,
    or a name class. A tuple: a path lays out hundreds of places, and a
    tuple is the cheapest immutable record to make."""

    address: AddressCell | None = None
    owner: OwnerClass | None = None
    name: NameClass | None = None


@dataclass(slots=True)
class Group:
    """Cells with the same answers: their vector and members, in order;
    ``bits`` the vector as masks (``_masks``), once read."""

    vector: Vector
    members: list[object] = field(default_factory=list)
    bits: Masks | None = None

    @property
    def masks(self) -> Masks:
        if self.bits is None:
            self.bits = _masks(self.vector)
        return self.bits


# --- selectors as sets of pods: S§9.2 containment and disjointness -----------------------


def selector_json(selector: StrictSelector | None) -> JSON | Absent:
    """A strict selector in the raw form S§9.2 reads (None: absent)."""
    if selector is None:
        return ABSENT
    raw: dict[str, JSON] = {}
    if selector.labels:
        raw["matchLabels"] = dict(selector.labels)
    if selector.requirements:
        raw["matchExpressions"] = [
            {
                "key": r.key,
                "operator": r.operator,
                **({"values": list(r.values)} if r.values else {}),
            }
            for r in selector.requirements
        ]
    return raw


def pods_within(outer: PodSet, inner: PodSet) -> bool:
    """S§9.2 on both selectors: every pod of ``inner`` is in ``outer``."""
    return narrower_than(selector_json(outer.namespaces), selector_json(inner.namespaces)) and (
        narrower_than(selector_json(outer.pods), selector_json(inner.pods))
    )


class _Values(msgspec.Struct, frozen=True):
    """The values one key may take: ``finite`` (None: any but ``excluded``)
    and whether it may be absent."""

    finite: frozenset[str] | None
    excluded: frozenset[str] = frozenset()
    absent: bool = False

    def meet(self, other: _Values) -> _Values:
        absent = self.absent and other.absent
        if self.finite is None and other.finite is None:
            return _Values(None, self.excluded | other.excluded, absent)
        if self.finite is None:
            return _Values(other.finite - self.excluded, frozenset(), absent)  # type: ignore[operator]
        if other.finite is None:
            return _Values(self.finite - other.excluded, frozenset(), absent)
        return _Values(self.finite & other.finite, frozenset(), absent)

    @property
    def empty(self) -> bool:
        return self.finite is not None and not self.finite and not self.absent


def _constraints(selector: StrictSelector | None) -> Iterator[tuple[str, _Values]]:
    if selector is None:
        return
    for key, value in selector.labels:
        yield key, _Values(frozenset({value}))
    for r in selector.requirements:
        if r.operator == "In":
            yield r.key, _Values(frozenset(r.values))
        elif r.operator == "NotIn":
            yield r.key, _Values(None, frozenset(r.values), True)
        elif r.operator == "Exists":
            yield r.key, _Values(None)
        else:
            yield r.key, _Values(frozenset(), absent=True)


def selectors_disjoint(*selectors: StrictSelector | None) -> bool:
    """Some key whose requirements cannot all hold at once."""
    met: dict[str, _Values] = {}
    for selector in selectors:
        for key, values in _constraints(selector):
            met[key] = met[key].meet(values) if key in met else values
    return any(values.empty for values in met.values())


def pods_disjoint(first: PodSet, second: PodSet) -> bool:
    return selectors_disjoint(first.namespaces, second.namespaces) or selectors_disjoint(
        first.pods, second.pods
    )


def _base(pods: PodSet) -> PodSet:
    return PodSet(pods.namespaces, pods.pods)


def _every_pod(pods: PodSet) -> bool:
    return (
        pods.exact
        and pods.exclude is None
        and (pods.namespaces is None or pods.namespaces.is_empty)
        and (pods.pods is None or pods.pods.is_empty)
    )


@lru_cache(maxsize=1 << 16)
def pods_on_class(pods: PodSet, cls: PodSet | None) -> Tri:
    """Is a pod of the class in ``pods``: ``Y``/``N`` when proven, else ``M``.
    The class None holds the pods in no selector at all. Remembered: the
    same selectors meet on every path of a namespace, and the proofs cost."""
    if not pods.exact:
        return Tri.UNKNOWN
    if cls is None:
        return Tri.NO
    if pods_within(_base(pods), cls):
        held = Tri.YES
    elif pods_disjoint(pods, cls):
        return Tri.NO
    else:
        held = Tri.UNKNOWN
    if pods.exclude is None:
        return held
    return kleene_and(held, kleene_not(pods_on_class(pods.exclude, cls)))


# --- the space ---------------------------------------------------------------------------


def _ports_bounds(ports: Ports, into: dict[Protocol, set[int]]) -> None:
    for span in ports.spans:
        into[span.protocol].update((span.low, span.high + 1))
    for number in ports.other_numbers:
        into[Protocol.OTHER].update((number, number + 1))
    if ports.exclude is not None:
        _ports_bounds(ports.exclude, into)


def _intervals(low: int, high: int, cuts: Iterable[int]) -> list[tuple[int, int]]:
    points = sorted({low, *(c for c in cuts if low < c <= high)})
    return [(a, b - 1) for a, b in zip(points, [*points[1:], high + 1], strict=True)]


def _peer_on_place(peer: PeerMatch, place: Place) -> Tri:
    if place.name is not None:
        return _peer_on_name(peer, place.name)
    assert place.address is not None and place.owner is not None
    cell = place.address
    if peer.blocks is not None and not any(in_block(b, cell.family, cell.low) for b in peer.blocks):
        return Tri.NO
    return _owner_part(peer, place.owner)


def _owner_part(peer: PeerMatch, owner: OwnerClass) -> Tri:
    if owner.owner == OUT:
        return peer.out
    if isinstance(peer.pod, Tri):
        return peer.node if owner.owner == NODE else peer.pod
    held = pods_on_class(peer.pod, owner.pods)
    return kleene_and(peer.node, held) if owner.owner == NODE else held


def _peer_on_name(peer: PeerMatch, name: NameClass) -> Tri:
    if peer.names is None:
        return peer.on_name
    if not name.wildcard:
        return of_bool(any(name_matches(p, name.name, peer.one_label) for p in peer.names))
    suffix = name.name[1:]
    answers = []
    for written in peer.names:
        pattern = normalise_domain(written)
        if not pattern.startswith("*."):
            continue  # the class holds no listed name
        answers.append(_pattern_on_class(pattern[1:], peer.one_label, suffix, name.depth))
    return kleene_or(*answers)


def _pattern_on_class(other: str, one_label: bool, suffix: str, depth: int) -> Tri:
    """A ``*.`` pattern over ``other`` (``.``-led) on a wildcard class's
    names under ``suffix``: ``Y`` when it matches them all, ``M`` some."""
    within = suffix.endswith(other)  # the class's names lie under the pattern's suffix
    beneath = other.endswith(suffix) and other != suffix  # the pattern's names lie deeper
    if not one_label:
        if within:
            return Tri.YES
        return Tri.NO if depth == ONE_LABEL or not beneath else Tri.UNKNOWN
    if depth == ONE_LABEL:
        return Tri.YES if suffix == other else Tri.NO
    if depth == MORE_LABELS:
        return Tri.UNKNOWN if beneath else Tri.NO
    return Tri.UNKNOWN if beneath or suffix == other else Tri.NO


def _port_cell_ports(ports: Ports, cell: PortCell) -> Tri:
    return ports_hold(ports, cell.protocol, cell.low)


@dataclass
class Space:
    """The cells of one input (and queries), grouped by their answers, with
    each distinct answer of the rules evaluated once."""

    plan: Plan
    view: AllowanceView
    ports: list[Ports]
    peers: list[PeerMatch]
    port_groups: list[Group]
    place_groups: list[Group]
    name_groups: list[Group]
    rules: list[TierRule] = field(default_factory=list)
    memo: dict[tuple[int, int], Verdict] = field(default_factory=dict)
    slot_memo: SlotMemo = field(default_factory=dict)
    verdict_memo: VerdictMemo = field(default_factory=dict)
    shared_slots: SharedSlots | None = None
    """Slot outcomes of other inputs' spaces, for the slots this one holds alike."""
    slot_shapes: dict[str, _SlotShape | None] = field(default_factory=dict)
    ports_index: dict[int, int] = field(default_factory=dict)
    peers_index: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Answers are looked up by object identity: a rule's own port set and
        # peers. The allowance's entries come after the rules' and never
        # shadow them (an entry may be the very object a rule holds).
        self.ports_index = {}
        self.peers_index = {}
        for i, p in enumerate(self.ports):
            self.ports_index.setdefault(id(p), i)
        for i, q in enumerate(self.peers):
            self.peers_index.setdefault(id(q), i)
        self._rule_ports = [self.ports_index[id(rule.ports)] for rule in self.rules]
        self._rule_peers = [
            None if rule.peers is None else sum({1 << self.peers_index[id(q)] for q in rule.peers})
            for rule in self.rules
        ]
        self._entries = len(self.view.entries)
        bit_of: dict[int, int] = {}
        for bit, rule in enumerate(self.rules):
            bit_of.setdefault(id(rule), bit)
        self._slot_bits = {
            name: sum({1 << bit_of[id(rule)] for rule in rules})
            for name, rules in self.plan.reads.items()
        }
        self.bit_of = bit_of
        self.entry_masks: dict[int, tuple[object, int | None]] = {}
        self.entry_answers: dict[tuple[int, int, int], tuple[object, object]] = {}
        """Answers about a rule list by its rules' answers (``MaskProbe.remembered``)."""
        self.evaluator_memo: dict[Hashable, object] = {}
        """What the evaluator keeps for the space (``MaskProbe.kept`` and
        ``MaskProbe.one_of_equal``)."""

    def entries_mask(self, entries: tuple[tuple[int, TierDocument, TierRule], ...]) -> int | None:
        """The bits of a list of entries' rules, once per list (the plan's
        lists live as long as the space); None when a rule of a document
        that may apply has no bit."""
        hit = self.entry_masks.get(id(entries))
        if hit is not None and hit[0] is entries:
            return hit[1]
        mask: int | None = 0
        for _, document, rule in entries:
            bit = self.bit_of.get(id(rule))
            if bit is not None:
                mask = (mask or 0) | 1 << bit
            elif applies(document) is not Tri.NO:
                mask = None
                break
        self.entry_masks[id(entries)] = (entries, mask)
        return mask

    def document_mask(self, document: TierDocument) -> int | None:
        """The bits of a document's deny rules and rules, once per document;
        None when one has no bit (a document that may apply holds a bit for
        each of its rules)."""
        hit = self.entry_masks.get(id(document))
        if hit is not None and hit[0] is document:
            return hit[1]
        mask: int | None = 0
        for rule in (*document.deny_rules, *document.rules):
            bit = self.bit_of.get(id(rule))
            if bit is None:
                mask = None
                break
            mask = (mask or 0) | 1 << bit
        self.entry_masks[id(document)] = (document, mask)
        return mask

    def group_mask(
        self, group: tuple[tuple[tuple[int, TierDocument, TierRule], ...], ...]
    ) -> int | None:
        """``entries_mask`` over every member of a group, once per group."""
        hit = self.entry_masks.get(id(group))
        if hit is not None and hit[0] is group:
            return hit[1]
        mask: int | None = 0
        for member in group:
            found = self.entries_mask(member)
            if found is None:
                mask = None
                break
            mask = (mask or 0) | found
        self.entry_masks[id(group)] = (group, mask)
        return mask

    def port_masks(self, port_vector: Vector) -> Masks:
        """Each rule's port answer (bit ``i`` for rule ``i``), then each
        allowance entry's (bit ``n + k``), as certain and possible bits."""
        return self.port_bits(_masks(port_vector))

    def port_bits(self, ports: Masks) -> Masks:
        """``port_masks`` from the port vector's own masks."""
        certain, maybe = ports
        rule_certain = rule_maybe = 0
        for bit, index in enumerate(self._rule_ports):
            rule_certain |= (certain >> index & 1) << bit
            rule_maybe |= (maybe >> index & 1) << bit
        return self._with_entries(rule_certain, rule_maybe, ports, len(self.ports))

    def place_masks(self, place_vector: Vector) -> Masks:
        """Each rule's peer answer (any of its peers; a rule naming no
        destination holds every place), then each allowance entry's."""
        return self.place_bits(_masks(place_vector))

    def place_bits(self, places: Masks) -> Masks:
        """``place_masks`` from the place vector's own masks."""
        certain, maybe = places
        rule_certain = rule_maybe = 0
        for bit, peers in enumerate(self._rule_peers):
            if peers is None or certain & peers:
                rule_certain |= 1 << bit
            elif maybe & peers:
                rule_maybe |= 1 << bit
        return self._with_entries(rule_certain, rule_maybe, places, len(self.peers))

    def _with_entries(self, certain: int, maybe: int, vector: Masks, size: int) -> Masks:
        # The entries are the vector's last bits; they follow the rules' bits.
        start, shift = size - self._entries, len(self.rules)
        return certain | (vector[0] >> start) << shift, maybe | (vector[1] >> start) << shift

    def judge(
        self, port_vector: Vector, place_vector: Vector, ports: Masks, places: Masks
    ) -> Verdict | None:
        """The verdict on the cells, None when they are proven inside the
        allowance, from both vectors and their masks (``port_masks``,
        ``place_masks``)."""
        certain = ports[0] & places[0]
        if certain >> len(self.rules):
            return None  # some entry holds every point of the cells
        possible = (ports[0] | ports[1]) & (places[0] | places[1])
        # What each rule's destination half answers on the cells: the
        # evaluator reads the cells through nothing else, so cells with one
        # such signature have one verdict.
        every = (1 << len(self.rules)) - 1
        key = (certain & every, possible & every)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self._evaluated(key, port_vector, place_vector)
        return found

    def row(
        self, ports: Sequence[tuple[Group, Masks]], places: Group, place_masks: Masks
    ) -> list[Verdict | None]:
        """``judge`` for each port group on one group of places: a path
        asks it of hundreds of pairs, so the loop is written out."""
        shift = len(self.rules)
        every = (1 << shift) - 1
        place_certain, place_maybe = place_masks
        place_possible = place_certain | place_maybe
        memo = self.memo
        verdicts: list[Verdict | None] = []
        for group, (port_certain, port_maybe) in ports:
            certain = port_certain & place_certain
            if certain >> shift:
                verdicts.append(None)  # some entry holds every point of the cells
                continue
            key = (certain & every, (port_certain | port_maybe) & place_possible & every)
            found = memo.get(key)
            if found is None:
                found = memo[key] = self._evaluated(key, group.vector, places.vector)
            verdicts.append(found)
        return verdicts

    def _evaluated(
        self, key: tuple[int, int], port_vector: Vector, place_vector: Vector
    ) -> Verdict:
        # A slot reads only its own rules' answers: the key's bits of them.
        certain, possible = key
        keys: dict[str, Hashable] = {
            name: (name, certain & bits, possible & bits) for name, bits in self._slot_bits.items()
        }
        probe = MaskProbe(self, port_vector, place_vector, certain, possible)
        if self.shared_slots is None:
            return evaluate(self.plan, probe, self.slot_memo, keys, self.verdict_memo)

        def source(plan: Plan, slot: SlotPlan, probe: Probe) -> list[SlotOut]:
            return self._shared_slot(slot, probe, certain, possible)

        return evaluate(self.plan, probe, self.slot_memo, keys, self.verdict_memo, source)

    def _shared_slot(
        self, slot: SlotPlan, probe: Probe, certain: int, possible: int
    ) -> list[SlotOut]:
        """A slot's outcome at the cells whose rules answer ``certain`` and
        ``possible``, taken from another space that holds the same slot when
        one worked it out at the same answers of the slot's rules."""
        shared = self.shared_slots
        assert shared is not None
        if slot.name in self.slot_shapes:
            shape = self.slot_shapes[slot.name]
        else:
            shape = self.slot_shapes[slot.name] = _slot_shape(self, slot, shared)
        if shape is None:
            return evaluate_slot(self.plan, slot, probe)
        local_certain = local_possible = 0
        for local, bit in enumerate(shape.bits):
            local_certain |= (certain >> bit & 1) << local
            local_possible |= (possible >> bit & 1) << local
        key = (shape.token, local_certain, local_possible)
        known = shared.outcomes.get(key)
        if known is not None:
            return known
        fresh = evaluate_slot(self.plan, slot, probe)
        if len(shared.outcomes) < MAX_SHARED_SLOTS:
            # Equal outcomes are one list: a space then finds two of them
            # equal by their members' identities (``evaluate``'s memo).
            fresh = shared.equal.setdefault((shape.token, *fresh), fresh)
            shared.outcomes[key] = fresh
        return fresh

    def verdict(self, port_vector: Vector, place_vector: Vector) -> Verdict:
        ports, places = self.port_masks(port_vector), self.place_masks(place_vector)
        every = (1 << len(self.rules)) - 1
        # Read as if no entry held the cells: the verdict is asked regardless.
        found = self.judge(port_vector, place_vector, (ports[0] & every, ports[1] & every), places)
        assert found is not None
        return found

    def inside(self, port_vector: Vector, place_vector: Vector) -> Tri:
        """``A`` on the cells: ``Y`` proven inside, ``N`` proven outside."""
        ports, places = self.port_masks(port_vector), self.place_masks(place_vector)
        n = len(self.rules)
        certain = (ports[0] & places[0]) >> n
        possible = ((ports[0] | ports[1]) & (places[0] | places[1])) >> n
        return Tri.YES if certain else Tri.UNKNOWN if possible else Tri.NO


Masks: TypeAlias = tuple[int, int]
"""Answers as bits: those certainly ``Y``, and those ``M``."""


MAX_SHARED_SLOTS: Final = 1 << 16
"""How many slot outcomes a ``SharedSlots`` keeps at most."""


@dataclass
class SharedSlots:
    """Slot outcomes kept across the spaces of many inputs. Every path of a
    run meets the same cluster-scoped policies, which fill the Admin and
    Baseline slots and Calico's global tiers alike in many of its inputs
    (often at the same indices among the input's documents), while the
    spaces differ by the namespace's own policies. So an outcome is kept by
    the slot's shape (``_slot_shape``) and the answers of its rules (bit
    ``j`` for the ``j``-th rule the slot reads), not by a space's bits."""

    shapes: dict[Hashable, tuple[int, object]] = field(default_factory=dict)
    """A token per distinct shape, kept with the objects whose identities
    the shape holds, so an identity is never reused while the memo lives."""
    outcomes: dict[tuple[int, int, int], list[SlotOut]] = field(default_factory=dict)
    equal: dict[tuple[object, ...], list[SlotOut]] = field(default_factory=dict)
    """Each distinct outcome once, by value."""


class _SlotShape(msgspec.Struct, frozen=True):
    """A slot of one space as ``SharedSlots`` keys it: the shape's token,
    and the space's bit of each rule the slot reads."""

    token: int
    bits: tuple[int, ...]


def _slot_shape(space: Space, slot: SlotPlan, shared: SharedSlots) -> _SlotShape | None:
    """Everything a slot's outcome reads besides its rules' answers: its
    kind, name and tier, its policy groups' documents (by index) and rules
    (by identity), its documents' pod side, and the rules whose answers it
    reads. None for a slot that reads more (``SHAREABLE``)."""
    if slot.kind not in SHAREABLE:
        return None
    documents = space.plan.input.documents
    reads = space.plan.reads[slot.name]
    bits = tuple(space.bit_of.get(id(rule), -1) for rule in reads)
    if -1 in bits:
        return None
    groups = tuple(
        tuple(tuple((i, id(rule)) for i, _, rule in member) for member in group)
        for group in slot.groups
    )
    tie = slot.baseline_tie
    shape = (
        slot.kind,
        slot.name,
        slot.tier,
        groups,
        None if tie is None else tuple((i, id(rule)) for i, _, rule in tie),
        tuple(
            (i, documents[i].unreadable is not None, *_pod_side(documents[i]))
            for i in slot.documents
        ),
        tuple(map(id, reads)),
    )
    known = shared.shapes.get(shape)
    if known is None:
        known = shared.shapes[shape] = (len(shared.shapes), (slot.groups, tie, reads))
    return _SlotShape(known[0], bits)


def _pod_side(document: TierDocument) -> tuple[Tri, Tri, Tri]:
    return document.subject, document.types, document.credit


def _masks(answers: Sequence[Tri]) -> Masks:
    certain = maybe = 0
    for bit, answer in enumerate(answers):
        if answer is Tri.YES:
            certain |= 1 << bit
        elif answer is Tri.UNKNOWN:
            maybe |= 1 << bit
    return certain, maybe


class VectorProbe:
    """A probe reading a cell's answers from its vectors."""

    __slots__ = ("_peers", "_place_vector", "_port_vector", "_ports")

    def __init__(self, space: Space, port_vector: Vector, place_vector: Vector) -> None:
        self._ports = space.ports_index
        self._peers = space.peers_index
        self._port_vector = port_vector
        self._place_vector = place_vector

    def ports(self, ports: Ports) -> Tri:
        index = self._ports.get(id(ports))
        return Tri.UNKNOWN if index is None else self._port_vector[index]

    def peer(self, peer: PeerMatch) -> Tri:
        index = self._peers.get(id(peer))
        return Tri.UNKNOWN if index is None else self._place_vector[index]


class MaskProbe(VectorProbe, MaskedProbe):
    """A cell read through its vectors, with each rule's destination answer
    already in the certain and possible bits the space keys its verdicts
    by: a rule's answer is a bit test, and a list of rules none of which
    may match is passed over at once."""

    __slots__ = ("_bit_of", "_certain", "_possible", "_space")

    def __init__(
        self,
        space: Space,
        port_vector: Vector,
        place_vector: Vector,
        certain: int,
        possible: int,
    ) -> None:
        super().__init__(space, port_vector, place_vector)
        self._space = space
        self._bit_of = space.bit_of
        self._certain = certain
        self._possible = possible

    def rule(self, rule: TierRule) -> Tri | None:
        bit = self._bit_of.get(id(rule))
        if bit is None:
            return None
        if self._certain >> bit & 1:
            return Tri.YES
        return Tri.UNKNOWN if self._possible >> bit & 1 else Tri.NO

    def may_match(self, entries: tuple[tuple[int, TierDocument, TierRule], ...]) -> bool | None:
        mask = self._space.entries_mask(entries)
        return None if mask is None else bool(mask & self._possible)

    def remembered(
        self, entries: tuple[tuple[int, TierDocument, TierRule], ...], work: Callable[[], R]
    ) -> R:
        return self._kept_by(entries, self._space.entries_mask(entries), work)

    def remembered_group(
        self,
        group: tuple[tuple[tuple[int, TierDocument, TierRule], ...], ...],
        work: Callable[[], R],
    ) -> R:
        return self._kept_by(group, self._space.group_mask(group), work)

    def _kept_by(self, held: object, mask: int | None, work: Callable[[], R]) -> R:
        """``work``'s answer, kept for the space by ``held`` (kept with it, so
        its id is not reused) and this cell's answers under ``mask``; done
        afresh when the mask is unknown."""
        if mask is None:
            return work()
        space = self._space
        key = (id(held), self._certain & mask, self._possible & mask)
        hit = space.entry_answers.get(key)
        if hit is not None and hit[0] is held:
            return cast(R, hit[1])
        found = work()
        space.entry_answers[key] = (held, found)
        return found

    def one_of_equal(self, key: Hashable, value: R) -> R:
        return cast(R, self._space.evaluator_memo.setdefault(key, value))

    def kept(self, key: Hashable, work: Callable[[], R]) -> R:
        memo = self._space.evaluator_memo
        if key in memo:
            return cast(R, memo[key])
        found = memo[key] = work()
        return found

    def may_match_document(self, document: TierDocument) -> bool | None:
        mask = self._space.document_mask(document)
        return None if mask is None else bool(mask & self._possible)

    def may_match_group(
        self, group: tuple[tuple[tuple[int, TierDocument, TierRule], ...], ...]
    ) -> bool | None:
        mask = self._space.group_mask(group)
        return None if mask is None else bool(mask & self._possible)


def _distinct(items: Iterable[T]) -> list[T]:
    seen: dict[int, T] = {}
    for item in items:
        seen.setdefault(id(item), item)
    return list(seen.values())


def build_space(
    tier_input: TierInput,
    queries: tuple[Query, ...] = (),
    shared_slots: SharedSlots | None = None,
) -> Space:
    """Split the space of ``tier_input`` into cells and group them.
    ``shared_slots``: slot outcomes of other inputs' spaces, to reuse and add to."""
    plan = build_plan(tier_input)
    view = read_allowance(tier_input.allowance, tier_input.namespace)
    active = [d for d in tier_input.documents if applies(d) is not Tri.NO]
    rules = [r for d in active for r in (*d.deny_rules, *d.rules)]
    # The allowance's entries come last in both lists (``Space.inside``).
    ports = [*_distinct(r.ports for r in rules), *(p for _, p in view.entries)]
    peers = [*_distinct(q for r in rules for q in r.peers or ()), *(q for q, _ in view.entries)]
    port_groups = _group(
        _port_cells(ports, queries), lambda cell: tuple(_port_cell_ports(p, cell) for p in ports)
    )

    def on_place(place: Place) -> Vector:
        return tuple(_peer_on_place(q, place) for q in peers)

    place_groups = _address_groups(peers, queries)
    named = _name_classes(peers[: len(peers) - len(view.entries)], view, queries)
    name_groups = _group((Place(name=n) for n in named), on_place)
    space = Space(plan, view, ports, peers, port_groups, place_groups, name_groups, rules)
    space.shared_slots = shared_slots
    return space


def _group(items: Iterable[T], vector_of: Callable[[T], Vector]) -> list[Group]:
    groups: dict[Vector, Group] = {}
    for item in items:
        vector = vector_of(item)
        groups.setdefault(vector, Group(vector)).members.append(item)
    return list(groups.values())


def _port_cells(ports: list[Ports], queries: tuple[Query, ...]) -> Iterator[PortCell]:
    cuts: dict[Protocol, set[int]] = {protocol: set() for protocol in PROTOCOLS}
    for p in ports:
        _ports_bounds(p, cuts)
    for query in queries:
        if query.protocol is not None and query.port is not None:
            cuts[query.protocol].update((query.port, query.port + 1))
    for protocol in PORTED:
        for low, high in _intervals(MIN_PORT, MAX_PORT, cuts[protocol]):
            yield PortCell(protocol, low, high)
    yield PortCell(Protocol.ICMP)
    for low, high in _intervals(0, MAX_PROTOCOL_NUMBER, cuts[Protocol.OTHER]):
        yield PortCell(Protocol.OTHER, low, high)


def _address_cells(peers: list[PeerMatch], queries: tuple[Query, ...]) -> Iterator[AddressCell]:
    for family in FAMILIES:
        cuts: set[int] = set()
        for peer in peers:
            for block in peer.blocks or ():
                for cidr in (block.cidr, *block.excepts):
                    if cidr.family == family:
                        low, high = cidr_bounds(cidr)
                        cuts.update((low, high + 1))
        for query in queries:
            if isinstance(query, AddressQuery) and query.family == family:
                cuts.update((query.low, query.high + 1))
        for low, high in _intervals(0, (1 << FAMILY_BITS[family]) - 1, cuts):
            yield AddressCell(family, low, high)


def _address_groups(peers: list[PeerMatch], queries: tuple[Query, ...]) -> list[Group]:
    """Places grouped by their answers. A peer's answer is its address test
    (by address cell) and its owner part (by owner class), so each is
    computed once, as bits over the peers, and combined per distinct
    address answer; a group's vector is spelled out once."""
    by_address: dict[int, list[AddressCell]] = {}
    for cell in _address_cells(peers, queries):
        held = 0
        for bit, peer in enumerate(peers):
            if peer.blocks is None or any(in_block(b, cell.family, cell.low) for b in peer.blocks):
                held |= 1 << bit
        by_address.setdefault(held, []).append(cell)
    held_by: dict[tuple[int, int], Tri] = {}

    def part(peer: PeerMatch, owner: OwnerClass) -> Tri:
        # A selector's pod class and its host-networked node class ask the
        # same question of each peer: ask it once.
        if owner.owner == OUT or isinstance(peer.pod, Tri):
            return _owner_part(peer, owner)
        key = (id(peer.pod), id(owner.pods))
        held = held_by.get(key)
        if held is None:
            held = held_by[key] = pods_on_class(peer.pod, owner.pods)
        return kleene_and(peer.node, held) if owner.owner == NODE else held

    owners = [(o, _masks([part(peer, o) for peer in peers])) for o in _owner_classes(peers)]
    grouped: dict[Masks, list[Place]] = {}
    for held, cells in by_address.items():
        for owner, (certain, maybe) in owners:
            places = grouped.setdefault((certain & held, maybe & held), [])
            places.extend(Place(address=cell, owner=owner) for cell in cells)
    groups: list[Group] = []
    for masks, places in grouped.items():
        # Space order: family, address, then owner class.
        places.sort(key=_place_key)
        groups.append(Group(_spelled(masks, len(peers)), places, masks))  # type: ignore[arg-type]
    return groups


def _spelled(masks: Masks, size: int) -> Vector:
    """The answers the masks hold, bit 0 first, spelled out through their
    binary digits so that the loop runs at C speed."""
    if size == 0:
        return ()
    every = (1 << size) - 1
    certain, maybe = (format(mask & every, f"0{size}b")[::-1] for mask in masks)
    return tuple(map(_ANSWER_OF_DIGITS.__getitem__, map(operator.add, certain, maybe)))


_ANSWER_OF_DIGITS: Final[dict[str, Tri]] = {
    "11": Tri.YES,
    "10": Tri.YES,
    "01": Tri.UNKNOWN,
    "00": Tri.NO,
}
"""A bit's answer by its certain and its maybe digit."""


def _place_key(place: object) -> tuple[int, int]:
    assert isinstance(place, Place) and place.address is not None
    return place.address.family, place.address.low


def _owner_classes(peers: list[PeerMatch]) -> list[OwnerClass]:
    selectors: dict[PodSet, str] = {}
    for peer in peers:
        if isinstance(peer.pod, PodSet) and peer.pod.exact:
            selectors.setdefault(_base(peer.pod), peer.text)
    classes = [
        OwnerClass(OUT, text="an address no pod or node holds"),
        OwnerClass(NODE, text="a node"),
    ]
    if not any(_every_pod(s) for s in selectors):
        classes.append(OwnerClass(POD, None, "a pod no selector names"))
    classes += [OwnerClass(POD, s, f"pods of {text}") for s, text in selectors.items()]
    # Host-networked pods hold node addresses: a node class per selector.
    classes += [
        OwnerClass(NODE, s, f"host-networked pods of {text}") for s, text in selectors.items()
    ]
    return classes


def _name_classes(
    peers: list[PeerMatch], view: AllowanceView, queries: tuple[Query, ...]
) -> list[NameClass]:
    exact: dict[str, bool] = {}
    wild: dict[str, None] = {}
    for peer in peers:
        for pattern in peer.names or ():
            name = normalise_domain(pattern)
            if name.startswith("*."):
                wild.setdefault(name, None)
            else:
                exact[name] = True
    for query in queries:
        if isinstance(query, NameQuery):
            exact[normalise_domain(query.host)] = True
    for peer, _ in view.entries:
        for name in peer.names or ():
            if not name.startswith("*."):  # a pattern grant holds classes, it is none
                exact.setdefault(normalise_domain(name), False)
    every = (*peers, *(peer for peer, _ in view.entries))
    depths = (ONE_LABEL, MORE_LABELS) if any(map(_one_label_pattern, every)) else (ANY_DEPTH,)
    return [NameClass(n, asked=asked) for n, asked in exact.items()] + [
        NameClass(n, wildcard=True, depth=depth) for n in wild for depth in depths
    ]


def _one_label_pattern(peer: PeerMatch) -> bool:
    return peer.one_label and any(name.startswith("*.") for name in peer.names or ())
