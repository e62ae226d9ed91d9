"""Egress rule verdicts against the allowance (SEMANTICS.md §10.1 core, §10.2 Cilium).

A verdict's outcome is YES when the rule lets out something the translation
does not, NO when it stays inside, and UNKNOWN when it cannot be decided.
The wording of details is ours; each names the facts §10 requires.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lint.decision.allowance import (
    destination_allowed,
    fqdn_allowed,
    fqdn_pattern_allowed,
    reaches_resolver,
    read_dns_names,
)
from lint.decision.model import Allowance, DnsNames, PortSet, RuleVerdict, Tri
from lint.decision.peers import (
    ipblock_peer,
    read_core_peer,
    read_endpoint_peer,
    unreadable_reason,
    wide_open,
)
from lint.decision.ports import CiliumPortsError, describe_ports, read_cilium_ports, read_port_list
from lint.decision.reach.cidr_groups import judge_cidr_set_entry
from lint.decision.reach.model import ReachCandidate
from lint.decision.values import JSON, UNREADABLE, Unreadable, compact_json, read_list

# §10.2 step 4: the order in which destination fields are read.
CILIUM_DESTINATION_FIELDS = (
    "toEndpoints",
    "toEntities",
    "toCIDR",
    "toCIDRSet",
    "toFQDNs",
    "toServices",
    "toGroups",
    "toNodes",
)
# §10.2 step 10: destinations the linter cannot list.
UNENUMERABLE_FIELDS = ("toServices", "toGroups", "toNodes")


def _beyond(detail: str, index: int) -> RuleVerdict:
    return RuleVerdict(outcome=Tri.YES, detail=detail, index=index)


def _undecided(detail: str, index: int) -> RuleVerdict:
    return RuleVerdict(outcome=Tri.UNKNOWN, detail=detail, index=index)


def _inside(index: int) -> RuleVerdict:
    return RuleVerdict(outcome=Tri.NO, index=index)


def _not_allowed(allowance: Allowance) -> str:
    return f"which the '{allowance.policy_kind}' translation does not allow"


def _no_egress_at_all(allowance: Allowance, index: int) -> RuleVerdict:
    # §10.1/§10.2 step 1: the rule's shape is not even read.
    return _beyond(
        "this is an egress rule, while the configured "
        f"'{allowance.policy_kind}' translation permits no egress at all",
        index,
    )


# --- §10.1 core ----------------------------------------------------------------


def core_rule_verdict(rule: JSON, index: int, allowance: Allowance) -> RuleVerdict:
    """Judge one NetworkPolicy egress rule (§10.1 steps 1-7). ``index`` is
    the rule's position in ``spec.egress``."""
    if allowance.permits_nothing:
        return _no_egress_at_all(allowance, index)
    if not isinstance(rule, dict):
        return _undecided("an egress rule is not an object", index)
    ports = read_port_list(read_list(rule, "ports"), "TCP")
    if ports is UNREADABLE:
        return _undecided(
            "a `ports` entry cannot be read (a named port or a malformed entry)", index
        )
    peers = read_list(rule, "to")
    if peers is UNREADABLE:
        return _undecided("`to` is not a list of peers", index)
    if not peers:
        if allowance.permits_everything:
            return _inside(index)
        return _beyond(
            "the rule has no `to` peers, so every destination is reachable on "
            f"{describe_ports(ports)}, {_not_allowed(allowance)}",
            index,
        )
    for number, raw in enumerate(peers):
        verdict = _core_peer_verdict(raw, number, ports, index, allowance)
        if verdict is not None:
            return verdict
    return _inside(index)


def _core_peer_verdict(
    raw: JSON, number: int, ports: PortSet, index: int, allowance: Allowance
) -> RuleVerdict | None:
    """§10.1 steps 6a-6c for one `to` peer (``number`` in the list); None
    when the peer is inside."""
    peer = read_core_peer(raw)
    if peer is None:
        # Which entry, and why: one bad CIDR among twenty is found at once.
        why = f"entry {number}: {unreadable_reason(raw)}"
        return _undecided(f"a `to` peer cannot be read ({why}): {compact_json(raw)}", index)
    described = describe_ports(ports)
    if isinstance(allowance.dns_narrowed_to, tuple) and reaches_resolver(peer, ports):
        return _beyond(
            f"peer {peer.text} on {described} reaches the cluster resolver's DNS port "
            "with no DNS-name restriction, which a plain NetworkPolicy cannot express, "
            "while the translation narrows DNS names (ciliumNarrowing.dnsNames)",
            index,
        )
    if not destination_allowed(allowance, peer, ports):
        prefix = "wide-open " if wide_open(raw) is Tri.YES else ""
        return _beyond(f"{prefix}peer {peer.text} on {described}, {_not_allowed(allowance)}", index)
    return None


# --- §10.2 Cilium --------------------------------------------------------------


def cilium_rule_verdict(
    rule: JSON,
    index: int,
    allowance: Allowance,
    *,
    clusterwide: bool = False,
    cidr_groups: Sequence[ReachCandidate] = (),
) -> RuleVerdict:
    """Judge one Cilium egress rule (§10.2 steps 1-11). ``clusterwide`` reads
    `toEndpoints` selectors without a namespace as every namespace (§17.3);
    ``cidr_groups`` resolve `toCIDRSet` group references (CLUSTER-POLICIES §6.3)."""
    if allowance.permits_nothing:
        return _no_egress_at_all(allowance, index)
    if not isinstance(rule, dict):
        return _undecided("an egress rule is not an object", index)
    ports = read_cilium_ports(rule)
    if isinstance(ports, CiliumPortsError):
        return _undecided(ports.detail, index)
    fields = _destination_fields(rule)
    if isinstance(fields, str):
        return _undecided(f"`{fields}` is not a list of peers", index)
    if not fields:
        return _port_only_verdict(ports, index, allowance)
    verdict = _entities_verdict(fields, ports, index, allowance)
    if verdict is None:
        verdict = _cidrs_verdict(fields, ports, index, allowance, cidr_groups)
    if verdict is None:
        verdict = _fqdns_verdict(fields, ports, index, allowance)
    if verdict is not None:
        return verdict
    verdict = _endpoints_verdict(rule, fields, ports, index, allowance, clusterwide=clusterwide)
    if verdict is not None:
        return verdict
    for name in UNENUMERABLE_FIELDS:
        if name in fields:
            return _undecided(f"the destinations of `{name}` cannot be enumerated offline", index)
    return _inside(index)


def _port_only_verdict(ports: PortSet, index: int, allowance: Allowance) -> RuleVerdict:
    """§10.2 step 5: no destination field reaches every destination."""
    if allowance.permits_everything:
        return _inside(index)
    return _beyond(
        "this is a port-only egress rule (no destination field), so every destination "
        f"is reachable on {describe_ports(ports)}, {_not_allowed(allowance)}",
        index,
    )


def _destination_fields(rule: Mapping[str, JSON]) -> dict[str, list[JSON]] | str:
    """§10.2 step 4: the non-empty destination fields, or the name of the
    first one that is not a list. Empty lists count as absent."""
    fields: dict[str, list[JSON]] = {}
    for name in CILIUM_DESTINATION_FIELDS:
        entries = read_list(rule, name)
        if entries is UNREADABLE:
            return name
        if entries:
            fields[name] = entries
    return fields


def _entities_verdict(
    fields: Mapping[str, list[JSON]], ports: PortSet, index: int, allowance: Allowance
) -> RuleVerdict | None:
    """§10.2 step 6: under anything but `allow-all`, any entity widens."""
    for entry in fields.get("toEntities", []):
        if not isinstance(entry, str):
            return _undecided(
                f"a `toEntities` entry is not an entity name: {compact_json(entry)}", index
            )
        if not allowance.permits_everything:
            return _beyond(
                f"`toEntities` entity {compact_json(entry)} on {describe_ports(ports)}, "
                f"{_not_allowed(allowance)}",
                index,
            )
    return None


def _cidrs_verdict(
    fields: Mapping[str, list[JSON]],
    ports: PortSet,
    index: int,
    allowance: Allowance,
    cidr_groups: Sequence[ReachCandidate] = (),
) -> RuleVerdict | None:
    """§10.2 step 7: each `toCIDR`, then each `toCIDRSet` entry as an ipBlock.
    An entry that references a CiliumCIDRGroup is resolved by
    CLUSTER-POLICIES §6.3 (``judge_cidr_set_entry``); one that does not is
    read exactly as the reference reads it."""
    blocks: list[tuple[str, JSON, dict[str, JSON] | None]] = [
        ("toCIDR", entry, {"cidr": entry}) for entry in fields.get("toCIDR", [])
    ]
    blocks += [
        ("toCIDRSet", entry, None if _references_group(entry) else _cidr_set_block(entry))
        for entry in fields.get("toCIDRSet", [])
    ]
    for name, entry, block in blocks:
        if name == "toCIDRSet" and _references_group(entry):
            verdict = judge_cidr_set_entry(entry, cidr_groups, ports, allowance, index=index)
            if verdict is not None:
                return verdict
            continue
        peer = None if block is None else ipblock_peer(block)
        if peer is None:
            return _undecided(
                f"a `{name}` entry cannot be read as a CIDR: {compact_json(entry)}", index
            )
        if not destination_allowed(allowance, peer, ports):
            return _beyond(
                f"`{name}` ipBlock {compact_json(block)} on {describe_ports(ports)}, "
                f"{_not_allowed(allowance)}",
                index,
            )
    return None


def _references_group(entry: JSON) -> bool:
    return isinstance(entry, dict) and any(
        entry.get(key) is not None for key in ("cidrGroupRef", "cidrGroupSelector")
    )


def _cidr_set_block(entry: JSON) -> dict[str, JSON] | None:
    # The reference builds {cidr: entry.cidr, except: entry.except}; an
    # absent member stays absent, so it is omitted from the quoted JSON.
    if not isinstance(entry, dict):
        return None
    return {key: entry[key] for key in ("cidr", "except") if key in entry}


def _fqdns_verdict(
    fields: Mapping[str, list[JSON]], ports: PortSet, index: int, allowance: Allowance
) -> RuleVerdict | None:
    """§10.2 step 8: every entry needs an exactly granted `matchName` (Q1, Q2).
    In the cluster's terms (``host: none``, issue 28) each of an entry's
    `matchName` and `matchPattern` must be allowed, a pattern by a declared
    pattern that holds every name it matches."""
    for entry in fields.get("toFQDNs", []):
        if not isinstance(entry, dict):
            return _undecided(f"a `toFQDNs` entry is not an object: {compact_json(entry)}", index)
        allowed = (
            _fqdn_entry_allowed(entry, ports, allowance)
            if allowance.cluster_terms
            else _name_allowed(entry.get("matchName"), ports, allowance)
        )
        if not allowed:
            return _beyond(
                f"`toFQDNs` entry {compact_json(entry)} on {describe_ports(ports)}, "
                f"{_not_allowed(allowance)}",
                index,
            )
    return None


def _name_allowed(host: JSON, ports: PortSet, allowance: Allowance) -> bool:
    return isinstance(host, str) and fqdn_allowed(allowance, host, ports)


def _fqdn_entry_allowed(entry: Mapping[str, JSON], ports: PortSet, allowance: Allowance) -> bool:
    name, pattern = entry.get("matchName"), entry.get("matchPattern")
    if name is None and pattern is None:
        return False
    if name is not None and not _name_allowed(name, ports, allowance):
        return False
    return pattern is None or (
        isinstance(pattern, str) and fqdn_pattern_allowed(allowance, pattern, ports)
    )


def _endpoints_verdict(
    rule: Mapping[str, JSON],
    fields: Mapping[str, list[JSON]],
    ports: PortSet,
    index: int,
    allowance: Allowance,
    *,
    clusterwide: bool,
) -> RuleVerdict | None:
    """§10.2 step 9: each `toEndpoints` selector read as a peer."""
    for selector in fields.get("toEndpoints", []):
        peer = read_endpoint_peer(selector, clusterwide=clusterwide)
        if peer is None:
            return _undecided(
                f"a `toEndpoints` selector cannot be read as a peer: {compact_json(selector)}",
                index,
            )
        narrowed = allowance.dns_narrowed_to
        if isinstance(narrowed, tuple) and reaches_resolver(peer, ports):
            problem = _dns_subset_problem(read_dns_names(rule), narrowed)
            if problem is None:
                # Q4: a subset skips the peer and port checks entirely.
                continue
            return _beyond(
                f"`toEndpoints` {peer.text} on {describe_ports(ports)} reaches the cluster "
                f"resolver's DNS port, and {problem}",
                index,
            )
        if not destination_allowed(allowance, peer, ports):
            return _beyond(_endpoint_outside(peer.text, ports, allowance), index)
    return None


def _endpoint_outside(text: str, ports: PortSet, allowance: Allowance) -> str:
    return f"`toEndpoints` {text} on {describe_ports(ports)}, {_not_allowed(allowance)}"


def _dns_subset_problem(names: DnsNames | Unreadable, narrowed: tuple[str, ...]) -> str | None:
    """§10.2 step 9a: None when the rule's DNS names are a subset of the
    narrowed names, else why they are not."""
    if names is UNREADABLE:
        return (
            "its `rules.dns` list cannot be read, so it cannot be confirmed to be a "
            "subset of the translation's narrowed DNS names"
        )
    if not isinstance(names, tuple):
        return (
            "it has no DNS-name restriction at least as narrow as the translation's "
            "narrowed DNS names (ciliumNarrowing.dnsNames)"
        )
    extra = [name for name in names if name not in narrowed]
    if not extra:
        return None
    return (
        f"its `rules.dns` names {compact_json(extra)} are not a subset of the "
        "translation's narrowed DNS names"
    )
