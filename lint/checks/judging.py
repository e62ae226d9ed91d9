"""Judging a decision's policies, once per namespace and context: the
union and ingress checks gather the judged documents of a scope here, with
their origins, and turn a refusal into a finding.

A candidate's judged entries depend only on the candidate, the pod labels
its selectors read, and the decision's context (the allowance, or the
agent port). Many declarations share a namespace and an allowance, so each
candidate is judged once per distinct context and the entries are reused
(DESIGN §7: remember verdicts).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.checks.candidates import (
    CNP,
    NP,
    Placeholder,
    Sourced,
    cilium_candidates,
    manifest_at,
    merged_by_name,
    synthesized_at,
    synthesized_candidates,
    unparsed_placeholders,
    with_synthesized,
)
from lint.checks.context import (
    CheckContext,
    JudgedEntry,
    JudgmentMemo,
    Origin,
    examined_entries,
    origin_entries,
)
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.egress_documents import document_name
from lint.decision.model import (
    Candidate,
    EgressVerdict,
    Examined,
    PolicyDocument,
    Subject,
    Tri,
)
from lint.decision.policy_shape import Direction
from lint.decision.selection_index import ScopeSelection, selection_index
from lint.inventory import KubeObject, Namespace
from lint.report.model import (
    QUIET_VERDICT,
    Cut,
    DecisionReport,
    ExaminedList,
    SharedEntries,
    shared_entries,
)

_ENTRY = operator.attrgetter("entry")
_EXAMINED = operator.attrgetter("examined")

DocumentReader = Callable[[Candidate], list[PolicyDocument]]
Examiner = Callable[[PolicyDocument], Examined]


class Scope(msgspec.Struct, frozen=True):
    """Where a decision looks: the namespace, the template (for the
    controller's policy on the pooled path), and whether Cilium kinds count."""

    namespace: str
    template: KubeObject | None
    pooled: bool
    """Whether the controller's policies for the template are candidates
    (``with_controller``)."""
    with_cilium: bool
    only_cilium: bool = False
    """Only the Cilium candidates: reach's reading of them under engine core."""
    facts: ControllerFacts = DEFAULT_FACTS


def with_controller(path: str, facts: ControllerFacts) -> bool:
    """Whether the path's pods can carry the label the controller's policy
    selects on (AGENT-SANDBOX §6, §8): pooled and warm pods; direct ones only
    where the version copies the label from the pod template as written."""
    return path != "direct" or facts.column.hash_on_pods == "as-written"


def _prepared_runs(ctx: CheckContext, scope: Scope) -> tuple[tuple[Prepared, ...], ...]:
    """The scope's candidates in §5.1 order, with their memo keys, in runs:
    the NetworkPolicies (with the controller's on a pooled path), then the
    Cilium policies where the scope reads them; or those alone. The
    namespace's NetworkPolicies and its Cilium policies are each prepared
    once, as one run shared by every scope that reads them as they are:
    all but a pooled path's with controller policies, which are placed
    among the NetworkPolicies by name and so move them."""
    namespace = ctx.inventory.namespace(scope.namespace)
    if scope.only_cilium:
        return (_shared_prepared(ctx, CNP, namespace),)
    synthesized = synthesized_candidates(namespace, scope.template, scope.pooled, scope.facts)
    if synthesized:
        runs = [_prepared_with(ctx, namespace, synthesized)]
    else:
        runs = [_shared_prepared(ctx, NP, namespace)]
    if scope.with_cilium or ctx.read_cilium == "always":
        runs.append(_shared_prepared(ctx, CNP, namespace))
    return tuple(runs)


def _shared_prepared(ctx: CheckContext, kind: str, namespace: Namespace) -> tuple[Prepared, ...]:
    """The namespace's manifest NetworkPolicies (``NP``) or Cilium policies
    (``CNP``, the clusterwide ones after them), prepared once per namespace."""
    key = ("prepared-candidates", kind, namespace.name)
    hit = ctx.memo.scopes.get(key)
    if hit is not None and hit[0] is namespace:
        known: tuple[Prepared, ...] = hit[1]
        return known
    if kind == NP:
        sourced = with_synthesized(namespace, ())
    else:
        sourced = cilium_candidates(namespace, ctx.inventory)
    prepared = tuple(map(_prepare, sourced))
    ctx.memo.scopes[key] = (namespace, prepared)
    return prepared


def _prepared_with(
    ctx: CheckContext, namespace: Namespace, synthesized: Sequence[Sourced]
) -> tuple[Prepared, ...]:
    """The namespace's NetworkPolicies with a template's controller
    policies among them (``with_synthesized``), prepared. Each template's
    policies move the manifests after them by as many places, so a manifest
    is prepared once per place it takes while the namespace is judged, not
    once per template (kept with its object, so no id is reused)."""
    key = ("prepared-at", namespace.name)
    hit = ctx.memo.scopes.get(key)
    if hit is None or hit[0] is not namespace:
        hit = (namespace, {})
        ctx.memo.scopes[key] = hit
    placed: dict[tuple[int, int], tuple[KubeObject, Prepared]] = hit[1]
    prepared = []
    for position, (obj, item) in enumerate(merged_by_name(namespace, synthesized)):
        if item is not None:
            prepared.append(_prepare(synthesized_at(item, position)))
            continue
        known = placed.get((id(obj), position))
        if known is None or known[0] is not obj:
            known = placed[(id(obj), position)] = (
                obj,
                _prepare(manifest_at(obj, position)),
            )
        prepared.append(known[1])
    return tuple(prepared)


def _prepare(item: Sourced) -> Prepared:
    return Prepared(item, document_name(item.candidate))


def _placeholders(ctx: CheckContext, scope: Scope) -> tuple[Placeholder, ...]:
    """The namespace's unparsed documents, found once while the namespace is
    judged (the load problems are kept with them): every scope of it finds
    the same, and one placeholder for all of them lets a culprit among
    them be made once for its paths (``culprits._culprit_of``)."""
    key = ("unparsed-placeholders", scope.namespace)
    hit = ctx.memo.scopes.get(key)
    if hit is None or hit[0] is not ctx.problems:
        hit = (ctx.problems, tuple(unparsed_placeholders(ctx.problems, scope.namespace)))
        ctx.memo.scopes[key] = hit
    found: tuple[Placeholder, ...] = hit[1]
    return found


class Judging(msgspec.Struct, frozen=True):
    """How one decision judges: its reader and examiner, the key of its
    context (everything besides the candidate and the pod's labels that
    the documents depend on), and the key its rules sit under."""

    read: DocumentReader
    examine: Examiner
    context: Hashable
    rules_key: Direction
    subject: Subject
    named: tuple[str, str] | None = None
    """The translation's (kind, name): the one candidate exempt from rule
    judgement (§11.2) is judged apart from every other."""


class Prepared(msgspec.Struct, frozen=True):
    """A candidate with its document name, read once per scope. The label
    keys its selectors read (``JudgmentMemo.keys_of``) are read only for
    the candidates a path visits: most never are."""

    item: Sourced
    name: str


class _Block(msgspec.Struct, frozen=True):
    """The shared entries of one scope and direction, laid out once: every
    filled slot's entries in candidate order, as judged entries and in their
    report form. Candidate ``i``'s entries sit at
    ``offsets[i]:offsets[i + 1]`` (none for a slot not filled). A path's
    whole list is this block with its visited candidates put in their places
    (``Judged``), so it is a copy at C speed, not a pass over every entry.
    Rebuilt, never changed, when a slot is filled: a ``Judged`` keeps the
    block it was made with."""

    judged: list[JudgedEntry]
    report: SharedEntries
    offsets: list[int]
    unfilled: frozenset[int]
    """The candidates without shared entries: every path visits them."""


def _block_of(slots: Sequence[tuple[JudgedEntry, ...] | None]) -> _Block:
    # At C speed where it can be: a block is laid out again each time a
    # namespace's slots are filled. An unfilled slot and an empty one both
    # hold no entry.
    judged = list(chain.from_iterable(filter(None, slots)))
    offsets = [0, *accumulate([0 if slot is None else len(slot) for slot in slots])]
    unfilled = frozenset([i for i, slot in enumerate(slots) if slot is None])
    report = shared_entries(list(map(_ENTRY, judged)))
    return _Block(judged, report, offsets, unfilled)


@dataclass
class _Quiet:
    """One direction of a run of candidates (``_prepared_runs``), shared by
    every scope of the namespace that reads the run: the selection index,
    and each indexable candidate's shared ``does-not-select`` entries,
    filled the first time a pod it cannot select is judged (``missing`` are
    those not filled yet). ``loud`` are the filled slots with an entry of
    another verdict, which the index's guarantee rules out; they are
    searched all the same, so a verdict never rests on that guarantee.
    ``fills`` counts the times slots were filled, so that a scope knows
    when to lay its block out again. Positions are the run's own."""

    index: ScopeSelection
    slots: list[tuple[JudgedEntry, ...] | None]
    missing: set[int]
    loud: set[int] = field(default_factory=set)
    fills: int = 0

    def fill(
        self, indices: set[int], memo: JudgmentMemo, run: tuple[Prepared, ...], judging: Judging
    ) -> None:
        """Give each of ``indices`` its shared entries (``_unselected``): a
        plain loop, as every candidate of a namespace is filled here."""
        slots, loud = self.slots, self.loud
        for index in indices:
            entries = slots[index] = _unselected(memo, run[index], False, judging)
            # Most slots hold one entry, and no generator is made.
            for judged in entries:
                if judged.entry.verdict != QUIET_VERDICT:
                    loud.add(index)
                    break


@dataclass
class _Layout:
    """One direction of a scope: its runs' quiet slots put together, by the
    scope's positions (``starts``: where each run begins), and laid out in
    ``block``. ``seen`` are the runs' ``fills`` when it was put together:
    another scope of the namespace may have filled a shared run since."""

    runs: tuple[_Quiet, ...]
    starts: tuple[int, ...]
    seen: tuple[int, ...]
    slots: list[tuple[JudgedEntry, ...] | None]
    loud: set[int]
    block: _Block


class PreparedScope(msgspec.Struct, frozen=True):
    """A scope's candidates in §5.1 order, with their indices by kind and
    name. The candidates a path visits are grouped by the label keys their
    selectors read (``_visited``): every candidate of a group sees the same
    labels, so a group is looked up once per decision instead of once per
    candidate."""

    candidates: list[Prepared]
    by_name: dict[tuple[str, str], tuple[int, ...]]
    runs: tuple[tuple[Prepared, ...], ...] = ()
    """The runs ``candidates`` is made of, in order (``_prepared_runs``)."""
    quiet: dict[Direction, _Layout] = msgspec.field(default_factory=dict)
    """Per direction, built on first use (``_layout_of``)."""
    copied: tuple[tuple[int, ...], ...] = ()
    """The candidates of each kind and name held by several objects."""


def _prepared(ctx: CheckContext, scope: Scope) -> PreparedScope:
    with_cilium = scope.with_cilium or ctx.read_cilium == "always"
    # The template matters only on the pooled path, through its controller
    # policy, which a scope of the Cilium policies alone does not hold.
    template = scope.template if scope.pooled and not scope.only_cilium else None
    key = (scope.namespace, id(template), scope.pooled, with_cilium, scope.only_cilium, scope.facts)
    cached = ctx.memo.scopes.get(key)
    if cached is not None and cached[0] is template:
        prepared: PreparedScope = cached[1]
        return prepared
    runs = _prepared_runs(ctx, scope)
    candidates = list(chain.from_iterable(runs))
    by_name: dict[tuple[str, str], list[int]] = {}
    for index, candidate in enumerate(candidates):
        by_name.setdefault((candidate.item.candidate.kind, candidate.name), []).append(index)
    prepared = PreparedScope(
        candidates,
        {name: tuple(indices) for name, indices in by_name.items()},
        runs,
        copied=tuple(tuple(indices) for indices in by_name.values() if len(indices) > 1),
    )
    ctx.memo.scopes[key] = (template, prepared)
    return prepared


def _quiet_of(memo: JudgmentMemo, run: tuple[Prepared, ...], direction: Direction) -> _Quiet:
    """The run's quiet slots in one direction, made once per namespace."""
    key = ("quiet-run", id(run), direction)
    hit = memo.scopes.get(key)
    if hit is not None and hit[0] is run:
        known: _Quiet = hit[1]
        return known
    requirements = [memo.requirements_of(p.item.candidate, direction) for p in run]
    index = selection_index([p.item.candidate for p in run], requirements)
    missing = set(range(len(run))).difference(index.core.always, index.cilium.always)
    quiet = _Quiet(index, [None] * len(run), missing)
    memo.scopes[key] = (run, quiet)
    return quiet


def _layout_of(memo: JudgmentMemo, prepared: PreparedScope, direction: Direction) -> _Layout:
    """The scope's layout in one direction, over its runs' shared slots;
    put together by ``_fill_runs``."""
    layout = prepared.quiet.get(direction)
    if layout is None:
        runs = tuple(_quiet_of(memo, run, direction) for run in prepared.runs)
        starts = tuple(accumulate((len(run) for run in prepared.runs[:-1]), initial=0))
        layout = _Layout(runs, starts, (), [], set(), _block_of([]))
        prepared.quiet[direction] = layout
    return layout


def _fill_runs(
    memo: JudgmentMemo, prepared: PreparedScope, layout: _Layout, judging: Judging
) -> set[int]:
    """The scope's candidates that can select the pod (``selecting``), each
    run's others given their shared entries first; the layout put together
    again if any run was filled since it last was."""
    selecting: set[int] = set()
    for run, quiet, start in zip(prepared.runs, layout.runs, layout.starts, strict=True):
        found = quiet.index.selecting(judging.subject)
        filled = quiet.missing - found
        if filled:
            quiet.fill(filled, memo, run, judging)
            quiet.missing &= found
            quiet.fills += 1
        selecting.update(found if start == 0 else [start + i for i in found])
    seen = tuple(quiet.fills for quiet in layout.runs)
    if seen != layout.seen:
        layout.seen = seen
        layout.slots = list(chain.from_iterable(quiet.slots for quiet in layout.runs))
        starts = zip(layout.runs, layout.starts, strict=True)
        layout.loud = {start + i for quiet, start in starts for i in quiet.loud}
        layout.block = _block_of(layout.slots)
    return selecting


class Judged(msgspec.Struct, frozen=True):
    """Every examined entry of one decision, in §5.1 order: the scope's
    shared block with the candidates visited for this pod in their places,
    then the unparsed placeholders.

    ``selecting`` holds, in order, every entry whose verdict is not
    ``does-not-select``: those alone can decide a refusal, be a culprit,
    isolate the pod or draw an advisory, so every verdict search reads them
    and no other. The whole list, in any of its forms, is assembled on
    demand: a copy of the block at C speed and a few placings."""

    block: _Block
    own: tuple[tuple[int, tuple[JudgedEntry, ...]], ...]
    """The visited candidates' entries, by candidate, in candidate order."""
    tail: tuple[JudgedEntry, ...]
    selecting: tuple[JudgedEntry, ...]
    split: frozenset[int] = frozenset()
    """The identities of the objects of copies that isolate the pod while
    another copy of their name does not (``_split_copies``): none of them
    counts as isolating. Objects, not origins: the entries of one object
    are shared by the scopes of a namespace (two templates' pooled paths),
    each with origins of its own."""

    def entries(self) -> list[JudgedEntry]:
        return self._assembled(self.block.judged)

    def report(self) -> ExaminedList:
        """Each entry's report form: the decision report's ``examined``,
        held as the block's shared entries with this pod's own cut in."""
        offsets = self.block.offsets
        cuts = tuple(
            Cut(offsets[index], offsets[index + 1], tuple(map(_ENTRY, entries)))
            for index, entries in self.own
        )
        return ExaminedList(self.block.report, cuts, tuple(map(_ENTRY, self.tail)))

    def examined(self) -> tuple[Examined, ...]:
        return tuple(map(_EXAMINED, self.entries()))

    def _assembled(self, shared: list[JudgedEntry]) -> list[JudgedEntry]:
        whole = shared.copy()
        offsets = self.block.offsets
        # From the last candidate back, so each place is still where the
        # block says when it is filled.
        for index, entries in reversed(self.own):
            whole[offsets[index] : offsets[index + 1]] = entries
        whole += self.tail
        return whole


NO_ENTRIES: Final = Judged(_block_of([]), (), (), ())
"""A decision with nothing examined."""


def judged_entries(
    ctx: CheckContext,
    scope: Scope,
    labels: Mapping[str, str],
    judging: Judging,
    *,
    placeholders: bool = True,
) -> Judged:
    """Every examined entry of the decision, in §5.1 order (``_judged``),
    once per scope, judging context and pod labels while the namespace is
    judged: the paths that differ only in name (a template's pooled and
    warm paths) share one ``Judged``, so what reads it after them (reach)
    can tell by identity that they were judged alike."""
    key = (
        scope.namespace,
        id(scope.template),
        scope.pooled,
        scope.with_cilium,
        scope.only_cilium,
        scope.facts,
        judging.context,
        judging.rules_key,
        judging.named,
        judging.subject.namespace,
        tuple(sorted(labels.items())),
        placeholders,
    )
    hit = ctx.memo.judged.get(key)
    if hit is not None and hit[0] is scope.template:
        known: Judged = hit[1]
        return known
    judged = _judged(ctx, scope, labels, judging, placeholders)
    ctx.memo.remember_judged(key, (scope.template, judged))
    return judged


def _judged(
    ctx: CheckContext,
    scope: Scope,
    labels: Mapping[str, str],
    judging: Judging,
    placeholders: bool,
) -> Judged:
    """Every examined entry of the decision, in §5.1 order, reusing what an
    earlier decision with the same context already judged.

    Only the candidates the selection index says can select the pod are
    visited; every other one takes its shared ``does-not-select`` entries
    (``_unselected``, laid out in the scope's block), with no entry of its
    own in the memo. A group's memo key holds the pod's own values of the
    keys its selectors read, which also settle which of its candidates the
    index visits. The namespace, which Cilium adds to the labels it
    matches, is fixed by the scope.
    """
    prepared = _prepared(ctx, scope)
    quiet = _layout_of(ctx.memo, prepared, judging.rules_key)
    selecting = _fill_runs(ctx.memo, prepared, quiet, judging)
    own: dict[int, tuple[JudgedEntry, ...]] = {}
    named = _named_by_group(ctx.memo, prepared, judging)
    for named_indices in named.values():
        for i in named_indices:
            if i not in selecting:
                own[i] = _unselected(ctx.memo, prepared.candidates[i], True, judging)
    own.update(_visited(ctx, prepared, selecting, named, labels, judging))
    # A candidate with no shared entries left unvisited (a bug) fails loudly.
    assert quiet.block.unfilled <= own.keys(), "a candidate was neither visited nor shared"
    tail = _placeholder_entries(ctx, scope, judging) if placeholders else ()
    split: frozenset[int] = frozenset()
    if judging.rules_key == "egress" and prepared.copied:
        replaced, split = _split_copies(prepared, quiet, own, judging)
        own.update(replaced)
    searched = _selecting(quiet, own, tail)
    return Judged(quiet.block, tuple(sorted(own.items())), tail, searched, split)


COPY_NOT_ISOLATING: Final = (
    "it isolates the pod, but another copy of the same name ({places}) does not; only one "
    "copy can exist in the cluster, and which one depends on the order they are applied"
)


def _split_copies(
    prepared: PreparedScope,
    quiet: _Layout,
    own: Mapping[int, tuple[JudgedEntry, ...]],
    judging: Judging,
) -> tuple[dict[int, tuple[JudgedEntry, ...]], frozenset[int]]:
    """Copies of one kind and name (``duplicate-object``) of which some
    isolate the pod for egress and some do not: any one of them may be the
    one the cluster keeps, so none counts as isolating, whatever the file
    order. Each isolating copy's ``within`` entries become
    ``not-egress-scoped``, saying why; what its rules let out is still
    judged, so a widening copy still widens. Also the identities of those
    copies' objects, which reach does not count as isolating either."""
    replaced: dict[int, tuple[JudgedEntry, ...]] = {}
    split: set[int] = set()
    for indices in prepared.copied:
        entries = {i: own.get(i, quiet.slots[i] or ()) for i in indices}
        isolating = [i for i in indices if any(map(_isolates, entries[i]))]
        if not isolating or len(isolating) == len(indices):
            continue
        others = [prepared.candidates[j].item.obj for j in indices if j not in isolating]
        places = ", ".join(f"{o.document.file}:{o.document.line}" for o in others)
        for i in isolating:
            replaced[i] = tuple(_not_isolating(entry, places, judging) for entry in entries[i])
            split.add(id(prepared.candidates[i].item.obj))
    return replaced, frozenset(split)


def _isolates(entry: JudgedEntry) -> bool:
    document = entry.examined.document
    return document.selects is Tri.YES and document.enforces and document.unreadable is None


def _not_isolating(entry: JudgedEntry, places: str, judging: Judging) -> JudgedEntry:
    if entry.examined.verdict != EgressVerdict.WITHIN:
        return entry
    examined = replace(
        entry.examined,
        verdict=EgressVerdict.NOT_EGRESS_SCOPED,
        detail=COPY_NOT_ISOLATING.format(places=places),
    )
    origins: dict[int, Origin] = {id(examined.document): entry.origin}
    report = examined_entries([examined], origins, judging.rules_key)[0]
    return JudgedEntry(examined, report, entry.origin)


def _selecting(
    quiet: _Layout, own: dict[int, tuple[JudgedEntry, ...]], tail: tuple[JudgedEntry, ...]
) -> tuple[JudgedEntry, ...]:
    """The entries that are not ``does-not-select``, in order: among the
    visited candidates', the loud shared slots' and the placeholders'; every
    other entry is a shared ``does-not-select`` one."""
    searched = dict(own)
    for i in quiet.loud - own.keys():
        searched[i] = quiet.slots[i] or ()
    ordered = chain.from_iterable(searched[i] for i in sorted(searched))
    return tuple(
        j for j in chain(ordered, tail) if j.entry.verdict != EgressVerdict.DOES_NOT_SELECT
    )


def _visited(
    ctx: CheckContext,
    prepared: PreparedScope,
    selecting: set[int],
    named: dict[tuple[str, ...], tuple[int, ...]],
    labels: Mapping[str, str],
    judging: Judging,
) -> Iterator[tuple[int, tuple[JudgedEntry, ...]]]:
    """The entries of each candidate the index visits, judged or reused a
    group at a time: the visited candidates whose selectors read the same
    label keys."""
    visited: dict[tuple[str, ...], list[int]] = {}
    keys_of = ctx.memo.keys_of
    for i in sorted(selecting):
        visited.setdefault(keys_of(prepared.candidates[i].item.candidate), []).append(i)
    for keys, members in visited.items():
        read_labels = tuple(map(labels.get, keys))
        group_named = named.get(keys, ())
        # The keys stand for the group: within one scope, the same keys are
        # the same group, whichever of its candidates a pod visits.
        key = (id(prepared), keys, judging.context, read_labels, group_named)
        hit = ctx.memo.groups.get(key)
        if hit is None or hit[0] is not prepared:
            entries = tuple(
                _entries_for(
                    ctx.memo, prepared.candidates[i], read_labels, i in group_named, judging
                )
                for i in members
            )
            hit = (prepared, entries)
            ctx.memo.groups[key] = hit
        yield from zip(members, hit[1], strict=True)


def _placeholder_entries(
    ctx: CheckContext, scope: Scope, judging: Judging
) -> tuple[JudgedEntry, ...]:
    entries = []
    for placeholder in _placeholders(ctx, scope):
        examined = judging.examine(placeholder.document)
        origins: dict[int, Origin] = {id(placeholder.document): placeholder}
        entry = examined_entries([examined], origins, judging.rules_key)[0]
        entries.append(JudgedEntry(examined, entry, placeholder))
    return tuple(entries)


def _named_by_group(
    memo: JudgmentMemo, prepared: PreparedScope, judging: Judging
) -> dict[tuple[str, ...], tuple[int, ...]]:
    """The candidates named like the translation, by the group (the label
    keys) they sit in."""
    indices = prepared.by_name.get(judging.named, ()) if judging.named else ()
    named: dict[tuple[str, ...], tuple[int, ...]] = {}
    for index in indices:
        group = memo.keys_of(prepared.candidates[index].item.candidate)
        named[group] = (*named.get(group, ()), index)
    return named


def _entries_for(
    memo: JudgmentMemo,
    prepared: Prepared,
    read_labels: tuple[str | None, ...],
    named: bool,
    judging: Judging,
) -> tuple[JudgedEntry, ...]:
    candidate = prepared.item.candidate
    # A clusterwide candidate sits in every namespace's scope, and Cilium
    # matches the namespace too: it is part of the key.
    namespace = judging.subject.namespace
    key = (id(candidate.raw), candidate.position, namespace, judging.context, read_labels, named)
    hit = memo.entries.get(key)
    if hit is not None and hit[0] is candidate.raw:
        return hit[1]
    if memo.selects_nothing(candidate, judging.subject, judging.rules_key, read_labels):
        value = _unselected(memo, prepared, named, judging)
    else:
        value = _judge(memo, prepared, judging)
    memo.entries[key] = (candidate.raw, value)
    return value


def _unselected(
    memo: JudgmentMemo, prepared: Prepared, named: bool, judging: Judging
) -> tuple[JudgedEntry, ...]:
    """Entries of a candidate none of whose documents select the pod: the
    same under every context and label set (``selects_nothing``), so they
    are judged once per direction and shared."""
    candidate = prepared.item.candidate
    key = (id(candidate.raw), candidate.position, judging.rules_key, named)
    hit = memo.unselected.get(key)
    if hit is not None and hit[0] is candidate.raw:
        return hit[1]
    value = _judge(memo, prepared, judging)
    memo.unselected[key] = (candidate.raw, value)
    return value


def _judge(memo: JudgmentMemo, prepared: Prepared, judging: Judging) -> tuple[JudgedEntry, ...]:
    item = prepared.item
    documents = judging.read(item.candidate)
    if len(documents) == 1:
        # The usual case (every NetworkPolicy): no maps over one document.
        one = (judging.examine(documents[0]),)
        entry = origin_entries(one, item, judging.rules_key, memo.quiet_entries)[0]
        return (JudgedEntry(one[0], entry, item),)
    examined = list(map(judging.examine, documents))
    entries = origin_entries(examined, item, judging.rules_key, memo.quiet_entries)
    return tuple(map(JudgedEntry, examined, entries, repeat(item, len(examined))))


def examined_of(judged: Sequence[JudgedEntry]) -> list[Examined]:
    """Each judged entry's examined entry, in order, at C speed."""
    return list(map(_EXAMINED, judged))


def decision_report(refusal: str | None, summary: str | None, judged: Judged) -> DecisionReport:
    return DecisionReport(None if refusal is None else str(refusal), summary, judged.report())
