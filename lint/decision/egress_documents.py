"""Reading policy objects into egress documents (SEMANTICS.md §5.2-§5.5, §17.3).

A NetworkPolicy gives one document. A Cilium object gives one document per
spec (its ``spec``, then each ``specs`` entry); node-scoped specs give none.
Anything that cannot be read becomes an unreadable document, so it fails
closed in the union (§11.1 step 1) instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial

from lint.decision.constants import CILIUM_KIND, CLUSTERWIDE_KIND, CORE_KIND
from lint.decision.defaulting import enforces as defaulted_enforces
from lint.decision.egress_rules import cilium_rule_verdict, core_rule_verdict
from lint.decision.model import (
    Allowance,
    Candidate,
    PolicyDocument,
    RuleVerdict,
    Subject,
    Translation,
    Tri,
)
from lint.decision.policy_shape import (
    not_an_object,
    read_cilium_shape,
    read_core_shape,
    spec_entries,
)
from lint.decision.reach.model import ReachCandidate
from lint.decision.selectors import match_selector
from lint.decision.values import ABSENT, JSON

NAMESPACE_IDENTITY_LABEL = "io.kubernetes.pod.namespace"
NOT_A_POLICY_OBJECT = "a list entry that is not a policy object"

RuleVerdicts = dict[Hashable, RuleVerdict]
"""Egress rule verdicts already judged, by the rule's text and place. A
verdict depends on the rule, its index, the allowance and the CIDR groups
alone, so a caller that reads many policies under one allowance may pass
one: a rule written alike in many policies (each template's own policy)
is then judged once. Pass one only for a single allowance and one set of
CIDR groups: neither is part of the key."""


def egress_documents(
    candidate: Candidate,
    subject: Subject,
    allowance: Allowance,
    translation: Translation,
    cidr_groups: Sequence[ReachCandidate] = (),
    verdicts: RuleVerdicts | None = None,
) -> list[PolicyDocument]:
    """Read one candidate into its egress documents: §5.3 for a
    NetworkPolicy, §5.4 for a CiliumNetworkPolicy, and §5.4 with the §17.3
    reading for a CiliumClusterwideNetworkPolicy. ``cidr_groups`` are the
    CiliumCIDRGroup objects a ``toCIDRSet`` group reference resolves
    against (CLUSTER-POLICIES §6.3). ``verdicts``: see ``RuleVerdicts``."""
    name = document_name(candidate)
    if candidate.unreadable is not None:
        return [_unreadable(candidate.kind, name, candidate.unreadable)]
    if not isinstance(candidate.raw, dict):
        return [_unreadable(candidate.kind, name, NOT_A_POLICY_OBJECT)]
    if candidate.kind == CORE_KIND:
        return [_core_document(candidate.raw, name, subject, allowance, translation, verdicts)]
    return _cilium_documents(
        candidate, name, subject, allowance, translation, cidr_groups, verdicts
    )


def _remembered(
    verdicts: RuleVerdicts | None,
    place: tuple[object, ...],
    rule: JSON,
    judge: Callable[[], RuleVerdict],
) -> RuleVerdict:
    """``judge()``, or the verdict of the same rule text at the same place.
    ``repr`` tells apart every value the rule readers tell apart (``1``,
    ``1.0``, ``True`` and ``"1"``; a list from a tuple) and keeps key order."""
    if verdicts is None:
        return judge()
    key = (*place, repr(rule))
    known = verdicts.get(key)
    if known is None:
        known = verdicts[key] = judge()
    return known


def document_name(candidate: Candidate) -> str:
    """§5.2: ``metadata.name`` when it is a non-empty string, else
    ``(unnamed #<position>)``."""
    raw = candidate.raw
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, str) and name:
        return name
    return f"(unnamed #{candidate.position})"


def _unreadable(kind: str, name: str, detail: str, spec_index: int | None = None) -> PolicyDocument:
    return PolicyDocument(
        kind=kind,
        name=name,
        selects=Tri.UNKNOWN,
        enforces=False,
        unreadable=detail,
        spec_index=spec_index,
    )


# --- §5.3 core NetworkPolicy ---------------------------------------------------


def _core_document(
    raw: Mapping[str, JSON],
    name: str,
    subject: Subject,
    allowance: Allowance,
    translation: Translation,
    verdicts: RuleVerdicts | None = None,
) -> PolicyDocument:
    """§5.3: the four unreadable checks, then enforcement, selection, rules."""
    shape = read_core_shape(raw, "egress")
    if isinstance(shape, str):
        return _unreadable(CORE_KIND, name, shape)
    spec, policy_types, egress = shape.spec, shape.policy_types, shape.rules
    # §5.3 on the stored object: an absent, null or empty policyTypes is
    # defaulted first, so `egress: []` alone enforces nothing; then only the
    # exact string `Egress` does.
    enforces = defaulted_enforces("egress", policy_types, egress)
    selects = match_selector(spec.get("podSelector", ABSENT), subject.labels, cilium=False)
    # An egress block that policyTypes does not enforce is ignored by the API
    # server; a document that does not select the pod is decided before its
    # rules are read (§11.1 step 2), so neither is judged.
    judged = (egress or []) if enforces and selects is not Tri.NO else []
    # Most documents select nothing: no generator is made for them.
    rules = (
        tuple(
            _remembered(
                verdicts, ("core", index), rule, partial(core_rule_verdict, rule, index, allowance)
            )
            for index, rule in enumerate(judged)
        )
        if judged
        else ()
    )
    named = translation.kind == CORE_KIND and _is_translation_name(name, translation, subject)
    # Positional: the one document of every policy in a namespace is made here.
    return PolicyDocument(CORE_KIND, name, selects, enforces, rules, None, named)


def _is_translation_name(name: str, translation: Translation, subject: Subject) -> bool:
    # Candidates are the sandbox namespace's objects (§5.1), so the namespace
    # only has to agree with the translation's own.
    # A translation no host reads back by name exempts nothing (issue 17).
    return (
        translation.named
        and name == translation.name
        and translation.namespace == subject.namespace
    )


# --- §5.4 Cilium ----------------------------------------------------------------


def _cilium_documents(
    candidate: Candidate,
    name: str,
    subject: Subject,
    allowance: Allowance,
    translation: Translation,
    cidr_groups: Sequence[ReachCandidate],
    verdicts: RuleVerdicts | None = None,
) -> list[PolicyDocument]:
    """§5.4 steps 1-4 over the object's spec documents, in order."""
    kind = candidate.kind
    entries = spec_entries(candidate.raw)
    if isinstance(entries, str):
        return [_unreadable(kind, name, entries)]
    clusterwide = candidate.clusterwide or kind == CLUSTERWIDE_KIND
    named = (
        not clusterwide
        and kind == CILIUM_KIND
        and translation.kind == CILIUM_KIND
        and _is_translation_name(name, translation, subject)
    )
    documents: list[PolicyDocument] = []
    for entry, spec_index in entries:
        # Only *the spec* of the named object is exempt, never a specs entry (§11.2).
        is_the_spec = spec_index is None
        reader = _CiliumSpecReader(
            kind, name, spec_index, clusterwide, named and is_the_spec, cidr_groups, verdicts
        )
        document = reader.read(entry, subject, allowance)
        if document is not None:
            documents.append(document)
    return documents


class _CiliumSpecReader:
    """Reads one Cilium spec document (§5.4 step 4)."""

    def __init__(
        self,
        kind: str,
        name: str,
        spec_index: int | None,
        clusterwide: bool,
        named: bool,
        cidr_groups: Sequence[ReachCandidate] = (),
        verdicts: RuleVerdicts | None = None,
    ) -> None:
        self.cidr_groups = cidr_groups
        self.verdicts = verdicts
        self.kind = kind
        self.name = name
        self.spec_index = spec_index
        self.clusterwide = clusterwide
        self.named = named

    def _unreadable(self, detail: str) -> PolicyDocument:
        return _unreadable(self.kind, self.name, detail, self.spec_index)

    def read(self, spec: JSON, subject: Subject, allowance: Allowance) -> PolicyDocument | None:
        """The document for one spec; None for a node-scoped spec (Q11)."""
        if not isinstance(spec, dict):
            return self._unreadable(not_an_object(self.spec_index))
        if "nodeSelector" in spec:
            return None
        shape = read_cilium_shape(spec, "egress", self.spec_index)
        if isinstance(shape, str):
            return self._unreadable(shape)
        selects = match_selector(
            spec.get("endpointSelector", ABSENT), identity_labels(subject), cilium=True
        )
        # A document that does not select the pod is decided before its
        # rules are read (§11.1 step 2).
        judged = shape.rules if selects is not Tri.NO else []
        return PolicyDocument(
            kind=self.kind,
            name=self.name,
            selects=selects,
            enforces=shape.enforces,
            rules=self._rules(judged, allowance),
            named_object=self.named,
            spec_index=self.spec_index,
        )

    def _rules(self, egress: list[JSON], allowance: Allowance) -> tuple[RuleVerdict, ...]:
        # Judged whatever enableDefaultDeny says; egressDeny never is (§5.4 step 4.9).
        clusterwide, groups = self.clusterwide, self.cidr_groups
        return tuple(
            _remembered(
                self.verdicts,
                ("cilium", clusterwide, index),
                rule,
                partial(
                    cilium_rule_verdict,
                    rule,
                    index,
                    allowance,
                    clusterwide=clusterwide,
                    cidr_groups=groups,
                ),
            )
            for index, rule in enumerate(egress)
        )


def identity_labels(subject: Subject) -> dict[str, str]:
    """§5.4: the pod's labels plus ``io.kubernetes.pod.namespace``."""
    return {**subject.labels, NAMESPACE_IDENTITY_LABEL: subject.namespace}
