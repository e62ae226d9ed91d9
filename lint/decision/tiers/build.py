"""The tier model's input for one pod on one acquisition path
(CLUSTER-POLICIES.md §12.2, §12.3.2, §12.4, §12.7, §5.11).

``build_tier_input`` takes what the reach procedure is given today (the
candidates, the data-only objects, the pod's labels and service account,
the allowance, the Cilium flag) plus the declaration's ``cluster.enforces``,
and reads every object through its kind's reader. The readers are one row
per kind in ``READERS``, keyed by the kind constants of ``lint.kinds``; an
object's kind comes from ``lint.kinds.identify`` alone, never from its
``apiVersion`` string here.

- a policy kind with no reader in the table fails closed as undecidable,
  so a kind added to ``lint.kinds`` never passes unseen;
- Calico tiers come from the ``Tier`` manifests (the data's and any among
  the candidates); a tier a policy names without a manifest has an
  unknown position and default action; two manifests of one name that
  disagree leave what they disagree on unknown;
- DEFTIER (a ``default`` Tier that passes) makes the ``default`` tier end
  in Pass;
- documents come sorted by slot, kind, name and content, so the result
  does not depend on the order of the candidates; each ``ref`` is its
  object's index among the candidates (a ``Tier`` of the data: -1).

Pure: plain data in, a frozen ``TierInput`` out.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import partial
from typing import Final, TypeAlias

import msgspec
from msgspec.structs import replace

from lint.decision.model import Allowance, Tri
from lint.decision.reach.calico_tiers import deftier
from lint.decision.reach.common import display_kind, object_name
from lint.decision.reach.model import LabelView, ReachCandidate, ReachData, ReachSubject, Skipped
from lint.decision.tiers.credit import Evidence, credits, manifest_evidence
from lint.decision.tiers.kleene import kleene_and
from lint.decision.tiers.model import (
    Action,
    CalicoTier,
    Slot,
    TierDocument,
    TierInput,
    TierRule,
    Undecidable,
)
from lint.decision.tiers.read_admin import read_anp, read_banp, read_cnp
from lint.decision.tiers.read_calico import (
    BUILT_IN_SLOTS,
    read_calico_global,
    read_calico_namespaced,
    read_staged,
    read_tier,
)
from lint.decision.tiers.read_catch_all import PATH_REF, pod_condition_undecidables, read_catch_all
from lint.decision.tiers.read_cilium import read_cilium_clusterwide, read_cilium_namespaced
from lint.decision.tiers.read_core import read_core
from lint.decision.tiers.reading import Read, ReadContext, ReadMemo
from lint.decision.values import JSON
from lint.kinds import (
    ADMIN_NETWORK_POLICY,
    BASELINE_ADMIN_NETWORK_POLICY,
    CALICO_GLOBAL_NETWORK_POLICY,
    CALICO_NETWORK_POLICY,
    CALICO_STAGED_GLOBAL_NETWORK_POLICY,
    CALICO_STAGED_KUBERNETES_NETWORK_POLICY,
    CALICO_STAGED_NETWORK_POLICY,
    CALICO_TIER,
    CATCH_ALL_KINDS,
    CILIUM_CLUSTERWIDE_NETWORK_POLICY,
    CILIUM_NETWORK_POLICY,
    CLUSTER_NETWORK_POLICY,
    CONFIG_MAP,
    NETWORK_POLICY,
    Decision,
    Kind,
    identify,
)

Reader: TypeAlias = Callable[[ReachCandidate, ReadContext], Read]

READERS: Final[Mapping[Kind, Reader]] = {
    NETWORK_POLICY: read_core,
    CILIUM_NETWORK_POLICY: read_cilium_namespaced,
    CILIUM_CLUSTERWIDE_NETWORK_POLICY: read_cilium_clusterwide,
    ADMIN_NETWORK_POLICY: read_anp,
    BASELINE_ADMIN_NETWORK_POLICY: read_banp,
    CLUSTER_NETWORK_POLICY: read_cnp,
    CALICO_GLOBAL_NETWORK_POLICY: read_calico_global,
    CALICO_NETWORK_POLICY: read_calico_namespaced,
    CALICO_STAGED_GLOBAL_NETWORK_POLICY: read_staged,
    CALICO_STAGED_NETWORK_POLICY: read_staged,
    CALICO_STAGED_KUBERNETES_NETWORK_POLICY: read_staged,
    CALICO_TIER: read_tier,
    CONFIG_MAP: read_catch_all,
    **dict.fromkeys(CATCH_ALL_KINDS, read_catch_all),
}
"""One reader per kind. ``CONFIG_MAP`` is Cilium's ``enable-policy: never``."""

UNJUDGED: Final = (
    "egress-lint recognises the {kind} kind as one that can let the pod out, but no "
    "reader judges it, so it fails closed"
)


def reader_for(kind: Kind | None) -> Reader | None:
    """The kind's reader: its row, the §7 reader for a catch-all kind the
    table does not name, or a fail-closed one for any other policy kind."""
    if kind is None:
        return None
    found = READERS.get(kind)
    if found is not None:
        return found
    if kind.decision is Decision.CATCH_ALL:
        return read_catch_all
    return _unjudged if kind.network_policy else None


def _unjudged(candidate: ReachCandidate, context: ReadContext) -> Read:
    shown = display_kind(candidate.api_version, candidate.kind)
    name = object_name(candidate.raw, candidate.position)
    detail = UNJUDGED.format(kind=shown)
    return Read(undecidable=(Undecidable(shown, name, detail, candidate.position),))


class Built(msgspec.Struct, frozen=True):
    """The engine's input, and what was skipped (staged, host endpoints)."""

    input: TierInput
    skipped: tuple[Skipped, ...] = ()


class PathFacts(msgspec.Struct, frozen=True):
    """The pod on one acquisition path: its labels (``pod_label_view``),
    service account, the template's ``spec.podTemplate`` and the path's
    extra pod annotations (a claim's)."""

    namespace: str
    pod: LabelView
    service_account: str = "default"
    pod_template: JSON = None
    pod_annotations: Mapping[str, JSON] = msgspec.field(default_factory=dict)


def path_facts_of(subject: ReachSubject) -> PathFacts:
    """The path's facts from the reach procedure's subject (what
    ``lint.checks.reach.reach_subject`` builds today)."""
    return PathFacts(
        namespace=subject.namespace,
        pod=subject.pod,
        service_account=subject.service_account,
        pod_template=subject.pod_template,
        pod_annotations=subject.pod_annotations,
    )


def build_tier_input(
    candidates: Sequence[ReachCandidate],
    data: ReachData,
    path: PathFacts,
    allowance: Allowance,
    *,
    cilium: bool = False,
    enforces: frozenset[str] | None = None,
    evidence: Evidence | None = None,
    memo: ReadMemo | None = None,
) -> Built:
    """The ``TierInput`` for one pod on one path.

    ``candidates`` are the policy objects offered (core NetworkPolicies,
    Cilium policies, every new kind, §7 kinds, the ``cilium-config``
    ConfigMap); any other object is ignored. ``cilium`` is the run's
    Cilium flag; ``enforces`` the declaration's ``cluster.enforces`` (None:
    absent). ``evidence`` defaults to what the candidates and the data's
    Tiers show; a caller that offers only one namespace's objects passes
    the whole manifests' evidence instead. ``memo``: where the readers keep
    what they read of an object for every pod (``ReadMemo``), for a caller
    that builds the input of many pods from the same objects.
    """
    own_tiers = _of_kind(candidates, CALICO_TIER)
    tier_objects = (*data.calico_tiers, *own_tiers)
    if evidence is None:
        evidence = manifest_evidence((*candidates, *data.calico_tiers), cilium)
    context = ReadContext(
        namespace=path.namespace,
        pod=path.pod,
        namespace_view=data.namespace_view(path.namespace),
        service_account=path.service_account,
        data=data,
        credits=credits(evidence, enforces),
        calico=evidence.calico,
        cilium_r=evidence.cilium_r,
        pod_template=path.pod_template,
        pod_annotations=path.pod_annotations,
        memo=memo,
    )
    calico_form = evidence.calico and not evidence.cilium_r
    read = partial(_read_candidates, candidates, context, calico_form)
    if memo is None or len(candidates) < FEWEST_KEPT:
        sorted_documents, undecidable_read, skipped = read()
    else:
        # Paths of a namespace whose pods read alike (the same labels and
        # service account) are offered the same objects: read them once.
        # Only the last few readings are kept: in a namespace where every
        # template's pod reads differently, none is asked for again.
        sorted_documents, undecidable_read, skipped = memo.recent(
            (data, *(candidate.raw for candidate in candidates)),
            ("candidates", _context_key(context), *map(_candidate_key, candidates)),
            read,
            RECENT_READINGS,
        )
    undecidable = [*pod_condition_undecidables(context), *undecidable_read]
    tiers: list[CalicoTier] = []
    for tier in data.calico_tiers:
        tiers += read_tier(tier, context).tiers
    for tier in own_tiers:
        tiers += read_tier(tier, context).tiers
    return Built(
        TierInput(
            namespace=path.namespace,
            allowance=allowance,
            documents=sorted_documents,
            tiers=_tiers(tiers, sorted_documents),
            undecidable=tuple(sorted(undecidable, key=repr)),
            calico_form=evidence.calico and not evidence.cilium_r,
            cilium_r=evidence.cilium_r,
            default_tier_passes=not deftier(replace(data, calico_tiers=tier_objects)),
        ),
        tuple(sorted(skipped, key=lambda s: (s.kind, s.name.encode(), s.reason))),
    )


RECENT_READINGS: Final = 8
"""How many readings of a namespace's candidates are kept (``ReadMemo.recent``)."""
FEWEST_KEPT: Final = 16
"""The fewest candidates whose reading is kept, whole or object by object:
a few are read again in less time than their key takes to build, or their
questions to note (a generated tree's paths read four each; the corpus's,
about 270)."""


def _read_candidates(
    candidates: Sequence[ReachCandidate], context: ReadContext, calico_form: bool
) -> tuple[tuple[TierDocument, ...], tuple[Undecidable, ...], tuple[Skipped, ...]]:
    """Every candidate read for the pod: the documents in their order, the
    undecidable objects and what is skipped. It reads of the context only
    what ``_context_key`` holds (the pod's conditions are read apart)."""
    memo = context.memo
    documents: list[TierDocument] = []
    undecidable: list[Undecidable] = []
    skipped: list[Skipped] = []
    # Each placed document's reading, by identity (the documents are held
    # in ``documents`` meanwhile): a tie is ordered by the content of the
    # reading, which every place of it shares.
    read_as: dict[int, TierDocument] = {}
    # A namespace's pods differ in a few labels, and an object's selectors
    # look at a few: each object is read once per answers it gets there
    # (``ReadMemo.traced``), under what else decides a reading. A few
    # candidates are read again in less time than noting the questions takes.
    token = None
    if memo is not None and len(candidates) >= FEWEST_KEPT:
        token = memo.token(context.data, _context_key(context, pod=False))
    for index, candidate in enumerate(candidates):
        kind = identify(candidate.api_version, candidate.kind)
        reader = reader_for(kind)
        if reader is None or kind is CALICO_TIER:
            continue
        if memo is None or token is None:
            read = reader(candidate, context)
        else:
            pod_reading = partial(_read_for_pod, reader, candidate, context)
            read = memo.traced(candidate, token, context.pod, pod_reading)
        for document in read.documents:
            placed = _placed(document, index, memo)
            documents.append(placed)
            read_as[id(placed)] = document
        undecidable += [replace(item, ref=index) for item in read.undecidable]
        skipped += read.skipped
    ordered = _sorted_documents(documents, calico_form=calico_form, memo=memo, read_as=read_as)
    return ordered, tuple(undecidable), tuple(skipped)


def _read_for_pod(
    reader: Reader, candidate: ReachCandidate, context: ReadContext, pod: LabelView
) -> Read:
    return reader(candidate, replace(context, pod=pod))


def _context_key(context: ReadContext, *, pod: bool = True) -> Hashable:
    """What the readers read of the context, as plain values (its ``data``
    is held by identity; the pod's template and annotations are read only
    for the pod's conditions, apart from the candidates); without the pod's
    labels when ``pod`` is False."""
    return (
        context.namespace,
        _view_key(context.pod) if pod else None,
        _view_key(context.namespace_view),
        context.service_account,
        tuple(sorted(context.credits.items())),
        context.calico,
        context.cilium_r,
    )


def _view_key(view: LabelView) -> Hashable:
    return tuple(sorted(view.values.items())), view.unknown_value, view.complete


_CANDIDATE_FIELDS: Final = tuple(n for n in ReachCandidate.__struct_fields__ if n != "raw")

_candidate_key: Final[Callable[[ReachCandidate], Hashable]] = operator.attrgetter(
    *_CANDIDATE_FIELDS
)
"""A candidate by what it holds besides its object (held by identity): a
path's key holds hundreds, so they are read at C speed."""


def _of_kind(candidates: Iterable[ReachCandidate], kind: Kind) -> tuple[ReachCandidate, ...]:
    return tuple(c for c in candidates if identify(c.api_version, c.kind) is kind)


def _sorted_documents(
    documents: Sequence[TierDocument],
    calico_form: bool,
    memo: ReadMemo | None = None,
    read_as: Mapping[int, TierDocument] | None = None,
) -> tuple[TierDocument, ...]:
    """The documents by slot, kind, name and namespace; two objects of one
    kind and name (a duplicate) by content, so the order of the candidates
    never decides. The content is written out only for such ties: it is
    most of the sorting's cost, and ties are rare. Copies that differ are
    each in doubt where that matters (``_copies_in_doubt``). ``read_as``:
    each document's reading before it was placed, by the document's
    identity (its content key is the same, and kept for every place)."""
    ordered: list[TierDocument] = []
    for _, group in itertools.groupby(sorted(documents, key=_place_key), key=_place_key):
        tied = list(group)
        if len(tied) > 1:
            ordered += _tied_in_order(tied, calico_form, memo, read_as or {})
        else:
            ordered += tied
    return tuple(ordered)


def _tied_in_order(
    tied: list[TierDocument],
    calico_form: bool,
    memo: ReadMemo | None,
    read_as: Mapping[int, TierDocument],
) -> tuple[TierDocument, ...]:
    """Documents of one kind and name by content, each copy in doubt where
    that matters; once per such documents while the memo lives (every pod
    of a namespace reads the same copies, and a copy in doubt is then one
    object for all of them)."""

    def order() -> tuple[TierDocument, ...]:
        keys = {id(d): _content_key(read_as.get(id(d), d), memo) for d in tied}
        ordered = sorted(tied, key=lambda document: keys[id(document)])
        return tuple(_copies_in_doubt(ordered, keys, calico_form))

    if memo is None:
        return order()
    return memo.once(tuple(tied), ("tied", calico_form), order)


COPY_IN_DOUBT: Final = (
    "another object of this kind and name differs from it, and the cluster keeps only one of them"
)


def _copies_in_doubt(
    tied: list[TierDocument], keys: Mapping[int, str], calico_form: bool
) -> list[TierDocument]:
    """Documents of one kind and name from several objects whose contents
    differ: the cluster holds one of the objects, not all. Applying every
    copy at once is safe only where copies merely add allowances (core and
    Cilium allow rules in the NetworkPolicy tier, whose isolation the check
    weighs copy by copy). Where a copy may deny or pass, or its tier ends in
    a deny, one copy could hide what another lets out; so each copy only may
    apply, and what it decides is undecided."""
    by_object: dict[int, list[str]] = {}
    for document in tied:
        by_object.setdefault(document.ref, []).append(keys[id(document)])
    if len(by_object) < 2 or len({tuple(c) for c in by_object.values()}) < 2:
        return tied
    if not any(_may_stop(document, calico_form) for document in tied):
        return tied
    return [
        replace(
            document,
            subject=kleene_and(document.subject, Tri.UNKNOWN),
            subject_why=document.subject_why or COPY_IN_DOUBT,
        )
        for document in tied
    ]


def _may_stop(document: TierDocument, calico_form: bool) -> bool:
    """Whether the document may end a point's way other than by allowing it."""
    tiered = calico_form or document.slot != Slot.NETWORK_POLICY
    others = any(action is not Action.ALLOW for rule in document.rules for action in rule.actions)
    return tiered or bool(document.deny_rules) or others


def _place_key(document: TierDocument) -> tuple[str, str, bytes, str]:
    return (
        document.slot,
        document.kind,
        document.name.encode("utf-8", "surrogatepass"),
        document.namespace or "",
    )


def _placed(document: TierDocument, ref: int, memo: ReadMemo | None) -> TierDocument:
    """The document at its place among the candidates: one object per read
    document and place while the memo lives, so that what is worked out of
    it (``_content_key``) is kept too."""
    if memo is None:
        return replace(document, ref=ref)
    kept = _memo_for(document, memo)
    return kept.once((document,), ("placed", ref), partial(replace, document, ref=ref))


def _content_key(document: TierDocument, memo: ReadMemo | None) -> str:
    """``_written`` once per document while the memo lives."""
    if memo is None:
        return _written(document, None)
    kept = _memo_for(document, memo)
    return kept.once((document,), "content-key", partial(_written, document, memo))


def _memo_for(document: TierDocument, memo: ReadMemo) -> ReadMemo:
    """Where to keep what is worked out of a document: for the run when its
    reader keeps the document itself for the run (``read_admin``: every
    namespace's pods read the same object again), else for the namespace,
    so that documents read afresh for each pod are let go with it."""
    lasting = memo.lasting
    return lasting if lasting is not None and document.kind in _KEPT_FOR_THE_RUN else memo


_KEPT_FOR_THE_RUN: Final = frozenset(
    kind.key
    for kind in (ADMIN_NETWORK_POLICY, BASELINE_ADMIN_NETWORK_POLICY, CLUSTER_NETWORK_POLICY)
)
"""The kinds whose documents the tier readers keep for the whole run."""


def _written(document: TierDocument, memo: ReadMemo | None) -> str:
    """The document written out as its ``repr``, its ``ref`` aside, and each
    rule's actions in order (``_rules_text``). Its rules are most of the
    text, and a cluster-scoped policy's rules are one shared tuple for every
    pod (``ReadContext.remembered_everywhere``), so their text is kept by
    the tuple's identity."""
    parts = []
    for name in _WRITTEN_FIELDS:
        value = getattr(document, name)
        if name == "ref":
            text = "0"
        elif name in ("rules", "deny_rules"):
            write = partial(_rules_text, value)
            text = write() if memo is None else memo.once((value,), "rules-text", write)
        else:
            text = repr(value)
        parts.append(f"{name}={text}")
    return f"{TierDocument.__qualname__}({', '.join(parts)})"


def _rules_text(rules: tuple[TierRule, ...]) -> str:
    """The rules as their ``repr`` writes them, but each rule's actions in
    the order of their text: a set's own order follows the strings' hashes,
    which change from one process to the next, and copies of one policy are
    ordered by this text."""
    written = []
    for rule in rules:
        if len(rule.actions) < 2:
            written.append(repr(rule))  # one action: the repr is already the same in every run
            continue
        actions = ", ".join(sorted(map(repr, rule.actions)))
        fields = [
            f"actions=frozenset({{{actions}}})"
            if name == "actions"
            else f"{name}={getattr(rule, name)!r}"
            for name in TierRule.__struct_fields__
        ]
        written.append(f"{TierRule.__qualname__}({', '.join(fields)})")
    return f"({', '.join(written)}{',' if len(written) == 1 else ''})"


_WRITTEN_FIELDS: Final = TierDocument.__struct_fields__
"""The fields a ``TierDocument``'s ``repr`` writes, in its order."""


def _tiers(
    found: Sequence[CalicoTier], documents: Sequence[TierDocument]
) -> tuple[CalicoTier, ...]:
    """One ``CalicoTier`` per name: the manifests' agreement, else unknown
    parts; a tier only policies name is unknown in both."""
    by_name: dict[str, CalicoTier] = {}
    for tier in found:
        known = by_name.get(tier.name)
        if known is None:
            by_name[tier.name] = tier
            continue
        by_name[tier.name] = CalicoTier(
            tier.name,
            known.order if known.order == tier.order else None,
            known.pass_by_default if known.pass_by_default == tier.pass_by_default else None,
        )
    built_in = {str(slot) for slot in BUILT_IN_SLOTS.values()}
    for document in documents:
        if document.slot not in built_in and document.slot not in by_name:
            by_name[document.slot] = CalicoTier(document.slot, None, None)
    return tuple(by_name[name] for name in sorted(by_name))


__all__ = [
    "PATH_REF",
    "READERS",
    "Built",
    "PathFacts",
    "build_tier_input",
    "path_facts_of",
    "reader_for",
]
