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

import operator
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat

from lint.checks.candidates import location_of, unparsed_placeholders
from lint.checks.context import (
    CheckContext,
    JudgedEntry,
    first_rule,
    precise_location,
    rule_finding,
)
from lint.checks.culprits import (
    content_hash,
    lets_out_clause,
    referenced_content,
    rule_path,
    value_at,
)
from lint.checks.judging import NO_ENTRIES, Judged, examined_of
from lint.checks.reach_candidates import Offered, reach_candidates, reach_data
from lint.decision.model import (
    Allowance,
    EgressVerdict,
    Examined,
    IngressVerdict,
    Subject,
    Tri,
    Verdict,
)
from lint.decision.reach import decide_reach, reach_outcome, subject_documents
from lint.decision.reach.catch_all import CLAIM_ANNOTATIONS_PATH
from lint.decision.reach.ingress import (
    decide_ingress_reach,
    ingress_documents,
    ingress_pod_condition_documents,
    undecided_for_ingress,
)
from lint.decision.reach.model import (
    ReachData,
    ReachDecision,
    ReachDocument,
    ReachSubject,
    Skipped,
    pod_label_view,
)
from lint.decision.reach.selection import mentioned_keys
from lint.decision.reach.selection import selects_nothing as reach_selects_nothing
from lint.decision.values import JSON
from lint.inventory import KubeObject
from lint.kinds import NETWORK_POLICY, REACH_POLICY_KINDS, SANDBOX_CLAIM
from lint.report.messages import culprit_message
from lint.report.model import (
    Culprit,
    DecisionReport,
    ExaminedEntry,
    Finding,
    Location,
    ReachReport,
    SandboxRef,
    SkippedEntry,
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


@dataclass(frozen=True)
class ReachInput:
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
    claim_annotations: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """The annotations the path's SandboxClaims add to the pod, each with the
    claim that adds it (``PodVariant.claim_annotations``)."""
    union_reported: bool = True
    """Whether the union is reported beside reach (``host: namzu``). When it
    is not, reach is the verdict and its report lists the union's documents
    first, so every document judged is listed once (issue 25)."""


@dataclass(frozen=True, slots=True)
class _Judged:
    """A new-kind document with the object it came from."""

    document: ReachDocument
    obj: KubeObject | None
    location: Location


def check_reach(ctx: CheckContext, given: ReachInput) -> tuple[ReachReport, list[Finding]]:
    subject = reach_subject(given)
    judged, skipped = _new_documents(ctx, given, subject)
    cilium = given.cilium_under_core
    cilium_examined = cilium.examined()
    # The union is only searched, and only its selecting entries can be found.
    decision = decide_reach(
        examined_of(given.union.selecting),
        cilium_examined,
        [j.document for j in judged],
        given.allowance,
        skipped=[s for s, _ in skipped],
        cilium_selecting=examined_of(cilium.selecting),
    )
    paths: dict[int, tuple[str | int, ...]] = {}
    examined, searched = _entries(decision, cilium, cilium_examined, judged, paths)
    if not given.union_reported:
        examined = (*given.union.report(), *examined)
    report = ReachReport(
        DecisionReport(
            None if decision.refusal is None else str(decision.refusal),
            decision.summary,
            examined,
        ),
        tuple(SkippedEntry(s.kind, s.name, s.reason, where) for s, where in skipped),
    )
    return report, _findings(searched, given, paths, cilium.selecting, reach_data_of(ctx))


def is_isolated(
    union: Sequence[JudgedEntry], split: frozenset[int] = frozenset()
) -> tuple[bool, str | None]:
    """§1.3 ISO over the union's documents, and the isolating policy's name.
    A document that selects the pod is never ``does-not-select``, so the
    union's selecting entries are enough. A copy in ``split`` isolates the
    pod while another copy of its name does not, so it does not count."""
    # Most documents do not select the pod: those that do are found by a
    # search at C speed, then tested in order.
    documents = list(map(_DOCUMENT, union))
    selects = list(map(_SELECTS, documents))
    at = -1
    while True:
        try:
            at = selects.index(Tri.YES, at + 1)
        except ValueError:
            return False, None
        document = documents[at]
        readable = document.kind == NETWORK_POLICY.name and document.unreadable is None
        if readable and document.enforces and id(union[at].origin) not in split:
            return True, document.name


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


def reach_subject(given: ReachInput) -> ReachSubject:
    iso, iso_policy = is_isolated(given.union.selecting, given.union.split)
    return ReachSubject(
        namespace=given.subject.namespace,
        pod=pod_label_view(given.subject.labels),
        service_account=service_account_name(given.template),
        allowance=given.allowance,
        iso=iso,
        cilium=given.cilium,
        iso_policy=iso_policy,
        pod_template=_pod_template(given.template),
        pod_annotations=_added_annotations(given.claim_annotations),
    )


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
    hit = ctx.memo.scopes.get("reach-data")
    if hit is not None and hit[0] is ctx.inventory:
        data: ReachData = hit[1]
        return data
    data = reach_data(ctx.inventory, ctx.namespace_labels)
    ctx.memo.scopes["reach-data"] = (ctx.inventory, data)
    return data


def offered_in(ctx: CheckContext, namespace: str) -> tuple[Offered, ...]:
    """The reach candidates of the namespace, gathered once per run."""
    key = ("reach-candidates", namespace)
    hit = ctx.memo.scopes.get(key)
    if hit is not None and hit[0] is ctx.inventory:
        found: tuple[Offered, ...] = hit[1]
        return found
    found = reach_candidates(ctx.inventory, namespace)
    ctx.memo.scopes[key] = (ctx.inventory, found)
    return found


_Outcome = tuple[tuple[ReachDocument, ...], tuple[Skipped, ...]]


def _judge(offered: Offered, subject: ReachSubject, data: ReachData) -> _Outcome:
    """The candidate's documents, and what reach skips of it. A policy kind
    no reader answers for fails closed here, so a kind the readers do not
    know yet never passes silently."""
    documents, skipped = reach_outcome(offered.candidate, subject, data)
    if documents or skipped or offered.obj.kind not in REACH_POLICY_KINDS:
        return documents, skipped
    return (_unjudged(offered),), ()


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


def _quiet_outcome(
    ctx: CheckContext, offered: Offered, direction: str, subject: ReachSubject, data: ReachData
) -> _Outcome:
    """The documents of an object that selects nothing: the same for every
    pod it does not select (``selection``), so judged once per direction."""
    raw = offered.candidate.raw
    key = ("reach-unselected", id(raw), offered.candidate.position, direction)
    hit = ctx.memo.reach.get(key)
    if hit is not None and hit[0] is raw:
        outcome: _Outcome = hit[1]
        return outcome
    if direction == "egress":
        outcome = _judge(offered, subject, data)
    else:
        outcome = (ingress_documents(offered.candidate, subject, data), ())
    ctx.memo.reach[key] = (raw, outcome)
    return outcome


def _unjudged(offered: Offered) -> ReachDocument:
    name = offered.obj.name or f"(unnamed #{offered.candidate.position})"
    return ReachDocument(
        kind=offered.obj.kind,
        name=name,
        verdict=EgressVerdict.NOT_EVALUABLE,
        detail=UNJUDGED_DETAIL.format(kind=offered.obj.kind),
        rule_index=None,
        rule_path=(),
        group="other",
    )


def _new_documents(
    ctx: CheckContext, given: ReachInput, subject: ReachSubject
) -> tuple[list[_Judged], list[tuple[Skipped, Location | None]]]:
    data = reach_data_of(ctx)
    judged: list[_Judged] = []
    skipped: list[tuple[Skipped, Location | None]] = []
    subject_key = (
        subject.namespace,
        tuple(sorted(given.subject.labels.items())),
        subject.service_account,
        given.context,
        subject.iso,
        subject.iso_policy,
        subject.cilium,
        id(given.template),
    )
    for offered in offered_in(ctx, subject.namespace):
        raw = offered.candidate.raw
        if _quiet(ctx, offered, subject, given.subject.labels, data):
            outcome: _Outcome = _quiet_outcome(ctx, offered, "egress", subject, data)
        else:
            key = ("reach", id(raw), offered.candidate.position, subject_key)
            hit = ctx.memo.reach.get(key)
            if hit is not None and hit[0] is raw:
                outcome = hit[1]
            else:
                outcome = _judge(offered, subject, data)
                ctx.memo.reach[key] = (raw, outcome)
        documents, skips = outcome
        skipped.extend((skip, location_of(offered.obj)) for skip in skips)
        judged.extend(_Judged(d, offered.obj, _location(offered.obj, d)) for d in documents)
    judged.extend(_path_documents(ctx, given, subject, data))
    judged += _unparsed(ctx, subject.namespace, EgressVerdict.NOT_EVALUABLE)
    return judged, skipped


def _unparsed(ctx: CheckContext, namespace: str, verdict: Verdict) -> list[_Judged]:
    """A document that may be a reach-only policy and could not be parsed
    fails reach closed, egress and ingress alike (SEMANTICS §17.7)."""
    judged = []
    for placeholder in unparsed_placeholders(ctx.problems, namespace, REACH_POLICY_KINDS):
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


def _path_documents(
    ctx: CheckContext, given: ReachInput, subject: ReachSubject, data: ReachData
) -> list[_Judged]:
    """The documents of the path rather than of an object (§7 pod
    conditions, the §5.11 Tier check): at the object of that kind and name
    when there is one, else at the template, else at the declaration."""
    judged = []
    for document in subject_documents(subject, data):
        obj = _object_named(ctx, document.kind, document.name) or _condition_object(
            ctx, subject.namespace, given.template, document, given.claim_annotations
        )
        location = _location(obj, document) if obj is not None else given.declaration
        judged.append(_Judged(document, obj, location))
    return judged


def _object_named(ctx: CheckContext, key: str, name: str) -> KubeObject | None:
    found = [obj for obj in ctx.inventory.cluster_objects(key) if obj.name == name]
    return found[-1] if found else None


def _location(obj: KubeObject, document: ReachDocument) -> Location:
    if document.verdict in _OFFENDING and document.rule_path:
        return precise_location(obj, document.rule_path)
    return location_of(obj)


_Paired = tuple[ExaminedEntry, KubeObject | None]


def _entries(
    decision: ReachDecision,
    cilium: Judged,
    cilium_examined: Sequence[Examined],
    judged: Sequence[_Judged],
    paths: dict[int, tuple[str | int, ...]] | None = None,
) -> tuple[tuple[ExaminedEntry, ...], list[_Paired]]:
    """The report's entries in the decision's order, and those of them that
    can be culprits, each with its object; ``paths`` gets the offending rule
    path of each entry reach itself judged, by entry identity (a Cilium
    entry's is found when it is a culprit, ``_cilium_paths``).

    The decision hands the Cilium entries back first, as given
    (``decide_reach``): under engine core a namespace's every Cilium object
    is one of them, so their report forms are the block's (``Judged``), and
    only their selecting entries are searched for culprits."""
    paths = {} if paths is None else paths
    head = len(cilium_examined)
    documents = decision.documents
    if len(documents) >= head and all(map(operator.is_, documents[:head], cilium_examined)):
        rest = _paired(documents[head:], judged, (), paths)
        if rest is not None:
            selecting = cilium.selecting
            objects = map(getattr, map(_ORIGIN, selecting), repeat("obj"), repeat(None))
            searched = [*zip(map(_ENTRY, selecting), objects, strict=True), *rest]
            return (*cilium.report(), *map(_FIRST, rest)), searched
    every = cilium.entries()
    paired = _paired(documents, judged, every, paths)
    if paired is None:
        paired = _given_order(every, judged, paths)
    return tuple(map(_FIRST, paired)), paired


def _by_identity(
    judged: Sequence[_Judged],
    cilium_under_core: Sequence[JudgedEntry],
    paths: dict[int, tuple[str | int, ...]],
) -> dict[int, tuple[ExaminedEntry, KubeObject | None]]:
    by_identity: dict[int, tuple[ExaminedEntry, KubeObject | None]] = {}
    for entry in cilium_under_core:
        obj = getattr(entry.origin, "obj", None)
        by_identity[id(entry.examined)] = (entry.entry, obj)
    for item in judged:
        document = item.document
        namespace = item.obj.namespace if item.obj is not None else None
        report_entry = ExaminedEntry(
            kind=document.kind,
            name=document.name,
            namespace=namespace,
            verdict=str(document.verdict),
            detail=document.detail,
            origin="manifest",
            location=item.location,
        )
        by_identity[id(document)] = (report_entry, item.obj)
        paths[id(report_entry)] = document.rule_path
    return by_identity


def _paired(
    documents: Sequence[object],
    judged: Sequence[_Judged],
    cilium_under_core: Sequence[JudgedEntry],
    paths: dict[int, tuple[str | int, ...]],
) -> list[tuple[ExaminedEntry, KubeObject | None]] | None:
    """Each of ``documents`` with its entry, or None unless they are exactly
    the ones given."""
    by_identity = _by_identity(judged, cilium_under_core, paths)
    ordered = [by_identity.get(id(document)) for document in documents]
    if len(ordered) != len(by_identity) or any(entry is None for entry in ordered):
        return None
    return [entry for entry in ordered if entry is not None]


def _given_order(
    cilium_under_core: Sequence[JudgedEntry],
    judged: Sequence[_Judged],
    paths: dict[int, tuple[str | int, ...]],
) -> list[tuple[ExaminedEntry, KubeObject | None]]:
    # The decision is expected to hand back exactly what it was given.
    return list(_by_identity(judged, cilium_under_core, paths).values())


def _cilium_paths(cilium_under_core: Sequence[JudgedEntry]) -> dict[int, tuple[str | int, ...]]:
    """The offending rule path of each Cilium entry, by entry identity:
    asked for only when one of them is a culprit, which is rare."""
    paths: dict[int, tuple[str | int, ...]] = {}
    for entry in cilium_under_core:
        union_document = entry.examined.document
        outcome = Tri.UNKNOWN if entry.entry.verdict == EgressVerdict.NOT_EVALUABLE else Tri.YES
        index = first_rule(union_document, outcome) if union_document.unreadable is None else None
        paths[id(entry.entry)] = rule_path(union_document, "egress", index)
    return paths


def _findings(
    entries: Sequence[tuple[ExaminedEntry, KubeObject | None]],
    given: ReachInput,
    paths: Mapping[int, tuple[str | int, ...]],
    cilium_under_core: Sequence[JudgedEntry] = (),
    data: ReachData | None = None,
) -> list[Finding]:
    """One finding per culprit beyond the union, at its own line. The
    culprits are found by searching the verdicts at C speed: most entries
    are not culprits."""
    verdicts: list[str] = list(map(_VERDICT, map(_FIRST, entries)))
    culprits: list[int] = []
    for verdict in _RULE_OF_VERDICT:
        at = -1
        while True:
            try:
                at = verdicts.index(verdict, at + 1)
            except ValueError:
                break
            culprits.append(at)
    findings = []
    cilium_paths: dict[int, tuple[str | int, ...]] | None = None
    for entry, obj in (entries[at] for at in sorted(culprits)):
        rule_id = _RULE_OF_VERDICT[EgressVerdict(entry.verdict)]
        if entry.location is None:
            continue
        path = paths.get(id(entry))
        if path is None:
            if cilium_paths is None:
                cilium_paths = _cilium_paths(cilium_under_core)
            path = cilium_paths.get(id(entry), ())
        culprit = _culprit(entry, obj, path, data)
        findings.append(
            rule_finding(
                rule_id,
                culprit_message(culprit, 1),
                entry.location,
                sandbox=given.sandbox,
                obj=obj,
                remedy=remedy_text(rule_id, "reach"),
                related=[given.declaration],
                culprit=culprit,
            )
        )
    return findings


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


@dataclass(frozen=True)
class IngressReachInput:
    """One sandbox path whose agent port is checked (CLUSTER-POLICIES §8)."""

    sandbox: SandboxRef
    declaration: Location
    subject: Subject
    template: KubeObject | None
    allowance: Allowance
    claim_annotations: Mapping[str, tuple[str, str]] = field(default_factory=dict)


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
            documents = _quiet_outcome(ctx, offered, "ingress", subject, data)[0]
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
    examined, entries = _entries(decision, NO_ENTRIES, (), judged)
    report = DecisionReport(
        None if decision.refusal is None else str(decision.refusal), decision.summary, examined
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
