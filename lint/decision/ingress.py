"""The ingress agent-port decision (SEMANTICS.md §13).

Is TCP ``agentPort`` on the sandbox pod closed? Some ingress-enforcing policy
must select the pod, and no selecting policy may admit a wide-open source on
that port. Policies are read into documents as for egress (§5.3, §5.4) but
with the ingress fields; rules are judged on whether they open the port.

Whether a rule reaches the port at all (§13.2) is read in
:mod:`lint.decision.ingress_ports`. A `fromCIDRSet` entry that references
CiliumCIDRGroups is resolved by CLUSTER-POLICIES §6.3, which that spec's
§11 makes binding over §13.3 step 7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from lint.decision.constants import CLUSTERWIDE_KIND, CORE_KIND, DEFAULT_AGENT_PORT
from lint.decision.defaulting import enforces as stored_enforces
from lint.decision.egress_documents import NOT_A_POLICY_OBJECT, document_name, identity_labels
from lint.decision.ingress_ports import cilium_port_reach, core_port_reach
from lint.decision.model import (
    Candidate,
    Decision,
    Examined,
    IngressRefusal,
    IngressVerdict,
    PolicyDocument,
    RuleVerdict,
    Subject,
    Tri,
)
from lint.decision.peers import wide_open
from lint.decision.policy_shape import (
    not_an_object,
    read_cilium_shape,
    read_core_shape,
    spec_entries,
)
from lint.decision.reach.cidr_groups import Unresolved, resolved_cidrs
from lint.decision.reach.model import ReachCandidate
from lint.decision.selectors import match_selector, selector_readable
from lint.decision.union import first_of, verdicts_of
from lint.decision.values import (
    ABSENT,
    JSON,
    UNREADABLE,
    compact_json,
    js_trim,
    read_list,
)

UNKNOWN_SELECTOR: Final = "its selector uses something that cannot be evaluated against pod labels"
NOT_INGRESS_SCOPED: Final = "it selects the pod but default-denies nothing on ingress"
WIDE_ENTITIES: Final = ("all", "cluster", "world")
WIDE_CIDRS: Final = ("0.0.0.0/0", "::/0")
# §13.3 step 4: every Cilium source field, read before any is judged.
CILIUM_SOURCE_FIELDS: Final = (
    "fromEndpoints",
    "fromEntities",
    "fromCIDR",
    "fromCIDRSet",
    "fromNodes",
    "fromGroups",
)
GROUP_FIELDS: Final = ("cidrGroupRef", "cidrGroupSelector")
"""The `fromCIDRSet` fields that reference CiliumCIDRGroups (CLUSTER-POLICIES §6.2)."""


def _tcp(agent_port: int) -> str:
    return f"TCP {agent_port}"


# --- §13.3 rule verdicts ---------------------------------------------------------


def _open(detail: str, index: int) -> RuleVerdict:
    return RuleVerdict(Tri.YES, detail, index)


def _undecided(detail: str, index: int) -> RuleVerdict:
    return RuleVerdict(Tri.UNKNOWN, detail, index)


def _closed(index: int) -> RuleVerdict:
    return RuleVerdict(Tri.NO, None, index)


NOT_A_RULE: Final = "an ingress rule is not an object"


def core_ingress_verdict(rule: JSON, index: int, agent_port: int) -> RuleVerdict:
    """§13.3, core table: does this ingress rule open TCP ``agent_port`` to
    a wide-open source?"""
    if not isinstance(rule, dict):
        return _undecided(NOT_A_RULE, index)
    reach, culprit = core_port_reach(rule, agent_port)
    if reach is Tri.UNKNOWN:
        return _undecided(
            f"{culprit} cannot be resolved against {_tcp(agent_port)}",
            index,
        )
    if reach is Tri.NO:
        return _closed(index)
    sources = read_list(rule, "from")
    if sources is UNREADABLE:
        return _undecided("`from` is not a list of peers", index)
    if not sources:
        return _open(
            f"the rule has no `from` peers, so every source reaches {_tcp(agent_port)}", index
        )
    return _core_peers_verdict(sources, index, agent_port)


def _core_peers_verdict(peers: list[JSON], index: int, agent_port: int) -> RuleVerdict:
    """A wide-open peer anywhere wins over a peer that cannot be read."""
    answers = [(peer, wide_open(peer)) for peer in peers]
    for peer, answer in answers:
        if answer is Tri.YES:
            return _open(
                f"the wide-open `from` peer {compact_json(peer)} reaches {_tcp(agent_port)}",
                index,
            )
    for peer, answer in answers:
        if answer is Tri.UNKNOWN:
            return _undecided(f"a `from` peer cannot be read: {compact_json(peer)}", index)
    return _closed(index)


def cilium_ingress_verdict(
    rule: JSON, index: int, agent_port: int, groups: Sequence[ReachCandidate] = ()
) -> RuleVerdict:
    """§13.3, Cilium steps 1-10. ``fromEndpoints: [{}]`` is not wide open.
    ``groups`` resolve `fromCIDRSet` group references (CLUSTER-POLICIES §6.3)."""
    if not isinstance(rule, dict):
        return _undecided(NOT_A_RULE, index)
    reach, culprit = cilium_port_reach(rule, agent_port)
    if reach is Tri.UNKNOWN:
        return _undecided(f"{culprit} cannot be read against {_tcp(agent_port)}", index)
    if reach is Tri.NO:
        return _closed(index)
    sources: dict[str, list[JSON]] = {}
    for field in CILIUM_SOURCE_FIELDS:
        value = read_list(rule, field)
        if value is UNREADABLE:
            return _undecided(f"`{field}` is not a list", index)
        sources[field] = value or []
    verdict = _cilium_sources_verdict(sources, index, agent_port, groups)
    if verdict is not None:
        return verdict
    if not any(sources.values()):
        return _open(
            f"this is a port-only ingress rule, so every source reaches {_tcp(agent_port)}",
            index,
        )
    return _closed(index)


def _cilium_sources_verdict(
    sources: Mapping[str, list[JSON]],
    index: int,
    agent_port: int,
    groups: Sequence[ReachCandidate],
) -> RuleVerdict | None:
    """§13.3 steps 5-8, in order; None when none of them decides."""
    return (
        _entities_verdict(sources, index, agent_port)
        or _cidrs_verdict(sources, index, agent_port)
        or _cidr_sets_verdict(sources, index, agent_port, groups)
        or _selectors_verdict(sources, index, agent_port)
    )


def _entities_verdict(
    sources: Mapping[str, list[JSON]], index: int, agent_port: int
) -> RuleVerdict | None:
    for entity in sources["fromEntities"]:
        if not isinstance(entity, str):
            return _undecided(
                f"the `fromEntities` entry {compact_json(entity)} is not an entity name", index
            )
        if entity in WIDE_ENTITIES:
            return _open(
                f"`fromEntities` admits the entity {entity!r} on {_tcp(agent_port)}", index
            )
    return None


def _is_wide_cidr(text: str) -> bool:
    return js_trim(text) in WIDE_CIDRS


def _cidrs_verdict(
    sources: Mapping[str, list[JSON]], index: int, agent_port: int
) -> RuleVerdict | None:
    for cidr in sources["fromCIDR"]:
        if not isinstance(cidr, str):
            return _undecided(
                f"the `fromCIDR` entry {compact_json(cidr)} is not a CIDR string", index
            )
        if _is_wide_cidr(cidr):
            return _open(f"`fromCIDR` admits {cidr!r} on {_tcp(agent_port)}", index)
    return None


def _cidr_sets_verdict(
    sources: Mapping[str, list[JSON]],
    index: int,
    agent_port: int,
    groups: Sequence[ReachCandidate] = (),
) -> RuleVerdict | None:
    for entry in sources["fromCIDRSet"]:
        if not isinstance(entry, dict):
            return _undecided(
                f"the `fromCIDRSet` entry {compact_json(entry)} is not an object", index
            )
        if any(entry.get(name) is not None for name in GROUP_FIELDS):
            verdict = _group_entry_verdict(entry, index, agent_port, groups)
            if verdict is not None:
                return verdict
            continue
        cidr = entry.get("cidr", ABSENT)
        if cidr is ABSENT:
            continue
        if not isinstance(cidr, str):
            return _undecided(
                f"the `fromCIDRSet` entry {compact_json(entry)} has a `cidr` that is not a string",
                index,
            )
        if _is_wide_cidr(cidr):
            return _open(f"`fromCIDRSet` admits {cidr!r} on {_tcp(agent_port)}", index)
    return None


def _group_entry_verdict(
    entry: Mapping[str, JSON], index: int, agent_port: int, groups: Sequence[ReachCandidate]
) -> RuleVerdict | None:
    """CLUSTER-POLICIES §6.3 for a `fromCIDRSet` entry that references
    CiliumCIDRGroups: unknown when it cannot be resolved, open when a
    resolved CIDR (the entry's own ``cidr`` included) is wide."""
    resolved = resolved_cidrs(entry, groups)
    if isinstance(resolved, Unresolved):
        return _undecided(f"a `fromCIDRSet` entry cannot be resolved: {resolved.detail}", index)
    for cidr in resolved:
        if _is_wide_cidr(cidr):
            return _open(
                f"`fromCIDRSet` entry {compact_json(entry)} admits {cidr!r}, from its "
                f"CiliumCIDRGroup, on {_tcp(agent_port)}",
                index,
            )
    return None


def _selectors_verdict(
    sources: Mapping[str, list[JSON]], index: int, agent_port: int
) -> RuleVerdict | None:
    for field in ("fromEndpoints", "fromNodes"):
        for selector in sources[field]:
            if not selector_readable(selector):
                return _undecided(
                    f"a `{field}` selector cannot be read: {compact_json(selector)}", index
                )
    return None


# --- §13.1 reading policies into ingress documents ----------------------------------


def _unreadable(kind: str, name: str, detail: str, spec_index: int | None = None) -> PolicyDocument:
    return PolicyDocument(kind, name, Tri.UNKNOWN, False, unreadable=detail, spec_index=spec_index)


def ingress_documents(
    candidate: Candidate,
    subject: Subject,
    agent_port: int = DEFAULT_AGENT_PORT,
    groups: Sequence[ReachCandidate] = (),
) -> list[PolicyDocument]:
    """§13.1: read a NetworkPolicy, CiliumNetworkPolicy or
    CiliumClusterwideNetworkPolicy into its ingress documents, with rules
    judged against TCP ``agent_port``. Node-scoped Cilium specs give none;
    ``groups`` resolve `fromCIDRSet` group references (CLUSTER-POLICIES §6.3)."""
    name = document_name(candidate)
    if candidate.unreadable is not None:
        return [_unreadable(candidate.kind, name, candidate.unreadable)]
    if not isinstance(candidate.raw, dict):
        return [_unreadable(candidate.kind, name, NOT_A_POLICY_OBJECT)]
    if candidate.kind == CORE_KIND:
        return [_core_document(candidate.raw, name, subject, agent_port)]
    return _cilium_documents(candidate, name, subject, agent_port, groups)


def _core_document(
    raw: Mapping[str, JSON], name: str, subject: Subject, agent_port: int
) -> PolicyDocument:
    """§13.1 core: the §5.3 checks with ``spec.ingress`` as the last one."""
    shape = read_core_shape(raw, "ingress")
    if isinstance(shape, str):
        return _unreadable(CORE_KIND, name, shape)
    spec, policy_types, rules = shape.spec, shape.policy_types, shape.rules
    # As stored: Ingress is listed whenever policyTypes is absent, null or
    # empty, whatever the egress rules (``defaulting``).
    enforces = stored_enforces("ingress", policy_types, None)
    selects = match_selector(spec.get("podSelector", ABSENT), subject.labels, cilium=False)
    # A document that does not select the pod is decided before its rules
    # are read (§13.4 step 2).
    judged = (rules or []) if enforces and selects is not Tri.NO else []
    # Most documents select nothing: no generator is made for them.
    verdicts = (
        tuple(core_ingress_verdict(rule, index, agent_port) for index, rule in enumerate(judged))
        if judged
        else ()
    )
    return PolicyDocument(CORE_KIND, name, selects, enforces, verdicts)


def _cilium_documents(
    candidate: Candidate,
    name: str,
    subject: Subject,
    agent_port: int,
    groups: Sequence[ReachCandidate],
) -> list[PolicyDocument]:
    """§13.1 Cilium: each spec document in order; node-scoped ones give none."""
    entries = spec_entries(candidate.raw)
    if isinstance(entries, str):
        return [_unreadable(candidate.kind, name, entries)]
    kind = CLUSTERWIDE_KIND if candidate.clusterwide else candidate.kind
    labels = identity_labels(subject)
    documents = []
    for spec, spec_index in entries:
        document = _cilium_document(
            spec,
            spec_index,
            kind=kind,
            name=name,
            labels=labels,
            agent_port=agent_port,
            groups=groups,
        )
        if document is not None:
            documents.append(document)
    return documents


def _cilium_document(
    spec: JSON,
    spec_index: int | None,
    *,
    kind: str,
    name: str,
    labels: Mapping[str, str],
    agent_port: int,
    groups: Sequence[ReachCandidate],
) -> PolicyDocument | None:
    """One Cilium spec document (§5.4 step 4 with the §13.1 ingress fields)."""
    if not isinstance(spec, dict):
        return _unreadable(kind, name, not_an_object(spec_index), spec_index)
    if "nodeSelector" in spec:  # null included (Q11): it selects nodes, not pods
        return None
    shape = read_cilium_shape(spec, "ingress", spec_index)
    if isinstance(shape, str):
        return _unreadable(kind, name, shape, spec_index)
    rules, enforces = shape.rules, shape.enforces
    selects = match_selector(spec.get("endpointSelector", ABSENT), labels, cilium=True)
    # Judged whatever enableDefaultDeny says: what a rule admits, it admits;
    # but only for a document that can select the pod (§13.4 step 2).
    judged = (rules or []) if selects is not Tri.NO else []
    verdicts = tuple(
        cilium_ingress_verdict(rule, index, agent_port, groups) for index, rule in enumerate(judged)
    )
    return PolicyDocument(kind, name, selects, enforces, verdicts, spec_index=spec_index)


# --- §13.4 verdicts, precedence and summaries --------------------------------------


def ingress_verdict(document: PolicyDocument) -> tuple[IngressVerdict, str | None]:
    """§13.4 steps 1-7 for one document. An open rule is reported before
    enforcement is looked at: a rule that turns default-deny off still opens."""
    if document.unreadable is not None:
        return IngressVerdict.NOT_EVALUABLE, document.unreadable
    if document.selects is Tri.NO:
        return IngressVerdict.DOES_NOT_SELECT, None
    if document.selects is Tri.UNKNOWN:
        return IngressVerdict.NOT_EVALUABLE, UNKNOWN_SELECTOR
    for rule in document.rules:
        if rule.outcome is Tri.YES:
            return IngressVerdict.OPENS_AGENT_PORT, rule.detail
    for rule in document.rules:
        if rule.outcome is Tri.UNKNOWN:
            return IngressVerdict.NOT_EVALUABLE, rule.detail
    if not document.enforces:
        return IngressVerdict.NOT_INGRESS_SCOPED, NOT_INGRESS_SCOPED
    return IngressVerdict.COVERS, None


def examine_ingress(document: PolicyDocument) -> Examined:
    """One document's examined entry (§13.4). It depends on the document
    alone, so callers may judge a document once and reuse the entry."""
    verdict, detail = ingress_verdict(document)
    return Examined(document.kind, document.name, verdict, detail, document)


def _label(entry: Examined) -> str:
    return f"{entry.kind}/{entry.name}"


def decide_ingress(documents: Sequence[PolicyDocument], agent_port: int) -> Decision:
    """§13.4 precedence: an open document gives ``port-open``; otherwise an
    undecided one gives ``not-evaluable``; otherwise no covering document
    gives ``no-covering-policy``. There is no allow-all style exemption."""
    return summarize_ingress(tuple(examine_ingress(d) for d in documents), agent_port)


def summarize_ingress(examined: Sequence[Examined], agent_port: int) -> Decision:
    """§13.4 precedence and summaries over examined entries in document order."""
    entries = tuple(examined)
    refusal, summary = ingress_refusal(entries, agent_port)
    return Decision(refusal, summary, entries)


def ingress_refusal(
    examined: Sequence[Examined], agent_port: int
) -> tuple[IngressRefusal | None, str | None]:
    """The refusal of ``summarize_ingress`` and its summary. No
    ``does-not-select`` entry takes part, so a caller may pass the others
    alone, in document order, and get the same answer."""
    verdicts = verdicts_of(examined)
    port = _tcp(agent_port)
    first_open = first_of(examined, verdicts, IngressVerdict.OPENS_AGENT_PORT)
    if first_open is not None:
        summary = f"{_label(first_open)} selects the pod and opens {port}: {first_open.detail}"
        return IngressRefusal.PORT_OPEN, summary
    undecided = first_of(examined, verdicts, IngressVerdict.NOT_EVALUABLE)
    if undecided is not None:
        summary = (
            f"it cannot be decided whether {port} is closed: "
            f"{_label(undecided)}: {undecided.detail}"
        )
        return IngressRefusal.NOT_EVALUABLE, summary
    if IngressVerdict.COVERS not in verdicts:
        summary = (
            "no policy enforces ingress on the pod, so every pod in the cluster "
            f"can reach the agent port ({port})"
        )
        return IngressRefusal.NO_COVERING_POLICY, summary
    return None, None
