"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy as the tier model
reads them (CLUSTER-POLICIES.md §12.2, §12.2.1, §12.2.2, §12.3.3, §6.3;
SEMANTICS.md §5.4 for the documents and §6.3 for the key mapping).

Each ``spec`` and ``specs`` entry is one document in the NetworkPolicy slot
(a node-scoped spec, with ``nodeSelector``, gives none). ``egress`` rules
``Allow``; ``egressDeny`` rules are ``deny_rules``. The document governs
egress when either list is present, and isolates the pod unless
``enableDefaultDeny.egress`` is ``false`` (a deny-only policy isolates too).

- the subject: ``endpointSelector`` over the pod's identity labels (its own
  labels, ``io.kubernetes.pod.namespace``, the namespace's labels under
  ``io.cilium.k8s.namespace.labels.``), keys mapped as SEMANTICS §6.3
  (``k8s:``/``any:`` dropped, any other source unknown);
- ports: no ``toPorts`` and no ``icmps`` is every protocol, ICMP included;
  a port entry with ``ANY`` or no protocol is TCP, UDP and SCTP on that
  port; ``icmps`` adds ICMP; a rule with ``toPorts`` never matches ICMP;
- peers: ``toEndpoints`` is a ``PodSet`` (the policy's namespace unless the
  selector names one; every namespace for a clusterwide policy);
  ``toCIDR``/``toCIDRSet`` (groups resolved by §6.3) an address test that
  never holds for pods and only "may" for nodes; ``toEntities`` by the
  table of §12.2.2; ``toFQDNs`` by name; ``toServices``, ``toGroups``,
  ``toNodes`` "may". A rule naming no destination matches every point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.decision.model import CidrPeer, Tri
from lint.decision.peers import ipblock_peer
from lint.decision.policy_shape import not_an_object, spec_entries
from lint.decision.reach.cidr_groups import Unresolved, resolve_cidr_set_entry
from lint.decision.reach.common import (
    Requirement,
    StrictSelector,
    combine,
    match_requirement,
    normalise_domain,
    object_name,
    read_strict_selector,
)
from lint.decision.reach.model import (
    NAMESPACE_NAME_LABEL,
    UNKNOWN,
    LabelValue,
    LabelView,
    ReachCandidate,
)
from lint.decision.selectors import map_cilium_key
from lint.decision.tiers.model import (
    ALLOW_ONLY,
    EVERY_PORT,
    UNREADABLE_PORTS,
    Action,
    PeerMatch,
    PodSet,
    Ports,
    PortSpan,
    Slot,
    TierDocument,
    TierRule,
    unreadable_peer,
)
from lint.decision.tiers.reading import (
    NOTHING,
    UNKNOWN_POD_SET,
    Read,
    ReadContext,
    address_peer,
    and_selectors,
    cidr_block,
    every_ported,
    fqdn_peer,
    maybe_peer,
    namespace_pin,
    ported_protocol,
    selector_peer,
    shell,
    span,
    subject_text,
    tri,
    unreadable_document,
)
from lint.decision.values import ABSENT, JSON, UNREADABLE, compact_json, is_object, read_list
from lint.kinds import CILIUM_CLUSTERWIDE_NETWORK_POLICY, CILIUM_NETWORK_POLICY, Kind

POD_NAMESPACE_KEY: Final = "io.kubernetes.pod.namespace"
NAMESPACE_LABELS_PREFIX: Final = "io.cilium.k8s.namespace.labels."
SERVICE_ACCOUNT_KEY: Final = "io.cilium.k8s.policy.serviceaccount"
DENY_ONLY: Final = frozenset({Action.DENY})
ALLOW_OR_DENY: Final = frozenset({Action.ALLOW, Action.DENY})
UNENUMERABLE: Final = ("toServices", "toGroups", "toNodes")
WORLD_BLOCKS: Final = {"world-ipv4": "0.0.0.0/0", "world-ipv6": "::/0"}


# --- the subject -------------------------------------------------------------------------


def _key_view(value: LabelValue | None) -> LabelView:
    """A one-key view: a known value, present with an unknown value
    (``UNKNOWN``), known absent (``ABSENT``), or not known at all (None)."""
    if value is None:
        return LabelView({}, frozenset(), complete=False)
    if isinstance(value, str):
        return LabelView({"k": value})
    if value is UNKNOWN:
        return LabelView({}, frozenset({"k"}))
    return LabelView({})


def identity_lookup(context: ReadContext) -> Callable[[str], LabelValue | None]:
    """The pod's Cilium identity labels, by mapped key (None: not known)."""

    def lookup(key: str) -> LabelValue | None:
        if key == POD_NAMESPACE_KEY:
            return context.namespace
        if key == SERVICE_ACCOUNT_KEY:
            return context.service_account
        if key.startswith(NAMESPACE_LABELS_PREFIX):
            found = context.namespace_view.lookup(key.removeprefix(NAMESPACE_LABELS_PREFIX))
            return None if found is UNKNOWN and not context.namespace_view.complete else found
        if key.startswith("io.cilium.k8s.policy."):
            return None
        found = context.pod.lookup(key)
        return None if found is UNKNOWN and not context.pod.value_unknown(key) else found

    return lookup


def match_identity(raw: JSON, lookup: Callable[[str], LabelValue | None]) -> Tri:
    """An endpoint selector against identity labels, keys mapped (§6.3)."""
    read = read_strict_selector(raw)
    if isinstance(read, str):
        return Tri.UNKNOWN
    requirements = [Requirement(key, "In", (value,)) for key, value in read.labels]
    requirements += read.requirements
    outcomes: list[Tri] = []
    for requirement in requirements:
        mapped = map_cilium_key(requirement.key)
        if mapped is None:
            outcomes.append(Tri.UNKNOWN)
            continue
        view = _key_view(lookup(mapped))
        outcomes.append(match_requirement(replace(requirement, key="k"), view))
    return combine(*outcomes)


# --- ports (§12.2.1) -----------------------------------------------------------------------


def cilium_ports(rule: Mapping[str, JSON]) -> Ports:
    to_ports = read_list(rule, "toPorts")
    icmps = read_list(rule, "icmps")
    if to_ports is UNREADABLE or icmps is UNREADABLE:
        return UNREADABLE_PORTS
    if not to_ports and not icmps:
        return EVERY_PORT
    spans: list[PortSpan] = []
    for entry in to_ports or []:
        ports = read_list(entry, "ports") if isinstance(entry, dict) else UNREADABLE
        if ports is UNREADABLE:
            return UNREADABLE_PORTS
        if not ports:
            spans.extend(every_ported())
        for port in ports or []:
            read = _cilium_port(port)
            if read is None:
                return UNREADABLE_PORTS
            spans.extend(read)
    return Ports(spans=tuple(spans), icmp=bool(icmps))


def _cilium_port(entry: JSON) -> tuple[PortSpan, ...] | None:
    if not isinstance(entry, dict):
        return None
    raw_protocol = entry.get("protocol")
    if raw_protocol is not None and not isinstance(raw_protocol, str):
        return None
    wildcard = raw_protocol is None or raw_protocol.upper() in ("", "ANY")
    protocol = None if wildcard else ported_protocol(raw_protocol)
    if not wildcard and protocol is None:
        return None
    low = _port_number(entry.get("port"))
    if low == -1:
        return None
    end = entry.get("endPort")
    high = low
    if end is not None and end != 0:
        if not isinstance(end, int) or isinstance(end, bool) or low is None or end < low:
            return None
        high = end
    if protocol is None:
        return every_ported(low, high)
    return (span(protocol, low, high),)


def _port_number(value: JSON) -> int | None:
    """A port: None for every port (absent, 0, or a named port, §12.7),
    -1 when it cannot be read."""
    if value is None or value in (0, "0", ""):
        return None
    if isinstance(value, str):
        if value.isascii() and value.isdigit():
            value = int(value)
        else:
            return None
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535:
        return value
    return -1


# --- peers (§12.2.2) ----------------------------------------------------------------------


class _Scope(msgspec.Struct, frozen=True):
    """How one Cilium object reads its peers."""

    namespace: str | None
    """The policy's namespace; None for a clusterwide policy."""
    groups: tuple[ReachCandidate, ...]
    deny: bool


def endpoint_pod_set(raw: JSON, own_namespace: str | None) -> PodSet:
    """A ``toEndpoints`` selector as a ``PodSet``: namespace keys go to the
    namespace part, every other mapped key to the pod part (``matchLabels``
    stay labels, so containment reads them as the allowance's own)."""
    read = read_strict_selector(raw)
    if isinstance(read, str):
        return UNKNOWN_POD_SET
    parts: dict[str, tuple[list[tuple[str, str]], list[Requirement]]] = {
        "namespace": ([], []),
        "pod": ([], []),
    }
    named_namespace = False
    keyed: list[tuple[str, str | Requirement]] = [
        *read.labels,
        *((r.key, r) for r in read.requirements),
    ]
    for key, item in keyed:
        mapped = map_cilium_key(key)
        if mapped is None or mapped.startswith("io.cilium.k8s.policy."):
            return UNKNOWN_POD_SET
        if mapped == POD_NAMESPACE_KEY:
            named_namespace = True
            part, target = "namespace", NAMESPACE_NAME_LABEL
        elif mapped.startswith(NAMESPACE_LABELS_PREFIX):
            part, target = "namespace", mapped.removeprefix(NAMESPACE_LABELS_PREFIX)
        else:
            part, target = "pod", mapped
        labels, requirements = parts[part]
        if isinstance(item, str):
            labels.append((target, item))
        else:
            requirements.append(replace(item, key=target))
    pin = None if named_namespace or own_namespace is None else namespace_pin(own_namespace)
    namespace_labels, namespace_requirements = parts["namespace"]
    pod_labels, pod_requirements = parts["pod"]
    namespaces = and_selectors(
        pin, StrictSelector(tuple(sorted(namespace_labels)), tuple(namespace_requirements))
    )
    pods = and_selectors(StrictSelector(tuple(sorted(pod_labels)), tuple(pod_requirements)))
    return PodSet(namespaces, pods)


def _entity_peer(entity: JSON) -> PeerMatch:
    text = f"entity {compact_json(entity)}"
    if entity == "all":
        return PeerMatch(text, on_name=Tri.YES)
    if entity == "world":
        return PeerMatch(text, out=Tri.YES, pod=Tri.NO, node=Tri.NO, on_name=Tri.UNKNOWN)
    if isinstance(entity, str) and entity in WORLD_BLOCKS:
        peer = ipblock_peer({"cidr": WORLD_BLOCKS[entity]})
        assert isinstance(peer, CidrPeer)
        return address_peer(text, (cidr_block(peer),), Tri.YES, Tri.NO, Tri.NO)
    if entity == "cluster":
        return PeerMatch(text, out=Tri.NO, pod=Tri.YES, node=Tri.YES, on_name=Tri.NO)
    if not isinstance(entity, str):
        return unreadable_peer(f"a `toEntities` entry is not an entity name: {text}")
    return maybe_peer(text)


def _cidr_peer(block: JSON, text: str, lowered: bool) -> PeerMatch:
    """``toCIDR``/``toCIDRSet``: never a pod, "may" a node (CIL-CIDR).
    ``lowered``: the block is wider than the rule (a group's CIDR without
    the entry's ``except``), so on a deny rule it only "may" match."""
    peer = ipblock_peer(block)
    if not isinstance(peer, CidrPeer):
        return unreadable_peer(f"{text} cannot be read as a CIDR")
    out = Tri.UNKNOWN if lowered else Tri.YES
    return address_peer(text, (cidr_block(peer),), out, Tri.NO, Tri.UNKNOWN)


def _cidr_set_peers(entry: JSON, scope: _Scope) -> list[PeerMatch]:
    text = f"`toCIDRSet` entry {compact_json(entry)}"
    resolved = resolve_cidr_set_entry(entry, scope.groups)
    if isinstance(resolved, Unresolved):
        return [unreadable_peer(f"{text} cannot be resolved: {resolved.detail}")]
    has_except = isinstance(entry, dict) and bool(entry.get("except"))
    return [
        _cidr_peer(block.ip_block, text, scope.deny and has_except and bool(block.groups))
        for block in resolved
    ]


def _fqdn(entry: JSON, deny: bool) -> PeerMatch:
    text = f"`toFQDNs` entry {compact_json(entry)}"
    if deny or not isinstance(entry, dict):
        # Deny rules do not take toFQDNs (CIL-DENY): what Cilium does is unknown.
        return unreadable_peer(text)
    name = entry.get("matchName")
    pattern = entry.get("matchPattern")
    if isinstance(name, str) and name and pattern is None:
        return fqdn_peer(text, (normalise_domain(name),))
    if isinstance(pattern, str) and name is None:
        lowered = normalise_domain(pattern)
        simple = lowered.startswith("*.") and "*" not in lowered[2:]
        return fqdn_peer(text, (lowered,) if simple else None, one_label=True)
    return unreadable_peer(text)


def cilium_peers(rule: Mapping[str, JSON], scope: _Scope) -> tuple[PeerMatch, ...] | None:
    """The rule's peers in field order; None when it names no destination."""
    peers: list[PeerMatch] = []
    for field in ("toEndpoints", "toEntities", "toCIDR", "toCIDRSet", "toFQDNs", *UNENUMERABLE):
        entries = read_list(rule, field)
        if entries is UNREADABLE:
            peers.append(unreadable_peer(f"`{field}` is not a list"))
            continue
        for entry in entries or []:
            peers.extend(_field_peers(field, entry, scope))
    return tuple(peers) if peers else None


def _field_peers(field: str, entry: JSON, scope: _Scope) -> list[PeerMatch]:
    text = f"`{field}` entry {compact_json(entry)}"
    if field == "toEndpoints":
        return [selector_peer(text, endpoint_pod_set(entry, scope.namespace))]
    if field == "toEntities":
        return [_entity_peer(entry)]
    if field == "toCIDR":
        return [_cidr_peer({"cidr": entry}, text, False)]
    if field == "toCIDRSet":
        return _cidr_set_peers(entry, scope)
    if field == "toFQDNs":
        return [_fqdn(entry, scope.deny)]
    return [maybe_peer(text)]


# --- documents --------------------------------------------------------------------------


def read_cilium_namespaced(candidate: ReachCandidate, context: ReadContext) -> Read:
    """The documents of one CiliumNetworkPolicy; nothing for another namespace's."""
    namespace = candidate.namespace_or(context.namespace)
    if namespace != context.namespace:
        return NOTHING
    return _read_cilium(candidate, context, CILIUM_NETWORK_POLICY, namespace)


def read_cilium_clusterwide(candidate: ReachCandidate, context: ReadContext) -> Read:
    """The documents of one CiliumClusterwideNetworkPolicy."""
    return _read_cilium(candidate, context, CILIUM_CLUSTERWIDE_NETWORK_POLICY, None)


def _read_cilium(
    candidate: ReachCandidate, context: ReadContext, kind: Kind, namespace: str | None
) -> Read:
    base = shell(
        kind.key,
        object_name(candidate.raw, candidate.position),
        namespace,
        Slot.NETWORK_POLICY,
        None,
        kind.key,
        context.credit(kind.key),
        candidate.position,
    )
    if not is_object(candidate.raw):
        return Read(
            documents=(unreadable_document(base, "not a policy object", (), ALLOW_OR_DENY),)
        )
    entries = spec_entries(candidate.raw)
    if isinstance(entries, str):
        return Read(documents=(unreadable_document(base, entries, (), ALLOW_OR_DENY),))
    documents = [
        document
        for spec, index in entries
        if (document := _spec_document(base, spec, index, namespace, context)) is not None
    ]
    return Read(documents=tuple(documents))


def _spec_document(
    base: TierDocument,
    spec: JSON,
    index: int | None,
    namespace: str | None,
    context: ReadContext,
) -> TierDocument | None:
    at: tuple[str | int, ...] = ("spec",) if index is None else ("specs", index)
    if not isinstance(spec, dict):
        return unreadable_document(base, not_an_object(index), at, ALLOW_OR_DENY)
    if "nodeSelector" in spec:
        return None
    read = _spec_lists(spec)
    if isinstance(read, str):
        return unreadable_document(base, read, at, ALLOW_OR_DENY)
    egress, deny, default_deny = read
    selector = spec.get("endpointSelector", ABSENT)
    subject = Tri.YES if selector is ABSENT else match_identity(selector, identity_lookup(context))
    governed = egress is not None or deny is not None
    groups = context.data.cidr_groups
    rules, deny_rules = context.remembered(
        (spec, groups),
        ("cilium", namespace, at),
        lambda: _spec_rules(egress, deny, at, namespace, groups),
    )
    return replace(
        base,
        subject=subject,
        types=tri(governed),
        rules=rules,
        deny_rules=deny_rules,
        isolates=governed and default_deny,
        subject_why=subject_text(f"its endpointSelector {compact_json(selector)}", subject),
    )


def _spec_rules(
    egress: list[JSON] | None,
    deny: list[JSON] | None,
    at: tuple[str | int, ...],
    namespace: str | None,
    groups: tuple[ReachCandidate, ...],
) -> tuple[tuple[TierRule, ...], tuple[TierRule, ...]]:
    """A spec's allow and deny rules: the same for every pod, so read once
    per spec when the context keeps a memo."""
    allow_scope = _Scope(namespace, groups, deny=False)
    deny_scope = _Scope(namespace, groups, deny=True)
    allows = tuple(
        _rule(rule, i, (*at, "egress", i), ALLOW_ONLY, allow_scope)
        for i, rule in enumerate(egress or [])
    )
    denies = tuple(
        _rule(rule, i, (*at, "egressDeny", i), DENY_ONLY, deny_scope)
        for i, rule in enumerate(deny or [])
    )
    return allows, denies


def _spec_lists(
    spec: Mapping[str, JSON],
) -> tuple[list[JSON] | None, list[JSON] | None, bool] | str:
    """``egress``, ``egressDeny`` and whether default deny stays on."""
    egress = read_list(spec, "egress")
    deny = read_list(spec, "egressDeny")
    if egress is UNREADABLE or deny is UNREADABLE:
        return "`egress` or `egressDeny` is not a list of rules"
    switch = spec.get("enableDefaultDeny")
    if switch is None and "enableDefaultDeny" not in spec:
        return egress, deny, True
    if not isinstance(switch, dict):
        return "`enableDefaultDeny` is not an object"
    flag = switch.get("egress", True)
    if not isinstance(flag, bool):
        return "`enableDefaultDeny.egress` is not a boolean"
    return egress, deny, flag


def _rule(
    rule: JSON,
    index: int,
    path: tuple[str | int, ...],
    actions: frozenset[Action],
    scope: _Scope,
) -> TierRule:
    text = f"{path[-2]} rule {index}"
    if not isinstance(rule, dict):
        return TierRule(actions, UNREADABLE_PORTS, (unreadable_peer(),), index, path, text)
    peers = cilium_peers(rule, scope)
    if peers is None and read_list(rule, "toPorts") in (None, []):
        # No destination and no port (``{}``, ``toFQDNs: []``): Cilium reads
        # the rule as selecting nothing, the idiom for a default deny with
        # no allow, so it matches no point. A ``toPorts`` that is not a list
        # is unreadable, never "no port": its ports fail closed.
        peers = ()
    return TierRule(actions, cilium_ports(rule), peers, index, path, text)
