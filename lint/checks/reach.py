"""The reach check for one sandbox and path (CLUSTER-POLICIES §1.5, §11):
can the pod, in a real cluster, get out of its allowance?

Reach judges the union's documents as the union judged them, the Cilium
objects the union does not read under ``engine: core`` (as under ``cilium``),
and every new-kind object, through ``lint.decision.reach``. Its report lists
only the documents beyond the union's. Each culprit beyond the union gets
its own finding (``egress-reach-widens``, ``egress-reach-not-evaluable``) at
its file and line; a culprit the union reports is not reported again.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Hashable, Mapping, Sequence
from itertools import chain
from typing import Any, Final

import msgspec
from msgspec.structs import replace

from lint.checks.candidates import Sourced, by_name, location_of, unparsed_placeholders
from lint.checks.context import (
    CLUSTER_CULPRITS,
    CLUSTER_ENTRIES,
    LASTING_READ_MEMO,
    CheckContext,
    JudgedEntry,
    JudgmentMemo,
    held_alike,
    kept_with,
    precise_location,
    rule_finding,
)
from lint.checks.culprits import (
    content_hash,
    lets_out_clause,
    referenced_content,
    value_at,
)
from lint.checks.judging import Judged
from lint.checks.reach_candidates import Offered, _numbered, reach_candidates, reach_data
from lint.decision.model import (
    Allowance,
    EgressRefusal,
    EgressVerdict,
    IngressVerdict,
    Subject,
    Tri,
    Verdict,
)
from lint.decision.reach.catch_all import CLAIM_ANNOTATIONS_PATH, pod_conditions
from lint.decision.reach.common import display_kind, object_name
from lint.decision.reach.ingress import (
    decide_ingress_reach,
    ingress_documents,
    ingress_pod_condition_documents,
    undecided_for_ingress,
)
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
    pod_label_view,
)
from lint.decision.reach.selection import mentioned_keys
from lint.decision.reach.selection import selects_nothing as reach_selects_nothing
from lint.decision.tiers.build import Built, PathFacts, build_tier_input
from lint.decision.tiers.credit import CALICO_EVIDENCE, CILIUM_EVIDENCE, Evidence
from lint.decision.tiers.model import Slot, TierDocument, TierInput, Undecidable
from lint.decision.tiers.questions import Listed, ReachAnswer, reach
from lint.decision.tiers.reading import ReadMemo
from lint.decision.values import JSON
from lint.inventory import KubeObject
from lint.kinds import (
    CILIUM_CLUSTERWIDE_NETWORK_POLICY,
    CILIUM_NETWORK_POLICY,
    NETWORK_POLICY,
    POLICY_KINDS,
    REACH_POLICY_KINDS,
    SANDBOX_CLAIM,
)
from lint.report.messages import culprit_message
from lint.report.model import (
    Culprit,
    Cut,
    DecisionReport,
    ExaminedEntry,
    ExaminedList,
    Finding,
    Location,
    ReachReport,
    SandboxRef,
    SharedEntries,
    SkippedEntry,
    examined_list,
    shared_entries,
)
from lint.rules import culprit_rules, remedy_text, verb

UNJUDGED_DETAIL = (
    "egress-lint recognises the {kind} kind as one that can let the pod out, "
    "but no reader judged this object, so it fails closed"
)
_RULE_OF_VERDICT = culprit_rules("reach")
_OFFENDING = frozenset(_RULE_OF_VERDICT)
# Reach over the agent port blames only what it cannot judge, under the
# host's own ingress rule.
_INGRESS_CULPRITS = culprit_rules("ingress-reach")
(_INGRESS_RULE,) = frozenset(_INGRESS_CULPRITS.values())
_ENTRY = operator.attrgetter("entry")
_ORIGIN = operator.attrgetter("origin")
_VERDICT = operator.attrgetter("verdict")
_FIRST = operator.itemgetter(0)
_DOCUMENT = operator.attrgetter("examined.document")
_SELECTS = operator.attrgetter("selects")


class ReachInput(msgspec.Struct, frozen=True):
    """One sandbox path as reach sees it: where it was declared, its pod,
    the template and the union's judged entries."""

    sandbox: SandboxRef
    declaration: Location
    subject: Subject
    template: KubeObject | None
    allowance: Allowance
    context: Hashable
    """The union's judging context (the allowance's key), for the memo."""
    cilium: bool
    union: Judged
    cilium_under_core: Judged
    claim_annotations: Mapping[str, tuple[str, str]] = msgspec.field(default_factory=dict)
    """The annotations the path's SandboxClaims add to the pod, each with the
    claim that adds it (``PodVariant.claim_annotations``)."""
    union_reported: bool = True
    """Whether the union is reported beside reach (``host: namzu``). When it
    is not, reach is the verdict and its report lists the union's documents
    first, so every document judged is listed once (issue 25)."""


class _Judged(msgspec.Struct, frozen=True):
    """A document with the object it came from."""

    document: ReachDocument
    obj: KubeObject | None
    location: Location


class _Asked(msgspec.Struct, frozen=True):
    """One path's tier input, the reach answer, and the objects behind the
    input's ``ref`` handles."""

    built: Built
    answer: ReachAnswer
    offered: tuple[Offered, ...]
    bases: Mapping[int, tuple[str | int, ...]] = msgspec.field(default_factory=dict)
    """The key path of a synthesized controller policy's body inside its
    template, by index into ``offered`` (its rules live there)."""
    model: TierInput | None = None
    """The input the model was asked: ``built``'s less the documents that
    certainly do not select the pod (None: all of them)."""
    unselected: int = 0
    """How many NetworkPolicies and Cilium policies the union's judgement of
    the path already found not to select the pod: never read again."""


def check_reach(ctx: CheckContext, given: ReachInput) -> tuple[ReachReport, list[Finding]]:
    """The exact tier model's reach answer for the path, in the report's
    shape: every document it read, listed with its verdict, and one finding
    per culprit at its rule's line."""
    report, searched = _reported(ctx, given)
    culprits = (_namespace_table(ctx, "culprits"), _run_table(ctx, CLUSTER_CULPRITS))
    return report, _findings(searched, given, reach_data_of(ctx), culprits)


def _reported(ctx: CheckContext, given: ReachInput) -> _Reported:
    """``_report``, once per answer and what else the report reads of the
    path: paths that differ only in name (a template's pooled and warm
    paths) share it, and only their findings, which name the path, are
    made for each."""
    asked = _asked(ctx, given)
    # The answer holds the namespace. The declaration is made again for each
    # path, so it is taken by value.
    held = (asked, given.union, given.cilium_under_core, given.template)
    said = (given.declaration, given.union_reported, *given.claim_annotations.items())
    key = (*map(id, held), *said)
    table = _namespace_table(ctx, "reach-reports")
    hit = table.get(key)
    if hit is not None and held_alike(hit[0], held):
        known: _Reported = hit[1]
        return known
    reported = _report(ctx, given, asked)
    table[key] = (held, reported)
    return reported


def _report(ctx: CheckContext, given: ReachInput, asked: _Asked) -> _Reported:
    """The path's report, and the entries it read that may be culprits."""
    answer = asked.answer
    table = _listed_entries(ctx)
    listed = [_listed_entry(ctx, given, asked, item, table) for item in answer.listed]
    # Reach reads every policy kind, NetworkPolicies included: an unparsed
    # document that may be one leaves its answer undecided too. Where the
    # union reports, it already draws the finding for its own kinds.
    unparsed = _unparsed(ctx, given.subject.namespace, EgressVerdict.NOT_EVALUABLE, POLICY_KINDS)
    own_kinds = REACH_POLICY_KINDS if given.union_reported else POLICY_KINDS
    own = {
        item.location
        for item in _unparsed(ctx, given.subject.namespace, EgressVerdict.NOT_EVALUABLE, own_kinds)
    }
    refusal, summary = answer.refusal, answer.summary
    if unparsed and refusal in (None, EgressRefusal.NO_ENFORCING_POLICY):
        first = unparsed[0].document
        refusal = EgressRefusal.NOT_EVALUABLE
        summary = f"{first.kind}/{first.name} cannot be read: {first.detail}"
    kept_entries = _namespace_table(ctx, "reach-unparsed-entries")
    every_entry = _run_table(ctx, CLUSTER_ENTRIES)
    unparsed_entries = [_unparsed_entry(i, kept_entries, every_entry) for i in unparsed]
    theirs = {
        id(entry[0])
        for entry, item in zip(unparsed_entries, unparsed, strict=True)
        if item.location not in own
    }
    judgements = (given.union, given.cilium_under_core)
    examined, read = _in_document_order(ctx, asked, listed, judgements, unparsed_entries)
    report = ReachReport(
        DecisionReport(None if refusal is None else str(refusal), summary, examined),
        tuple(
            SkippedEntry(s.kind, s.name, s.reason, _skipped_location(asked.offered, s))
            for s in asked.built.skipped
        ),
    )
    # A culprit the union reports keeps the union's finding (``host: namzu``
    # reports it; otherwise the path's judgement keeps it when reach agrees).
    reported = _union_culprits(given)
    # Only a culprit draws a finding (``_findings``), and every left-out
    # policy is does-not-select: only the entries the path read are searched.
    searched = [
        (e, obj, path)
        for e, obj, path in read
        if e.verdict in _OFFENDING
        and (id(obj) not in reported or obj is None)
        and id(e) not in theirs
    ]
    return report, searched


def tier_input_of(ctx: CheckContext, given: ReachInput) -> TierInput:
    """The exact tier model's input for the path, as ``check_reach`` built
    it (memoized), for ``explain --to`` to ask of the same model."""
    asked = _asked(ctx, given)
    return asked.model or asked.built.input


def _union_culprits(given: ReachInput) -> frozenset[int]:
    """The objects the union reports a culprit of (``host: namzu``), by
    identity: reach does not report them again."""
    found = set()
    for entry in given.union.selecting:
        if entry.entry.verdict in _OFFENDING:
            obj = getattr(entry.origin, "obj", None)
            if obj is not None:
                found.add(id(obj))
    return frozenset(found)


_Entry = tuple[ExaminedEntry, KubeObject | None, tuple[str | int, ...]]
_Reported = tuple[ReachReport, list[_Entry]]
"""A path's reach report, and the entries it read that may be culprits."""


_OrderKey = tuple[str, str, bytes, str]


def _in_document_order(
    ctx: CheckContext,
    asked: _Asked,
    listed: list[_Entry],
    judgements: tuple[Judged, ...],
    unparsed: list[_Entry],
) -> tuple[ExaminedList, list[_Entry]]:
    """The path's examined list: the model's listed entries with the
    policies left unread merged in where the model would have listed them
    (by slot, kind, name and namespace; a left-out NetworkPolicy or Cilium
    policy is in the NetworkPolicy slot), then the undecidable objects and
    the unparsed documents. Also the entries the path read, in that order.

    The left-out policies are the namespace's, sorted once
    (``_candidates_in_order``): the list is them with the few the path
    read cut out and its own entries cut in, so a path costs what it
    read, not what its namespace holds."""
    documents = asked.built.input.documents
    placed: list[tuple[_SortKey, _Entry]] = []
    rest: list[_Entry] = []
    known = _namespace_table(ctx, "reach-sort-keys")
    for item, entry in zip(asked.answer.listed, listed, strict=True):
        if item.undecidable:
            rest.append(entry)
            continue
        placed.append((_sort_key(known, documents[item.document].slot, entry[0]), entry))
    placed.sort(key=_FIRST)  # stable: equal keys keep the model's order
    tail = [*rest, *unparsed]
    read = [entry for _, entry in placed] + tail
    own = [(sort_key, entry[0]) for sort_key, entry in placed]
    keys: Sequence[_SortKey] = ()
    shared, taken_out = _NOTHING_SHARED, set()
    if asked.unselected:
        every = _candidates_in_order(ctx, asked.built.input.namespace, judgements)
        keys, shared = every.keys, every.shared
        taken_out = {every.position[id(e)] for e in asked.offered if id(e) in every.position}
    return merged_in_order(keys, shared, taken_out, own, tuple(map(_FIRST, tail))), read


def _sort_key(known: dict[Any, Any], slot: str, entry: ExaminedEntry) -> _SortKey:
    """A listed entry's place in the list: its document's slot, then the
    entry's kind, name and namespace (its document's), then its file and
    line, so copies of one name (a cluster-scoped policy in several files)
    keep the order of their files, not the order a worker read them in.
    Once per entry and slot while the namespace is judged: its paths list
    the same entries (``_listed_entry``); the entry is kept with it, so its
    id is not reused."""
    hit = known.get((id(entry), slot))
    if hit is not None and hit[0] is entry:
        found: _SortKey = hit[1]
        return found
    found = (_order_key(slot, entry.kind, entry.name, entry.namespace), _place(entry))
    known[(id(entry), slot)] = (entry, found)
    return found


def merged_in_order(
    keys: Sequence[_SortKey],
    shared: SharedEntries,
    taken_out: set[int],
    placed: Sequence[tuple[_SortKey, ExaminedEntry]],
    tail: tuple[ExaminedEntry, ...],
) -> ExaminedList:
    """The shared entries (sorted by ``keys``) without those at
    ``taken_out``, with ``placed`` (sorted) put in as one by one insertion
    would: each after every entry whose key is not greater, so equal keys
    keep the shared entry first, then the placed ones in their order."""
    put_in: dict[int, list[ExaminedEntry]] = {}
    at, end = 0, len(keys)
    here = put_in.setdefault(at, [])
    for sort_key, entry in placed:
        # ``placed`` is sorted, so every key before ``at`` is not greater
        # than this one: where the next key is greater, it goes in at
        # ``at`` again (a slot's hundreds of entries go in at one place).
        if at < end and not sort_key < keys[at]:
            at = bisect.bisect_right(keys, sort_key, at)
            here = put_in.setdefault(at, [])
        here.append(entry)
    if not put_in[0]:
        del put_in[0]  # nothing goes in before the first entry
    # Places next to one another make one cut: a path takes out every
    # cluster-scoped policy of a kind, which sit side by side in the list.
    cuts: list[Cut] = []
    start = stop = -1
    held: list[ExaminedEntry] = []
    for at in sorted(taken_out | put_in.keys()):
        if at != stop:  # the shared entry before ``at`` stays: a new cut
            if start >= 0:
                cuts.append(Cut(start, stop, tuple(held)))
            start, stop, held = at, at, []
        held += put_in.get(at, ())
        if at in taken_out:
            stop = at + 1
    if start >= 0:
        cuts.append(Cut(start, stop, tuple(held)))
    return ExaminedList(shared, tuple(cuts), tail)


_NOTHING_SHARED: Final = shared_entries(())


class _InOrder(msgspec.Struct, frozen=True):
    """Every candidate of a namespace as a left-out policy's entry, in the
    order reach lists them: sort keys and entries side by side, and each
    candidate's place by its identity."""

    keys: tuple[_SortKey, ...]
    shared: SharedEntries
    """The entries in their report form, as every path shares them."""
    position: Mapping[int, int]


def _candidates_in_order(
    ctx: CheckContext, namespace: str, judgements: tuple[Judged, ...]
) -> _InOrder:
    """``_InOrder`` for the namespace, once. Where the union's judgement
    already wrote the same entry, it is that object: made once, and encoded
    once in a JSON report."""
    key = ("reach-candidates-in-order", namespace)
    return kept_with(ctx.memo.reach, key, ctx.inventory, _in_order, ctx, namespace, judgements)


def _in_order(ctx: CheckContext, namespace: str, judgements: tuple[Judged, ...]) -> _InOrder:
    written = {k: v for j in judgements for k, v in _unselected_entries_of(j).items()}
    paired = [
        (_unselected_entry(ctx, each, written.get(id(each.obj))), id(each))
        for each in tier_candidates(ctx, namespace)
    ]
    paired.sort(key=_sort_key_of)
    return _InOrder(
        tuple(pair[0] for pair, _ in paired),
        shared_entries([pair[1][0] for pair, _ in paired]),
        {ident: at for at, (_, ident) in enumerate(paired)},
    )


def _unselected_entries_of(judged: Judged) -> dict[int, ExaminedEntry]:
    """A judgement's report entry of each object it judged with one entry
    that does not select the pod, by the object's identity."""
    written: dict[int, ExaminedEntry] = {}
    twice: set[int] = set()
    block = judged.block
    for each, entry in zip(block.judged, block.report.entries, strict=True):
        obj_id = id(getattr(each.origin, "obj", None))
        if obj_id in written or entry.verdict != _DOES_NOT_SELECT:
            twice.add(obj_id)
        written[obj_id] = entry
    for obj_id in twice:
        written.pop(obj_id, None)
    return written


_DOES_NOT_SELECT: Final = str(EgressVerdict.DOES_NOT_SELECT)


def _sort_key_of(item: tuple[tuple[_SortKey, _Entry], int]) -> _SortKey:
    return item[0][0]


_SortKey = tuple[_OrderKey, tuple[str, int]]


def _order_key(
    slot: str, kind: str, name: str, namespace: str | None
) -> tuple[str, str, bytes, str]:
    return (str(slot), kind, name.encode("utf-8", "surrogatepass"), namespace or "")


def _place(entry: ExaminedEntry) -> tuple[str, int]:
    found = entry.location
    return ("", 0) if found is None else (found.file, found.line)


def _namespace_table(ctx: CheckContext, name: str) -> dict[Any, Any]:
    """A table reach fills as it goes, kept with the namespace being judged
    (``ctx.memo.reach`` forgets it with the namespace)."""
    return kept_with(ctx.memo.reach, name, ctx.inventory, dict)


def _run_table(ctx: CheckContext, name: str) -> dict[Any, Any]:
    """A table reach fills as it goes, kept for the whole run (``name`` is
    one of ``JudgmentMemo.kept``): what every namespace's paths list alike,
    the clusterwide objects and the unparsed documents, is then one object
    in every namespace's reports, and a child's answer holds it once."""
    return kept_with(ctx.memo.scopes, name, ctx.inventory, dict)


_Unselected = dict[int, tuple[Offered, tuple[_SortKey, _Entry]]]


def _unselected_entries(ctx: CheckContext) -> _Unselected:
    """The left-out policies' entries made so far in the namespace, by the
    identity of their candidates (``_unselected_entry``)."""
    return kept_with(ctx.memo.reach, "reach-unselected-entries", ctx.inventory, dict)


def _unselected_entry(
    ctx: CheckContext, each: Offered, written: ExaminedEntry | None = None
) -> tuple[_SortKey, _Entry]:
    """A left-out policy's entry and its place in the list, made once per
    candidate: a namespace's paths leave out the same policies, and one
    shared entry is also encoded once in the JSON report. ``written``: the
    union's entry for the object, taken when it says the same. The
    candidate is kept with the answer, so its id is not reused while the
    memo lives."""
    table = _unselected_entries(ctx)
    hit = table.get(id(each))
    if hit is not None and hit[0] is each:
        return hit[1]
    candidate = each.candidate
    kind = display_kind(candidate.api_version, candidate.kind)
    name = object_name(candidate.raw, candidate.position)
    entry = (
        written
        if written is not None and _same_entry(written, kind, name, each.obj)
        else ExaminedEntry(
            kind=kind,
            name=name,
            namespace=each.obj.namespace,
            verdict=_DOES_NOT_SELECT,
            detail=None,
            origin="manifest",
            location=location_of(each.obj),
        )
    )
    order = _order_key(Slot.NETWORK_POLICY, entry.kind, entry.name, entry.namespace)
    found: tuple[_SortKey, _Entry] = ((order, _place(entry)), (entry, each.obj, ()))
    table[id(each)] = (each, found)
    return found


def _same_entry(entry: ExaminedEntry, kind: str, name: str, obj: KubeObject) -> bool:
    """Whether ``entry`` is the left-out entry reach would write for the
    object (``location_of``'s place included)."""
    location, document = entry.location, obj.document
    return (
        entry.kind == kind
        and entry.name == name
        and entry.namespace == obj.namespace
        and entry.verdict == _DOES_NOT_SELECT
        and entry.detail is None
        and entry.origin == "manifest"
        and location is not None
        and (location.file, location.line, location.source, location.source_line)
        == (document.file, document.line, document.source, 1 if document.source else None)
    )


def _unparsed_entry(item: _Judged, kept: dict[Any, Any], every: dict[Any, Any]) -> _Entry:
    """An unparsed document's entry, once per document while the namespace
    is judged (``_unparsed`` keeps them; the document is kept with it, so
    its id is not reused), and one object for the whole run (``every``, by
    what the entry says: each namespace finds the document anew): its paths
    list the same entry, so its culprit is made once and it is written
    once in a JSON report."""
    hit = kept.get(id(item))
    if hit is None or hit[0] is not item:
        document = item.document
        said = (document.kind, document.name, type(document.verdict), document.verdict)
        key = ("unparsed", *said, document.detail, item.location)
        entry = every.get(key)
        if entry is None:
            entry = every[key] = _judged_entry(item, None)
        hit = kept[id(item)] = (item, (entry, None, ()))
    found: _Entry = hit[1]
    return found


def _judged_entry(item: _Judged, namespace: str | None) -> ExaminedEntry:
    """A reach document with its place, as the report lists it."""
    document = item.document
    return ExaminedEntry(
        kind=document.kind,
        name=document.name,
        namespace=namespace,
        verdict=str(document.verdict),
        detail=document.detail,
        origin="manifest",
        location=item.location,
    )


def _listed_entry(
    ctx: CheckContext, given: ReachInput, asked: _Asked, item: Listed, table: _ListedEntries
) -> _Entry:
    """One listed verdict as a report entry, with its object and the rule
    path a finding points at; ``table`` holds the namespace's entries made
    so far (``_listed_entries``)."""
    tier_input = asked.built.input
    offending = item.verdict in _OFFENDING
    if item.undecidable:
        thing = tier_input.undecidable[item.document]
        obj = _object_of(asked.offered, thing.ref)
        if obj is not None:
            # Made once per object and what the entry says, like a
            # document's below: its culprit is then made once too.
            if obj.namespace is None:
                table = _run_table(ctx, CLUSTER_ENTRIES)
            return _undecidable_entry(table, obj, thing, item), obj, thing.path
        obj, location = _condition_at(ctx, given, thing)
        namespace = obj.namespace if obj is not None else None
        entry = ExaminedEntry(
            thing.kind, thing.name, namespace, str(item.verdict), item.detail, "manifest", location
        )
        return entry, obj, thing.path if obj is not None else ()
    document = tier_input.documents[item.document]
    obj = _object_of(asked.offered, document.ref)
    path: tuple[str | int, ...] = item.rule.path if item.rule is not None else ()
    base = asked.bases.get(document.ref)
    if base is not None and path:
        path = (*base, *path[1:])
    if obj is None:
        return _listed(document, item, given.declaration), obj, path
    if obj.namespace is None:  # every namespace lists a clusterwide object
        table = _run_table(ctx, CLUSTER_ENTRIES)
    # The namespace's paths list the same objects alike (the policies that
    # select every pod): each such entry is made once, and written once in
    # a JSON report.
    at = path if offending else ()
    verdict = str(item.verdict)
    key = (id(obj), document.kind, document.name, document.namespace, verdict, item.detail, at)
    hit = table.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1], obj, path
    location = precise_location(obj, path) if at else location_of(obj)
    entry = _listed(document, item, location)
    table[key] = (obj, entry)
    return entry, obj, path


def _undecidable_entry(
    table: _ListedEntries, obj: KubeObject, thing: Undecidable, item: Listed
) -> ExaminedEntry:
    """An undecidable object's entry, at the field that makes it or at the
    object: once per object, kind, name, verdict, detail and field while
    the namespace is judged (kept with its object)."""
    verdict = str(item.verdict)
    key = ("undecidable", id(obj), thing.kind, thing.name, verdict, item.detail, thing.path)
    hit = table.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    where = thing.path
    location = precise_location(obj, where) if where else location_of(obj)
    entry = ExaminedEntry(
        thing.kind, thing.name, obj.namespace, verdict, item.detail, "manifest", location
    )
    table[key] = (obj, entry)
    return entry


def _listed(document: TierDocument, item: Listed, location: Location) -> ExaminedEntry:
    return ExaminedEntry(
        kind=document.kind,
        name=document.name,
        namespace=document.namespace,
        verdict=str(item.verdict),
        detail=item.detail,
        origin="manifest",
        location=location,
    )


_ListedEntries = dict[Hashable, tuple[KubeObject, ExaminedEntry]]


def _listed_entries(ctx: CheckContext) -> _ListedEntries:
    """The entries of listed documents made so far in the namespace, by
    object, what the entry says, and the rule its location points at
    (``_listed_entry``); each kept with its object."""
    return kept_with(ctx.memo.reach, "reach-listed-entries", ctx.inventory, dict)


def _condition_at(
    ctx: CheckContext, given: ReachInput, thing: Undecidable
) -> tuple[KubeObject | None, Location]:
    """Where a pod condition is shown: at the annotation or field that makes
    it, in the claim that adds it or the template, else the declaration."""
    annotations = _added_annotations(given.claim_annotations)
    for document in pod_conditions(_pod_template(given.template), annotations):
        if (document.kind, document.name) != (thing.kind, thing.name):
            continue
        namespace = given.subject.namespace
        obj = _condition_object(ctx, namespace, given.template, document, given.claim_annotations)
        if obj is not None:
            return obj, _location(obj, document)
    if given.template is not None:
        return given.template, location_of(given.template)
    return None, given.declaration


def _object_of(offered: Sequence[Offered], ref: int) -> KubeObject | None:
    return offered[ref].obj if 0 <= ref < len(offered) else None


def _skipped_location(offered: Sequence[Offered], skipped: Skipped) -> Location | None:
    for each in offered:
        if object_name(each.candidate.raw, each.candidate.position) == skipped.name and (
            skipped.kind
            in (each.obj.kind_name, display_kind(each.candidate.api_version, each.candidate.kind))
        ):
            return location_of(each.obj)
    return None


def _asked(ctx: CheckContext, given: ReachInput) -> _Asked:
    """The path's tier input and reach answer, once per pod view, service
    account, allowance, template, claim annotations, Cilium flag and the
    union's judgements of the path (by identity: paths judged alike share
    them, ``judged_entries``)."""
    namespace = given.subject.namespace
    key = (
        "tiers",
        namespace,
        tuple(sorted(given.subject.labels.items())),
        given.context,
        id(given.template),
        tuple(sorted((k, v) for k, (_, v) in given.claim_annotations.items())),
        given.cilium,
        id(given.union),
        id(given.cilium_under_core),
    )
    held = (given.template, given.union, given.cilium_under_core)
    hit = ctx.memo.reach.get(key)
    if hit is not None and held_alike(hit[0], held):
        known: _Asked = hit[1]
        return known
    candidates = tier_candidates(ctx, namespace)
    every, bases = _with_synthesized(candidates, given.union)
    offered, unselected, bases = _judged_unselected(ctx, candidates, every, bases, given)
    facts = PathFacts(
        namespace=namespace,
        pod=pod_label_view(given.subject.labels),
        service_account=service_account_name(given.template),
        pod_template=_pod_template(given.template),
        pod_annotations=_added_annotations(given.claim_annotations),
    )
    built = build_tier_input(
        [each.candidate for each in offered],
        reach_data_of(ctx),
        facts,
        given.allowance,
        cilium=given.cilium,
        enforces=ctx.enforces,
        evidence=_evidence(ctx, given.cilium),
        memo=_read_memo(ctx),
    )
    built = _split_copies(built, offered, given.union)
    model, answer = _reach_selecting(built.input, ctx.memo)
    asked = _Asked(built, answer, offered, bases, model, unselected)
    ctx.memo.reach[key] = (held, asked)
    return asked


def _judged_unselected(
    ctx: CheckContext,
    candidates: tuple[Offered, ...],
    every: tuple[Offered, ...],
    bases: dict[int, tuple[str | int, ...]],
    given: ReachInput,
) -> tuple[tuple[Offered, ...], int, dict[int, tuple[str | int, ...]]]:
    """The candidates to read, how many NetworkPolicies and Cilium policies
    are left out because the union's judgement of this path (the same label
    view) found that they do not select the pod, and the synthesized
    policies' places among those read. A namespace holds many such policies;
    reading each again for every path is what would cost, and so would
    looking at each: the path looks only at the few its judgement visited,
    and at those no judgement's shared block holds (``_unjudged``)."""
    # An object is left out when it has entries and none of them selects:
    # ``Judged.selecting`` holds every entry that is not does-not-select.
    judgements = (given.union, given.cilium_under_core)
    selecting = {id(getattr(e.origin, "obj", None)) for j in judgements for e in j.selecting}
    own = set().union(*(_own_objects(j) for j in judgements))
    unjudged, by_object = _unjudged(ctx, candidates, judgements)
    read = {i for i in unjudged if id(candidates[i].obj) not in own}
    read.update(chain.from_iterable(by_object.get(o, ()) for o in selecting))
    kept = tuple(candidates[i] for i in sorted(read))
    # The synthesized policies (``bases``) come last and are always read.
    first_base = len(kept)
    moved = {first_base + at: bases[index] for at, index in enumerate(sorted(bases))}
    return (*kept, *every[len(candidates) :]), len(candidates) - len(kept), moved


_OBJECT = operator.attrgetter("origin.obj")


def _unjudged(
    ctx: CheckContext, candidates: tuple[Offered, ...], judgements: tuple[Judged, ...]
) -> tuple[tuple[int, ...], Mapping[int, tuple[int, ...]]]:
    """The candidates whose objects neither judgement's shared block holds,
    by index, and every candidate's indices by the identity of its object:
    once per namespace and pair of blocks, which the paths of a namespace
    share."""
    held = (candidates, *(j.block for j in judgements))
    key = ("reach-unjudged", *map(id, held))
    hit = ctx.memo.reach.get(key)
    if hit is not None and held_alike(hit[0], held):
        known: tuple[tuple[int, ...], Mapping[int, tuple[int, ...]]] = hit[1]
        return known
    judged = frozenset().union(*(_block_objects(ctx, j) for j in judgements))
    objects, by_object = _objects_of(ctx, candidates)
    unjudged = tuple(i for i, obj_id in enumerate(objects) if obj_id not in judged)
    found = (unjudged, by_object)
    ctx.memo.reach[key] = (held, found)
    return found


def _objects_of(
    ctx: CheckContext, candidates: tuple[Offered, ...]
) -> tuple[tuple[int, ...], Mapping[int, tuple[int, ...]]]:
    """The identity of each candidate's object, and every candidate's
    indices by it: once per namespace's candidates, whatever the blocks
    (a pooled template's scope has blocks of its own)."""
    key = ("reach-objects", id(candidates))
    hit = ctx.memo.reach.get(key)
    if hit is not None and hit[0] is candidates:
        known: tuple[tuple[int, ...], Mapping[int, tuple[int, ...]]] = hit[1]
        return known
    objects = tuple(id(each.obj) for each in candidates)
    by_object: dict[int, tuple[int, ...]] = {}
    for index, obj_id in enumerate(objects):
        by_object[obj_id] = (*by_object.get(obj_id, ()), index)
    ctx.memo.reach[key] = (candidates, (objects, by_object))
    return objects, by_object


def _block_objects(ctx: CheckContext, judged: Judged) -> frozenset[int]:
    """The identities of the objects behind a judgement's shared block, once
    per block: the paths of a scope share it."""
    block = judged.block
    key = ("reach-block-objects", id(block))
    hit = ctx.memo.reach.get(key)
    if hit is not None and hit[0] is block:
        known: frozenset[int] = hit[1]
        return known
    found = frozenset(_identities(block.judged))
    ctx.memo.reach[key] = (block, found)
    return found


def _own_objects(judged: Judged) -> set[int]:
    """The identities of the objects behind the entries a path placed in
    the block, and its tail's."""
    return _identities([*chain.from_iterable(e for _, e in judged.own), *judged.tail])


def _identities(entries: Sequence[JudgedEntry]) -> set[int]:
    """The identities of the objects behind entries (a placeholder's, which
    has none, as None's)."""
    try:
        return set(map(id, map(_OBJECT, entries)))
    except AttributeError:  # an unparsed document's placeholder
        return {id(getattr(entry.origin, "obj", None)) for entry in entries}


def _reach_selecting(full: TierInput, memo: JudgmentMemo) -> tuple[TierInput | None, ReachAnswer]:
    """Reach asked of the documents that may select the pod: one that
    certainly does not never matches a point nor isolates it, so leaving it
    out changes no verdict, and a namespace's many other policies no longer
    multiply the cells. The answer's indices are mapped back to ``full``,
    the left-out documents listed as not selecting."""

    def asked(tier_input: TierInput) -> ReachAnswer:
        return reach(
            tier_input,
            by_name=True,
            shared=memo.spaces,
            named=memo.names_only,
            slots=memo.slots,
        )

    keep = [i for i, document in enumerate(full.documents) if document.subject is not Tri.NO]
    if len(keep) == len(full.documents):
        return None, asked(full)
    model = replace(full, documents=tuple(full.documents[i] for i in keep))
    answer = asked(model)
    listed: list[Listed] = []
    kept = iter(item for item in answer.listed if not item.undecidable)
    for index, each in enumerate(full.documents):
        if each.subject is Tri.NO:
            listed.append(Listed(index, EgressVerdict.DOES_NOT_SELECT))
        else:
            # Written out, not ``replace``d, and only where the index moved:
            # a path lists hundreds.
            item = next(kept)
            same = item.document == index
            listed.append(item if same else Listed(index, item.verdict, item.detail, item.rule))
    listed += [item for item in answer.listed if item.undecidable]
    document = answer.document
    if document is not None and not answer.undecidable:
        document = keep[document]
    culprits = frozenset((keep[d], r) for d, r in answer.culprits)
    mapped = replace(answer, listed=tuple(listed), document=document, culprits=culprits)
    return model, mapped


def _split_copies(built: Built, offered: Sequence[Offered], union: Judged) -> Built:
    """A copy that isolates the pod while another copy of its name does not
    (``Judged.split``) does not count as isolating: the cluster may keep
    either copy, so the pod may be left to the tiers after it."""
    split = union.split
    if not split:
        return built
    calico_form = built.input.calico_form
    documents = tuple(
        _not_isolating(document, calico_form)
        if 0 <= document.ref < len(offered) and id(offered[document.ref].obj) in split
        else document
        for document in built.input.documents
    )
    return replace(built, input=replace(built.input, documents=documents))


def _not_isolating(document: TierDocument, calico_form: bool) -> TierDocument:
    """A split copy as one that may not isolate: in Calico's form a copy
    with no rules governs egress only through its end-of-tier deny, so it
    is taken not to govern egress; a copy with rules may or may not."""
    if not calico_form:
        return replace(document, isolates=False)
    types = Tri.NO if not document.rules and not document.deny_rules else Tri.UNKNOWN
    return replace(document, isolates=False, types=types)


def _with_synthesized(
    offered: tuple[Offered, ...], union: Judged
) -> tuple[tuple[Offered, ...], dict[int, tuple[str | int, ...]]]:
    """The namespace's candidates plus the NetworkPolicies the controller
    writes on this path from the template (the union's synthesized
    documents), each shown at its template."""
    extra: list[Offered] = []
    bases: dict[int, tuple[str | int, ...]] = {}
    for entry in union.selecting:
        origin = entry.origin
        if not isinstance(origin, Sourced) or origin.origin != "synthesized":
            continue
        candidate = ReachCandidate(
            f"{NETWORK_POLICY.group}/v1",
            NETWORK_POLICY.name,
            origin.candidate.raw,
            origin.candidate.position,
            origin.obj.namespace,
        )
        bases[len(offered) + len(extra)] = origin.base
        extra.append(Offered(candidate, origin.obj))
    return (*offered, *extra), bases


def tier_candidates(ctx: CheckContext, namespace: str) -> tuple[Offered, ...]:
    """Every policy object that can govern a pod of ``namespace``: its core
    NetworkPolicies and Cilium policies, the clusterwide Cilium policies,
    then reach's own candidates (``offered_in``); gathered once per run."""
    key = ("tier-candidates", namespace)
    return kept_with(ctx.memo.scopes, key, ctx.inventory, _tier_candidates, ctx, namespace)


def _tier_candidates(ctx: CheckContext, namespace: str) -> tuple[Offered, ...]:
    own = ctx.inventory.namespace(namespace)
    union_objects = (
        *_numbered(own.ordered(NETWORK_POLICY.key, by_name), ordered=True),
        *_numbered(own.ordered(CILIUM_NETWORK_POLICY.key, by_name), ordered=True),
        *_numbered(
            ctx.inventory.ordered_cluster(CILIUM_CLUSTERWIDE_NETWORK_POLICY.key, by_name),
            ordered=True,
        ),
    )
    return (*union_objects, *offered_in(ctx, namespace))


def _read_memo(ctx: CheckContext) -> ReadMemo:
    """What the tier readers read of an object for every pod, kept for the
    namespace being judged (``ctx.memo`` forgets it with the namespace)."""
    return kept_with(ctx.memo.scopes, "tier-read-memo", ctx.inventory, _namespace_read_memo, ctx)


def _namespace_read_memo(ctx: CheckContext) -> ReadMemo:
    return ReadMemo(_lasting_read_memo(ctx))


def _lasting_read_memo(ctx: CheckContext) -> ReadMemo:
    """What the tier readers read of an object whatever the namespace (a
    cluster-scoped policy's rules), kept for the whole run: every
    namespace's pods read the cluster's policies again."""
    return kept_with(ctx.memo.scopes, LASTING_READ_MEMO, ctx.inventory, ReadMemo)


def _evidence(ctx: CheckContext, cilium: bool) -> Evidence:
    """CALICO and CILIUM-R from the whole inventory, not one namespace."""
    inventory = ctx.inventory

    def make() -> Evidence:
        return Evidence(
            calico=any(inventory.all_of_kind(kind.key) for kind in CALICO_EVIDENCE),
            cilium_r=cilium or any(inventory.all_of_kind(kind.key) for kind in CILIUM_EVIDENCE),
        )

    return kept_with(ctx.memo.scopes, ("tier-evidence", cilium), inventory, make)


def service_account_name(template: KubeObject | None) -> str:
    """§2.3: ``serviceAccountName``, else ``serviceAccount``, else ``default``."""
    pod_spec = _pod_spec(template)
    for key in ("serviceAccountName", "serviceAccount"):
        value = pod_spec.get(key) if isinstance(pod_spec, dict) else None
        if isinstance(value, str) and value:
            return value
    return "default"


def _pod_template(template: KubeObject | None) -> object:
    value = template.value if template is not None else None
    spec = value.get("spec") if isinstance(value, dict) else None
    return spec.get("podTemplate") if isinstance(spec, dict) else None


def _pod_spec(template: KubeObject | None) -> object:
    pod_template = _pod_template(template)
    return pod_template.get("spec") if isinstance(pod_template, dict) else None


def _added_annotations(added: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    return {key: value for key, (_, value) in added.items()}


def _condition_object(
    ctx: CheckContext,
    namespace: str,
    template: KubeObject | None,
    document: ReachDocument,
    added: Mapping[str, tuple[str, str]],
) -> KubeObject | None:
    """The object a pod condition is reported at: the claim that adds the
    annotation, when it comes from one, else the template."""
    path = document.rule_path
    if tuple(path[: len(CLAIM_ANNOTATIONS_PATH)]) == CLAIM_ANNOTATIONS_PATH:
        claim = added.get(str(path[-1]))
        found = (
            ctx.inventory.namespace(namespace).named(SANDBOX_CLAIM.key, claim[0]) if claim else None
        )
        if found is not None:
            return found
    return template


def reach_data_of(ctx: CheckContext) -> ReachData:
    """The run's ReachData, gathered once."""
    inventory = ctx.inventory
    return kept_with(
        ctx.memo.scopes, "reach-data", inventory, reach_data, inventory, ctx.namespace_labels
    )


def offered_in(ctx: CheckContext, namespace: str) -> tuple[Offered, ...]:
    """The reach candidates of the namespace, gathered once per run."""
    key = ("reach-candidates", namespace)
    return kept_with(
        ctx.memo.scopes, key, ctx.inventory, reach_candidates, ctx.inventory, namespace
    )


def _quiet(
    ctx: CheckContext,
    offered: Offered,
    subject: ReachSubject,
    labels: Mapping[str, str],
    data: ReachData,
) -> bool:
    """``selection.selects_nothing``, once per object, namespace, service
    account and values of the pod labels its subject can read."""
    candidate = offered.candidate
    raw = candidate.raw
    hit = ctx.memo.reach.get(("reach-keys", id(raw)))
    if hit is None or hit[0] is not raw:
        mentioned = mentioned_keys(candidate)
        hit = (raw, None if mentioned is None else tuple(sorted(mentioned)))
        ctx.memo.reach[("reach-keys", id(raw))] = hit
    keys: tuple[str, ...] | None = hit[1]
    if keys is None:
        return False
    read = tuple(labels.get(key) for key in keys)
    memo_key = (
        "reach-quiet",
        id(raw),
        candidate.position,
        subject.namespace,
        subject.service_account,
        read,
    )
    known = ctx.memo.reach.get(memo_key)
    if known is None or known[0] is not raw:
        known = (raw, reach_selects_nothing(candidate, subject, data))
        ctx.memo.reach[memo_key] = known
    answer: bool = known[1]
    return answer


def _quiet_ingress(
    ctx: CheckContext, offered: Offered, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """The ingress documents of an object that selects nothing: the same
    for every pod it does not select (``selection``), so judged once."""
    raw = offered.candidate.raw
    key = ("reach-unselected", id(raw), offered.candidate.position, "ingress")
    hit = ctx.memo.reach.get(key)
    if hit is not None and hit[0] is raw:
        known: tuple[ReachDocument, ...] = hit[1]
        return known
    documents = tuple(ingress_documents(offered.candidate, subject, data))
    ctx.memo.reach[key] = (raw, documents)
    return documents


def _unparsed(
    ctx: CheckContext,
    namespace: str,
    verdict: Verdict,
    kinds: frozenset[str] = REACH_POLICY_KINDS,
) -> list[_Judged]:
    """A document that may be a policy of ``kinds`` and could not be parsed
    fails reach closed, egress and ingress alike (SEMANTICS §17.7). Once
    per namespace, verdict and kinds (every path of the namespace finds the
    same; the load problems are kept with them)."""
    # The verdict by its class too: an egress and an ingress verdict may be equal strings.
    key = ("reach-unparsed", namespace, type(verdict), verdict, kinds)
    hit = ctx.memo.reach.get(key)
    if hit is None or hit[0] is not ctx.problems:
        hit = (ctx.problems, tuple(_unparsed_read(ctx, namespace, verdict, kinds)))
        ctx.memo.reach[key] = hit
    return list(hit[1])


def _unparsed_read(
    ctx: CheckContext, namespace: str, verdict: Verdict, kinds: frozenset[str]
) -> list[_Judged]:
    judged = []
    for placeholder in unparsed_placeholders(ctx.problems, namespace, kinds):
        document = placeholder.document
        reach_document = ReachDocument(
            kind=document.kind,
            name=document.name,
            verdict=verdict,
            detail=document.unreadable,
            rule_index=None,
            rule_path=(),
            group="other",
        )
        judged.append(_Judged(reach_document, None, placeholder.location))
    return judged


def _location(obj: KubeObject, document: ReachDocument) -> Location:
    if document.verdict in _OFFENDING and document.rule_path:
        return precise_location(obj, document.rule_path)
    return location_of(obj)


def _ingress_entries(
    documents: Sequence[ReachDocument], judged: Sequence[_Judged]
) -> list[tuple[ExaminedEntry, KubeObject | None]]:
    """The report's entries in the decision's order, each with its object
    (the decision hands back what it was given; anything else, given order)."""
    by_identity: dict[int, tuple[ExaminedEntry, KubeObject | None]] = {}
    for item in judged:
        namespace = item.obj.namespace if item.obj is not None else None
        by_identity[id(item.document)] = (_judged_entry(item, namespace), item.obj)
    ordered = [by_identity.get(id(document)) for document in documents]
    if len(ordered) == len(by_identity) and all(entry is not None for entry in ordered):
        return [entry for entry in ordered if entry is not None]
    return list(by_identity.values())


def _findings(
    entries: Sequence[tuple[ExaminedEntry, KubeObject | None, tuple[str | int, ...]]],
    given: ReachInput,
    data: ReachData | None = None,
    culprits: tuple[_Culprits, _Culprits] | None = None,
) -> list[Finding]:
    """One finding per culprit, at its own line. ``culprits``: the culprits'
    findings made so far for the namespace's paths, which list the same
    entries, and for the whole run's (those of clusterwide objects and
    unparsed documents, whose entries every namespace shares)."""
    findings = []
    sandbox, related = given.sandbox, (given.declaration,)
    for entry, obj, path in entries:
        if entry.verdict not in _OFFENDING or entry.location is None:
            continue
        table = None
        if culprits is not None:
            table = culprits[1] if obj is None or obj.namespace is None else culprits[0]
        found = _culprit_finding_once(table, entry, obj, path, data)
        findings.append(replace(found, sandbox=sandbox, affected=(sandbox,), related=related))
    return findings


_Culprits = dict[Hashable, tuple[tuple[object, ...], Finding]]
"""Culprits' findings by entry, object, rule path and data (``_culprit_finding_once``)."""


def _culprit_finding_once(
    culprits: _Culprits | None,
    entry: ExaminedEntry,
    obj: KubeObject | None,
    path: tuple[str | int, ...],
    data: ReachData | None,
) -> Finding:
    """The finding of a culprit, but for the path it is found on (``sandbox``,
    ``affected``, ``related``): once per entry, object, rule path and data
    (the first three by identity, kept with the answer so no id is reused).
    Every path that meets the culprit shares its message, remedy and
    culprit, so the merge and a child's answer hold each once."""
    held = (entry, obj, data)
    key = (*map(id, held), path)
    hit = culprits.get(key) if culprits is not None else None
    if hit is not None and held_alike(hit[0], held):
        return hit[1]
    rule_id = _RULE_OF_VERDICT[EgressVerdict(entry.verdict)]
    culprit = _culprit(entry, obj, path, data)
    assert entry.location is not None
    found = rule_finding(
        rule_id,
        culprit_message(culprit, 1),
        entry.location,
        obj=obj,
        remedy=remedy_text(rule_id, "reach"),
        culprit=culprit,
    )
    if culprits is not None:
        culprits[key] = (held, found)
    return found


def _culprit(
    entry: ExaminedEntry,
    obj: KubeObject | None,
    path: tuple[str | int, ...],
    data: ReachData | None = None,
) -> Culprit:
    value = value_at(obj.value, path) if obj is not None and path else None
    # The deciding rule's neighbours: reach reports the rule that decided,
    # and any other rule of the list may let out more, now or once edited.
    rules = value_at(obj.value, path[:-1]) if obj is not None and path else None
    others: list[JSON] = []
    if isinstance(rules, list) and isinstance(path[-1], int):
        others = [rule for index, rule in enumerate(rules) if index != path[-1]]
    more = [*others, *referenced_content([value, *others], entry.kind, data)]
    return Culprit(
        kind=entry.kind,
        name=entry.name,
        namespace=entry.namespace,
        origin=entry.origin,
        verb=verb(_RULE_OF_VERDICT[entry.verdict]),
        lets_out=(lets_out_clause(path, entry.detail),),
        content_hash=content_hash(
            entry.kind, entry.namespace, entry.name, value, entry.detail, more=more
        ),
    )


class IngressReachInput(msgspec.Struct, frozen=True):
    """One sandbox path whose agent port is checked (CLUSTER-POLICIES §8)."""

    sandbox: SandboxRef
    declaration: Location
    subject: Subject
    template: KubeObject | None
    allowance: Allowance
    claim_annotations: Mapping[str, tuple[str, str]] = msgspec.field(default_factory=dict)


def check_ingress_reach(
    ctx: CheckContext, given: IngressReachInput
) -> tuple[DecisionReport, list[Finding]]:
    """``ingress.reach``: §8's fail-closed rule over the new kinds. The
    reference's ingress decision is untouched; a culprit here is reported
    under ``ingress-not-evaluable`` at its own line."""
    subject = ReachSubject(
        namespace=given.subject.namespace,
        pod=pod_label_view(given.subject.labels),
        service_account=service_account_name(given.template),
        allowance=given.allowance,
        iso=False,
        cilium=False,
        pod_template=_pod_template(given.template),
        pod_annotations=_added_annotations(given.claim_annotations),
    )
    data = reach_data_of(ctx)
    judged: list[_Judged] = []
    for offered in offered_in(ctx, subject.namespace):
        if _quiet(ctx, offered, subject, given.subject.labels, data):
            documents = _quiet_ingress(ctx, offered, subject, data)
        else:
            documents = ingress_documents(offered.candidate, subject, data)
        for document in documents:
            judged.append(_Judged(document, offered.obj, _location(offered.obj, document)))
    for document in ingress_pod_condition_documents(subject):
        obj = _condition_object(
            ctx, subject.namespace, given.template, document, given.claim_annotations
        )
        location = _location(obj, document) if obj is not None else given.declaration
        judged.append(_Judged(document, obj, location))
    judged += _unparsed(ctx, subject.namespace, IngressVerdict.NOT_EVALUABLE)
    decision = decide_ingress_reach([j.document for j in judged])
    entries = _ingress_entries(decision.documents, judged)  # type: ignore[arg-type]
    report = DecisionReport(
        None if decision.refusal is None else str(decision.refusal),
        decision.summary,
        examined_list([entry for entry, _ in entries]),
    )
    culprits = [
        (entry, obj, entry.location)
        for entry, obj in entries
        if entry.verdict in _INGRESS_CULPRITS and entry.location is not None
    ]
    if decision.refusal is None or not culprits:
        return report, []
    # One finding per culprit (issue 13), each at its own line.
    findings = [
        rule_finding(
            _INGRESS_RULE,
            undecided_for_ingress(entry.kind, entry.name, entry.detail),
            location,
            sandbox=given.sandbox,
            obj=obj,
            remedy=remedy_text(_INGRESS_RULE, "reach"),
            related=[given.declaration],
        )
        for entry, obj, location in culprits
    ]
    return report, findings
