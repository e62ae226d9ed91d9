"""Peers: reading, containment and wide-open detection (SEMANTICS.md §9)."""

from __future__ import annotations

from lint.decision.model import Peer, SelectorPeer, Tri
from lint.decision.values import JSON


def read_core_peer(raw: JSON) -> Peer | None:
    """§9.1; None when the peer is unreadable. ``text`` is the compact JSON
    of the raw ipBlock (cidr peer) or of the raw peer (selector peer)."""
    raise NotImplementedError


def ipblock_peer(ip_block: JSON) -> Peer | None:
    """§9.1 step 1 on a bare ipBlock value (also used for Cilium toCIDR /
    toCIDRSet, §10.2 step 7); None when unreadable."""
    raise NotImplementedError


def read_endpoint_peer(selector: JSON, *, clusterwide: bool = False) -> SelectorPeer | None:
    """§9.5; None when the selector cannot be read. With ``clusterwide``
    (§17.3) a selector with no namespace key gets an empty namespaceSelector."""
    raise NotImplementedError


def peer_within(allowed: Peer, wanted: Peer) -> bool:
    """§9.3: is every address ``wanted`` reaches also allowed."""
    raise NotImplementedError


def wide_open(raw: JSON) -> Tri:
    """§9.7: YES wide open, NO not, UNKNOWN cannot tell."""
    raise NotImplementedError


RESOLVER_PEER: SelectorPeer
"""§4.1: the kube-dns selector peer, described as "the cluster resolver"."""
