"""Peers: reading, containment and wide-open detection (SEMANTICS.md §9)."""

from __future__ import annotations

from typing import Final

from lint.decision.cidr import contains, overlaps, parse_cidr
from lint.decision.constants import kube_dns_pod_selector, kube_system_namespace_selector
from lint.decision.model import Cidr, CidrPeer, Everything, Peer, SelectorPeer, Tri
from lint.decision.selectors import (
    is_empty_for_matching,
    map_cilium_key,
    narrower_than,
    selector_readable,
)
from lint.decision.values import (
    ABSENT,
    JSON,
    UNREADABLE,
    compact_json,
    is_object,
    js_items,
    js_trim,
    read_list,
)

NAMESPACE_LABEL: Final = "kubernetes.io/metadata.name"
CILIUM_NAMESPACE_KEY: Final = "io.kubernetes.pod.namespace"
WIDE_OPEN_CIDRS: Final = ("0.0.0.0/0", "::/0")


def read_core_peer(raw: JSON) -> Peer | None:
    """§9.1; None when the peer is unreadable. ``text`` is the compact JSON
    of the raw ipBlock (cidr peer) or of the raw peer (selector peer).

    ``ipBlock`` wins over the selectors whenever the key is present.
    """
    if not is_object(raw):
        return None
    if "ipBlock" in raw:
        return ipblock_peer(raw["ipBlock"])
    if "podSelector" not in raw and "namespaceSelector" not in raw:
        return None
    namespace_selector = raw.get("namespaceSelector", ABSENT)
    pod_selector = raw.get("podSelector", ABSENT)
    if not (selector_readable(namespace_selector) and selector_readable(pod_selector)):
        return None
    return SelectorPeer(namespace_selector, pod_selector, compact_json(raw))


def unreadable_reason(raw: JSON) -> str:
    """Why ``read_core_peer`` cannot read the peer, naming the field that
    stops it (the detail quotes the peer after it): a list of twenty CIDRs
    with one bad entry says which."""
    if not is_object(raw):
        return "the peer is not an object"
    if "ipBlock" in raw:
        block = raw["ipBlock"]
        if not is_object(block):
            return "`ipBlock` is not an object"
        if parse_cidr(block.get("cidr")) is None:
            return "`ipBlock.cidr` is not a CIDR"
        excepts = read_list(block, "except")
        if excepts is UNREADABLE:
            return "`ipBlock.except` is not a list"
        for number, entry in enumerate(excepts or []):
            if parse_cidr(entry) is None:
                return f"`ipBlock.except` entry {number} is not a CIDR"
        return "its `ipBlock` cannot be read"
    if "podSelector" not in raw and "namespaceSelector" not in raw:
        return "it names neither an `ipBlock` nor a selector"
    return "a selector cannot be read"


def ipblock_peer(ip_block: JSON) -> Peer | None:
    """§9.1 step 1 on a bare ipBlock value (also used for Cilium toCIDR /
    toCIDRSet, §10.2 step 7); None when unreadable.

    ``cidr`` and every ``except`` entry must parse (§8.1); ``except`` is read
    with the list reader, so null is the same as absent.
    """
    if not is_object(ip_block):
        return None
    cidr = parse_cidr(ip_block.get("cidr"))
    if cidr is None:
        return None
    excepts = read_list(ip_block, "except")
    if excepts is UNREADABLE:
        return None
    holes = [parse_cidr(entry) for entry in excepts or []]
    parsed = [hole for hole in holes if hole is not None]
    if len(parsed) != len(holes):
        return None
    return CidrPeer(cidr, tuple(parsed), compact_json(ip_block))


def read_endpoint_peer(selector: JSON, *, clusterwide: bool = False) -> SelectorPeer | None:
    """§9.5; None when the selector cannot be read. With ``clusterwide``
    (§17.3) a selector with no namespace key gets an empty namespaceSelector.

    Any ``matchExpressions`` key, even ``[]`` or null, makes the selector
    unreadable (quirk Q17), and so does a missing ``matchLabels``.
    ``{"matchLabels": {}}`` is every pod in the policy's namespace.
    """
    if not is_object(selector) or "matchExpressions" in selector:
        return None
    match_labels = selector.get("matchLabels")
    if not is_object(match_labels):
        return None
    namespace: str | None = None
    pod_labels: dict[str, str] = {}
    for key, value in js_items(match_labels):
        mapped = map_cilium_key(key)
        if not isinstance(value, str) or mapped is None:
            return None
        if mapped == CILIUM_NAMESPACE_KEY:
            namespace = value
        else:
            pod_labels[mapped] = value
    return SelectorPeer(
        _endpoint_namespace_selector(namespace, clusterwide),
        {"matchLabels": pod_labels},
        compact_json(selector),
    )


def _endpoint_namespace_selector(namespace: str | None, clusterwide: bool) -> JSON:
    """Without a namespace key, a namespaced policy reaches its own namespace
    (no namespaceSelector) while a clusterwide one reaches every namespace
    (an empty one), per §17.3."""
    if namespace is not None:
        return {"matchLabels": {NAMESPACE_LABEL: namespace}}
    return {} if clusterwide else ABSENT


def peer_within(allowed: Peer, wanted: Peer) -> bool:
    """§9.3: is every address ``wanted`` reaches also allowed."""
    if isinstance(allowed, Everything):
        return True
    if isinstance(wanted, Everything):
        return False
    if isinstance(allowed, CidrPeer):
        return isinstance(wanted, CidrPeer) and _cidr_within(allowed, wanted)
    if not isinstance(wanted, SelectorPeer):
        return False
    # An absent namespaceSelector means "this namespace"; naming namespaces reaches further.
    if allowed.namespace_selector is ABSENT and wanted.namespace_selector is not ABSENT:
        return False
    return narrower_than(allowed.namespace_selector, wanted.namespace_selector) and narrower_than(
        allowed.pod_selector, wanted.pod_selector
    )


def _cidr_within(allowed: CidrPeer, wanted: CidrPeer) -> bool:
    """§9.3 step 3. Each hole of ``allowed`` that overlaps the wanted block
    must sit inside one single wanted ``except`` entry; a union of several
    entries is deliberately not attempted."""
    if not contains(allowed.cidr, wanted.cidr):
        return False
    return all(
        _hole_excluded(hole, wanted.excepts)
        for hole in allowed.excepts
        if overlaps(hole, wanted.cidr)
    )


def _hole_excluded(hole: Cidr, wanted_excepts: tuple[Cidr, ...]) -> bool:
    return any(contains(entry, hole) for entry in wanted_excepts)


def wide_open(raw: JSON) -> Tri:
    """§9.7: YES wide open, NO not, UNKNOWN cannot tell.

    An ipBlock is wide open when its trimmed cidr is ``0.0.0.0/0`` or
    ``::/0``, whatever its ``except``. A namespaceSelector peer is wide open
    when both selectors are empty in the matching sense (§6.4). A
    podSelector-only peer stays in its namespace, so it is never wide open.
    """
    if not is_object(raw):
        return Tri.UNKNOWN
    if "ipBlock" in raw:
        return _ipblock_wide_open(raw["ipBlock"])
    namespace_selector = raw.get("namespaceSelector", ABSENT)
    pod_selector = raw.get("podSelector", ABSENT)
    if not (selector_readable(namespace_selector) and selector_readable(pod_selector)):
        return Tri.UNKNOWN
    if namespace_selector is not ABSENT:
        both_empty = is_empty_for_matching(namespace_selector) and is_empty_for_matching(
            pod_selector
        )
        return Tri.YES if both_empty else Tri.NO
    return Tri.NO if pod_selector is not ABSENT else Tri.UNKNOWN


def _ipblock_wide_open(ip_block: JSON) -> Tri:
    if not is_object(ip_block) or not isinstance(ip_block.get("cidr"), str):
        return Tri.UNKNOWN
    return Tri.YES if js_trim(ip_block["cidr"]) in WIDE_OPEN_CIDRS else Tri.NO


RESOLVER_PEER: Final[SelectorPeer] = SelectorPeer(
    kube_system_namespace_selector(),
    kube_dns_pod_selector(),
    "the cluster resolver",
)
"""§4.1: the kube-dns selector peer, described as "the cluster resolver"."""
