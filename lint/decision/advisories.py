"""Where the reference's own reading lets out more than it says (issue 15,
item 7): the facts behind the stricter-than-the-host advisories.

None of this changes a verdict. The host's wide-open test (SEMANTICS §9.7,
§13.3) knows a peer as wide open only by its text, ``0.0.0.0/0`` or
``::/0``; its ``public-internet`` exclusions (§3.2) are address ranges, not
what the ranges reach; and it reads ``fromEndpoints: [{}]`` as closed
(§13.3 step 10) in a clusterwide policy too. Each function below finds one
such case in plain data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal

from lint.decision.cidr import contains, parse_cidr
from lint.decision.model import Allowance, Cidr, CidrPeer
from lint.decision.selectors import is_empty_for_matching, selector_readable
from lint.decision.values import JSON

_BITS: Final = {4: 32, 6: 128}

NAT64_PREFIXES: Final[tuple[tuple[str, Cidr], ...]] = tuple(
    (text, cidr)
    for text in ("64:ff9b::/96", "64:ff9b:1::/48")
    if (cidr := parse_cidr(text)) is not None
)
"""The well-known NAT64 prefix (RFC 6052) and the local-use one (RFC 8215):
each address in them embeds an IPv4 address, which a NAT64 gateway reaches."""


def covered_families(cidrs: Iterable[Cidr]) -> tuple[Literal[4, 6], ...]:
    """The address families whose every address ``cidrs`` together cover."""
    spans: dict[int, list[tuple[int, int]]] = {4: [], 6: []}
    for cidr in cidrs:
        size = 1 << (_BITS[cidr.family] - cidr.prefix)
        spans[cidr.family].append((cidr.base, cidr.base + size))
    covered: list[Literal[4, 6]] = []
    for family in (4, 6):
        reached = 0
        for start, end in sorted(spans[family]):
            if start > reached:
                break
            reached = max(reached, end)
        if reached == 1 << _BITS[family]:
            covered.append(4 if family == 4 else 6)
    return tuple(covered)


def whole_family_peers(cidr_texts: Sequence[str]) -> tuple[Literal[4, 6], ...]:
    """The families that CIDRs written as ``cidr_texts`` cover whole, when
    none of them is the text the host knows as wide open. (A peer with
    ``except`` entries is left out by the caller: it may leave a gap.)"""
    if any(text.strip() in ("0.0.0.0/0", "::/0") for text in cidr_texts):
        return ()  # the host already reads it as wide open
    parsed = [cidr for text in cidr_texts if (cidr := parse_cidr(text.strip())) is not None]
    return covered_families(parsed)


def core_peer_cidrs(peers: JSON) -> list[str]:
    """The ``ipBlock.cidr`` of each core peer without ``except`` entries."""
    if not isinstance(peers, list):
        return []
    texts = []
    for peer in peers:
        block = peer.get("ipBlock") if isinstance(peer, dict) else None
        cidr = block.get("cidr") if isinstance(block, dict) else None
        if isinstance(block, dict) and isinstance(cidr, str) and not block.get("except"):
            texts.append(cidr)
    return texts


def cilium_source_cidrs(rule: dict[str, JSON]) -> list[str]:
    """``fromCIDR`` entries, and each ``fromCIDRSet`` ``cidr`` without ``except``."""
    texts: list[str] = []
    cidrs = rule.get("fromCIDR")
    if isinstance(cidrs, list):
        texts += [cidr for cidr in cidrs if isinstance(cidr, str)]
    sets = rule.get("fromCIDRSet")
    if isinstance(sets, list):
        for entry in sets:
            cidr = entry.get("cidr") if isinstance(entry, dict) else None
            if isinstance(entry, dict) and isinstance(cidr, str) and not entry.get("except"):
                texts.append(cidr)
    return texts


def empty_endpoint_selectors(rule: dict[str, JSON]) -> list[int]:
    """Indices of the ``fromEndpoints`` selectors that select every endpoint."""
    selectors = rule.get("fromEndpoints")
    if not isinstance(selectors, list):
        return []
    return [
        index
        for index, selector in enumerate(selectors)
        if isinstance(selector, dict)
        and selector_readable(selector)
        and is_empty_for_matching(selector)
    ]


def reachable_nat64(allowance: Allowance) -> tuple[str, ...]:
    """The NAT64 prefixes a CIDR of the allowance takes in, wider than the
    prefix itself and without an exclusion covering it."""
    if allowance.permits_everything:
        return ()  # allow-all means it
    found = []
    for text, prefix in NAT64_PREFIXES:
        for destination in allowance.destinations:
            peer = destination.peer
            if not isinstance(peer, CidrPeer) or peer.cidr.family != 6:
                continue
            wider = peer.cidr.prefix < prefix.prefix and contains(peer.cidr, prefix)
            if wider and not any(contains(hole, prefix) for hole in peer.excepts):
                found.append(text)
                break
    return tuple(found)
