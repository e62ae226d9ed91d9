"""What one egress rule lets out, as a list of grants (destination, ports).

The rules are read with the engine's own readers, the ones the union check
uses (SEMANTICS §7, §9, §10): a core rule's ``ports`` and ``to`` peers
(§7.1, §9.1), a Cilium rule's ``toPorts`` (§7.3) and destination fields in
the §10.2 order, ``toEndpoints`` read as peers (§9.5, §17.3). A rule the
engine cannot read stays unreadable here too, rather than being guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, TypeAlias

import msgspec

from lint.decision.egress_rules import CILIUM_DESTINATION_FIELDS
from lint.decision.model import CidrPeer, PortSet, SelectorPeer
from lint.decision.peers import ipblock_peer, read_core_peer, read_endpoint_peer
from lint.decision.ports import (
    CiliumPortsError,
    describe_ports,
    read_cilium_ports,
    read_port_list,
)
from lint.decision.reach.cidr_groups import ResolvedBlock, Unresolved, resolve_cidr_set_entry
from lint.decision.reach.model import ReachCandidate
from lint.decision.values import ABSENT, JSON, UNREADABLE, compact_json, read_list
from lint.explain.describe import describe_block, describe_selector_peer


class EveryDestination(msgspec.Struct, frozen=True):
    """A rule with no destination: every address."""


class Block(msgspec.Struct, frozen=True):
    """An ipBlock, ``toCIDR`` or ``toCIDRSet`` entry."""

    peer: CidrPeer
    raw: Mapping[str, JSON]


class Pods(msgspec.Struct, frozen=True):
    """A selector peer: pods (and namespaces) chosen by labels."""

    peer: SelectorPeer


class Fqdn(msgspec.Struct, frozen=True):
    """A ``toFQDNs`` entry; either field may be None."""

    match_name: str | None
    match_pattern: str | None


class Entity(msgspec.Struct, frozen=True):
    """A Cilium ``toEntities`` name."""

    name: str


class Opaque(msgspec.Struct, frozen=True):
    """A destination that cannot be enumerated or read offline; ``why`` says which."""

    why: str


Target: TypeAlias = EveryDestination | Block | Pods | Fqdn | Entity | Opaque


class Grant(msgspec.Struct, frozen=True):
    """One destination of a rule, on the rule's ports."""

    target: Target
    ports: PortSet

    @property
    def destination(self) -> str:
        """How reports name the destination; grants are grouped by it."""
        return describe_target(self.target)

    @property
    def ports_text(self) -> str:
        return describe_ports(self.ports)


class RuleGrants(msgspec.Struct, frozen=True):
    """A rule's grants, or why the rule cannot be read (then no grants)."""

    grants: tuple[Grant, ...]
    unreadable: str | None = None


NOT_AN_OBJECT: Final = "the rule is not an object"


def describe_target(target: Target) -> str:
    match target:
        case EveryDestination():
            return "every destination"
        case Block(raw=raw):
            return describe_block(raw)
        case Pods(peer=peer):
            return describe_selector_peer(peer)
        case Fqdn(match_name=name, match_pattern=None) if name is not None:
            return f"host {name}"
        case Fqdn(match_name=None, match_pattern=pattern) if pattern is not None:
            return f"hosts matching {pattern}"
        case Fqdn():
            return f"toFQDNs entry {compact_json(_fqdn_raw(target))}"
        case Entity(name=name):
            return f"entity {name}"
        case Opaque(why=why):
            return why


def _fqdn_raw(target: Fqdn) -> dict[str, JSON]:
    raw: dict[str, JSON] = {}
    if target.match_name is not None:
        raw["matchName"] = target.match_name
    if target.match_pattern is not None:
        raw["matchPattern"] = target.match_pattern
    return raw


# --- core rules (§7.1, §9.1) ------------------------------------------------------


def core_rule_grants(rule: JSON) -> RuleGrants:
    """A NetworkPolicy egress rule: no ``to`` peers means every destination."""
    if not isinstance(rule, dict):
        return RuleGrants((), NOT_AN_OBJECT)
    ports = read_port_list(read_list(rule, "ports"), "TCP")
    if ports is UNREADABLE:
        return RuleGrants((), "a `ports` entry cannot be read (a named port or a malformed entry)")
    peers = read_list(rule, "to")
    if peers is UNREADABLE:
        return RuleGrants((), "`to` is not a list of peers")
    if not peers:
        return RuleGrants((Grant(EveryDestination(), ports),))
    return RuleGrants(tuple(Grant(_core_target(raw), ports) for raw in peers))


def _core_target(raw: JSON) -> Target:
    peer = read_core_peer(raw)
    if isinstance(peer, CidrPeer):
        return Block(peer, raw["ipBlock"])
    if isinstance(peer, SelectorPeer):
        return Pods(peer)
    return Opaque(f"a `to` peer that cannot be read: {compact_json(raw)}")


# --- Cilium rules (§7.3, §9.5, §10.2) ----------------------------------------------


def cilium_rule_grants(
    rule: JSON, *, clusterwide: bool, cidr_groups: Sequence[ReachCandidate] = ()
) -> RuleGrants:
    """A Cilium egress (or egressDeny) rule: a rule with no destination field
    is port-only and reaches every destination. A `toCIDRSet` entry that
    references CiliumCIDRGroups stands for the groups' CIDRs, resolved as
    ``check`` resolves them (``cidr_groups``: the run's groups)."""
    if not isinstance(rule, dict):
        return RuleGrants((), NOT_AN_OBJECT)
    ports = read_cilium_ports(rule)
    if isinstance(ports, CiliumPortsError):
        return RuleGrants((), ports.detail)
    fields: dict[str, list[JSON]] = {}
    for name in CILIUM_DESTINATION_FIELDS:
        entries = read_list(rule, name)
        if entries is UNREADABLE:
            return RuleGrants((), f"`{name}` is not a list of peers")
        if entries:
            fields[name] = entries
    if not fields:
        return RuleGrants((Grant(EveryDestination(), ports),))
    targets = [
        target
        for name, entries in fields.items()
        for entry in entries
        for target in _cilium_targets(name, entry, clusterwide, cidr_groups)
    ]
    return RuleGrants(tuple(Grant(target, ports) for target in targets))


def _cilium_targets(
    field: str, entry: JSON, clusterwide: bool, cidr_groups: Sequence[ReachCandidate]
) -> list[Target]:
    if field == "toCIDRSet" and _references_groups(entry):
        resolved = resolve_cidr_set_entry(entry, cidr_groups)
        if isinstance(resolved, Unresolved):
            return [Opaque(f"a `toCIDRSet` entry that cannot be resolved: {resolved.detail}")]
        return [_resolved_block(block) for block in resolved]
    return [_cilium_target(field, entry, clusterwide)]


def _references_groups(entry: JSON) -> bool:
    return isinstance(entry, dict) and any(
        entry.get(key) is not None for key in ("cidrGroupRef", "cidrGroupSelector")
    )


def _resolved_block(block: ResolvedBlock) -> Target:
    peer = ipblock_peer(block.ip_block)
    if not isinstance(peer, CidrPeer):
        return _unreadable("toCIDRSet", block.ip_block)
    return Block(peer, block.ip_block)


def _cilium_target(field: str, entry: JSON, clusterwide: bool) -> Target:
    if field == "toEntities":
        return Entity(entry) if isinstance(entry, str) else _unreadable(field, entry)
    if field in ("toCIDR", "toCIDRSet"):
        block = _cidr_block(field, entry)
        peer = None if block is None else ipblock_peer(block)
        if block is None or not isinstance(peer, CidrPeer):
            return _unreadable(field, entry)
        return Block(peer, block)
    if field == "toFQDNs":
        return _fqdn_target(entry)
    if field == "toEndpoints":
        selector = read_endpoint_peer(entry, clusterwide=clusterwide)
        return _unreadable(field, entry) if selector is None else Pods(selector)
    return Opaque(f"`{field}` entry {compact_json(entry)}, which cannot be enumerated offline")


def _cidr_block(field: str, entry: JSON) -> dict[str, JSON] | None:
    if field == "toCIDR":
        return {"cidr": entry}
    if not isinstance(entry, dict):
        return None
    return {key: entry[key] for key in ("cidr", "except") if key in entry}


def _fqdn_target(entry: JSON) -> Target:
    if not isinstance(entry, dict):
        return _unreadable("toFQDNs", entry)
    name = entry.get("matchName", ABSENT)
    pattern = entry.get("matchPattern", ABSENT)
    if not isinstance(name, str) and not isinstance(pattern, str):
        return _unreadable("toFQDNs", entry)
    return Fqdn(
        name if isinstance(name, str) else None,
        pattern if isinstance(pattern, str) else None,
    )


def _unreadable(field: str, entry: JSON) -> Opaque:
    return Opaque(f"a `{field}` entry that cannot be read: {compact_json(entry)}")
