"""Calico egress rules for the reach decision (CLUSTER-POLICIES.md §5.7-§5.9.1).

The wanted ports of a rule (§5.8), its destination (§5.9) with the
selector scope translated into a core selector peer (§5.9.1), and the rule
verdict (§5.7). Moved out of ``calico`` unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Final, Literal, TypeAlias

import msgspec

from lint.decision.cidr import is_ipv6_text, parse_cidr
from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    CidrPeer,
    Everything,
    PortRange,
    PortSet,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.reach.calico_selector import (
    Node,
    SelectorError,
    keys_used,
    parse_selector,
    to_label_selector,
    uses_global,
)
from lint.decision.reach.calico_sets import _network_set_verdict
from lint.decision.reach.calico_tiers import Position
from lint.decision.reach.calico_views import CALICO_NAME_LABEL, RESERVED_POD_PART_PREFIXES
from lint.decision.reach.common import (
    judge_allow_like,
)
from lint.decision.reach.model import (
    NAMESPACE_NAME_LABEL,
    ReachCandidate,
    WantedPeers,
)
from lint.decision.values import ABSENT, JSON, UNREADABLE, compact_json, is_integer, read_list

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
_DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)
_PORT_RANGE: Final = re.compile(r"([0-9]+):([0-9]+)", re.ASCII)


# --- Wanted ports (§5.8) -----------------------------------------------------------------


class WantedPorts(msgspec.Struct, frozen=True):
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


class Undecided(msgspec.Struct, frozen=True):
    """A destination or translation the linter cannot read; ``detail`` says why."""

    detail: str


class Scope(msgspec.Struct, frozen=True):
    """A translated selector scope (§5.9.1), with the pod-part selector
    kept for the network-set check (§5.9.2); None is "no pod part"."""

    peer: SelectorPeer
    pod_part: Node | None


Translated: TypeAlias = Scope | _Global | Undecided


class Destination(msgspec.Struct, frozen=True):
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


class RuleContext(msgspec.Struct, frozen=True):
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
