"""AdminNetworkPolicy and BaselineAdminNetworkPolicy, v1alpha1 (CLUSTER-POLICIES.md §3).

Also the parts ClusterNetworkPolicy (§4) shares with them: the document
reader of §3.2, the subject match of §3.3, the rule steps of §3.4 and the
`to` entries of §3.4.1. A ``Flavour`` says where the two APIs differ.

- ANP `Allow` rules are always judged: they override the NetworkPolicy.
- `Deny` rules are never judged.
- ANP `Pass` is free when ISO, judged as an allow rule otherwise.
- BANP documents are excused when ISO and not CILIUM (§3.5), judged otherwise.
- Nothing here counts as enforcing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

import msgspec

from lint.decision.cidr import parse_cidr
from lint.decision.model import (
    ALL_PORTS,
    CidrPeer,
    Everything,
    PortRange,
    PortSet,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.reach.common import (
    JudgedRule,
    NewKindFacts,
    StrictSelector,
    combine,
    display_kind,
    judge_allow_like,
    match_strict,
    new_kind_verdict,
    object_name,
    read_strict_selector,
)
from lint.decision.reach.model import (
    DomainPeer,
    Group,
    LabelView,
    NodesPeer,
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    UnreadablePeer,
    WantedPeer,
    WantedPeers,
)
from lint.decision.values import JSON, UNREADABLE, compact_json, is_integer, read_list

API_VERSION: Final = "policy.networking.k8s.io/v1alpha1"
ANP_KIND: Final = "AdminNetworkPolicy"
BANP_KIND: Final = "BaselineAdminNetworkPolicy"
NOT_A_POLICY_OBJECT: Final = "the list entry is not a policy object"
PASS_TO_UNISOLATED: Final = (
    "the Pass hands the traffic to a NetworkPolicy tier that does not isolate the pod, "
    "so the baseline tier and then the default allow decide it"
)
MIN_PORT: Final = 1
MAX_PORT: Final = 65535


def present(mapping: Mapping[str, JSON], key: str) -> bool:
    """§0.2: the key exists with a non-null value."""
    return mapping.get(key) is not None


# --- what differs between the APIs ---------------------------------------------------

PortsRead: TypeAlias = tuple[PortSet, bool]
"""The rule's wanted ports, and whether a named port made them ``all``."""
PortsReader: TypeAlias = Callable[[Mapping[str, JSON]], PortsRead | str]


class Flavour(msgspec.Struct, frozen=True):
    """How one kind reads its rules.

    ``group`` is the §1.5 group, ``actions`` the valid actions (exact case).
    ``pass_allow_like`` is True when a Pass is allow-like whatever
    ISO is (a v1alpha2 baseline Pass lands in the default allow), False when
    it is free under ISO. ``action_hint`` adds to an invalid action's detail.
    """

    group: Group
    actions: tuple[str, ...]
    peer_fields: tuple[str, ...]
    read_ports: PortsReader
    baseline: bool
    pass_allow_like: bool = False
    pass_note: str = PASS_TO_UNISOLATED
    action_hint: Callable[[JSON], str | None] = lambda _action: None
    unreadable_tier: str | None = None


# --- §3.2 reading a document ---------------------------------------------------------


class Shape(msgspec.Struct, frozen=True):
    """A readable document: its spec, subject and egress rules (None: absent)."""

    spec: Mapping[str, JSON]
    subject: Mapping[str, JSON]
    egress: list[JSON] | None


def read_shape(raw: JSON, unreadable_tier: str | None = None) -> Shape | str:
    """§3.2 steps 1-5 (with §4.3 step 4a, the tier, after step 4)."""
    if not isinstance(raw, dict):
        return NOT_A_POLICY_OBJECT
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return "`spec` is not an object"
    subject = spec.get("subject")
    if not isinstance(subject, dict):
        return "`spec.subject` is not an object"
    if present(subject, "namespaces") == present(subject, "pods"):
        return "the subject must set exactly one of `namespaces`, `pods`"
    if unreadable_tier is not None:
        return unreadable_tier
    egress = read_list(spec, "egress")
    if egress is UNREADABLE:
        return "`spec.egress` is not a list of rules"
    return Shape(spec, subject, egress)


# --- §3.3 the subject ------------------------------------------------------------------

POD_SUBJECT_KEYS: Final = frozenset({"namespaceSelector", "podSelector"})


def subject_selects(subject: Mapping[str, JSON], namespace: LabelView, pod: LabelView) -> Tri:
    """§3.3: ``namespaces`` against the namespace labels; ``pods`` against
    both, an absent selector read as the empty one (the wider reading)."""
    return selectors_select(subject_selectors(subject), namespace, pod)


SubjectSelectors: TypeAlias = tuple[tuple[StrictSelector | str, bool], ...] | None
"""A subject's selectors as read (a reason where one cannot be), each with
whether it reads the pod's labels (else the namespace's); None for a
subject whose ``pods`` cannot be read."""


def subject_selectors(subject: Mapping[str, JSON]) -> SubjectSelectors:
    """The selectors ``subject_selects`` matches, read once: a caller that
    asks for many pods keeps them."""
    if present(subject, "namespaces"):
        return ((read_strict_selector(subject["namespaces"]), False),)
    pods = subject.get("pods")
    if not isinstance(pods, dict) or set(pods) - POD_SUBJECT_KEYS:
        return None
    return (
        (read_strict_selector(pods.get("namespaceSelector", {})), False),
        (read_strict_selector(pods.get("podSelector", {})), True),
    )


def selectors_select(selectors: SubjectSelectors, namespace: LabelView, pod: LabelView) -> Tri:
    """``subject_selects`` from the subject's selectors (``subject_selectors``)."""
    if selectors is None:
        return Tri.UNKNOWN
    outcomes = [
        Tri.UNKNOWN if isinstance(read, str) else match_strict(read, pod if on_pod else namespace)
        for read, on_pod in selectors
    ]
    return combine(*outcomes)


def subject_text(subject: Mapping[str, JSON]) -> str:
    return f"its subject {compact_json(subject)}"


# --- §3.4 step 6: ANP ports -------------------------------------------------------------

PORT_ENTRY_FIELDS: Final = ("portNumber", "portRange", "namedPort")
PORTS_UNREADABLE: Final = "a `ports` entry cannot be read"


def valid_port(value: JSON) -> bool:
    return is_integer(value) and MIN_PORT <= value <= MAX_PORT


def port_span(protocol: str, start: JSON, end: JSON) -> PortRange | None:
    """A ``start``-``end`` range of valid ports with ``start <= end``, else None."""
    if not (valid_port(start) and valid_port(end)) or start > end:
        return None
    return PortRange(protocol, start, end)


def read_anp_ports(rule: Mapping[str, JSON]) -> PortsRead | str:
    """§3.4 step 6: the rule's ``ports``; any named port makes it ``all``."""
    entries = read_list(rule, "ports")
    if entries is UNREADABLE:
        return f"{PORTS_UNREADABLE}: `ports` is not a list"
    if not entries:
        return ALL_PORTS, False
    ranges: list[PortRange] = []
    named = False
    for entry in entries:
        read = _read_anp_port_entry(entry)
        if isinstance(read, str):
            return read
        if read is None:
            named = True
        else:
            ranges.append(read)
    return (ALL_PORTS, True) if named else (tuple(ranges), False)


def _read_anp_port_entry(entry: JSON) -> PortRange | str | None:
    """One entry: its range, None for a named port, or the unreadable detail."""
    problem = f"{PORTS_UNREADABLE}: {compact_json(entry)}"
    if not isinstance(entry, dict):
        return problem
    fields = [name for name in PORT_ENTRY_FIELDS if present(entry, name)]
    if len(fields) != 1:
        return f"{problem} (it must set exactly one of portNumber, portRange, namedPort)"
    value = entry[fields[0]]
    if fields[0] == "namedPort":
        return None if isinstance(value, str) else problem
    if not isinstance(value, dict):
        return problem
    protocol = _anp_protocol(value)
    if protocol is None:
        return problem
    if fields[0] == "portNumber":
        port = value.get("port")
        return PortRange(protocol, port) if valid_port(port) else problem
    span = port_span(protocol, value.get("start"), value.get("end"))
    return problem if span is None else span


def _anp_protocol(value: Mapping[str, JSON]) -> str | None:
    """TCP when absent, an uppercased string, None (unreadable) otherwise."""
    protocol = value.get("protocol")
    if protocol is None:
        return "TCP"
    return protocol.upper() if isinstance(protocol, str) else None


# --- §3.4.1 reading one `to` entry ---------------------------------------------------------

ANP_PEER_FIELDS: Final = ("namespaces", "pods", "nodes", "networks", "domainNames")
BANP_PEER_FIELDS: Final = ("namespaces", "pods", "nodes", "networks")


def read_to_entry(raw: JSON, fields: tuple[str, ...]) -> tuple[WantedPeer, ...]:
    """§3.4.1: the wanted peers of one entry, or one UnreadablePeer."""
    if not isinstance(raw, dict):
        return (UnreadablePeer(f"a `to` peer is not an object: {compact_json(raw)}"),)
    text = compact_json(raw)
    named = [name for name in fields if present(raw, name)]
    if not named:
        return (
            UnreadablePeer(
                f"the `to` peer {text} sets none of the known peer fields "
                f"({', '.join(fields)}); the API says to fail closed on such a peer"
            ),
        )
    peers: list[WantedPeer] = []
    for name in named:
        read = _read_peer_field(name, raw[name], text)
        if isinstance(read, str):
            return (
                UnreadablePeer(
                    f"the `{name}` field of the `to` peer {text} cannot be read: {read}"
                ),
            )
        peers.extend(read)
    return tuple(peers)


def _read_peer_field(name: str, value: JSON, text: str) -> list[WantedPeer] | str:
    """§3.4.1 steps 3a-3e for one present field; why it does not hold."""
    if name == "namespaces":
        read = read_strict_selector(value)
        return read if isinstance(read, str) else [SelectorPeer(value, {}, text)]
    if name == "pods":
        return _pods_peer(value, text)
    if name == "nodes":
        read = read_strict_selector(value)
        return read if isinstance(read, str) else [NodesPeer(text, read.is_empty)]
    if name == "networks":
        return _network_peers(value, text)
    if not isinstance(value, list) or not value:
        return "`domainNames` is not a non-empty list"
    return [DomainPeer(entry, text) for entry in value]


def _pods_peer(value: JSON, text: str) -> list[WantedPeer] | str:
    if not isinstance(value, dict) or set(value) - POD_SUBJECT_KEYS:
        return "`pods` must be an object with only `namespaceSelector` and `podSelector`"
    namespace_selector = value.get("namespaceSelector", {})
    pod_selector = value.get("podSelector", {})
    for selector in (namespace_selector, pod_selector):
        read = read_strict_selector(selector)
        if isinstance(read, str):
            return read
    # An explicit selector on both sides: an absent namespaceSelector here
    # means every namespace, not the policy's own (S§9.3 step 5 reads ABSENT
    # as "this namespace").
    return [SelectorPeer(namespace_selector, pod_selector, text)]


def _network_peers(value: JSON, text: str) -> list[WantedPeer] | str:
    if not isinstance(value, list) or not value:
        return "`networks` is not a non-empty list"
    peers: list[WantedPeer] = []
    for entry in value:
        cidr = parse_cidr(entry) if isinstance(entry, str) else None
        if cidr is None:
            return f"the network {compact_json(entry)} is not a CIDR"
        described = text if len(value) == 1 else f"{text} (network {compact_json(entry)})"
        peers.append(CidrPeer(cidr, (), described))
    return peers


def read_wanted_peers(rule: Mapping[str, JSON], fields: tuple[str, ...]) -> WantedPeers | str:
    """§3.4 steps 7-8: ``Everything`` for an absent or empty `to`, else the
    entries read in order; the detail when `to` is not a list."""
    entries = read_list(rule, "to")
    if entries is UNREADABLE:
        return "`to` is not a list of peers"
    if not entries:
        return Everything()
    peers: list[WantedPeer] = []
    for entry in entries:
        peers.extend(read_to_entry(entry, fields))
    return tuple(peers)


# --- §3.4 the egress rule verdict ---------------------------------------------------------


def rule_verdict(rule: JSON, index: int, flavour: Flavour, subject: ReachSubject) -> RuleVerdict:
    """§3.4 steps 1-8 (with §4.4 and §4.5 through the flavour)."""
    if not isinstance(rule, dict):
        return RuleVerdict(Tri.UNKNOWN, "an egress rule is not an object", index)
    action = rule.get("action")
    if not isinstance(action, str) or action not in flavour.actions:
        detail = f"the action {compact_json(action)} is not one of {', '.join(flavour.actions)}"
        hint = flavour.action_hint(action)
        return RuleVerdict(Tri.UNKNOWN, f"{detail}{hint or ''}", index)
    if action == "Deny":
        return RuleVerdict(Tri.NO, None, index)
    note: str | None = None
    if action == "Pass":
        if subject.iso and not flavour.pass_allow_like:
            # The traffic lands in an isolating NetworkPolicy tier, already judged.
            return RuleVerdict(Tri.NO, None, index)
        note = flavour.pass_note
    ports = flavour.read_ports(rule)
    if isinstance(ports, str):
        return RuleVerdict(Tri.UNKNOWN, ports, index)
    peers = read_wanted_peers(rule, flavour.peer_fields)
    if isinstance(peers, str):
        return RuleVerdict(Tri.UNKNOWN, peers, index)
    wanted_ports, named = ports
    return judge_allow_like(
        peers,
        wanted_ports,
        subject.allowance,
        action=action,
        index=index,
        named_port=named,
        note=note,
    )


def excuse(subject: ReachSubject) -> str | None:
    """§3.5: a baseline document is excused exactly when ISO and not CILIUM."""
    if not subject.iso or subject.cilium:
        return None
    isolating = subject.iso_policy or "a core NetworkPolicy"
    named = f"NetworkPolicy/{subject.iso_policy}" if subject.iso_policy else isolating
    return (
        f"excused: {named} isolates the pod for egress, and the baseline tier never "
        "decides egress for an isolated pod"
    )


def judge_document(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData, flavour: Flavour
) -> ReachDocument:
    """One object's document, by §2.7 over §3.2-§3.5."""
    kind = display_kind(candidate.api_version, candidate.kind)
    name = object_name(candidate.raw, candidate.position)
    shape = read_shape(candidate.raw, flavour.unreadable_tier)
    if isinstance(shape, str):
        facts = NewKindFacts(unreadable=shape, selects=Tri.UNKNOWN, egress_governed=False)
    else:
        facts = _facts(shape, subject, data, flavour)
    decided = new_kind_verdict(facts)
    rule = decided.rule
    return ReachDocument(
        kind=kind,
        name=name,
        verdict=decided.verdict,
        detail=decided.detail,
        rule_index=None if rule is None else rule.verdict.index,
        rule_path=() if rule is None else rule.path,
        group=flavour.group,
        excused=facts.excuse is not None and facts.selects is not Tri.NO and facts.egress_governed,
    )


def _facts(shape: Shape, subject: ReachSubject, data: ReachData, flavour: Flavour) -> NewKindFacts:
    selects = subject_selects(shape.subject, data.namespace_view(subject.namespace), subject.pod)
    governed = bool(shape.egress)
    excused = excuse(subject) if flavour.baseline else None
    judged = governed and selects is not Tri.NO and excused is None
    rules = (
        tuple(
            _judged_rule(rule, index, flavour, subject)
            for index, rule in enumerate(shape.egress or [])
        )
        if judged
        else ()
    )
    return NewKindFacts(
        unreadable=None,
        selects=selects,
        egress_governed=governed,
        rules=rules,
        excuse=excused,
        subject_text=subject_text(shape.subject),
    )


def _judged_rule(rule: JSON, index: int, flavour: Flavour, subject: ReachSubject) -> JudgedRule:
    name = rule.get("name") if isinstance(rule, dict) else None
    return JudgedRule(
        rule_verdict(rule, index, flavour, subject),
        name if isinstance(name, str) else None,
        ("spec", "egress", index),
    )


ANP_FLAVOUR: Final = Flavour(
    group="admin",
    actions=("Allow", "Deny", "Pass"),
    peer_fields=ANP_PEER_FIELDS,
    read_ports=read_anp_ports,
    baseline=False,
)
BANP_FLAVOUR: Final = Flavour(
    group="baseline",
    actions=("Allow", "Deny"),
    peer_fields=BANP_PEER_FIELDS,
    read_ports=read_anp_ports,
    baseline=True,
)


def admin_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """§3: one document per AdminNetworkPolicy or BaselineAdminNetworkPolicy
    object; () for any other (apiVersion, kind)."""
    if candidate.api_version != API_VERSION:
        return ()
    if candidate.kind == ANP_KIND:
        return (judge_document(candidate, subject, data, ANP_FLAVOUR),)
    if candidate.kind == BANP_KIND:
        return (judge_document(candidate, subject, data, BANP_FLAVOUR),)
    return ()
