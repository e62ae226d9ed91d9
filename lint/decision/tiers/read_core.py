"""Core NetworkPolicy as the tier model reads it (CLUSTER-POLICIES.md §12.2,
§12.2.1, §12.2.2, §12.3.3; SEMANTICS.md §5.3 for the document's shape).

One object gives one document in the NetworkPolicy slot. Its rules all
``Allow``. The policy is read as the API server stores it: ``policyTypes``
absent, null or empty becomes ``[Ingress]``, plus ``Egress`` only when
``spec.egress`` holds at least one rule; the document isolates the pod
(when it selects it) exactly when ``Egress`` is in those stored types.

- ports (§12.2.1): no ``ports`` is every protocol and port; an entry's
  protocol defaults to TCP, with ``port`` or ``port``-``endPort``, no
  ``port`` being every port of the protocol; a named port is every
  protocol and port;
- peers (§12.2.2): an ``ipBlock`` is an address test, which holds for pods
  and nodes exactly under Calico, never for pods under Cilium, and only
  "may" elsewhere; pod and namespace selectors are a ``PodSet``, a missing
  namespace selector pinning the policy's own namespace; a rule with no
  ``to`` matches every point.

A namespaced object outside the sandbox namespace gives nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from msgspec.structs import replace

from lint.decision.defaulting import enforces
from lint.decision.model import CidrPeer, Tri
from lint.decision.peers import ipblock_peer
from lint.decision.reach.common import match_strict, object_name, read_strict_selector
from lint.decision.reach.model import ReachCandidate
from lint.decision.tiers.model import (
    ALLOW_ONLY,
    EVERY_PORT,
    UNREADABLE_PORTS,
    PeerMatch,
    Ports,
    PortSpan,
    Slot,
    TierDocument,
    TierRule,
    unreadable_peer,
)
from lint.decision.tiers.reading import (
    NOTHING,
    Credit,
    Read,
    ReadContext,
    address_peer,
    cidr_block,
    pod_set,
    ported_protocol,
    selector_peer,
    shell,
    span,
    subject_text,
    tri,
    unreadable_document,
)
from lint.decision.values import ABSENT, JSON, UNREADABLE, compact_json, read_list
from lint.kinds import NETWORK_POLICY

CALICO_ORDER: Final = 1000.0
"""Calico's order for a converted Kubernetes NetworkPolicy (§5.2, §12.3.3)."""


def read_core(candidate: ReachCandidate, context: ReadContext) -> Read:
    """The document of one core NetworkPolicy; nothing for another namespace's."""
    if candidate.namespace_or(context.namespace) != context.namespace:
        return NOTHING
    return Read(documents=(core_document(candidate, context),))


def core_document(candidate: ReachCandidate, context: ReadContext) -> TierDocument:
    """The object's document for the pod. Only ``subject`` depends on the
    pod, so the rest is read once per object, subject and what else decides
    it, when the context keeps a memo: a namespace's paths read the same
    policies."""
    raw = candidate.raw
    shape = context.remembered(
        (raw,), ("core-shape", candidate.unreadable), lambda: candidate.unreadable or _shape(raw)
    )
    subject = Tri.YES
    if not isinstance(shape, str):
        selector = shape[0].get("podSelector", ABSENT)
        if selector is not ABSENT:
            subject = match_strict(selector, context.pod)
    credit = context.credit(NETWORK_POLICY.key)
    decided_by = (context.namespace, context.calico, context.cilium_r, credit, subject)
    return context.remembered(
        (raw,),
        ("core-document", candidate.position, candidate.unreadable, *decided_by),
        lambda: _document(candidate, context, shape, subject, credit),
    )


def _document(
    candidate: ReachCandidate,
    context: ReadContext,
    shape: tuple[Mapping[str, JSON], list[JSON] | None, list[JSON] | None] | str,
    subject: Tri,
    credit: Credit,
) -> TierDocument:
    base = shell(
        NETWORK_POLICY.key,
        object_name(candidate.raw, candidate.position),
        context.namespace,
        Slot.NETWORK_POLICY,
        CALICO_ORDER,
        NETWORK_POLICY.key,
        credit,
        candidate.position,
    )
    if isinstance(shape, str):
        # A core NetworkPolicy only ever allows.
        return unreadable_document(base, shape, ("spec",), ALLOW_ONLY)
    spec, policy_types, egress = shape
    isolates = enforces("egress", policy_types, egress)
    selector = spec.get("podSelector", ABSENT)
    rules = _rules(candidate.raw, egress, context) if isolates else ()
    return replace(
        base,
        subject=subject,
        types=tri(isolates),
        rules=rules,
        isolates=isolates,
        subject_why=subject_text(f"its podSelector {compact_json(selector)}", subject),
    )


def _rules(raw: JSON, egress: list[JSON] | None, context: ReadContext) -> tuple[TierRule, ...]:
    """The object's egress rules: the same for every pod of the namespace,
    so read once per object, namespace and CNI evidence (the core
    ``ipBlock`` reading depends on it) when the context keeps a memo."""
    return context.remembered(
        (raw,),
        ("core", context.namespace, context.calico, context.cilium_r),
        lambda: tuple(core_rule(rule, i, context) for i, rule in enumerate(egress or [])),
    )


def _shape(raw: JSON) -> tuple[Mapping[str, JSON], list[JSON] | None, list[JSON] | None] | str:
    if not isinstance(raw, dict):
        return "the list entry is not a policy object"
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return "`spec` is not an object"
    policy_types = read_list(spec, "policyTypes")
    if policy_types is UNREADABLE:
        return "`spec.policyTypes` is not a list"
    egress = read_list(spec, "egress")
    if egress is UNREADABLE:
        return "`spec.egress` is not a list of rules"
    if "podSelector" in spec and isinstance(read_strict_selector(spec["podSelector"]), str):
        return f"`spec.podSelector` {compact_json(spec['podSelector'])} cannot be read"
    return spec, policy_types, egress


# --- rules ------------------------------------------------------------------------------


def core_rule(rule: JSON, index: int, context: ReadContext) -> TierRule:
    path: tuple[str | int, ...] = ("spec", "egress", index)
    text = f"egress rule {index}"
    if not isinstance(rule, dict):
        return TierRule(ALLOW_ONLY, UNREADABLE_PORTS, (unreadable_peer(),), index, path, text)
    return TierRule(ALLOW_ONLY, core_ports(rule), core_peers(rule, context), index, path, text)


def core_ports(rule: Mapping[str, JSON]) -> Ports:
    """§12.2.1 for a core rule."""
    entries = read_list(rule, "ports")
    if entries is UNREADABLE:
        return UNREADABLE_PORTS
    if not entries:
        return EVERY_PORT
    spans: list[PortSpan] = []
    for entry in entries:
        read = _port_entry(entry)
        if read is None:
            return UNREADABLE_PORTS
        if isinstance(read, str):
            # A named port: every protocol and port (§12.7).
            return EVERY_PORT
        spans.append(read)
    return Ports(spans=tuple(spans))


def _port_entry(entry: JSON) -> PortSpan | str | None:
    """One port entry: its span, ``named``, or None when it cannot be read."""
    if not isinstance(entry, dict):
        return None
    raw_protocol = entry.get("protocol", "TCP")
    protocol = ported_protocol(raw_protocol) if isinstance(raw_protocol, str) else None
    if protocol is None:
        return None
    port = entry.get("port")
    end = entry.get("endPort")
    if port is None:
        return span(protocol) if end is None else None
    if isinstance(port, str):
        return "named" if port and end is None else None
    if not _valid(port) or (end is not None and (not _valid(end) or end < port)):
        return None
    return span(protocol, port, end)


def _valid(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535


def core_peers(rule: Mapping[str, JSON], context: ReadContext) -> tuple[PeerMatch, ...] | None:
    """§12.2.2 for a core rule; None when ``to`` is absent or empty."""
    entries = read_list(rule, "to")
    if entries is UNREADABLE:
        return (unreadable_peer("`to` is not a list of peers"),)
    if not entries:
        return None
    return tuple(core_peer(entry, context) for entry in entries)


def ipblock_owner_parts(context: ReadContext) -> tuple[Tri, Tri]:
    """The POD and NODE parts of a core ``ipBlock`` (§12.2.2): exact under
    Calico alone, pods never and nodes "may" under Cilium, "may" otherwise
    (and when both CNIs' kinds are present)."""
    if context.calico and not context.cilium_r:
        return Tri.YES, Tri.YES
    if context.cilium_r and not context.calico:
        return Tri.NO, Tri.UNKNOWN
    return Tri.UNKNOWN, Tri.UNKNOWN


def core_peer(raw: JSON, context: ReadContext) -> PeerMatch:
    text = compact_json(raw)
    if not isinstance(raw, dict):
        return unreadable_peer(f"a `to` peer is not an object: {text}")
    if "ipBlock" in raw:
        peer = ipblock_peer(raw["ipBlock"])
        if not isinstance(peer, CidrPeer):
            return unreadable_peer(f"the ipBlock {text} cannot be read")
        pod, node = ipblock_owner_parts(context)
        return address_peer(peer.text, (cidr_block(peer),), Tri.YES, pod, node)
    namespace_selector = raw.get("namespaceSelector", ABSENT)
    pod_selector = raw.get("podSelector", ABSENT)
    if namespace_selector is ABSENT and pod_selector is ABSENT:
        return unreadable_peer(f"the peer {text} names no ipBlock and no selector")
    return selector_peer(text, pod_set(namespace_selector, pod_selector, context.namespace))
