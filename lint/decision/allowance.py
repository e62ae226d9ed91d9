"""The allowance: what the translated manifest lets out (SEMANTICS.md §4, §9.4, §9.6).

Every other policy is judged against this one value. It is read from the
translation's own manifest, so whatever the translation emits is what the
union check measures against.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from msgspec.structs import replace

from lint.decision.constants import CILIUM_KIND, kube_dns_endpoints
from lint.decision.fqdn_patterns import name_in_pattern, pattern_within
from lint.decision.model import (
    ALL_PORTS,
    Allowance,
    Destination,
    DnsNames,
    Everything,
    FqdnGrant,
    NamedRef,
    Peer,
    PortRange,
    PortSet,
    Translation,
)
from lint.decision.peers import RESOLVER_PEER, peer_within, read_core_peer
from lint.decision.ports import (
    CiliumPortsError,
    covers,
    covers_dns_port,
    read_cilium_ports,
    read_port_list,
    wanted_ranges,
)
from lint.decision.values import ABSENT, JSON, UNREADABLE, Unreadable, deep_equal, read_list

# §4.1: the resolver destination is port 53 on every protocol.
RESOLVER_PORTS: Final[PortSet] = (PortRange(protocol=None, start=53),)

ALL_NAMES: Final[Literal["all"]] = "all"
"""``dnsNarrowedTo`` / DNS-name read result meaning "no name restriction" (§4.1, §9.6)."""


def build_allowance(translation: Translation) -> Allowance:
    """Build the allowance from the translated manifest (§4.1 Cilium, §4.2
    core; an ``allow`` intent's companion adds §4.1 to §4.2). A translation
    no host reads back (``host: none``) is read in the cluster's terms
    (issue 28, ``Allowance.cluster_terms``)."""
    allowance = _build_allowance(translation)
    if translation.named:
        return allowance
    patterns = (
        _fqdn_pattern_grants(_egress_rules(translation.companion))
        if translation.companion is not None
        else ()
    )
    return replace(allowance, fqdn_patterns=patterns, cluster_terms=True)


def _build_allowance(translation: Translation) -> Allowance:
    rules = _egress_rules(translation.manifest)
    named = NamedRef(kind=translation.kind, name=translation.name)
    if translation.kind == CILIUM_KIND:
        return Allowance(
            destinations=(Destination(peer=RESOLVER_PEER, ports=RESOLVER_PORTS),),
            fqdns=_fqdn_grants(rules),
            dns_narrowed_to=_dns_narrowed_to(rules),
            permits_everything=False,
            permits_nothing=False,
            policy_kind=translation.policy_kind,
            named_object=named,
            fqdn_patterns=_fqdn_grants(rules, "matchPattern"),
        )
    destinations, permits_everything = _core_destinations(rules)
    if translation.companion is not None:
        # An `allow` intent with `allowHosts`: §4.2 over the rules, plus §4.1
        # over the CiliumNetworkPolicy that carries the hosts.
        hosts = _egress_rules(translation.companion)
        return Allowance(
            destinations=(*destinations, Destination(peer=RESOLVER_PEER, ports=RESOLVER_PORTS)),
            fqdns=_fqdn_grants(hosts),
            dns_narrowed_to=_dns_narrowed_to(hosts),
            permits_everything=permits_everything,
            permits_nothing=False,
            policy_kind=translation.policy_kind,
            named_object=named,
            fqdn_patterns=_fqdn_grants(hosts, "matchPattern"),
        )
    return Allowance(
        destinations=destinations,
        fqdns=(),
        dns_narrowed_to=ALL_NAMES,
        permits_everything=permits_everything,
        permits_nothing=not rules,
        policy_kind=translation.policy_kind,
        named_object=named,
    )


def _egress_rules(manifest: Mapping[str, JSON]) -> list[JSON]:
    # §4: an absent or unreadable spec.egress is an empty rule list.
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return []
    rules = read_list(spec, "egress")
    return rules if isinstance(rules, list) else []


def _core_destinations(rules: list[JSON]) -> tuple[tuple[Destination, ...], bool]:
    """§4.2 steps 1-4 over every object rule."""
    destinations: list[Destination] = []
    permits_everything = False
    for rule in rules:
        if not isinstance(rule, dict):
            continue
        ports = read_port_list(read_list(rule, "ports"), "TCP")
        peers = read_list(rule, "to")
        if ports is UNREADABLE or peers is UNREADABLE:
            continue
        if not peers:
            destinations.append(Destination(peer=Everything(), ports=ports))
            permits_everything = permits_everything or ports == ALL_PORTS
            continue
        for raw in peers:
            peer = read_core_peer(raw)
            if peer is not None:
                destinations.append(Destination(peer=peer, ports=ports))
    return tuple(destinations), permits_everything


def _fqdn_grants(rules: list[JSON], field: str = "matchName") -> tuple[FqdnGrant, ...]:
    """§4.1: one grant per string ``matchName``; ``matchPattern`` is never
    recorded in ``fqdns`` (``field`` reads the patterns into ``fqdn_patterns``)."""
    grants: list[FqdnGrant] = []
    for rule in rules:
        if not isinstance(rule, dict):
            continue
        entries = read_list(rule, "toFQDNs")
        if not isinstance(entries, list):
            continue
        read = read_cilium_ports(rule)
        ports: PortSet = ALL_PORTS if isinstance(read, CiliumPortsError) else read
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get(field), str):
                grants.append(FqdnGrant(host=entry[field], ports=ports))
    return tuple(grants)


def _fqdn_pattern_grants(rules: list[JSON]) -> tuple[FqdnGrant, ...]:
    """Issue 28: the ``matchPattern`` grants of a ``host: none`` entry's
    ``allowHosts``, which the translation itself emitted."""
    return _fqdn_grants(rules, "matchPattern")


def _dns_narrowed_to(rules: list[JSON]) -> DnsNames:
    """§4.1: the DNS names of the first rule aimed at the kube-dns endpoints."""
    expected = kube_dns_endpoints()
    for rule in rules:
        if isinstance(rule, dict) and deep_equal(rule.get("toEndpoints", ABSENT), expected):
            names = read_dns_names(rule)
            return ALL_NAMES if names is UNREADABLE else names
    return ALL_NAMES


def read_dns_names(rule: Mapping[str, JSON]) -> DnsNames | Unreadable:
    """Read a Cilium rule's DNS names (§9.6): UNREADABLE for ``fail``,
    ``"all"``, or the collected ``matchName`` strings in order."""
    entries = read_list(rule, "toPorts")
    if entries is UNREADABLE:
        return UNREADABLE
    names: list[str] = []
    for entry in entries or []:
        if not isinstance(entry, dict):
            return UNREADABLE
        found = _entry_dns_names(entry)
        if not isinstance(found, list):
            return found
        names.extend(found)
    return tuple(names)


def _entry_dns_names(entry: Mapping[str, JSON]) -> list[str] | Literal["all"] | Unreadable:
    # A missing `rules` or `rules.dns` puts no restriction on lookups (§9.6),
    # while a null `rules` is a wrong-typed value (§5.5).
    if "rules" not in entry:
        return ALL_NAMES
    rules = entry["rules"]
    if not isinstance(rules, dict):
        return UNREADABLE
    items = read_list(rules, "dns")
    if items is UNREADABLE:
        return UNREADABLE
    if items is None:
        return ALL_NAMES
    names: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            return UNREADABLE
        name = item.get("matchName")
        if not isinstance(name, str):
            # The reader stops at the first pattern: quirk Q3.
            return ALL_NAMES
        names.append(name)
    return names


def destination_allowed(allowance: Allowance, peer: Peer, ports: PortSet) -> bool:
    """§9.4 "destination allowed": every wanted range is covered by some
    destination whose peer contains ``peer`` and whose ports cover the range."""
    return all(
        any(
            covers(destination.ports, wanted) and peer_within(destination.peer, peer)
            for destination in allowance.destinations
        )
        for wanted in wanted_ranges(ports, split_any=allowance.cluster_terms)
    )


def fqdn_allowed(allowance: Allowance, host: str, ports: PortSet) -> bool:
    """§9.4 "FQDN allowed": exact, case-sensitive host match with covering
    ports. ``permitsEverything`` is deliberately ignored (quirk Q1). In the
    cluster's terms (issue 28) a pattern grant that matches the name
    counts too."""
    return all(
        any(grant.host == host and covers(grant.ports, wanted) for grant in allowance.fqdns)
        or (
            allowance.cluster_terms
            and any(
                name_in_pattern(host, grant.host) and covers(grant.ports, wanted)
                for grant in allowance.fqdn_patterns
            )
        )
        for wanted in wanted_ranges(ports, split_any=allowance.cluster_terms)
    )


def fqdn_pattern_allowed(allowance: Allowance, pattern: str, ports: PortSet) -> bool:
    """Issue 28, ``host: none`` only: a policy's ``matchPattern`` is allowed
    when, for every wanted range, a declared pattern holds every name it
    matches (``pattern_within``) on covering ports."""
    return all(
        any(
            pattern_within(pattern, grant.host) and covers(grant.ports, wanted)
            for grant in allowance.fqdn_patterns
        )
        for wanted in wanted_ranges(ports, split_any=allowance.cluster_terms)
    )


def reaches_resolver(peer: Peer, ports: PortSet) -> bool:
    """§9.4 "reaches the resolver at the DNS port": the candidate peer
    contains the resolver peer and its ports cover the DNS port."""
    return peer_within(peer, RESOLVER_PEER) and covers_dns_port(ports)
