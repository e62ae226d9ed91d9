"""Calico policies and tiers for the reach decision (CLUSTER-POLICIES.md §5).

Reads ``GlobalNetworkPolicy`` and ``NetworkPolicy`` in both the
``projectcalico.org/v3`` and ``crd.projectcalico.org/v1`` forms, identically,
and judges each as one new-kind document (§2.7): selection (§5.5), ``types``
(§5.6), the later-tier excuse (§5.10) and the egress rules (§5.7-§5.9), in
the order of §5.14. Staged kinds (§5.12) and host-endpoint-only policies
(§5.13) become ``Skipped``. ``Tier`` objects only supply orders (§5.2),
except a ``default`` Tier that passes, which is its own document and turns
DEFTIER off (§5.11).

The selector language is :mod:`lint.decision.reach.calico_selector` (§5.3);
the Calico label views (§5.4) are built here over the views of §2.3.

A namespaced object (``NetworkPolicy``, ``StagedNetworkPolicy``,
``StagedKubernetesNetworkPolicy``) counts only in the sandbox namespace: its
namespace is the one WIRING defaulted (``ReachCandidate.namespace``), else
its ``metadata.namespace``, else the sandbox's (the fail-closed reading).
A NetworkSet whose namespace is not known is taken to be in every namespace.

§8 for Calico (an ``Allow`` or ``Pass`` ingress rule in a policy that may
select the pod makes ``ingress.reach`` undecided) is here too:
``calico_ingress_documents``.

Pure: plain data in, frozen results out. The wording of details is ours.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal, TypeAlias

from lint.decision.cidr import is_ipv6_text, parse_cidr
from lint.decision.defaulting import calico_governs_egress
from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    CidrPeer,
    EgressVerdict,
    Everything,
    IngressVerdict,
    PortRange,
    PortSet,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.reach.calico_selector import (
    AllNode,
    KeyState,
    LabelValue,
    Node,
    SelectorError,
    evaluate,
    keys_used,
    parse_selector,
    to_label_selector,
    uses_global,
)
from lint.decision.reach.common import (
    JudgedRule,
    NewKindFacts,
    NewKindVerdict,
    combine,
    display_kind,
    judge_allow_like,
    new_kind_verdict,
    object_name,
)
from lint.decision.reach.model import (
    NAMESPACE_NAME_LABEL,
    DomainPeer,
    LabelView,
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
    UnreadablePeer,
    WantedPeer,
    WantedPeers,
)
from lint.decision.values import ABSENT, JSON, UNREADABLE, compact_json, is_integer, read_list

CALICO_API_VERSIONS: Final = ("projectcalico.org/v3", "crd.projectcalico.org/v1")
GLOBAL_POLICY: Final = "GlobalNetworkPolicy"
NAMESPACED_POLICY: Final = "NetworkPolicy"
POLICY_KINDS: Final = (GLOBAL_POLICY, NAMESPACED_POLICY)
STAGED_KINDS: Final = (
    "StagedGlobalNetworkPolicy",
    "StagedNetworkPolicy",
    "StagedKubernetesNetworkPolicy",
)
TIER_KIND: Final = "Tier"
NETWORK_SET_KIND: Final = "NetworkSet"
GROUP: Final = "calico"

STAGED_REASON: Final = "staged, not enforced"
HOST_ENDPOINT_REASON: Final = "host endpoints only"

DEFAULT_TIER: Final = "default"
DEFAULT_TIER_ORDER: Final = 1_000_000
BUILT_IN_TIER_ORDERS: Final[Mapping[str, float]] = {
    "adminnetworkpolicy": 1_000,
    "kube-admin": 1_000,
    DEFAULT_TIER: DEFAULT_TIER_ORDER,
    "baselineadminnetworkpolicy": 10_000_000,
    "kube-baseline": 10_000_000,
}

ACTIONS: Final = ("Allow", "Deny", "Log", "Pass")
TYPES: Final = ("Ingress", "Egress")
PROTOCOL_NUMBERS: Final = {6: "TCP", 17: "UDP", 132: "SCTP"}
MAX_PROTOCOL: Final = 255
MAX_PORT: Final = 65535
DESTINATION_KEYS: Final = (
    "nets",
    "notNets",
    "selector",
    "notSelector",
    "namespaceSelector",
    "ports",
    "notPorts",
    "serviceAccounts",
    "services",
)
WIDE_CIDRS: Final = ("0.0.0.0/0", "::/0")

# §5.4: labels Calico adds to a workload endpoint, and its profile prefixes.
CALICO_NAME_LABEL: Final = "projectcalico.org/name"
NAMESPACE_PREFIX: Final = "pcns."
SERVICE_ACCOUNT_PREFIX: Final = "pcsa."
RESERVED_POD_PART_PREFIXES: Final = ("projectcalico.org/", NAMESPACE_PREFIX, SERVICE_ACCOUNT_PREFIX)

_DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)
_PORT_RANGE: Final = re.compile(r"([0-9]+):([0-9]+)", re.ASCII)


def is_calico(api_version: str) -> bool:
    return api_version in CALICO_API_VERSIONS


# --- Label views (§5.4) ----------------------------------------------------------------


def _state(view: LabelView, key: str) -> LabelValue:
    """A §2.3 view's answer in the selector language's terms."""
    value = view.lookup(key)
    if isinstance(value, str):
        return value
    if value is ABSENT:
        return KeyState.ABSENT
    return KeyState.PRESENT if view.is_present(key) is True else KeyState.UNKNOWN


def _merge(pod: LabelValue, added: LabelValue) -> LabelValue:
    """A key Calico adds that the pod may also carry: which wins is NOT
    VERIFIED, so a collision leaves the key present with an unknown value."""
    if pod is KeyState.ABSENT or pod == added:
        return added
    if pod is KeyState.UNKNOWN and added is KeyState.UNKNOWN:
        return KeyState.UNKNOWN
    if pod is KeyState.UNKNOWN and added is KeyState.ABSENT:
        return KeyState.UNKNOWN
    if added is KeyState.ABSENT:
        return pod
    return KeyState.PRESENT


@dataclass(frozen=True, slots=True)
class CalicoViews:
    """The three §5.4 views, as lookups for the selector language."""

    namespace: str
    service_account: str
    pod: LabelView
    namespace_labels: LabelView
    service_account_labels: LabelView

    def endpoint(self, key: str) -> LabelValue:
        """The pod's labels plus what Calico adds to its workload endpoint."""
        added = self._added(key)
        pod = _state(self.pod, key)
        return pod if added is None else _merge(pod, added)

    def _added(self, key: str) -> LabelValue | None:
        fixed = {
            "projectcalico.org/namespace": self.namespace,
            "projectcalico.org/orchestrator": "k8s",
            "projectcalico.org/serviceaccount": self.service_account,
        }
        if key in fixed:
            return fixed[key]
        if key.startswith(NAMESPACE_PREFIX):
            return self.namespace_view(key.removeprefix(NAMESPACE_PREFIX))
        if key.startswith(SERVICE_ACCOUNT_PREFIX):
            return self.service_account_view(key.removeprefix(SERVICE_ACCOUNT_PREFIX))
        return None

    def namespace_view(self, key: str) -> LabelValue:
        """The namespace's labels plus ``projectcalico.org/name``."""
        if key == CALICO_NAME_LABEL:
            return self.namespace
        return _state(self.namespace_labels, key)

    def service_account_view(self, key: str) -> LabelValue:
        """The service account's labels plus ``projectcalico.org/name``."""
        if key == CALICO_NAME_LABEL:
            return self.service_account
        return _state(self.service_account_labels, key)


def calico_views(subject: ReachSubject, data: ReachData) -> CalicoViews:
    return CalicoViews(
        namespace=subject.namespace,
        service_account=subject.service_account,
        pod=subject.pod,
        namespace_labels=data.namespace_view(subject.namespace),
        service_account_labels=data.service_account_view(
            subject.namespace, subject.service_account
        ),
    )


# --- Selection (§5.5) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SelectorPart:
    """One selection field's outcome; ``problem`` says why it is unknown
    when it cannot be read."""

    field: str
    raw: JSON
    outcome: Tri
    problem: str | None = None


def _selection_part(
    spec: Mapping[str, JSON], field: str, lookup: Callable[[str], LabelValue]
) -> SelectorPart | None:
    """A selector field over a view; None when it is absent or empty (and
    so does not restrict)."""
    raw = spec.get(field)
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        return SelectorPart(field, raw, Tri.UNKNOWN, "it is not a string")
    node = parse_selector(raw)
    if isinstance(node, SelectorError):
        return SelectorPart(field, raw, Tri.UNKNOWN, f"it does not parse: {node.reason}")
    if uses_global(node):
        return SelectorPart(field, raw, Tri.UNKNOWN, "global() has no meaning there")
    return SelectorPart(field, raw, evaluate(node, lookup))


@dataclass(frozen=True, slots=True)
class Selection:
    outcome: Tri
    text: str


def calico_selects(candidate: ReachCandidate, subject: ReachSubject, data: ReachData) -> Tri:
    """§5.5 for one Calico policy object (``unknown`` when it cannot be
    read); for callers such as the ingress check of §8."""
    spec = candidate.raw.get("spec") if isinstance(candidate.raw, dict) else None
    if not isinstance(spec, dict):
        return Tri.UNKNOWN
    return _selection(spec, candidate.kind == GLOBAL_POLICY, calico_views(subject, data)).outcome


def _selection(spec: Mapping[str, JSON], is_global: bool, views: CalicoViews) -> Selection:
    """§5.5: ``selector`` over the endpoint view, and for a GNP
    ``namespaceSelector`` over the namespace view, and
    ``serviceAccountSelector`` over the service-account view, joined as §2.4."""
    fields: list[tuple[str, Callable[[str], LabelValue]]] = [("selector", views.endpoint)]
    if is_global:
        fields.append(("namespaceSelector", views.namespace_view))
    fields.append(("serviceAccountSelector", views.service_account_view))
    parts = [part for name, lookup in fields if (part := _selection_part(spec, name, lookup))]
    outcome = combine(*(part.outcome for part in parts))
    unknown = [part for part in parts if part.outcome is Tri.UNKNOWN]
    return Selection(outcome, _describe_unknown_parts(unknown))


def _describe_unknown_parts(parts: list[SelectorPart]) -> str:
    if not parts:
        return "its selector"
    described = []
    for part in parts:
        text = f"`{part.field}` {compact_json(part.raw)}"
        described.append(f"{text} ({part.problem})" if part.problem else text)
    return "the subject (" + "; ".join(described) + ")"


# --- Tiers (§5.2, §5.11) --------------------------------------------------------------


class Position(Enum):
    """Where a policy's tier sits relative to the ``default`` tier (§5.2)."""

    BEFORE = "before"
    DEFAULT = "default"
    AFTER = "after"
    UNKNOWN = "unknown"


_LAST: Final = "last"
TierOrder: TypeAlias = float | Literal["last"] | None
"""A readable order, ``last`` for an absent one, None when it cannot be read."""


def _tier_manifest_order(raw: JSON) -> TierOrder:
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return None
    order = spec.get("order")
    if order is None:
        return _LAST
    if isinstance(order, bool) or not isinstance(order, int | float):
        return None
    return float(order) if math.isfinite(order) else None


def _position_of(name: str, order: TierOrder) -> Position:
    if order is None:
        return Position.UNKNOWN
    if order == _LAST:
        return Position.AFTER
    if order < DEFAULT_TIER_ORDER or (order == DEFAULT_TIER_ORDER and name < DEFAULT_TIER):
        return Position.BEFORE
    return Position.AFTER


def tier_position(name: str, data: ReachData) -> Position:
    """§5.2: the position of tier ``name``. Every source of its order (the
    built-in table and each Tier manifest of that name) must agree, else
    the position is ``unknown``; a custom tier with no manifest is too."""
    if name == DEFAULT_TIER:
        return Position.DEFAULT
    positions = {
        _position_of(name, _tier_manifest_order(tier.raw))
        for tier in data.calico_tiers
        if object_name(tier.raw, tier.position) == name
    }
    if name in BUILT_IN_TIER_ORDERS:
        positions.add(_position_of(name, BUILT_IN_TIER_ORDERS[name]))
    return positions.pop() if len(positions) == 1 else Position.UNKNOWN


def _default_tier_problem(raw: JSON) -> str | None:
    """§5.11: why a ``default`` Tier manifest no longer ends in Deny, or None."""
    spec = raw.get("spec")
    consequence = (
        "so the default tier may pass unmatched traffic on to later tiers and to the "
        "namespace profile, which allows everything, and NetworkPolicy isolation is no "
        "longer final"
    )
    if not isinstance(spec, dict):
        return f"the `default` Tier's `spec` {compact_json(spec)} cannot be read, {consequence}"
    action = spec.get("defaultAction")
    if action is None or action == "Deny":
        return None
    return (
        f"the `default` Tier sets `defaultAction` {compact_json(action)} instead of Deny, "
        f"{consequence} (Calico up to 3.31 accepted this; 3.32 rejects it)"
    )


def _default_tiers(data: ReachData) -> list[tuple[ReachCandidate, str]]:
    return [
        (tier, problem)
        for tier in data.calico_tiers
        if isinstance(tier.raw, dict)
        and object_name(tier.raw, tier.position) == DEFAULT_TIER
        and (problem := _default_tier_problem(tier.raw)) is not None
    ]


def deftier(data: ReachData) -> bool:
    """§5.11 DEFTIER: true unless a ``default`` Tier manifest passes."""
    return not _default_tiers(data)


def calico_tier_documents(data: ReachData, subject: ReachSubject) -> tuple[ReachDocument, ...]:
    """§5.11: one ``not-evaluable`` document per ``default`` Tier that
    passes; every other Tier yields none."""
    return tuple(
        ReachDocument(
            kind=display_kind(tier.api_version, tier.kind),
            name=DEFAULT_TIER,
            verdict=EgressVerdict.NOT_EVALUABLE,
            detail=problem,
            rule_index=None,
            rule_path=(),
            group=GROUP,
        )
        for tier, problem in _default_tiers(data)
    )


# --- Wanted ports (§5.8) -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WantedPorts:
    ports: PortSet
    named_port: bool = False


def _read_protocol(value: JSON) -> str | Literal["unreadable"] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.upper()
    if is_integer(value) and 1 <= value <= MAX_PROTOCOL:
        number = int(value)
        return PROTOCOL_NUMBERS.get(number, str(number))
    return "unreadable"


def read_wanted_ports(rule: Mapping[str, JSON], destination: JSON) -> WantedPorts | str:
    """§5.8: the rule's wanted ports, or why they cannot be read."""
    protocol = _read_protocol(rule.get("protocol"))
    if protocol == "unreadable":
        return f"`protocol` {compact_json(rule.get('protocol'))} cannot be read"
    entries = read_list(destination, "ports") if isinstance(destination, dict) else None
    if entries is UNREADABLE:
        return "`destination.ports` is not a list"
    if not entries:
        return WantedPorts(ALL_PORTS if protocol is None else (PortRange(protocol),))
    ranges: list[PortRange] = []
    named = False
    for entry in entries:
        read = _read_port(entry, protocol)
        if read is None:
            return f"a `destination.ports` entry {compact_json(entry)} cannot be read"
        if read == "named":
            named = True
        else:
            ranges.append(read)
    # §2.5: a named port makes the whole rule every port and protocol.
    return WantedPorts(ALL_PORTS, named_port=True) if named else WantedPorts(tuple(ranges))


def _read_port(entry: JSON, protocol: str | None) -> PortRange | Literal["named"] | None:
    if is_integer(entry):
        number = int(entry)
        return PortRange(protocol, number) if 0 <= number <= MAX_PORT else None
    if not isinstance(entry, str):
        return None
    if _DIGITS.fullmatch(entry):
        number = int(entry)
        return PortRange(protocol, number) if number <= MAX_PORT else None
    found = _PORT_RANGE.fullmatch(entry)
    if found is not None:
        start, end = int(found.group(1)), int(found.group(2))
        if start <= end <= MAX_PORT:
            return PortRange(protocol, start, end)
        if start <= end:
            return None
    return "named"


# --- Destinations (§5.9) ----------------------------------------------------------------


class _Global(Enum):
    GLOBAL = "global"


GLOBAL_SCOPE: Final = _Global.GLOBAL
"""The §5.9.1 result for a ``global()`` namespace selector: addresses of
GlobalNetworkSets and host endpoints, not pods."""


@dataclass(frozen=True, slots=True)
class Undecided:
    """A destination or translation the linter cannot read; ``detail`` says why."""

    detail: str


@dataclass(frozen=True, slots=True)
class Scope:
    """A translated selector scope (§5.9.1), with the pod-part selector
    kept for the network-set check (§5.9.2); None is "no pod part"."""

    peer: SelectorPeer
    pod_part: Node | None


Translated: TypeAlias = Scope | _Global | Undecided


@dataclass(frozen=True, slots=True)
class Destination:
    """What §5.9 reads from a rule's ``destination``."""

    raw: JSON
    cidrs: tuple[CidrPeer, ...]
    not_nets: tuple[str, ...]
    scoped: bool


def _string_field(d: Mapping[str, JSON], key: str) -> str | Undecided | None:
    """A selector field: None when absent, null or empty."""
    value = d.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        return Undecided(f"`destination.{key}` {compact_json(value)} is not a string")
    return value


def _read_nets(d: Mapping[str, JSON], key: str) -> list[str] | Undecided:
    entries = read_list(d, key)
    if entries is UNREADABLE:
        return Undecided(f"`destination.{key}` is not a list")
    for entry in entries or []:
        if parse_cidr(entry) is None:
            return Undecided(f"a `destination.{key}` entry {compact_json(entry)} is not a CIDR")
    return list(entries or [])


def _cidr_peer(net: str, not_nets: list[str]) -> CidrPeer:
    same_family = [hole for hole in not_nets if is_ipv6_text(hole) == is_ipv6_text(net)]
    cidr = parse_cidr(net)
    assert cidr is not None  # every entry was parsed by _read_nets
    holes = tuple(hole for text in same_family if (hole := parse_cidr(text)) is not None)
    raw: dict[str, JSON] = {"cidr": net}
    if same_family:
        raw["except"] = same_family
    return CidrPeer(cidr, holes, compact_json(raw))


def read_destination(rule: Mapping[str, JSON], namespaced: bool) -> Destination | Undecided:
    """§5.9 steps 1-5."""
    d = rule.get("destination")
    if d is None:
        d = {}
    if not isinstance(d, dict):
        return Undecided(f"`destination` {compact_json(d)} is not an object")
    for key in d:
        if key not in DESTINATION_KEYS:
            return Undecided(
                f"`destination` has the field {compact_json(key)}, which the linter does not "
                "know (a Calico Enterprise field such as `domains` cannot be judged)"
            )
    if d.get("services") is not None:
        return Undecided(
            f"`destination.services` {compact_json(d['services'])}: a Service's endpoints "
            "cannot be enumerated offline (a Service without a selector can point at any "
            "address)"
        )
    nets = _read_nets(d, "nets")
    if isinstance(nets, Undecided):
        return nets
    not_nets = _read_nets(d, "notNets")
    if isinstance(not_nets, Undecided):
        return not_nets
    scope_fields = ["selector", "namespaceSelector"] + (["notSelector"] if namespaced else [])
    scoped = d.get("serviceAccounts") is not None
    for key in scope_fields:
        value = _string_field(d, key)
        if isinstance(value, Undecided):
            return value
        scoped = scoped or value is not None
    cidrs = tuple(_cidr_peer(net, not_nets) for net in nets)
    return Destination(d, cidrs, tuple(not_nets), scoped)


def _rename_namespace_key(key: str) -> str:
    # Both equal the namespace's name.
    return NAMESPACE_NAME_LABEL if key == CALICO_NAME_LABEL else key


def translate_scope(d: Mapping[str, JSON], namespace: str | None) -> Translated:
    """§5.9.1: the selector scope as a core selector peer. ``namespace`` is
    the policy's namespace for a namespaced policy, None for a GNP."""
    namespace_part = _namespace_part(_string_field(d, "namespaceSelector"), namespace)
    if not isinstance(namespace_part, dict):
        return namespace_part
    raw_selector = _string_field(d, "selector")
    if isinstance(raw_selector, Undecided):
        return raw_selector
    if raw_selector is None:
        return Scope(SelectorPeer(namespace_part, ABSENT, compact_json(d)), None)
    node = parse_selector(raw_selector)
    problem = _pod_part_problem(node)
    if problem is not None:
        return Undecided(f"`destination.selector` {compact_json(raw_selector)} {problem}")
    assert not isinstance(node, SelectorError)
    pod_part = to_label_selector(node)
    assert pod_part is not None
    return Scope(SelectorPeer(namespace_part, pod_part, compact_json(d)), node)


def _namespace_part(raw: str | Undecided | None, namespace: str | None) -> JSON | Translated:
    if isinstance(raw, Undecided):
        return raw
    if raw is None:
        if namespace is None:
            return {}
        return {"matchLabels": {NAMESPACE_NAME_LABEL: namespace}}
    node = parse_selector(raw)
    if isinstance(node, SelectorError):
        return Undecided(
            f"`destination.namespaceSelector` {compact_json(raw)} does not parse: {node.reason}"
        )
    if uses_global(node):
        return GLOBAL_SCOPE
    selector = to_label_selector(node, _rename_namespace_key)
    if selector is None:
        return Undecided(
            f"`destination.namespaceSelector` {compact_json(raw)} is outside the conjunctive "
            "fragment (atoms joined by &&) that a label selector can express"
        )
    return selector


def _pod_part_problem(node: Node | SelectorError) -> str | None:
    if isinstance(node, SelectorError):
        return f"does not parse: {node.reason}"
    if uses_global(node):
        return "uses global(), which has no meaning outside a namespaceSelector"
    if to_label_selector(node) is None:
        return (
            "is outside the conjunctive fragment (atoms joined by &&) that a label selector "
            "can express"
        )
    reserved = sorted(key for key in keys_used(node) if key.startswith(RESERVED_POD_PART_PREFIXES))
    if reserved:
        return (
            f"names {compact_json(reserved[0])}, a label Calico derives from the namespace or "
            "service account, which a pod selector cannot express"
        )
    return None


def _wide_cidrs(not_nets: tuple[str, ...]) -> tuple[CidrPeer, ...]:
    return tuple(_cidr_peer(net, list(not_nets)) for net in WIDE_CIDRS)


# --- Rule verdicts (§5.7) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What judging one policy's rules needs besides the rule."""

    allowance: Allowance
    position: Position
    iso: bool
    deftier: bool
    namespace: str | None  # the policy's namespace; None for a GNP
    network_sets: tuple[ReachCandidate, ...]


def _pass_note(context: RuleContext) -> str | None:
    """§5.7 step 5: why a Pass is judged as an allow rule; None when the
    Pass is free (step 4)."""
    if context.position is Position.DEFAULT:
        return (
            "in the `default` tier a Pass skips the NetworkPolicy isolation (the tier's "
            "end-of-tier Deny), so later tiers and the namespace profile, which allows "
            "everything, decide it"
        )
    if context.position is Position.AFTER:
        return (
            "a Pass in a tier after `default` can reach the namespace profile, which "
            "allows everything"
        )
    if context.position is Position.UNKNOWN:
        return (
            "the tier's position cannot be known (no readable Tier manifest), so the Pass "
            "can reach the namespace profile, which allows everything"
        )
    if not context.iso:
        return (
            "no core NetworkPolicy isolates the pod, so the Pass can reach the namespace "
            "profile, which allows everything"
        )
    if not context.deftier:
        return (
            "the `default` Tier does not end in Deny, so the Pass can reach later tiers and "
            "the namespace profile, which allows everything"
        )
    return None


def calico_rule_verdict(rule: JSON, index: int, context: RuleContext) -> RuleVerdict:
    """§5.7 steps 1-8 for one egress rule."""
    if not isinstance(rule, dict):
        return RuleVerdict(Tri.UNKNOWN, "an egress rule is not an object", index)
    action = rule.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        return RuleVerdict(
            Tri.UNKNOWN,
            f"`action` {compact_json(action)} is not one of Allow, Deny, Log, Pass",
            index,
        )
    if action in ("Deny", "Log"):
        return RuleVerdict(Tri.NO, index=index)
    note = None
    if action == "Pass":
        note = _pass_note(context)
        if note is None:
            return RuleVerdict(Tri.NO, index=index)
    ports = read_wanted_ports(rule, rule.get("destination"))
    if isinstance(ports, str):
        return RuleVerdict(Tri.UNKNOWN, f"the ports cannot be read: {ports}", index)
    destination = read_destination(rule, namespaced=context.namespace is not None)
    if isinstance(destination, Undecided):
        return RuleVerdict(Tri.UNKNOWN, _with_note(destination.detail, note), index)
    return _judge_destination(destination, ports, action, index, note, context)


def _with_note(detail: str, note: str | None) -> str:
    return f"{detail}; {note}" if note is not None else detail


def _judge_destination(
    destination: Destination,
    ports: WantedPorts,
    action: str,
    index: int,
    note: str | None,
    context: RuleContext,
) -> RuleVerdict:
    """§5.9 step 6."""

    def judge(peers: WantedPeers) -> RuleVerdict:
        return judge_allow_like(
            peers,
            ports.ports,
            context.allowance,
            action=action,
            index=index,
            named_port=ports.named_port,
            note=note,
        )

    if not destination.scoped:
        if destination.cidrs:
            return judge(destination.cidrs)
        if destination.not_nets:
            return judge(_wide_cidrs(destination.not_nets))
        return judge(Everything())
    scope = translate_scope(destination.raw, context.namespace)
    if not destination.cidrs:
        return _judge_scope(scope, ports, index, note, context, judge)
    # The rule matches only addresses both in the nets and in the scope: it
    # stays inside when either side is allowed.
    by_nets = judge(destination.cidrs)
    if by_nets.outcome is Tri.NO:
        return by_nets
    if isinstance(scope, Undecided):
        return RuleVerdict(Tri.UNKNOWN, _with_note(scope.detail, note), index)
    if isinstance(scope, Scope) and judge((scope.peer,)).outcome is Tri.NO:
        by_sets = _network_set_verdict(scope, ports, index, context, judge)
        if by_sets.outcome is Tri.NO:
            return by_sets
    return by_nets


def _judge_scope(
    scope: Translated,
    ports: WantedPorts,
    index: int,
    note: str | None,
    context: RuleContext,
    judge: Callable[[WantedPeers], RuleVerdict],
) -> RuleVerdict:
    if isinstance(scope, Undecided):
        return RuleVerdict(Tri.UNKNOWN, _with_note(scope.detail, note), index)
    if isinstance(scope, _Global):
        return _global_verdict(ports, index, note, context.allowance)
    verdict = judge((scope.peer,))
    if verdict.outcome is not Tri.NO:
        return verdict
    return _network_set_verdict(scope, ports, index, context, judge)


def _global_verdict(
    ports: WantedPorts, index: int, note: str | None, allowance: Allowance
) -> RuleVerdict:
    """§5.9.1: a ``global()`` scope reaches addresses (GlobalNetworkSets, host
    endpoints) that the manifests may not list."""
    if allowance.permits_everything:
        return RuleVerdict(Tri.NO, index=index)
    if any(isinstance(d.peer, CidrPeer) for d in allowance.destinations):
        return RuleVerdict(
            Tri.UNKNOWN,
            _with_note(
                "a `global()` namespaceSelector reaches GlobalNetworkSets and host endpoints, "
                "whose addresses cannot all be known offline",
                note,
            ),
            index,
        )
    return RuleVerdict(
        Tri.YES,
        _with_note(
            "a `global()` namespaceSelector reaches GlobalNetworkSets and host endpoints, "
            f"which are addresses, while the '{allowance.policy_kind}' translation allows "
            "no address range",
            note,
        ),
        index,
    )


# --- The network-set check (§5.9.2) ------------------------------------------------------


def _pinned_namespace(peer: SelectorPeer) -> str | None:
    selector = peer.namespace_selector
    if not isinstance(selector, dict) or set(selector) != {"matchLabels"}:
        return None
    labels = selector["matchLabels"]
    if not isinstance(labels, dict) or set(labels) != {NAMESPACE_NAME_LABEL}:
        return None
    name = labels[NAMESPACE_NAME_LABEL]
    return name if isinstance(name, str) else None


def _set_in(candidate: ReachCandidate, namespace: str) -> bool:
    """Whether a NetworkSet may be in ``namespace``. One whose namespace is
    not known (neither defaulted by WIRING nor stated) may be anywhere."""
    if candidate.kind != NETWORK_SET_KIND:
        return False
    if candidate.namespace is not None:
        return candidate.namespace == namespace
    metadata = candidate.raw.get("metadata") if isinstance(candidate.raw, dict) else None
    stated = metadata.get("namespace") if isinstance(metadata, dict) else None
    return not isinstance(stated, str) or not stated or stated == namespace


def _set_selected(raw: JSON, pod_part: Node | None) -> bool:
    """The pod part matches the set's labels with yes or unknown."""
    if pod_part is None or isinstance(pod_part, AllNode):
        return True
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    labels = metadata.get("labels", {}) if isinstance(metadata, dict) else {}
    if labels is None:
        labels = {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        return True
    known: dict[str, str] = labels
    return evaluate(pod_part, lambda key: known.get(key, KeyState.ABSENT)) is not Tri.NO


def _set_peers(raw: JSON) -> list[WantedPeer]:
    name = object_name(raw, 0)
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return [UnreadablePeer(f"NetworkSet {name}: `spec` is not an object")]
    peers: list[WantedPeer] = []
    nets = read_list(spec, "nets")
    if nets is UNREADABLE:
        return [UnreadablePeer(f"NetworkSet {name}: `spec.nets` is not a list")]
    for net in nets or []:
        cidr = parse_cidr(net)
        if cidr is None:
            peers.append(
                UnreadablePeer(
                    f"NetworkSet {name}: `spec.nets` entry {compact_json(net)} is not a CIDR"
                )
            )
            continue
        peers.append(CidrPeer(cidr, (), f"`spec.nets` entry {compact_json(net)}"))
    domains = read_list(spec, "allowedEgressDomains")
    if domains is UNREADABLE:
        return [*peers, UnreadablePeer(f"NetworkSet {name}: `allowedEgressDomains` is not a list")]
    peers += [DomainPeer(entry, compact_json(entry)) for entry in domains or []]
    return peers


def _network_set_verdict(
    scope: Scope,
    ports: WantedPorts,
    index: int,
    context: RuleContext,
    judge: Callable[[WantedPeers], RuleVerdict],
) -> RuleVerdict:
    """§5.9.2: an allowed scope pinned to one namespace also selects the
    NetworkSets there; each of their nets and domains is judged."""
    namespace = _pinned_namespace(scope.peer)
    if namespace is None:
        return RuleVerdict(Tri.NO, index=index)
    found: list[RuleVerdict] = []
    for network_set in _sets_in(context.network_sets, namespace):
        if not _set_selected(network_set.raw, scope.pod_part):
            continue
        verdict = judge(tuple(_set_peers(network_set.raw)))
        if verdict.outcome is not Tri.NO:
            name = object_name(network_set.raw, network_set.position)
            detail = (
                f"the destination {scope.peer.text} also selects NetworkSet {namespace}/{name}: "
                f"{verdict.detail}"
            )
            found.append(RuleVerdict(verdict.outcome, detail, index))
    # A widening set decides before an undecided one, whatever the order of the sets.
    widening = [verdict for verdict in found if verdict.outcome is Tri.YES]
    return (widening or found or [RuleVerdict(Tri.NO, index=index)])[0]


def _sets_in(network_sets: tuple[ReachCandidate, ...], namespace: str) -> list[ReachCandidate]:
    """The namespace's NetworkSet manifests, by name, so that details do not
    depend on the order in which the sets were found."""
    return sorted(
        (candidate for candidate in network_sets if _set_in(candidate, namespace)),
        key=lambda candidate: object_name(candidate.raw, candidate.position),
    )


# --- Documents (§5.6, §5.10, §5.13, §5.14) ----------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadPolicy:
    """A Calico policy object that passed §5.14 step 1."""

    spec: Mapping[str, JSON]
    tier: str
    types: tuple[str, ...] | None
    egress: list[JSON]
    host_endpoint_field: str | None


def _read_policy(raw: JSON, is_global: bool) -> ReadPolicy | str:
    """§5.14 step 1: the object, or its unreadable detail."""
    if not isinstance(raw, dict):
        return "the list entry is not a policy object"
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return f"`spec` {compact_json(spec)} is not an object"
    tier = spec.get("tier")
    if tier is not None and not isinstance(tier, str):
        return f"`spec.tier` {compact_json(tier)} is not a string"
    types = read_list(spec, "types")
    if types is UNREADABLE or any(entry not in TYPES for entry in types or []):
        return f"`spec.types` {compact_json(spec.get('types'))} is not a list of Ingress, Egress"
    host_field = None
    if is_global:
        for field in ("doNotTrack", "preDNAT"):
            value = spec.get(field)
            if value is not None and not isinstance(value, bool):
                return f"`spec.{field}` {compact_json(value)} is not a boolean"
            if value is True and host_field is None:
                host_field = field
    egress = read_list(spec, "egress")
    if egress is UNREADABLE:
        return "`spec.egress` is not a list of rules"
    return ReadPolicy(
        spec,
        tier or DEFAULT_TIER,
        None if types is None else tuple(types),
        egress or [],
        host_field,
    )


def governs_egress(policy: ReadPolicy) -> bool:
    """§5.6, as stored (``defaulting``): ``types`` when given; else exactly
    when ``egress`` is non-empty."""
    return calico_governs_egress(policy.types, policy.egress)


def _excuse(position: Position, subject: ReachSubject, has_deftier: bool) -> str | None:
    """§5.10: a policy in a tier after ``default`` only sees traffic that a
    default-tier Pass handed on, and every such Pass is judged."""
    if position is not Position.AFTER or not subject.iso or not has_deftier:
        return None
    isolating = (
        f"the NetworkPolicy {subject.iso_policy}" if subject.iso_policy else "a NetworkPolicy"
    )
    return (
        f"excused: its tier comes after `default`, {isolating} isolates the pod and the "
        "default tier ends in Deny, so this tier only sees traffic a default-tier Pass "
        "rule handed on, and every such Pass is judged as an allow rule"
    )


NAMESPACED_KINDS: Final = (
    NAMESPACED_POLICY,
    "StagedNetworkPolicy",
    "StagedKubernetesNetworkPolicy",
)


def _in_scope(candidate: ReachCandidate, subject: ReachSubject) -> bool:
    """A cluster-scoped kind always; a namespaced one in the sandbox namespace."""
    if candidate.kind not in NAMESPACED_KINDS:
        return True
    return candidate.namespace_or(subject.namespace) == subject.namespace


def calico_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...] | Skipped:
    """§5.14 for one Calico object: its document, ``Skipped`` for staged
    and host-endpoint-only policies, or () for anything else (a Tier, a
    network set, another group's kind, a NetworkPolicy of another namespace)."""
    kind = candidate.kind
    if not is_calico(candidate.api_version) or kind not in (*POLICY_KINDS, *STAGED_KINDS):
        return ()
    if not _in_scope(candidate, subject):
        return ()
    shown = display_kind(candidate.api_version, kind)
    name = object_name(candidate.raw, candidate.position)
    is_global = kind in (GLOBAL_POLICY, "StagedGlobalNetworkPolicy")
    policy = _read_policy(candidate.raw, is_global)
    if isinstance(policy, str):
        return (_document(shown, name, new_kind_verdict(_unreadable(policy))),)
    if kind in STAGED_KINDS:
        return Skipped(shown, name, STAGED_REASON)
    if policy.host_endpoint_field is not None:
        return Skipped(shown, name, f"{HOST_ENDPOINT_REASON} (`{policy.host_endpoint_field}`)")
    return (_document(shown, name, _judge_policy(policy, is_global, subject, data)),)


def _unreadable(detail: str) -> NewKindFacts:
    return NewKindFacts(unreadable=detail, selects=Tri.UNKNOWN, egress_governed=False)


def _judge_policy(
    policy: ReadPolicy, is_global: bool, subject: ReachSubject, data: ReachData
) -> NewKindVerdict:
    selection = _selection(policy.spec, is_global, calico_views(subject, data))
    position = tier_position(policy.tier, data)
    has_deftier = deftier(data)
    governed = governs_egress(policy) and bool(policy.egress)
    excuse = _excuse(position, subject, has_deftier)
    rules: tuple[JudgedRule, ...] = ()
    if selection.outcome is not Tri.NO and governed and excuse is None:
        context = RuleContext(
            allowance=subject.allowance,
            position=position,
            iso=subject.iso,
            deftier=has_deftier,
            namespace=None if is_global else subject.namespace,
            network_sets=data.network_sets,
        )
        rules = tuple(
            _judged_rule(rule, index, context) for index, rule in enumerate(policy.egress)
        )
    return new_kind_verdict(
        NewKindFacts(
            unreadable=None,
            selects=selection.outcome,
            egress_governed=governed,
            rules=rules,
            excuse=excuse,
            subject_text=selection.text,
        )
    )


def _judged_rule(rule: JSON, index: int, context: RuleContext) -> JudgedRule:
    # A Calico rule has no name (its `metadata` holds annotations only).
    return JudgedRule(calico_rule_verdict(rule, index, context), None, ("spec", "egress", index))


def _document(kind: str, name: str, verdict: NewKindVerdict) -> ReachDocument:
    rule = verdict.rule
    return ReachDocument(
        kind=kind,
        name=name,
        verdict=verdict.verdict,
        detail=verdict.detail,
        rule_index=None if rule is None else rule.verdict.index,
        rule_path=() if rule is None else rule.path,
        group=GROUP,
        excused=verdict.verdict is EgressVerdict.WITHIN and verdict.detail is not None,
    )


# --- Ingress (§8) -----------------------------------------------------------------------

INGRESS_ALLOWING: Final = ("Allow", "Pass")


def governs_ingress(policy: ReadPolicy) -> bool:
    """Calico's ``types`` default includes Ingress whenever ``types`` is absent."""
    return not policy.types or "Ingress" in policy.types


def calico_ingress_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """§8 for one Calico policy: ``not-evaluable`` for ingress when it may
    select the pod (``yes`` or ``unknown``) and has an ``Allow`` or ``Pass``
    ingress rule (or one that cannot be read); () for staged,
    host-endpoint-only and non-policy objects."""
    kind = candidate.kind
    if not is_calico(candidate.api_version) or kind not in POLICY_KINDS:
        return ()
    if not _in_scope(candidate, subject):
        return ()
    shown = display_kind(candidate.api_version, kind)
    name = object_name(candidate.raw, candidate.position)

    def document(
        verdict: IngressVerdict, detail: str | None, index: int | None = None
    ) -> ReachDocument:
        path: tuple[str | int, ...] = () if index is None else ("spec", "ingress", index)
        return ReachDocument(shown, name, verdict, detail, index, path, GROUP)

    is_global = kind == GLOBAL_POLICY
    policy = _read_policy(candidate.raw, is_global)
    if isinstance(policy, str):
        return (document(IngressVerdict.NOT_EVALUABLE, policy),)
    if policy.host_endpoint_field is not None:
        return ()
    if _selection(policy.spec, is_global, calico_views(subject, data)).outcome is Tri.NO:
        return (document(IngressVerdict.DOES_NOT_SELECT, None),)
    rules = read_list(policy.spec, "ingress")
    if rules is UNREADABLE:
        return (document(IngressVerdict.NOT_EVALUABLE, "`spec.ingress` is not a list of rules"),)
    if governs_ingress(policy):
        for index, rule in enumerate(rules or []):
            problem = _ingress_problem(rule)
            if problem is not None:
                detail = (
                    f"{shown}/{name} ingress rule {index} {problem}; ingress through Calico "
                    "policies is not specified yet, so the agent port's exposure cannot be decided"
                )
                return (document(IngressVerdict.NOT_EVALUABLE, detail, index),)
    return (document(IngressVerdict.NOT_INGRESS_SCOPED, "it has no Allow or Pass ingress rule"),)


def _ingress_problem(rule: JSON) -> str | None:
    if not isinstance(rule, dict):
        return "is not an object"
    action = rule.get("action")
    if isinstance(action, str) and action in INGRESS_ALLOWING:
        return f"has the action {action}"
    if isinstance(action, str) and action in ACTIONS:
        return None
    return f"has the action {compact_json(action)}, which cannot be read"


# The readers' own checks, for ``reach.selection`` (which must agree with them).
in_scope = _in_scope
read_policy = _read_policy
selection = _selection
