"""What every check needs: the inventory, load problems and options, and
the way from a judged document back to a file and line."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

import msgspec

from lint.checks.candidates import Placeholder, Sourced, location_of
from lint.checks.runner import ReadCilium
from lint.decision.allowance import build_allowance
from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.egress_documents import RuleVerdicts
from lint.decision.model import (
    Allowance,
    Candidate,
    EgressVerdict,
    Examined,
    IngressVerdict,
    PolicyDocument,
    Subject,
    Translation,
    Tri,
)
from lint.decision.policy_shape import Direction
from lint.decision.selection import required_labels, selects_nothing
from lint.decision.selection_index import (
    DirectedRequirements,
    Requirements,
    directed_requirements,
)
from lint.decision.selection_keys import candidate_label_keys
from lint.decision.tiers.cells import SharedSlots
from lint.decision.tiers.questions import NamesOnlyMemo, Shared
from lint.decision.values import JSON
from lint.inventory import Inventory, KubeObject
from lint.loading import LoadProblem, locate
from lint.report.model import (
    QUIET_VERDICT,
    Culprit,
    ExaminedEntry,
    Finding,
    Location,
    ObjectRef,
    SandboxRef,
)
from lint.rules import remedy_text
from lint.rules import rule as rule_of

T = TypeVar("T")

Origin = Sourced | Placeholder


class JudgedEntry(msgspec.Struct, frozen=True):
    """One examined document with its report form and where it came from."""

    examined: Examined
    entry: ExaminedEntry
    origin: Origin


QuietEntries = dict[Hashable, tuple[KubeObject, ExaminedEntry]]
"""``does-not-select`` report entries by object, kind, name, namespace and
origin, each kept with its object (``origin_entries``)."""


JUDGED_KEPT: Final = 64
"""How many decisions' judged entries ``JudgmentMemo.judged`` keeps: a
sandbox's paths and pod variants, each judged for egress and ingress."""

LASTING_READ_MEMO: Final = "tier-lasting-read-memo"
"""The ``scopes`` key of the tier readers' memo of the whole run."""
CLUSTER_ENTRIES: Final = "reach-cluster-entries"
"""The ``scopes`` key of reach's report entries of clusterwide objects and
unparsed documents, kept for the whole run: every namespace lists them."""
CLUSTER_CULPRITS: Final = "reach-cluster-culprits"
"""The ``scopes`` key of reach's culprit findings of clusterwide objects and
unparsed documents, kept for the whole run like their entries."""


def kept_with(
    table: dict[Hashable, tuple[object, Any]],
    key: Hashable,
    holder: object,
    make: Callable[..., T],
    *arguments: object,
) -> T:
    """``make(*arguments)``, once per ``key`` while ``holder`` is the object
    it was made for: kept with it, so a table outliving its run, or an id
    reused, never hands back another run's value."""
    hit = table.get(key)
    if hit is not None and hit[0] is holder:
        return cast(T, hit[1])
    value = make(*arguments)
    table[key] = (holder, value)
    return value


def held_alike(kept: object, held: tuple[object, ...]) -> bool:
    """Whether a memo's answer was kept with these very objects: keyed by
    their identities, it is theirs only while they are alive (the memo
    holds them with the answer, so no identity is reused meanwhile)."""
    return isinstance(kept, tuple) and len(kept) == len(held) and all(map(operator.is_, kept, held))


@dataclass
class JudgmentMemo:
    """What the check has judged, for reuse: entries per (candidate, labels
    it reads, context); entries of candidates that select nothing, per
    direction; whether a candidate selects nothing, and the labels it
    requires when that is all it reads. The raw object is
    kept with each answer, so an id is never reused while the memo lives."""

    entries: dict[Hashable, tuple[object, tuple[JudgedEntry, ...]]] = field(default_factory=dict)
    label_keys: dict[int, tuple[object, tuple[str, ...]]] = field(default_factory=dict)
    scopes: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)
    groups: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)
    unselected: dict[Hashable, tuple[object, tuple[JudgedEntry, ...]]] = field(default_factory=dict)
    quiet: dict[Hashable, tuple[object, bool]] = field(default_factory=dict)
    required: dict[Hashable, tuple[object, tuple[tuple[str, str], ...] | None]] = field(
        default_factory=dict
    )
    reach: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)
    """Reach's judgements of new-kind candidates, per candidate and subject."""
    spaces: Shared = field(default_factory=dict)
    """The tier model's spaces and scans, shared by paths it reads alike."""
    slots: SharedSlots = field(default_factory=SharedSlots)
    """The tier model's slot outcomes, shared by paths that meet the same
    cluster-scoped policies."""
    names_only: NamesOnlyMemo = field(default_factory=dict)
    """Rule lists as reach rewrites them to match FQDN peers by name only,
    kept with the lists: every path of a scope reads the same rules."""
    selection: dict[Hashable, tuple[object, DirectedRequirements]] = field(default_factory=dict)
    """What each candidate's selectors require, in each direction (``selection_index``)."""
    quiet_entries: QuietEntries = field(default_factory=dict)
    """The ``does-not-select`` report entries made so far (``origin_entries``)."""
    rule_verdicts: dict[Hashable, tuple[object, RuleVerdicts]] = field(default_factory=dict)
    """Egress rule verdicts by the context they were judged under (``rule_verdicts_of``)."""
    judged: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)
    """The latest decisions' judged entries, by scope, context and the
    pod's labels (``judging.judged_entries``, ``remember_judged``): a
    template's pooled and warm paths give the same pod the same decision."""

    def remember_judged(self, key: Hashable, held: tuple[object, Any]) -> None:
        """Keep a decision's judged entries, and only the ``JUDGED_KEPT``
        latest: the paths that share them are one sandbox's, judged one
        after another, and one namespace may hold thousands of templates."""
        judged = self.judged
        judged[key] = held
        if len(judged) > JUDGED_KEPT:
            del judged[next(iter(judged))]

    def rule_verdicts_of(self, context: Hashable, cidr_groups: object) -> RuleVerdicts:
        """The egress rule verdicts judged under ``context`` (the union's
        ``union_context``, which stands for everything of the allowance a
        document depends on) with ``cidr_groups``: every translation of a
        namespace with that context shares them."""
        hit = self.rule_verdicts.get(context)
        if hit is None or hit[0] is not cidr_groups:
            hit = (cidr_groups, {})
            self.rule_verdicts[context] = hit
        return hit[1]

    def requirements_of(
        self, candidate: Candidate, direction: Direction
    ) -> list[Requirements] | None:
        """``candidate_requirements``, once per object: every
        scope of a namespace indexes the same objects."""
        raw = candidate.raw
        key = (id(raw), candidate.kind)
        hit = self.selection.get(key)
        if hit is None or hit[0] is not raw:
            # Both directions at once: each selector is read once.
            hit = (raw, directed_requirements(candidate))
            self.selection[key] = hit
        return hit[1][direction]

    namespace: str | None = None
    """The namespace being judged (``begin_namespace``)."""
    kept: frozenset[Hashable] = frozenset(
        {"reach-data", LASTING_READ_MEMO, CLUSTER_ENTRIES, CLUSTER_CULPRITS}
    )
    """The ``scopes`` entries of the whole run, kept across namespaces."""

    def begin_namespace(self, namespace: str) -> None:
        """Forget what was judged for another namespace. Sandboxes are judged
        a namespace at a time (``checks.shares``), and reuse is within one
        namespace, so the memo stays as large as one namespace's judgements
        instead of the whole run's. Clearing a cache never changes an answer."""
        if namespace == self.namespace:
            return
        self.namespace = namespace
        kept = {key: self.scopes[key] for key in self.kept if key in self.scopes}
        for table in (
            self.entries,
            self.label_keys,
            self.scopes,
            self.groups,
            self.unselected,
            self.quiet,
            self.required,
            self.reach,
            self.selection,
            self.quiet_entries,
            self.rule_verdicts,
            self.judged,
        ):
            table.clear()
        self.scopes.update(kept)

    def keys_of(self, candidate: Candidate) -> tuple[str, ...]:
        hit = self.label_keys.get(id(candidate.raw))
        if hit is not None and hit[0] is candidate.raw:
            return hit[1]
        keys = tuple(sorted(candidate_label_keys(candidate)))
        self.label_keys[id(candidate.raw)] = (candidate.raw, keys)
        return keys

    def selects_nothing(
        self,
        candidate: Candidate,
        subject: Subject,
        direction: Direction,
        read_labels: tuple[str | None, ...],
    ) -> bool:
        """``selection.selects_nothing``, once per candidate, namespace,
        direction and values of the labels the candidate reads; for a
        candidate that only requires labels, by comparing them."""
        required = self._required_labels(candidate, direction)
        if required is not None:
            labels = subject.labels
            # A label of unknown value neither matches nor rules out (§11).
            return any(
                labels.get(key) not in (value, UNKNOWN_LABEL_VALUE) for key, value in required
            )
        raw = candidate.raw
        key = (id(raw), candidate.position, subject.namespace, direction, read_labels)
        hit = self.quiet.get(key)
        if hit is not None and hit[0] is raw:
            return hit[1]
        answer = selects_nothing(candidate, subject, direction)
        self.quiet[key] = (raw, answer)
        return answer

    def _required_labels(
        self, candidate: Candidate, direction: Direction
    ) -> tuple[tuple[str, str], ...] | None:
        raw = candidate.raw
        hit = self.required.get((id(raw), direction))
        if hit is None or hit[0] is not raw:
            hit = (raw, required_labels(candidate, direction))
            self.required[(id(raw), direction)] = hit
        return hit[1]


class CheckContext(msgspec.Struct, frozen=True):
    inventory: Inventory
    problems: Sequence[LoadProblem]
    read_cilium: ReadCilium = "auto"
    memo: JudgmentMemo = msgspec.field(default_factory=JudgmentMemo)
    namespace_labels: Mapping[str, Mapping[str, str]] = msgspec.field(default_factory=dict)
    """Namespace labels the declaration file states (CLUSTER-POLICIES §11 Q3)."""
    enforces: frozenset[str] | None = None
    """The declaration's ``cluster.enforces`` (None: absent)."""


def per_translation(
    ctx: CheckContext, name: str, translation: Translation, build: Callable[[Translation], T]
) -> T:
    """``build(translation)``, made once per translation and run: the
    union, reach and ingress.reach each ask for the same values."""
    key = (name, id(translation))
    hit = ctx.memo.scopes.get(key)
    if hit is not None and hit[0] is translation:
        known: T = hit[1]
        return known
    value = build(translation)
    ctx.memo.scopes[key] = (translation, value)
    return value


def allowance_of(ctx: CheckContext, translation: Translation) -> Allowance:
    """The translation's allowance (SEMANTICS §4), built once per translation."""
    return per_translation(ctx, "allowance", translation, build_allowance)


def precise_location(obj: KubeObject, path: Sequence[str | int]) -> Location:
    """The line of ``path`` inside the object's document, computed only now
    that a finding needs it (DESIGN §7)."""
    document = obj.document
    line = locate(document, path)
    # Helm cannot say where in the template a line came from; the offset
    # inside the rendered document is the best approximation we have.
    source_line = line - document.line + 1 if document.source is not None else None
    return Location(document.file, line, document.source, source_line)


def rule_finding(
    rule_id: str,
    message: str,
    location: Location,
    *,
    sandbox: SandboxRef | None = None,
    obj: KubeObject | None = None,
    remedy: str | None = None,
    related: Sequence[Location] = (),
    culprit: Culprit | None = None,
    remedy_yaml: str | None = None,
) -> Finding:
    """A finding of ``rule_id``, at the rule's level, with the rule's remedy
    unless another is given; ``obj`` is the object to change, when known.
    A culprit's finding lists its sandbox as the first path it affects."""
    return Finding(
        rule_id=rule_id,
        level=rule_of(rule_id).level,
        message=message,
        location=location,
        sandbox=sandbox,
        remedy=remedy or remedy_text(rule_id),
        related=tuple(related),
        subject=object_ref(obj) if obj is not None else None,
        affected=(sandbox,) if culprit is not None and sandbox is not None else (),
        culprit=culprit,
        remedy_yaml=remedy_yaml,
    )


def object_ref(obj: KubeObject) -> ObjectRef:
    metadata = obj.value.get("metadata") if isinstance(obj.value, dict) else None
    annotations: JSON = metadata.get("annotations") if isinstance(metadata, dict) else None
    pairs: tuple[tuple[str, str], ...] = ()
    if isinstance(annotations, dict):
        pairs = tuple(
            (k, v) for k, v in annotations.items() if isinstance(k, str) and isinstance(v, str)
        )
    return ObjectRef(obj.kind, obj.display_name, obj.namespace, pairs)


def first_rule(document: PolicyDocument, outcome: Tri) -> int | None:
    for rule in document.rules:
        if rule.outcome is outcome:
            return rule.index
    return None


def document_path(
    sourced: Sourced, document: PolicyDocument, rules_key: str, outcome: Tri | None
) -> tuple[str | int, ...]:
    """The key path of the offending rule (or of the document) in its source."""
    base = sourced.base if document.spec_index is None else ("specs", document.spec_index)
    if document.unreadable is not None or outcome is None:
        return base
    index = first_rule(document, outcome)
    return base if index is None else (*base, rules_key, index)


def examined_entries(
    examined: Sequence[Examined], origins: dict[int, Origin], rules_key: str
) -> tuple[ExaminedEntry, ...]:
    entries = []
    for entry in examined:
        origin = origins[id(entry.document)]
        entries.append(
            ExaminedEntry(
                kind=entry.kind,
                name=entry.name,
                namespace=_namespace_of(origin),
                verdict=str(entry.verdict),
                detail=entry.detail,
                origin=origin.origin if isinstance(origin, Sourced) else "manifest",
                location=_entry_location(origin, entry, rules_key),
            )
        )
    return tuple(entries)


def origin_entries(
    examined: Sequence[Examined],
    origin: Sourced,
    rules_key: str,
    quiet: QuietEntries | None = None,
) -> tuple[ExaminedEntry, ...]:
    """``examined_entries`` of the documents of one object: what every entry
    takes from the object is read once. A ``does-not-select`` entry says
    the same in both directions, so with ``quiet`` (``JudgmentMemo``) the
    object's egress and ingress decisions share one: made once, and
    written once in a JSON report."""
    namespace = _namespace_of(origin)
    source = origin.origin
    obj = origin.obj
    entries = []
    for entry in examined:
        key = None
        if quiet is not None and entry.verdict == QUIET_VERDICT and entry.detail is None:
            key = (id(obj), entry.kind, entry.name, namespace, source)
            hit = quiet.get(key)
            if hit is not None and hit[0] is obj:
                entries.append(hit[1])
                continue
        # Positional: an entry of every policy of a namespace is made here.
        location = _entry_location(origin, entry, rules_key)
        made = ExaminedEntry(
            entry.kind, entry.name, namespace, str(entry.verdict), entry.detail, source, location
        )
        if key is not None and quiet is not None:
            quiet[key] = (obj, made)
        entries.append(made)
    return tuple(entries)


def _namespace_of(origin: Origin) -> str | None:
    if isinstance(origin, Sourced):
        return None if origin.candidate.clusterwide else origin.obj.namespace
    return None


_OFFENDING: dict[str, Tri] = {
    EgressVerdict.WIDENS_EGRESS: Tri.YES,
    IngressVerdict.OPENS_AGENT_PORT: Tri.YES,
    # The word of both vocabularies.
    EgressVerdict.NOT_EVALUABLE: Tri.UNKNOWN,
}


def _entry_location(origin: Origin, entry: Examined, rules_key: str) -> Location:
    if isinstance(origin, Placeholder):
        return origin.location
    if entry.verdict in _OFFENDING:
        path = document_path(origin, entry.document, rules_key, _OFFENDING[entry.verdict])
        return precise_location(origin.obj, path)
    return location_of(origin.obj)
