"""The two questions asked of one model (CLUSTER-POLICIES.md §12.5, §12.6).

``reach``: is some point outside the allowance certainly or possibly let
out, and by which rule? ``explain``: what happens to the points of one
destination? Both read the same cells and the same ``V(p)``; explain's
allowance line and exit status are reach restricted to the destination's
points, so for one pod and one destination the two never disagree.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

import msgspec
from msgspec.structs import replace

from lint.decision.model import EgressRefusal, EgressVerdict, Tri
from lint.decision.reach.common import normalise_domain
from lint.decision.tiers.cells import (
    MORE_LABELS,
    AddressCell,
    AddressQuery,
    Group,
    Masks,
    NameClass,
    NameQuery,
    Place,
    PortCell,
    Query,
    SharedSlots,
    Space,
    Vector,
    build_space,
)
from lint.decision.tiers.content import content_key
from lint.decision.tiers.evaluate import (
    ACTION,
    BASELINE_ORDER,
    CREDIT,
    OBJECT,
    POSITION,
    RULE,
    SUBJECT,
    TIE,
    TYPES,
    UNREADABLE,
    Doubt,
    Path,
    Verdict,
    isolates,
    slot_isolation,
)
from lint.decision.tiers.match import applies
from lint.decision.tiers.model import PORTED, Action, PeerMatch, Slot, TierInput, TierRule
from lint.decision.tiers.points import (
    FAMILY_BITS,
    MAX_PORT,
    MAX_PROTOCOL_NUMBER,
    MIN_PORT,
    NODE,
    OUT,
    POD,
)

ISOLATES_THE_POD: Final = "isolates the pod"
NEVER_CONSULTED: Final = (
    "an earlier tier isolates the pod, so no point reaches the baseline and its rules never decide"
)
MAX_CIDRS: Final = 3

ALLOWED: Final = "allowed"
DENIED: Final = "denied"
PARTLY_ALLOWED: Final = "partly-allowed"
UNDECIDED: Final = "undecided"

INSIDE: Final = "inside"
OUTSIDE: Final = "outside"
NOT_LET_OUT: Final = "not-let-out"


# --- regions: groups of cells with one pair of answers ----------------------------------


class Region(msgspec.Struct, frozen=True):
    """Cells sharing one port vector and one place vector: a group of port
    cells and a group of places (each in space order) this question looks at."""

    port_group: Group
    place_group: Group

    @property
    def port_vector(self) -> Vector:
        return self.port_group.vector

    @property
    def place_vector(self) -> Vector:
        return self.place_group.vector

    @property
    def ports(self) -> tuple[PortCell, ...]:
        return tuple(self.port_group.members)  # type: ignore[arg-type]

    @property
    def places(self) -> tuple[Place, ...]:
        return tuple(self.place_group.members)  # type: ignore[arg-type]


def _regions(port_groups: Sequence[Group], place_groups: Sequence[Group]) -> Iterable[Region]:
    for places in place_groups:
        for ports in port_groups:
            if places.members and ports.members:
                yield Region(ports, places)


def _filtered(groups: Sequence[Group], keep: Callable[[Any], bool]) -> list[Group]:
    result = []
    for group in groups:
        members = [m for m in group.members if keep(m)]
        if members:
            result.append(Group(group.vector, members))
    return result


# --- describing a part of the space ----------------------------------------------------


def _cidrs(family: int, low: int, high: int) -> list[str]:
    """The shortest list of cidrs covering ``low``..``high``."""
    kind = ipaddress.IPv4Address if family == 4 else ipaddress.IPv6Address
    return [str(n) for n in ipaddress.summarize_address_range(kind(low), kind(high))]


def _merged(cells: Iterable[AddressCell]) -> list[AddressCell]:
    merged: list[AddressCell] = []
    for cell in sorted(cells, key=lambda c: (c.family, c.low)):
        last = merged[-1] if merged else None
        if last is not None and last.family == cell.family and last.high + 1 == cell.low:
            merged[-1] = AddressCell(cell.family, last.low, cell.high)
        else:
            merged.append(cell)
    return merged


def describe_addresses(cells: Iterable[AddressCell]) -> str:
    merged = _merged(cells)
    families = {c.family for c in merged}
    whole = {c.family for c in merged if c.low == 0 and c.high == (1 << FAMILY_BITS[c.family]) - 1}
    if whole == {4, 6}:
        return "every address"
    if families == {6} and whole == {6}:
        return "IPv6"
    if families == {4} and whole == {4}:
        return "IPv4"
    texts = [text for c in merged for text in _cidrs(c.family, c.low, c.high)]
    shown = ", ".join(texts[:MAX_CIDRS])
    return shown + (", …" if len(texts) > MAX_CIDRS else "")


def describe_ports(cells: Iterable[PortCell], every: Sequence[PortCell] = ()) -> str:
    """Port cells described by protocol; with ``every`` (all the space's
    port cells), as "every port except …" when that is shorter."""
    chosen = list(cells)
    text = _describe_ports(chosen)
    taken = set(chosen)
    rest = [cell for cell in every if cell not in taken]
    if rest:
        other = _describe_ports(rest)
        if other.count(",") < text.count(","):
            return f"every port except {other}"
    return text


def _describe_ports(cells: Iterable[PortCell]) -> str:
    by_protocol: dict[str, list[PortCell]] = {}
    for cell in cells:
        by_protocol.setdefault(cell.protocol.value, []).append(cell)
    texts: list[str] = []
    complete = 0
    for protocol, found in by_protocol.items():
        if protocol == "ICMP":
            texts.append("ICMP")
            complete += 1
            continue
        low, high = (0, MAX_PROTOCOL_NUMBER) if protocol == "OTHER" else (MIN_PORT, MAX_PORT)
        spans = _spans(found)
        if spans == [(low, high)]:
            complete += 1
            texts.append("other IP protocols" if protocol == "OTHER" else f"every {protocol} port")
            continue
        label = "IP protocol" if protocol == "OTHER" else protocol
        texts += [f"{label} {a}" if a == b else f"{label} {a}-{b}" for a, b in spans]
    if complete == len(PORTED) + 2:
        return "every port"
    return ", ".join(texts)


def _spans(cells: list[PortCell]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for cell in sorted(cells, key=lambda c: c.low or 0):
        assert cell.low is not None and cell.high is not None
        if spans and spans[-1][1] + 1 == cell.low:
            spans[-1] = (spans[-1][0], cell.high)
        else:
            spans.append((cell.low, cell.high))
    return spans


def _class_words(name: NameClass) -> str:
    if not name.wildcard:
        return name.name
    if name.depth == MORE_LABELS:
        return f"names more than one label under {name.name[2:]}"
    return f"names matching {name.name}"


def describe_region(region: Region, every: Sequence[PortCell] = ()) -> str:
    """Addresses (or names), ports and owner of a region, shortly."""
    ports = describe_ports(region.ports, every)
    names = [p.name for p in region.places if p.name is not None]
    if names:
        first = names[0]
        label = _class_words(first)
        return f"{label} on {ports}"
    owner = region.places[0].owner
    assert owner is not None
    addresses = describe_addresses(
        p.address for p in region.places if p.owner == owner and p.address is not None
    )
    if owner.pods is not None and addresses == "every address":
        return f"{owner.text} on {ports}"
    kinds = {p.owner.owner for p in region.places if p.owner is not None}
    if kinds == {OUT, NODE, POD}:
        return f"{addresses} on {ports}"  # whoever holds the address
    return f"{addresses} on {ports} ({owner.text})"


# --- reach (§12.5) ----------------------------------------------------------------------


class Listed(msgspec.Struct, frozen=True):
    """One document's listed verdict (``document`` indexes the input's
    documents, or its ``undecidable`` objects when ``undecidable``)."""

    document: int
    verdict: EgressVerdict
    detail: str | None = None
    rule: TierRule | None = None
    undecidable: bool = False


class ReachAnswer(msgspec.Struct, frozen=True):
    """The reach refusal (None: passes), its summary, the document (or §7
    object) and rule it names, the part of the space it lets out, every
    document's listed verdict, and every culprit ``(document, rule index)``
    of a certainly allowed point outside the allowance."""

    refusal: EgressRefusal | None
    summary: str | None
    document: int | None
    rule: TierRule | None
    part: str | None
    listed: tuple[Listed, ...]
    culprits: frozenset[tuple[int, int]]
    undecidable: bool = False


def _why(tier_input: TierInput, doubt: Doubt) -> str:
    if doubt.reason == OBJECT:
        return tier_input.undecidable[doubt.document].detail
    document = tier_input.documents[doubt.document]
    if doubt.reason == UNREADABLE:
        return document.unreadable or "it cannot be read"
    if doubt.reason == SUBJECT:
        return document.subject_why or "whether it selects the pod cannot be told offline"
    if doubt.reason == CREDIT:
        return document.credit_why or "the cluster may not enforce its kind"
    if doubt.reason == TYPES:
        return "whether it governs egress cannot be told"
    if doubt.reason == ACTION:
        return f"the action of rule {doubt.rule} cannot be read"
    if doubt.reason == TIE:
        others = ", ".join(_name(tier_input, i) for i in doubt.others)
        return f"it ties with {others} (same order), and they disagree"
    if doubt.reason == POSITION:
        return "its tier's position among the tiers is unknown"
    if doubt.reason == BASELINE_ORDER:
        return "whether Cilium consults the baseline tier after its own default deny is not settled"
    assert doubt.reason == RULE
    return f"rule {doubt.rule} may match it: its destination or ports cannot be told exactly"


def _name(tier_input: TierInput, index: int) -> str:
    document = tier_input.documents[index]
    return f"{document.kind}/{document.name}"


def _blamed(path: Path) -> list[Doubt]:
    """The doubts an allow path is blamed on: its culprit document's own,
    when it has any, else every doubt on the path."""
    culprit = path.culprit
    if culprit is not None and culprit.document is not None:
        own = [d for d in path.doubts if d.document == culprit.document and d.reason != OBJECT]
        if own:
            return own
    return list(path.doubts)


@dataclass
class _Found:
    """What a scan of regions outside the allowance found: each culprit
    rule and each doubt with the first region it lets out, and the regions
    that reach the default allow with nothing deciding them."""

    culprits: dict[tuple[int, int], tuple[TierRule, Region]] = field(default_factory=dict)
    doubts: dict[Doubt, Region] = field(default_factory=dict)
    open_regions: list[Region] = field(default_factory=list)
    listed: tuple[Listed, ...] | None = None
    """The listed verdicts, once worked out, when none carries an input's
    own text (a reason something cannot be judged): then every input this
    scan is shared by lists the same."""
    parts: dict[object, str] = field(default_factory=dict)
    """The regions' descriptions, once worked out: they name no document,
    so every input this scan is shared by describes them alike."""
    blamed: set[int] = field(default_factory=set)
    """The allow paths whose doubts are recorded, by identity (a path, such
    as a §7 object's, is often on many verdicts of one space, which keeps
    them all)."""
    isolating: tuple[bool, tuple[bool, ...]] | None = None
    """Whether a slot consulted before the baseline's isolates the pod, and
    whether each document does, once worked out: they read nothing an input
    this scan is shared by holds apart."""


Block: TypeAlias = tuple[Sequence[Group], Sequence[Group]]
"""Port groups and place groups whose every pair is a region, taken place
by place (the space's order)."""


class _Allowing(msgspec.Struct, frozen=True):
    """What a verdict that may allow adds to a scan: its allow paths, whether
    they are uncertain, and whether they reach the default allow alone."""

    allows: tuple[Path, ...]
    certain: bool
    uncertain: bool
    opens: bool


def _allowing(verdict: Verdict) -> _Allowing | None:
    if Action.ALLOW not in verdict.results:
        return None
    allows = tuple(p for p in verdict.paths if p.result is Action.ALLOW)
    uncertain = verdict.undecided or any(p.undecidable is not None for p in allows)
    opens = not uncertain and all(p.culprit is None for p in allows)
    return _Allowing(allows, verdict.results == {Action.ALLOW}, uncertain, opens)


def _scan(space: Space, blocks: Iterable[Block]) -> _Found:
    """Every region outside the allowance that may be let out. A path has
    hundreds of regions and few verdicts: places with the same answers for
    the rules and the allowance share one row of verdicts over the port
    groups, and a place whose row lets nothing out is passed over whole."""
    found = _Found()
    known: dict[int, _Allowing | None] = {}
    recorded: set[int] = set()
    for port_groups, place_groups in blocks:
        ports = [(g, space.port_bits(g.masks)) for g in port_groups if g.members]
        rows: dict[Masks, list[_Allowing | None] | None] = {}
        for places in place_groups:
            if not places.members:
                continue
            place_masks = space.place_bits(places.masks)
            if place_masks in rows:
                row = rows[place_masks]
            else:
                verdicts = space.row(ports, places, place_masks)
                row = [_allowing_of(known, v) for v in verdicts]
                row = rows[place_masks] = row if any(row) else None
            if row is None:
                continue  # nothing on these places may be let out
            for (group, _), allowing in zip(ports, row, strict=True):
                if allowing is None:
                    continue
                if allowing.opens:
                    found.open_regions.append(Region(group, places))
                if id(allowing) not in recorded:
                    # Its culprits and doubts keep the first region they are found at.
                    recorded.add(id(allowing))
                    _found_at(found, Region(group, places), allowing)
    return found


def _allowing_of(known: dict[int, _Allowing | None], verdict: Verdict | None) -> _Allowing | None:
    if verdict is None:
        return None  # proven inside the allowance
    if id(verdict) not in known:
        known[id(verdict)] = _allowing(verdict)
    return known[id(verdict)]


def _found_at(found: _Found, region: Region, allowing: _Allowing) -> None:
    """The culprits and doubts of a verdict, at its first region."""
    if allowing.certain:
        for path in allowing.allows:
            culprit = path.culprit
            if culprit is not None and culprit.document is not None and culprit.rule:
                key = (culprit.document, culprit.rule.index)
                found.culprits.setdefault(key, (culprit.rule, region))
    if allowing.uncertain:
        blamed = found.blamed
        for path in allowing.allows:
            if id(path) in blamed:
                continue  # its doubts already have their first region
            blamed.add(id(path))
            for doubt in _blamed(path):
                found.doubts.setdefault(doubt, region)


def _doubt_key(doubt: Doubt) -> tuple[int, int, str, int, tuple[int, ...]]:
    # Documents in document order, then the §7 objects; within a document by
    # every field, so which doubt comes first never depends on a set's order.
    rule = -1 if doubt.rule is None else doubt.rule
    return (1 if doubt.reason == OBJECT else 0, doubt.document, doubt.reason, rule, doubt.others)


def reach_regions(tier_input: TierInput, space: Space, blocks: Iterable[Block]) -> ReachAnswer:
    """Reach over the given regions (every region, or one destination's)."""
    return _answer(tier_input, space, _scan(space, blocks))


def _answer(tier_input: TierInput, space: Space, found: _Found) -> ReachAnswer:
    """The answer from what the scan found, in the input's own names."""
    every: list[PortCell] = [c for g in space.port_groups for c in g.members]  # type: ignore[misc]
    listed = found.listed
    if listed is None:
        listed = _listed(tier_input, found, every)
        if all(item.verdict is not EgressVerdict.NOT_EVALUABLE for item in listed):
            found.listed = listed
    culprits = frozenset(found.culprits)
    if found.culprits:
        document, index = min(found.culprits)
        rule, region = found.culprits[(document, index)]
        part = _part(found, region, every)
        summary = (
            f"{_name(tier_input, document)} {rule.text} lets out {part}, outside the allowance"
        )
        return ReachAnswer(
            EgressRefusal.POLICY_WIDENS_EGRESS, summary, document, rule, part, listed, culprits
        )
    if found.doubts:
        doubt = min(found.doubts, key=_doubt_key)
        part = _part(found, found.doubts[doubt], every)
        is_object = doubt.reason == OBJECT
        name = (
            f"{tier_input.undecidable[doubt.document].kind}/{tier_input.undecidable[doubt.document].name}"
            if is_object
            else _name(tier_input, doubt.document)
        )
        summary = f"{name} may let out {part}: {_why(tier_input, doubt)}"
        return ReachAnswer(
            EgressRefusal.NOT_EVALUABLE,
            summary,
            doubt.document,
            None,
            part,
            listed,
            culprits,
            undecidable=is_object,
        )
    if found.open_regions:
        part = found.parts.get(_OPEN) or found.parts.setdefault(
            _OPEN, _open_part(found.open_regions, every)
        )
        summary = f"{part} reaches the default allow: no tier bounds it"
        return ReachAnswer(
            EgressRefusal.NO_ENFORCING_POLICY, summary, None, None, part, listed, culprits
        )
    return ReachAnswer(None, None, None, None, None, listed, culprits)


_OPEN: Final = "open"
"""The key of the open regions' description in ``_Found.parts``."""


def _part(found: _Found, region: Region, every: Sequence[PortCell]) -> str:
    """``describe_region``, once per region of a shared scan."""
    known = found.parts.get(id(region))
    if known is None:
        known = found.parts[id(region)] = describe_region(region, every)
    return known


def _open_part(regions: list[Region], every: Sequence[PortCell]) -> str:
    """Which part reaches the default allow: every point, a family, ICMP,
    or the first region."""
    places = [p for r in regions for p in r.places if p.address is not None]
    ports = _unique([c for r in regions for c in r.ports])
    addresses = describe_addresses(p.address for p in places if p.address is not None)
    every_port = describe_ports(ports) == "every port"
    if addresses == "every address" and every_port:
        return "every point"
    if addresses in ("IPv6", "IPv4") and every_port:
        return addresses
    if {c.protocol.value for c in ports} == {"ICMP"}:
        return "ICMP"
    return describe_region(regions[0], every)


def _unique(cells: list[PortCell]) -> list[PortCell]:
    return list(dict.fromkeys(cells))


def _listed(tier_input: TierInput, found: _Found, every: Sequence[PortCell]) -> tuple[Listed, ...]:
    widening: dict[int, tuple[TierRule, Region]] = {}
    for (document, _), (rule, region) in sorted(found.culprits.items()):
        widening.setdefault(document, (rule, region))
    undecided: dict[int, Doubt] = {}
    objects: dict[int, Doubt] = {}
    for doubt in sorted(found.doubts, key=_doubt_key):
        (objects if doubt.reason == OBJECT else undecided).setdefault(doubt.document, doubt)
    listed: list[Listed] = []
    ended, isolating_documents = found.isolating or _isolating(tier_input, found)
    for index, each in enumerate(tier_input.documents):
        if each.unreadable is not None:
            listed.append(Listed(index, EgressVerdict.NOT_EVALUABLE, each.unreadable))
        elif each.subject is Tri.NO:
            listed.append(Listed(index, EgressVerdict.DOES_NOT_SELECT))
        elif each.types is Tri.NO:
            listed.append(Listed(index, EgressVerdict.NOT_EGRESS_SCOPED))
        elif index in widening:
            rule, region = widening[index]
            detail = f"{rule.text} lets out {describe_region(region, every)}"
            listed.append(Listed(index, EgressVerdict.WIDENS_EGRESS, detail, rule))
        elif index in undecided:
            detail = _why(tier_input, undecided[index])
            listed.append(Listed(index, EgressVerdict.NOT_EVALUABLE, detail))
        else:
            why: str | None = ISOLATES_THE_POD if isolating_documents[index] else None
            if why is None and each.slot == Slot.BASELINE and each.rules and ended:
                why = NEVER_CONSULTED
            listed.append(Listed(index, EgressVerdict.WITHIN, why))
    for j, item in enumerate(tier_input.undecidable):
        listed.append(Listed(j, EgressVerdict.NOT_EVALUABLE, item.detail, undecidable=True))
    return tuple(listed)


def _isolating(tier_input: TierInput, found: _Found) -> tuple[bool, tuple[bool, ...]]:
    """``_Found.isolating``, worked out and kept."""
    slots = slot_isolation(tier_input)
    # The slots always consulted before the baseline's (a Calico tier may
    # sort after it, so none counts here).
    ended = any(slots.get(slot) is Tri.YES for slot in (Slot.ADMIN, Slot.NETWORK_POLICY))
    documents = tuple(isolates(tier_input, i) is Tri.YES for i in range(len(tier_input.documents)))
    found.isolating = (ended, documents)
    return found.isolating


def _named_only(peer: PeerMatch) -> PeerMatch:
    if peer.by_name:
        return replace(peer, out=Tri.NO, pod=Tri.NO, node=Tri.NO)
    if peer.on_name is Tri.UNKNOWN:
        # The other half: an address peer that may hold a name's address is
        # judged on the address points, not on the name points.
        return replace(peer, on_name=Tri.NO)
    return peer


def _rules_named_only(rules: tuple[TierRule, ...]) -> tuple[TierRule, ...]:
    return tuple(
        replace(rule, peers=tuple(map(_named_only, rule.peers or ()))) if _names_in(rule) else rule
        for rule in rules
    )


def _names_in(rule: TierRule) -> bool:
    """Whether a peer of the rule changes under ``names_only``."""
    return rule.peers is not None and any(p.by_name or p.on_name is Tri.UNKNOWN for p in rule.peers)


def _has_names(tier_input: TierInput) -> bool:
    return any(
        peer.by_name
        for document in tier_input.documents
        for rule in (*document.rules, *document.deny_rules)
        for peer in rule.peers or ()
    )


NamesOnlyMemo: TypeAlias = dict[int, tuple[tuple[TierRule, ...], tuple[TierRule, ...]]]
"""Rule lists as ``names_only`` rewrites them, by the identity of the list
(kept with it, so the id is not reused while the memo lives)."""


def _rules_named_only_once(
    rules: tuple[TierRule, ...], memo: NamesOnlyMemo | None
) -> tuple[TierRule, ...]:
    if memo is None:
        return _rules_named_only(rules)
    hit = memo.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    found = _rules_named_only(rules)
    memo[id(rules)] = (rules, found)
    return found


def names_only(tier_input: TierInput, memo: NamesOnlyMemo | None = None) -> TierInput:
    """The input with every FQDN peer matching on name points only (on an
    address point it matches nothing), and every other peer that may hold a
    name's address matching no name point. What a name resolves to is the
    DNS's answer, which no manifest states; reach judges an FQDN rule by the
    names it lets out and an address rule by the addresses, so neither
    makes the other undecided (the project's reading where the
    specification leaves it open)."""
    if not _has_names(tier_input):
        return tier_input  # no name point is asked, and no address peer changes
    documents = tuple(
        replace(
            document,
            rules=_rules_named_only_once(document.rules, memo),
            deny_rules=_rules_named_only_once(document.deny_rules, memo),
        )
        if any(map(_names_in, (*document.rules, *document.deny_rules)))
        else document
        for document in tier_input.documents
    )
    return replace(tier_input, documents=documents)


MAX_PARTS: Final = 250_000
"""The most distinct port sets times distinct peers the rules that may
apply to a pod may hold for reach to evaluate them exactly: cells grow with
that product, and beyond it reach fails closed instead of running for
minutes (a generated policy of 50,000 rules, each with its own network and
port, would make billions)."""


def too_large(tier_input: TierInput) -> int | None:
    """The document with the most rules, when the rules that may apply hold
    more than ``MAX_PARTS`` distinct port sets times distinct peers; else None."""
    active = [(i, d) for i, d in enumerate(tier_input.documents) if applies(d) is not Tri.NO]
    rules = [r for _, d in active for r in (*d.deny_rules, *d.rules)]
    ports = {id(r.ports) for r in rules}
    peers = {id(q) for r in rules for q in r.peers or ()}
    if len(ports) * max(len(peers), 1) <= MAX_PARTS:
        return None
    return max(active, key=lambda item: len(item[1].rules) + len(item[1].deny_rules))[0]


def _too_large_answer(tier_input: TierInput, largest: int) -> ReachAnswer:
    """Not evaluable, naming the largest document; every document that may
    apply is listed as not judged (their verdicts depend on one another)."""
    why = (
        "its rules and those of the other policies selecting the pod hold so many "
        f"distinct port sets and destinations (more than {MAX_PARTS:,} pairs of them) "
        "that egress-lint does not evaluate them exactly, so it fails closed"
    )
    listed: list[Listed] = []
    for index, document in enumerate(tier_input.documents):
        if document.subject is Tri.NO:
            listed.append(Listed(index, EgressVerdict.DOES_NOT_SELECT))
        elif document.types is Tri.NO:
            listed.append(Listed(index, EgressVerdict.NOT_EGRESS_SCOPED))
        else:
            listed.append(Listed(index, EgressVerdict.NOT_EVALUABLE, why))
    for j, item in enumerate(tier_input.undecidable):
        listed.append(Listed(j, EgressVerdict.NOT_EVALUABLE, item.detail, undecidable=True))
    summary = f"{_name(tier_input, largest)} cannot be evaluated: {why}"
    return ReachAnswer(
        EgressRefusal.NOT_EVALUABLE, summary, largest, None, None, tuple(listed), frozenset()
    )


Shared: TypeAlias = dict[Hashable, tuple[Space, "_Found"]]
"""Spaces and scans kept by a caller across inputs, by ``content_key``."""

MAX_SHARED: Final = 512
"""How many spaces a ``Shared`` keeps: the oldest goes first."""


def reach(
    tier_input: TierInput,
    space: Space | None = None,
    *,
    by_name: bool = False,
    shared: Shared | None = None,
    named: NamesOnlyMemo | None = None,
    slots: SharedSlots | None = None,
) -> ReachAnswer:
    """Reach over every point: every address point and every name point
    an FQDN rule names. ``by_name``: FQDN peers match name points only
    (``names_only``); ``space``, when given, must be built from that input.
    ``shared``: spaces and scans of earlier inputs, reused for an input the
    engine reads the same way (``content_key``) and added to. ``named``:
    rule lists already rewritten by ``names_only``, for a caller that asks
    about many inputs built from the same rules. ``slots``: slot outcomes
    of earlier inputs' spaces, reused where a slot is held alike."""
    if by_name:
        tier_input = names_only(tier_input, named)
    largest = too_large(tier_input)
    if largest is not None:
        return _too_large_answer(tier_input, largest)
    key = content_key(tier_input) if shared is not None and space is None else None
    if shared is not None and key in shared:
        space, found = shared[key]
        return _answer(tier_input, space, found)
    space = space if space is not None else build_space(tier_input, shared_slots=slots)
    asked = _filtered(space.name_groups, lambda place: place.name.asked)
    found = _scan(space, [(space.port_groups, [*space.place_groups, *asked])])
    if shared is not None and key is not None:
        if len(shared) >= MAX_SHARED:
            del shared[next(iter(shared))]
        shared[key] = (space, found)
    return _answer(tier_input, space, found)


# --- explain (§12.6) ------------------------------------------------------------------


class ExplainAnswer(msgspec.Struct, frozen=True):
    """The verdict over a destination, joined over owners; the outside
    verdict (owner fixed to no pod and no node; None for names); every
    distinct path; the undecided documents' reasons; the allowance line
    (``inside``, ``outside``, ``not-let-out``) with reach restricted to the
    destination, and the exit status it gives."""

    verdict: str
    outside_verdict: str | None
    paths: tuple[Path, ...]
    doubts: frozenset[Doubt]
    allowance: str
    reach: ReachAnswer
    exit_status: int


def _in_query(query: Query, place: Place) -> bool:
    if isinstance(query, NameQuery):
        return (
            place.name is not None
            and not place.name.wildcard
            and (place.name.name == normalise_domain(query.host))
        )
    cell = place.address
    return (
        cell is not None
        and cell.family == query.family
        and query.low <= cell.low
        and cell.high <= query.high
    )


def _port_in_query(query: Query, cell: PortCell) -> bool:
    if query.protocol is None:
        return True
    if cell.protocol is not query.protocol:
        return False
    if query.port is None or cell.low is None:
        return True
    return cell.low == query.port and cell.high == query.port


def _word(elements: Iterable[frozenset[Action]]) -> str:
    seen = set(elements)
    if any(len(e) > 1 for e in seen):
        return UNDECIDED
    if seen == {frozenset({Action.ALLOW})}:
        return ALLOWED
    if seen == {frozenset({Action.DENY})}:
        return DENIED
    return PARTLY_ALLOWED


def _joined(space: Space, regions: list[Region], owner_out: bool) -> list[frozenset[Action]]:
    """Per (address or name, port cell): ``V`` joined over owners."""
    joined: dict[tuple[object, PortCell], frozenset[Action]] = {}
    for region in regions:
        verdict = space.verdict(region.port_vector, region.place_vector)
        for place in region.places:
            if owner_out and place.owner is not None and place.owner.owner != OUT:
                continue
            where = place.address if place.address is not None else place.name
            for cell in region.ports:
                key = (where, cell)
                joined[key] = joined.get(key, frozenset()) | verdict.results
    return list(joined.values())


def explain(
    tier_input: TierInput, queries: tuple[Query, ...], *, by_name: bool = False
) -> ExplainAnswer:
    """What happens to the points of ``queries`` (one destination). With
    ``by_name``, the allowance line and exit status are ``reach(...,
    by_name=True)`` restricted to the destination, while the verdict still
    shows an FQDN peer as possibly matching an address."""
    space = build_space(tier_input, queries)
    regions = [region for query in queries for region in _query_regions(space, query)]
    verdicts = [space.verdict(r.port_vector, r.place_vector) for r in regions]
    paths = tuple(dict.fromkeys(p for v in verdicts for p in v.paths))
    doubts = frozenset().union(*(v.doubts for v in verdicts))
    word = _word(_joined(space, regions, owner_out=False))
    addressed = any(isinstance(q, AddressQuery) for q in queries)
    outside = _word(_joined(space, regions, owner_out=True)) if addressed else None
    if by_name:
        judged = names_only(tier_input)
        space = build_space(judged, queries)
        regions = [region for query in queries for region in _query_regions(space, query)]
        answer = reach_regions(judged, space, [_query_block(space, q) for q in queries])
    else:
        answer = reach_regions(tier_input, space, [_query_block(space, q) for q in queries])
    if all(space.inside(r.port_vector, r.place_vector) is Tri.YES for r in regions):
        line, status = INSIDE, 0
    elif answer.refusal is not None:
        line, status = OUTSIDE, 1
    else:
        line, status = NOT_LET_OUT, 0
    return ExplainAnswer(word, outside, paths, doubts, line, answer, status)


def _query_block(space: Space, query: Query) -> Block:
    """The groups of one query's points: its places on its ports."""
    ports = _filtered(space.port_groups, lambda cell: _port_in_query(query, cell))
    places = _filtered(
        [*space.place_groups, *space.name_groups], lambda place: _in_query(query, place)
    )
    return ports, places


def _query_regions(space: Space, query: Query) -> list[Region]:
    """The regions of one query's points."""
    return list(_regions(*_query_block(space, query)))


def doubt_text(tier_input: TierInput, doubt: Doubt) -> str:
    """One undecided document and why it leaves the point undecided, in
    words (explain's reason for an ``undecided`` verdict)."""
    if doubt.reason == OBJECT:
        thing = tier_input.undecidable[doubt.document]
        return f"{thing.kind}/{thing.name}: {thing.detail}"
    return f"{_name(tier_input, doubt.document)}: {_why(tier_input, doubt)}"
