"""Shared readers and judgements of the reach decision (CLUSTER-POLICIES.md §2).

- §2.2 the strict label-selector reader, and §2.4 its three-valued matching
  against the label views of §2.3 (``model.LabelView``);
- §2.5 judging an allow-like rule against the allowance, with the S§9.4
  destination tests of ``lint.decision.allowance``;
- §2.6 judging a domain-name entry;
- §2.7 the document verdict of a new-kind document;
- §2.8 display names.

The wording of details is ours; each names what its spec row requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from lint.decision.allowance import destination_allowed, reaches_resolver
from lint.decision.fqdn_patterns import name_in_pattern
from lint.decision.model import (
    Allowance,
    CidrPeer,
    EgressVerdict,
    Everything,
    PortSet,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.ports import covers, describe_ports, wanted_ranges
from lint.decision.reach.model import (
    UNKNOWN,
    DomainPeer,
    LabelView,
    NodesPeer,
    UnreadablePeer,
    WantedPeer,
    WantedPeers,
)
from lint.decision.selectors import is_empty_for_matching
from lint.decision.values import ABSENT, JSON, compact_json
from lint.kinds import display_kind as kind_display_name

# --- §2.2 the strict label-selector reader ------------------------------------------

SELECTOR_KEYS: Final = frozenset({"matchLabels", "matchExpressions"})
EXPRESSION_KEYS: Final = frozenset({"key", "operator", "values"})
OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist")
VALUED_OPERATORS: Final = ("In", "NotIn")


class Requirement(msgspec.Struct, frozen=True):
    """One ``matchExpressions`` entry; ``values`` is empty for Exists/DoesNotExist."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


class StrictSelector(msgspec.Struct, frozen=True):
    """A readable selector (§2.2): its ``matchLabels`` pairs and expressions."""

    labels: tuple[tuple[str, str], ...]
    requirements: tuple[Requirement, ...]

    @property
    def is_empty(self) -> bool:
        """No ``matchLabels`` entries and no expressions: selects everything."""
        return not self.labels and not self.requirements

    @property
    def keys(self) -> tuple[str, ...]:
        """Every label key the selector names, in order."""
        return tuple(key for key, _ in self.labels) + tuple(r.key for r in self.requirements)


def read_strict_selector(raw: JSON) -> StrictSelector | str:
    """§2.2: the selector, or why it is unreadable (a detail fragment).

    Stricter than S§6.1: an API server prunes unknown fields, and a pruned
    selector selects more, so any key but ``matchLabels`` and
    ``matchExpressions`` (the v0.1.x ``namespaceSelector``/``sameLabels``
    peer shapes included) is refused.
    """
    if not isinstance(raw, dict):
        return f"the selector {compact_json(raw)} is not an object"
    extra = sorted(set(raw) - SELECTOR_KEYS)
    if extra:
        return (
            f"the selector {compact_json(raw)} has the key {compact_json(extra[0])}, "
            "which a label selector does not have"
        )
    labels = _read_match_labels(raw)
    if isinstance(labels, str):
        return labels
    requirements = _read_match_expressions(raw)
    if isinstance(requirements, str):
        return requirements
    return StrictSelector(labels, requirements)


def _read_match_labels(raw: dict[str, JSON]) -> tuple[tuple[str, str], ...] | str:
    if "matchLabels" not in raw:
        return ()
    match_labels = raw["matchLabels"]
    if not isinstance(match_labels, dict) or not all(
        isinstance(value, str) for value in match_labels.values()
    ):
        return f"`matchLabels` {compact_json(match_labels)} is not an object of strings"
    return tuple(sorted(match_labels.items()))


def _read_match_expressions(raw: dict[str, JSON]) -> tuple[Requirement, ...] | str:
    if "matchExpressions" not in raw:
        return ()
    expressions = raw["matchExpressions"]
    if not isinstance(expressions, list):
        return f"`matchExpressions` {compact_json(expressions)} is not a list"
    requirements: list[Requirement] = []
    for expression in expressions:
        requirement = read_requirement(expression)
        if isinstance(requirement, str):
            return requirement
        requirements.append(requirement)
    return tuple(requirements)


def read_requirement(expression: JSON) -> Requirement | str:
    """§2.2 item 4 for one ``matchExpressions`` entry."""
    problem = f"the expression {compact_json(expression)} cannot be read"
    if not isinstance(expression, dict) or set(expression) - EXPRESSION_KEYS:
        return f"{problem}: it must be an object with only `key`, `operator`, `values`"
    key = expression.get("key")
    operator = expression.get("operator")
    if not isinstance(key, str) or not key:
        return f"{problem}: `key` is not a non-empty string"
    if not isinstance(operator, str) or operator not in OPERATORS:
        return f"{problem}: `operator` is not one of In, NotIn, Exists, DoesNotExist"
    if operator not in VALUED_OPERATORS:
        # For Exists and DoesNotExist `values` is ignored (§2.2 item 4).
        return Requirement(key, operator)
    values = expression.get("values")
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        return f"{problem}: `values` is not a non-empty list of strings"
    return Requirement(key, operator, tuple(values))


# --- §2.4 three-valued matching -----------------------------------------------------


def combine(*outcomes: Tri) -> Tri:
    """§2.4: ``no`` if any is ``no``, else ``unknown`` if any is, else ``yes``."""
    if Tri.NO in outcomes:
        return Tri.NO
    if Tri.UNKNOWN in outcomes:
        return Tri.UNKNOWN
    return Tri.YES


def match_strict(selector: StrictSelector | JSON, view: LabelView) -> Tri:
    """§2.4: match a strict selector (or a raw one, read by §2.2 first)
    against a label view. An unreadable selector is ``unknown`` at once; an
    empty one is ``yes``."""
    read = selector if isinstance(selector, StrictSelector) else read_strict_selector(selector)
    if isinstance(read, str):
        return Tri.UNKNOWN
    outcomes = [_match_label(key, wanted, view) for key, wanted in read.labels]
    outcomes += [match_requirement(requirement, view) for requirement in read.requirements]
    return combine(*outcomes)


def _match_label(key: str, wanted: str, view: LabelView) -> Tri:
    value = view.lookup(key)
    if value is ABSENT:
        return Tri.NO
    if value is UNKNOWN:
        return Tri.UNKNOWN
    return Tri.YES if value == wanted else Tri.NO


def match_requirement(requirement: Requirement, view: LabelView) -> Tri:
    """One row of the §2.4 table. A key known present with an unknown value
    decides Exists and DoesNotExist, but not In or NotIn (§11)."""
    operator = requirement.operator
    if operator in ("Exists", "DoesNotExist"):
        present = view.is_present(requirement.key)
        if present is UNKNOWN:
            return Tri.UNKNOWN
        return Tri.YES if present is (operator == "Exists") else Tri.NO
    value = view.lookup(requirement.key)
    if value is ABSENT:
        return Tri.NO if operator == "In" else Tri.YES
    if value is UNKNOWN:
        return Tri.UNKNOWN
    listed = value in requirement.values
    return Tri.YES if listed is (operator == "In") else Tri.NO


# --- §2.5 judging an allow-like rule ---------------------------------------------------

NAMED_PORT_NOTE: Final = "named port, read as every port and protocol"
WIDE_OPEN_CIDR_PREFIX: Final = 0


def _not_allowed(allowance: Allowance) -> str:
    return f"which the '{allowance.policy_kind}' translation does not allow"


def describe_wanted_ports(ports: PortSet, named_port: bool) -> str:
    """S§7.5, plus the §2.5 named-port note."""
    described = describe_ports(ports)
    return f"{described} ({NAMED_PORT_NOTE})" if named_port else described


def is_wide_open(peer: WantedPeer) -> bool:
    """§2.5 step 3d wording: a cidr of prefix 0, or an empty namespace
    selector with an empty (or no) pod selector."""
    if isinstance(peer, CidrPeer):
        return peer.cidr.prefix == WIDE_OPEN_CIDR_PREFIX and not peer.excepts
    if isinstance(peer, SelectorPeer):
        return (
            peer.namespace_selector is not ABSENT
            and is_empty_for_matching(peer.namespace_selector)
            and is_empty_for_matching(peer.pod_selector)
        )
    return False


def judge_allow_like(
    wanted_peers: WantedPeers,
    wanted_ports: PortSet,
    allowance: Allowance,
    *,
    action: str = "Allow",
    index: int = 0,
    named_port: bool = False,
    note: str | None = None,
) -> RuleVerdict:
    """§2.5 steps 1-4 for a rule already found allow-like.

    ``wanted_peers`` is ``Everything`` when the rule names no destination,
    else its peers in order, an unreadable one being ``unknown`` at its turn.
    ``note`` is appended to every detail (the Pass explanation of §3.4 step
    5). ``permitsEverything`` is honoured everywhere, FQDN checks included
    (S§16 Q1 is not copied).
    """
    ports = describe_wanted_ports(wanted_ports, named_port)

    def verdict(outcome: Tri, detail: str | None = None) -> RuleVerdict:
        if detail is not None and note is not None:
            detail = f"{detail}; {note}"
        return RuleVerdict(outcome=outcome, detail=detail, index=index)

    if allowance.permits_nothing:
        return verdict(
            Tri.YES,
            f"this `{action}` rule lets egress traffic out, while the configured "
            f"'{allowance.policy_kind}' translation permits no egress at all",
        )
    if isinstance(wanted_peers, Everything):
        if allowance.permits_everything:
            return verdict(Tri.NO)
        return verdict(
            Tri.YES,
            f"the `{action}` rule names no destination, so every destination is reachable "
            f"on {ports}, {_not_allowed(allowance)}",
        )
    for peer in wanted_peers:
        decided = _peer_verdict(peer, wanted_ports, ports, allowance, index)
        if decided is not None:
            return verdict(decided.outcome, decided.detail)
    return verdict(Tri.NO)


def _peer_verdict(
    peer: WantedPeer, wanted_ports: PortSet, ports: str, allowance: Allowance, index: int
) -> RuleVerdict | None:
    """§2.5 steps 3a-3d for one wanted peer; None when it stays inside."""
    if isinstance(peer, UnreadablePeer):
        return RuleVerdict(Tri.UNKNOWN, peer.detail, index)
    if isinstance(peer, NodesPeer):
        if allowance.permits_everything:
            return None
        return RuleVerdict(
            Tri.UNKNOWN,
            f"peer {peer.text} reaches node addresses, which cannot be known offline",
            index,
        )
    if isinstance(peer, DomainPeer):
        return judge_domain_entry(peer.entry, wanted_ports, allowance, index=index)
    if isinstance(peer, Everything):
        # Readers never build this peer; it reaches every destination.
        if allowance.permits_everything:
            return None
        return RuleVerdict(
            Tri.YES, f"peer {peer.text} on {ports}, {_not_allowed(allowance)}", index
        )
    if isinstance(allowance.dns_narrowed_to, tuple) and reaches_resolver(peer, wanted_ports):
        return RuleVerdict(
            Tri.YES,
            f"peer {peer.text} on {ports} reaches the cluster resolver's DNS port with no "
            "DNS-name restriction, while the translation narrows DNS names "
            "(ciliumNarrowing.dnsNames)",
            index,
        )
    if not destination_allowed(allowance, peer, wanted_ports):
        prefix = "wide-open " if is_wide_open(peer) else ""
        return RuleVerdict(
            Tri.YES, f"{prefix}peer {peer.text} on {ports}, {_not_allowed(allowance)}", index
        )
    return None


# --- §2.6 judging a domain-name entry --------------------------------------------------

_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def normalise_domain(name: str) -> str:
    """§2.6 step 3: lowercase ASCII letters only, then strip one trailing ``.``."""
    lowered = name.translate(_ASCII_LOWER)
    return lowered[:-1] if lowered.endswith(".") else lowered


def domain_allowed(allowance: Allowance, name: str, ports: PortSet) -> bool:
    """S§9.4 "FQDN allowed" on normalised names (§2.6 step 5). A ``host:
    none`` allowance (issue 28) adds its pattern grants, read as Cilium
    reads them, and splits a port on every protocol into TCP, UDP, SCTP."""
    return all(
        any(
            normalise_domain(grant.host) == name and covers(grant.ports, wanted)
            for grant in allowance.fqdns
        )
        or any(
            name_in_pattern(name, grant.host) and covers(grant.ports, wanted)
            for grant in allowance.fqdn_patterns
        )
        for wanted in wanted_ranges(ports, split_any=allowance.cluster_terms)
    )


DOMAIN_RESOLUTION_UNKNOWN: Final = (
    "is in the allowance, but how the implementation lets the pod resolve it is not "
    "part of the API: Cilium 1.20 adds, for every `domainNames` rule, an allow rule to "
    "pods labelled k8s-app=kube-dns in every namespace on the ports named dns and "
    "dns-tcp, which no allowance destination contains, and Calico 3.32 drops such a "
    "peer entirely"
)


def judge_domain_entry(
    entry: JSON, ports: PortSet, allowance: Allowance, *, index: int = 0
) -> RuleVerdict | None:
    """§2.6 steps 1-6 for one entry; None means "no finding, next peer"
    (only under ``permitsEverything``)."""
    if not isinstance(entry, str):
        return RuleVerdict(
            Tri.UNKNOWN, f"a domain entry is not a string: {compact_json(entry)}", index
        )
    if allowance.permits_everything:
        return None
    name = normalise_domain(entry)
    described = describe_ports(ports)
    if "*" in name:
        return RuleVerdict(
            Tri.YES,
            f"domain pattern {compact_json(entry)} on {described} stands for one or more "
            "leading labels, while the translation records exact names only",
            index,
        )
    if not domain_allowed(allowance, name, ports):
        return RuleVerdict(
            Tri.YES,
            f"domain {compact_json(entry)} on {described}, {_not_allowed(allowance)}",
            index,
        )
    return RuleVerdict(
        Tri.UNKNOWN, f"domain {compact_json(entry)} {DOMAIN_RESOLUTION_UNKNOWN}", index
    )


# --- §2.7 the document verdict -------------------------------------------------------


class JudgedRule(msgspec.Struct, frozen=True):
    """One egress rule's verdict, with its ``name`` when the rule has one
    and its JSON path inside the object."""

    verdict: RuleVerdict
    name: str | None = None
    path: tuple[str | int, ...] = ()


class NewKindFacts(msgspec.Struct, frozen=True):
    """What §2.7 needs to know about one new-kind document.

    ``unreadable`` is the reader's detail, or None. ``egress_governed`` is
    False when the document has no egress rules to judge (egress absent or
    empty, or the kind's type check says egress is not governed).
    ``excuse`` is the detail of an excused document (§3.5, §5.10), or None.
    ``subject_text`` names the subject selector for §2.7 step 6."""

    unreadable: str | None
    selects: Tri
    egress_governed: bool
    rules: tuple[JudgedRule, ...] = ()
    excuse: str | None = None
    subject_text: str = "its subject"


class NewKindVerdict(msgspec.Struct, frozen=True):
    """The verdict, its detail, and the deciding rule (None when no rule decided)."""

    verdict: EgressVerdict
    detail: str | None
    rule: JudgedRule | None = None


NO_EGRESS_RULES: Final = "it has no egress rules, so it affects no egress"


def rule_label(rule: JudgedRule) -> str:
    """``egress rule <i>`` with its name when present."""
    label = f"egress rule {rule.verdict.index}"
    return f"{label} ({compact_json(rule.name)})" if rule.name is not None else label


def new_kind_verdict(facts: NewKindFacts) -> NewKindVerdict:
    """§2.7 steps 1-8. A ``selects`` = unknown document whose rules are all
    ``false`` is ``within``: whatever it selects, it lets nothing out."""
    if facts.unreadable is not None:
        return NewKindVerdict(EgressVerdict.NOT_EVALUABLE, facts.unreadable)
    if facts.selects is Tri.NO:
        return NewKindVerdict(EgressVerdict.DOES_NOT_SELECT, None)
    if not facts.egress_governed:
        return NewKindVerdict(EgressVerdict.NOT_EGRESS_SCOPED, NO_EGRESS_RULES)
    if facts.excuse is not None:
        return NewKindVerdict(EgressVerdict.WITHIN, facts.excuse)
    widening = _first_rule(facts.rules, Tri.YES)
    if widening is not None:
        detail = f"{rule_label(widening)}: {widening.verdict.detail or 'widens egress'}"
        if facts.selects is Tri.YES:
            return NewKindVerdict(EgressVerdict.WIDENS_EGRESS, detail, widening)
        return NewKindVerdict(
            EgressVerdict.NOT_EVALUABLE,
            f"{facts.subject_text} cannot be matched offline, and if it selects the pod, {detail}",
            widening,
        )
    undecided = _first_rule(facts.rules, Tri.UNKNOWN)
    if undecided is not None:
        detail = f"{rule_label(undecided)}: {undecided.verdict.detail or 'cannot be judged'}"
        return NewKindVerdict(EgressVerdict.NOT_EVALUABLE, detail, undecided)
    return NewKindVerdict(EgressVerdict.WITHIN, None)


def _first_rule(rules: Sequence[JudgedRule], outcome: Tri) -> JudgedRule | None:
    return next((rule for rule in rules if rule.verdict.outcome is outcome), None)


# --- §2.8 names -----------------------------------------------------------------------


def api_group(api_version: str) -> str:
    """The group of an ``apiVersion`` (``""`` for the core ``v1``)."""
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def display_kind(api_version: str, kind: str) -> str:
    """§2.8, from an ``apiVersion``: the kind table's own naming
    (``lint.kinds.display_kind``)."""
    return kind_display_name(api_group(api_version), kind)


def object_name(raw: JSON, position: int) -> str:
    """S§5.2: ``metadata.name`` when a non-empty string, else ``(unnamed #i)``."""
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) and name else f"(unnamed #{position})"
