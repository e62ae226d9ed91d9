"""Calico policies and tiers as the tier model reads them (CLUSTER-POLICIES.md
§12.2, §12.2.1, §12.2.2, §12.3.2, §12.3.3; the readers of §5.3-§5.9, §5.11-§5.13).

The reading itself is ``lint.decision.reach``'s Calico modules (the policy
shape and ``types``, the selection over the Calico label views, the tier
orders, the ports, the destination, the selector translation, the network
sets); this module turns what they read into what each rule matches.

- ``GlobalNetworkPolicy`` and ``NetworkPolicy`` of both API groups: one
  document in the slot of its tier (``default`` is the NetworkPolicy slot;
  the ``adminnetworkpolicy``/``kube-admin`` and ``baselineadminnetworkpolicy``/
  ``kube-baseline`` tiers are the Admin and Baseline slots), ordered by
  ``order`` (absent: last), tie class its kind. Staged and host-endpoint-only
  policies are skipped, as reach skips them. A namespaced policy of another
  namespace gives nothing.
- rules: ``Allow``, ``Deny``, ``Pass``; ``Log`` is skipped; an action that
  cannot be read is every action. ``protocol``/``notProtocol`` and
  ``ports``/``notPorts`` are read exactly (§12.2.1); ``nets`` less
  ``notNets`` is an address test for every owner; a selector scope is a
  ``PodSet`` (outside the conjunctive fragment: inexact), ``notSelector``
  its exclusion; NetworkSets the scope selects in its namespace add their
  nets; ``services`` and ``global()`` "may" match. A rule field this
  model cannot express (``source``, ``icmp``, ``http``) lowers every
  certain match of the rule to "may".
- ``Tier`` manifests: a ``CalicoTier`` with its order (absent: last) and
  default action; the built-in tiers are the slots.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final

from msgspec.structs import replace

from lint.decision.cidr import contains, parse_cidr
from lint.decision.model import CidrPeer, PortRange, SelectorPeer, Tri
from lint.decision.reach.calico import (
    HOST_ENDPOINT_REASON,
    STAGED_REASON,
    ReadPolicy,
    governs_egress,
    read_policy,
    selection,
)
from lint.decision.reach.calico_rules import (
    GLOBAL_SCOPE,
    Scope,
    Undecided,
    _read_port,
    _read_protocol,
    _wide_cidrs,
    read_destination,
    translate_scope,
)
from lint.decision.reach.calico_selector import (
    AllNode,
    KeyState,
    Node,
    SelectorError,
    evaluate,
    parse_selector,
    to_label_selector,
)
from lint.decision.reach.calico_sets import _pinned_namespace, _set_peers, _sets_in
from lint.decision.reach.calico_tiers import DEFAULT_TIER, _tier_manifest_order
from lint.decision.reach.calico_views import CalicoViews
from lint.decision.reach.common import display_kind, object_name
from lint.decision.reach.model import ReachCandidate, Skipped
from lint.decision.tiers.model import (
    EVERY_ACTION,
    EVERY_PORT,
    UNREADABLE_PORTS,
    Action,
    CalicoTier,
    CidrBlock,
    PeerMatch,
    PodSet,
    Ports,
    Slot,
    TierRule,
    unreadable_peer,
)
from lint.decision.tiers.reading import (
    NOTHING,
    UNKNOWN_POD_SET,
    Read,
    ReadContext,
    cidr_block,
    maybe_peer,
    network_peer,
    pod_set,
    ports_of_port_set,
    selector_peer,
    shell,
    tri,
    unreadable_document,
    wanted_peer_match,
)
from lint.decision.values import JSON, compact_json
from lint.kinds import CALICO_GLOBAL_NETWORK_POLICY, CALICO_NETWORK_POLICY, Kind

ACTION_WORDS: Final[Mapping[str, Action]] = {
    "Allow": Action.ALLOW,
    "Deny": Action.DENY,
    "Pass": Action.PASS,
}
LOG: Final = "Log"
BUILT_IN_SLOTS: Final[Mapping[str, Slot]] = {
    DEFAULT_TIER: Slot.NETWORK_POLICY,
    "adminnetworkpolicy": Slot.ADMIN,
    "kube-admin": Slot.ADMIN,
    "baselineadminnetworkpolicy": Slot.BASELINE,
    "kube-baseline": Slot.BASELINE,
}
"""Calico's built-in tiers, which are the fixed slots (§12.3.2)."""
LOWERING_FIELDS: Final = ("source", "icmp", "notICMP", "http")
"""Rule fields that narrow what a rule matches in ways this model does not
express; present, they make every certain match of the rule "may"."""
FAMILY_BLOCKS: Final = {4: "0.0.0.0/0", 6: "::/0"}
DEFAULT_ACTIONS: Final[Mapping[str | None, bool]] = {None: False, "Deny": False, "Pass": True}
"""A Tier's ``defaultAction``: whether it passes (None: cannot be read)."""


def slot_of(tier: str) -> str:
    """The slot a Calico tier's policies sit in: a built-in slot or the tier."""
    return BUILT_IN_SLOTS.get(tier, tier)


# --- policies ----------------------------------------------------------------------------


def read_staged(candidate: ReachCandidate, context: ReadContext) -> Read:
    """Staged policies are not enforced (§5.12): skipped."""
    shown = display_kind(candidate.api_version, candidate.kind)
    name = object_name(candidate.raw, candidate.position)
    return Read(skipped=(Skipped(shown, name, STAGED_REASON),))


def read_calico_global(candidate: ReachCandidate, context: ReadContext) -> Read:
    """The document of one Calico GlobalNetworkPolicy."""
    return _read_calico(candidate, context, CALICO_GLOBAL_NETWORK_POLICY)


def read_calico_namespaced(candidate: ReachCandidate, context: ReadContext) -> Read:
    """The document of one Calico NetworkPolicy; nothing for another namespace's."""
    if candidate.namespace_or(context.namespace) != context.namespace:
        return NOTHING
    return _read_calico(candidate, context, CALICO_NETWORK_POLICY)


def _read_calico(candidate: ReachCandidate, context: ReadContext, kind: Kind) -> Read:
    is_global = kind is CALICO_GLOBAL_NETWORK_POLICY
    shown = kind.key
    name = object_name(candidate.raw, candidate.position)
    base = shell(
        shown,
        name,
        None if is_global else context.namespace,
        Slot.NETWORK_POLICY,
        math.inf,
        shown,
        context.credit(shown),
        candidate.position,
    )
    policy = read_policy(candidate.raw, is_global)
    if isinstance(policy, str):
        return Read(documents=(unreadable_document(base, policy, ("spec",)),))
    if policy.host_endpoint_field is not None:
        reason = f"{HOST_ENDPOINT_REASON} (`{policy.host_endpoint_field}`)"
        return Read(skipped=(Skipped(shown, name, reason),))
    order = _order(policy)
    if order is None:
        detail = f"`spec.order` {compact_json(policy.spec.get('order'))} is not a number"
        placed = replace(base, slot=slot_of(policy.tier))
        return Read(documents=(unreadable_document(placed, detail, ("spec",)),))
    views = CalicoViews(
        namespace=context.namespace,
        service_account=context.service_account,
        pod=context.pod,
        namespace_labels=context.namespace_view,
        service_account_labels=context.data.service_account_view(
            context.namespace, context.service_account
        ),
    )
    selected = selection(policy.spec, is_global, views)
    namespace = None if is_global else context.namespace
    rules = tuple(
        rule
        for index, raw in enumerate(policy.egress)
        if (rule := calico_rule(raw, index, namespace, context)) is not None
    )
    document = replace(
        base,
        slot=slot_of(policy.tier),
        order=order,
        subject=selected.outcome,
        types=tri(governs_egress(policy)),
        rules=rules,
        isolates=governs_egress(policy),
        subject_why=(
            f"{selected.text} cannot be matched offline"
            if selected.outcome is Tri.UNKNOWN
            else None
        ),
    )
    return Read(documents=(document,))


def _order(policy: ReadPolicy) -> float | None:
    """``order`` (absent: last, CAL-ORD), None when it cannot be read."""
    order = policy.spec.get("order")
    if order is None:
        return math.inf
    if isinstance(order, bool) or not isinstance(order, int | float) or math.isnan(order):
        return None
    return float(order)


# --- rules -----------------------------------------------------------------------------


def calico_rule(
    rule: JSON, index: int, namespace: str | None, context: ReadContext
) -> TierRule | None:
    """One egress rule as what it matches; None for a ``Log`` rule."""
    path: tuple[str | int, ...] = ("spec", "egress", index)
    text = f"egress rule {index}"
    if not isinstance(rule, dict):
        return TierRule(EVERY_ACTION, UNREADABLE_PORTS, (unreadable_peer(),), index, path, text)
    word = rule.get("action")
    if word == LOG:
        return None
    actions = (
        frozenset({ACTION_WORDS[word]})
        if isinstance(word, str) and word in ACTION_WORDS
        else EVERY_ACTION
    )
    peers = calico_peers(rule, namespace, context)
    if any(rule.get(field) not in (None, {}, []) for field in LOWERING_FIELDS):
        peers = (
            tuple(lowered(peer) for peer in peers) if peers is not None else (unreadable_peer(),)
        )
    return TierRule(actions, calico_ports(rule), peers, index, path, text)


def lowered(peer: PeerMatch) -> PeerMatch:
    """The peer with every certain owner part made "may"."""

    def down(value: Tri) -> Tri:
        return Tri.UNKNOWN if value is Tri.YES else value

    pod = peer.pod
    pod = down(pod) if isinstance(pod, Tri) else replace(pod, exact=False)
    return replace(
        peer,
        out=down(peer.out),
        pod=pod,
        node=down(peer.node),
        on_name=down(peer.on_name),
        names=None,
    )


def calico_ports(rule: Mapping[str, JSON]) -> Ports:
    """§12.2.1: ``protocol`` with ``destination.ports``, less ``notProtocol``
    and ``destination.notPorts``."""
    destination = rule.get("destination")
    if destination is None:
        destination = {}
    if not isinstance(destination, dict):
        return UNREADABLE_PORTS
    protocol = _read_protocol(rule.get("protocol"))
    if protocol == "unreadable":
        return UNREADABLE_PORTS
    positive = _port_part(protocol, destination.get("ports"))
    if positive is None:
        return UNREADABLE_PORTS
    parts: list[Ports] = []
    not_protocol = _read_protocol(rule.get("notProtocol"))
    if not_protocol == "unreadable":
        return UNREADABLE_PORTS
    if not_protocol is not None:
        parts.append(ports_of_port_set((PortRange(not_protocol),)))
    if destination.get("notPorts"):
        not_ports = _port_part(protocol, destination.get("notPorts"))
        if not_ports is None or protocol is None:
            return UNREADABLE_PORTS
        parts.append(not_ports)
    if any(part.unreadable for part in parts):
        return UNREADABLE_PORTS
    if not parts:
        return positive
    exclude = Ports(
        spans=tuple(span for part in parts for span in part.spans),
        every=any(part.every for part in parts),
        icmp=any(part.icmp for part in parts),
        other=any(part.other for part in parts),
    )
    return replace(positive, exclude=exclude)


def _port_part(protocol: str | None, entries: JSON) -> Ports | None:
    """The points of ``protocol`` on ``entries``; None when unreadable."""
    if entries is None or entries == []:
        return EVERY_PORT if protocol is None else ports_of_port_set((PortRange(protocol),))
    if not isinstance(entries, list) or protocol is None:
        return None
    ranges: list[PortRange] = []
    for entry in entries:
        read = _read_port(entry, protocol)
        if read is None:
            return None
        if read == "named":
            return EVERY_PORT
        ranges.append(read)
    ports = ports_of_port_set(tuple(ranges))
    return None if ports.unreadable else ports


def calico_peers(
    rule: Mapping[str, JSON], namespace: str | None, context: ReadContext
) -> tuple[PeerMatch, ...] | None:
    """§12.2.2 for a Calico rule's destination; None for every point."""
    destination = read_destination(rule, namespaced=namespace is not None)
    if isinstance(destination, Undecided):
        return (unreadable_peer(destination.detail),)
    peers: tuple[PeerMatch, ...] | None
    if not destination.scoped:
        if destination.cidrs:
            peers = tuple(network_peer(peer) for peer in destination.cidrs)
        elif destination.not_nets:
            peers = tuple(network_peer(peer) for peer in _wide_cidrs(destination.not_nets))
        else:
            peers = None
    else:
        peers = _scoped_peers(
            destination.raw, destination.cidrs, destination.not_nets, namespace, context
        )
    return _family(rule.get("ipVersion"), peers)


def _scoped_peers(
    raw: Mapping[str, JSON],
    cidrs: tuple[CidrPeer, ...],
    not_nets: tuple[str, ...],
    namespace: str | None,
    context: ReadContext,
) -> tuple[PeerMatch, ...]:
    text = compact_json(raw)
    nets = cidrs or (_wide_cidrs(not_nets) if not_nets else ())
    blocks = tuple(cidr_block(peer) for peer in nets) or None
    scope = translate_scope(raw, namespace)
    if scope is GLOBAL_SCOPE:
        return (maybe_peer(f"{text} (a `global()` scope)"),)
    if isinstance(scope, Undecided):
        return (selector_peer(text, UNKNOWN_POD_SET, blocks=blocks),)
    assert isinstance(scope, Scope)
    pods = pod_set(scope.peer.namespace_selector, scope.peer.pod_selector, None)
    if raw.get("serviceAccounts") is not None:
        pods = replace(pods, exact=False)
    exclude = _not_selector(raw.get("notSelector"), scope.peer, namespace)
    if exclude is not None:
        pods = replace(pods, exclude=exclude)
    peers = [selector_peer(text, pods, blocks=blocks)]
    peers += _network_set_peers(scope, nets, context)
    return tuple(peers)


def _not_selector(raw: JSON, peer: SelectorPeer, namespace: str | None) -> PodSet | None:
    """``notSelector`` as the pods it removes (inexact when untranslatable)."""
    if raw is None or raw == "":
        return None
    node = parse_selector(raw) if isinstance(raw, str) else None
    if node is None or isinstance(node, SelectorError):
        return UNKNOWN_POD_SET
    selector = to_label_selector(node)
    if selector is None:
        return UNKNOWN_POD_SET
    return pod_set(peer.namespace_selector, selector, namespace)


def _network_set_peers(
    scope: Scope, nets: tuple[CidrPeer, ...], context: ReadContext
) -> list[PeerMatch]:
    """§5.9.2: the NetworkSets in the scope's one namespace whose labels the
    pod part may match; their nets (within the rule's nets) match every
    owner by address, "may" when the labels' match is unknown.

    A scope not pinned to one namespace (a GlobalNetworkPolicy's selector)
    may also select GlobalNetworkSets and other namespaces' sets, which
    §5.9.2 does not settle: every set whose labels may match then "may"
    match, so neither an Allow nor a Deny is taken as certain there."""
    pinned = _pinned_namespace(scope.peer)
    sets = (
        _sets_in(context.data.network_sets, pinned)
        if pinned is not None
        else sorted(context.data.network_sets, key=lambda c: object_name(c.raw, c.position))
    )
    found: list[PeerMatch] = []
    for network_set in sets:
        selected = _set_match(network_set.raw, scope.pod_part)
        if selected is Tri.NO:
            continue
        if pinned is None:
            selected = Tri.UNKNOWN
        for wanted in _set_peers(network_set.raw):
            peer = wanted_peer_match(wanted, admin=False)
            if isinstance(wanted, CidrPeer):
                within = _intersect(wanted, nets) if nets else (cidr_block(wanted),)
                if not within:
                    continue
                peer = replace(peer, blocks=within)
            found.append(peer if selected is Tri.YES else lowered(peer))
    return found


def _set_match(raw: JSON, pod_part: Node | None) -> Tri:
    if pod_part is None or isinstance(pod_part, AllNode):
        return Tri.YES
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    labels = {} if labels is None else labels
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        return Tri.UNKNOWN
    known: dict[str, str] = labels
    return evaluate(pod_part, lambda key: known.get(key, KeyState.ABSENT))


def _intersect(peer: CidrPeer, nets: tuple[CidrPeer, ...]) -> tuple[CidrBlock, ...]:
    """The set's block within each of the rule's nets (cidrs nest or are disjoint)."""
    blocks: list[CidrBlock] = []
    for net in nets:
        if contains(net.cidr, peer.cidr):
            blocks.append(CidrBlock(peer.cidr, tuple(peer.excepts) + tuple(net.excepts)))
        elif contains(peer.cidr, net.cidr):
            blocks.append(CidrBlock(net.cidr, tuple(peer.excepts) + tuple(net.excepts)))
    return tuple(blocks)


def _family(version: JSON, peers: tuple[PeerMatch, ...] | None) -> tuple[PeerMatch, ...] | None:
    """``ipVersion``: only addresses of that family match."""
    if version not in FAMILY_BLOCKS:
        return peers
    whole = parse_cidr(FAMILY_BLOCKS[version])
    assert whole is not None
    family_block = CidrBlock(whole)
    if peers is None:
        return (PeerMatch(f"IPv{version}", blocks=(family_block,)),)
    restricted = []
    for peer in peers:
        if peer.blocks is None:
            restricted.append(replace(peer, blocks=(family_block,)))
        else:
            kept = tuple(block for block in peer.blocks if block.cidr.family == version)
            if kept:
                restricted.append(replace(peer, blocks=kept))
    return tuple(restricted)


# --- tiers ------------------------------------------------------------------------------


def read_tier(candidate: ReachCandidate, context: ReadContext) -> Read:
    """A ``Tier`` manifest: a ``CalicoTier``; nothing for a built-in tier
    (the ``default`` Tier's action is DEFTIER, read by ``build``)."""
    name = object_name(candidate.raw, candidate.position)
    if name in BUILT_IN_SLOTS:
        return NOTHING
    order = _tier_manifest_order(candidate.raw)
    position = None if order is None else (math.inf if order == "last" else float(order))
    spec = candidate.raw.get("spec") if isinstance(candidate.raw, dict) else None
    action = spec.get("defaultAction") if isinstance(spec, dict) else None
    passes = DEFAULT_ACTIONS.get(action) if isinstance(action, str) or action is None else None
    return Read(tiers=(CalicoTier(name, position, passes),))
