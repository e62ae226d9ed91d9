"""CIDR parsing and containment (SEMANTICS.md §8)."""

from __future__ import annotations

from lint.decision.model import Cidr
from lint.decision.values import JSON


def parse_cidr(value: JSON) -> Cidr | None:
    """Parse a CIDR exactly as §8.1 says; None when it does not parse."""
    raise NotImplementedError


def contains(outer: Cidr, inner: Cidr) -> bool:
    """§8.2: same family, outer.prefix <= inner.prefix, inner masked to outer's prefix equals outer."""
    raise NotImplementedError


def overlaps(first: Cidr, second: Cidr) -> bool:
    """§8.2: either contains the other."""
    raise NotImplementedError


def is_ipv6_text(value: str) -> bool:
    """§3.2/§8.1: the family is IPv6 when the part before '/' contains ':'."""
    raise NotImplementedError
