"""CIDR parsing and containment (SEMANTICS.md §8).

The parser is our own rather than :mod:`ipaddress`, because the reference is
more lenient in some places (leading zeros, stray colons, ``::`` standing for
no groups: quirk Q25) and stricter in others (no scope ids, no netmask
prefixes). §8.3 lists the differences.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from lint.decision.model import Cidr
from lint.decision.values import JSON

_PREFIX: Final = re.compile(r"[0-9]{1,3}", re.ASCII)
_IPV4_PART: Final = re.compile(r"[0-9]{1,3}", re.ASCII)
_IPV6_GROUP: Final = re.compile(r"[0-9a-fA-F]{1,4}", re.ASCII)
_BITS: Final = {4: 32, 6: 128}


def parse_cidr(value: JSON) -> Cidr | None:
    """Parse a CIDR exactly as §8.1 says; None when it does not parse.

    The base is masked to the prefix, so ``10.0.0.1/8`` equals ``10.0.0.0/8``.
    """
    if not isinstance(value, str) or "/" not in value:
        return None
    address, prefix_text = value.split("/", 1)
    if not _PREFIX.fullmatch(prefix_text):
        return None
    prefix = int(prefix_text)
    family: Literal[4, 6] = 6 if ":" in address else 4
    if prefix > _BITS[family]:
        return None
    base = _parse_ipv6(address) if family == 6 else _parse_ipv4(address)
    if base is None:
        return None
    return Cidr(family=family, base=_mask(base, prefix, family), prefix=prefix)


def _parse_ipv4(address: str) -> int | None:
    """§8.1 rule 4: four dotted decimal parts of at most 255; leading zeros
    are decimal (``010`` is 10)."""
    parts = address.split(".")
    if len(parts) != 4:
        return None
    value = 0
    for part in parts:
        if not _IPV4_PART.fullmatch(part) or int(part) > 255:
            return None
        value = (value << 8) | int(part)
    return value


def _parse_ipv6(address: str) -> int | None:
    """§8.1 rule 5. Empty groups are skipped rather than rejected, which is
    why stray colons parse (quirk Q25)."""
    split = _split_ipv4_tail(address)
    if split is None:
        return None
    groups_text, tail_groups = split
    pieces = [_parse_groups(piece) for piece in groups_text.split("::")]
    if len(pieces) > 2:
        return None
    head = pieces[0]
    rest = pieces[1] if len(pieces) == 2 else []
    if head is None or rest is None:
        return None
    if len(pieces) == 1:
        head = head + tail_groups
    else:
        rest = rest + tail_groups
    count = len(head) + len(rest)
    if count > 8 or (len(pieces) == 1 and count != 8):
        return None
    value = 0
    for group in [*head, *([0] * (8 - count)), *rest]:
        value = (value << 16) | group
    return value


def _split_ipv4_tail(address: str) -> tuple[str, list[int]] | None:
    """An embedded IPv4 tail after the last ``:`` counts as two groups: it is
    removed (the last ``:`` kept) and returned as two groups. None when the
    tail does not parse."""
    last = address.rfind(":")
    tail_text = address[last + 1 :]
    if "." not in tail_text:
        return address, []
    tail = _parse_ipv4(tail_text)
    if tail is None:
        return None
    return address[: last + 1], [tail >> 16, tail & 0xFFFF]


def _parse_groups(piece: str) -> list[int] | None:
    groups = [group for group in piece.split(":") if group != ""]
    if not all(_IPV6_GROUP.fullmatch(group) for group in groups):
        return None
    return [int(group, 16) for group in groups]


def _mask(base: int, prefix: int, family: Literal[4, 6]) -> int:
    bits = _BITS[family]
    return base & (((1 << prefix) - 1) << (bits - prefix))


def contains(outer: Cidr, inner: Cidr) -> bool:
    """§8.2: same family, ``outer.prefix <= inner.prefix``, and inner's base
    masked to outer's prefix equals outer's base."""
    return (
        outer.family == inner.family
        and outer.prefix <= inner.prefix
        and _mask(inner.base, outer.prefix, inner.family) == outer.base
    )


def overlaps(first: Cidr, second: Cidr) -> bool:
    """§8.2: either contains the other."""
    return contains(first, second) or contains(second, first)


def is_ipv6_text(value: str) -> bool:
    """§3.2/§8.1: the family is IPv6 when the part before '/' contains ':'."""
    return ":" in value.split("/", 1)[0]
