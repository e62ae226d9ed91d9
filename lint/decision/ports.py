"""Port lists: reading, coverage and description (SEMANTICS.md §7, §9.4)."""

from __future__ import annotations

import math
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.decision.model import ALL_PORTS, PortRange, PortSet
from lint.decision.values import (
    ABSENT,
    JSON,
    UNREADABLE,
    Unreadable,
    format_number,
    is_integer,
    is_number,
    is_object,
    js_number,
    read_list,
)

DNS_PORT: Final = 53


def read_port_list(
    entries: list[JSON] | Unreadable | None, default_protocol: str | None
) -> PortSet | Unreadable:
    """§7.1. ``entries`` is the list reader's result for the field
    (None = absent or null). Core passes ``"TCP"``, Cilium passes None.

    Absent or empty gives ``all``. The port's sign and range are not checked.
    """
    if entries is UNREADABLE:
        return UNREADABLE
    if not entries:
        return ALL_PORTS
    ranges: list[PortRange] = []
    for entry in entries:
        port_range = _read_port_entry(entry, default_protocol)
        if port_range is UNREADABLE:
            return UNREADABLE
        ranges.append(port_range)
    return tuple(ranges)


def _read_port_entry(entry: JSON, default_protocol: str | None) -> PortRange | Unreadable:
    if not is_object(entry):
        return UNREADABLE
    protocol = _read_protocol(entry.get("protocol", ABSENT), default_protocol)
    if protocol is UNREADABLE:
        return UNREADABLE
    end_port = entry.get("endPort", ABSENT)
    if end_port is not ABSENT and not is_number(end_port):
        return UNREADABLE
    if "port" not in entry:
        # A missing port means every port on that protocol; endPort has nothing to extend.
        return PortRange(protocol)
    start = _port_number(entry["port"])
    if not is_integer(start):
        return UNREADABLE
    end = None if end_port is ABSENT else _plain(end_port)
    return PortRange(protocol, _plain(start), end)


def _read_protocol(value: JSON, default_protocol: str | None) -> str | Unreadable | None:
    """Protocols are uppercased, and ``ANY`` means no protocol at all."""
    if value is ABSENT:
        return default_protocol
    if not isinstance(value, str):
        return UNREADABLE
    protocol = value.upper()
    return None if protocol == "ANY" else protocol


def _port_number(value: JSON) -> float | int:
    """A number is used as it is and a string goes through ``Number()``
    (§7.2). Every other type, booleans and null included, is NaN."""
    if is_number(value):
        return value  # type: ignore[no-any-return]
    if isinstance(value, str):
        return js_number(value)
    return math.nan


def _plain(value: int | float) -> int | float:
    """Integral floats become ints, so ``53`` and ``53.0`` read the same."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class CiliumPortsError(msgspec.Struct, frozen=True):
    """A failed Cilium ``toPorts`` read (§7.3); ``detail`` says which of the
    four problems it is."""

    detail: str


TO_PORTS_NOT_A_LIST: Final = CiliumPortsError("`toPorts` is not a list")
TO_PORTS_ENTRY_NOT_AN_OBJECT: Final = CiliumPortsError("a `toPorts` entry is not an object")
TO_PORTS_PORTS_NOT_A_LIST: Final = CiliumPortsError("a `toPorts` entry's `ports` is not a list")
TO_PORTS_PORT_UNREADABLE: Final = CiliumPortsError(
    "a `toPorts` port entry cannot be read (a named port or a malformed entry)"
)


def read_cilium_ports(rule: dict[str, JSON]) -> PortSet | CiliumPortsError:
    """§7.3: a Cilium rule's ports from its ``toPorts``.

    An entry whose ``ports`` is absent or empty opens every port, and the
    entries after it are not examined. ``rules`` and ``serverNames`` never
    affect ports.
    """
    to_ports = read_list(rule, "toPorts")
    if to_ports is UNREADABLE:
        return TO_PORTS_NOT_A_LIST
    collected: list[JSON] = []
    for entry in to_ports or []:
        if not is_object(entry):
            return TO_PORTS_ENTRY_NOT_AN_OBJECT
        ports = read_list(entry, "ports")
        if ports is UNREADABLE:
            return TO_PORTS_PORTS_NOT_A_LIST
        if not ports:
            return ALL_PORTS
        collected.extend(ports)
    result = read_port_list(collected, None)
    if result is UNREADABLE:
        return TO_PORTS_PORT_UNREADABLE
    return result


def _protocol_covered(allowed: str | None, wanted: str | None) -> bool:
    return allowed is None or allowed == wanted


def range_covers(allowed: PortRange, wanted: PortRange) -> bool:
    """§7.4: does one allowed range cover the wanted range. A wanted range
    with no start is covered only by an allowed range with no start."""
    if not _protocol_covered(allowed.protocol, wanted.protocol):
        return False
    if allowed.start is None:
        return True
    if wanted.start is None:
        return False
    wanted_end = wanted.start if wanted.end is None else wanted.end
    allowed_end = allowed.start if allowed.end is None else allowed.end
    return allowed.start <= wanted.start and wanted_end <= allowed_end


def covers(allowed: PortSet, wanted: PortRange) -> bool:
    """§7.4: does the allowed port set cover the wanted range."""
    if allowed == ALL_PORTS:
        return True
    return any(range_covers(candidate, wanted) for candidate in allowed)


SPLIT_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
"""What a Cilium port entry on ``ANY`` stands for in the cluster's terms."""


def wanted_ranges(ports: PortSet, *, split_any: bool = False) -> tuple[PortRange, ...]:
    """§9.4: ``all`` is wanted as one range with no protocol and no start.

    ``split_any`` (a ``host: none`` allowance, issue 28): a range on every
    protocol that names a port (Cilium ``ANY`` on 53) is wanted as TCP, UDP
    and SCTP on it, since a Cilium port entry matches those three only; so
    an allowance that lists all three covers it. ``all`` is not split: a
    rule without ports matches ICMP too."""
    if ports == ALL_PORTS:
        return (PortRange(None),)
    if not split_any:
        return ports
    return tuple(
        split
        for port_range in ports
        for split in (
            [replace(port_range, protocol=protocol) for protocol in SPLIT_PROTOCOLS]
            if port_range.protocol is None and port_range.start is not None
            else [port_range]
        )
    )


def covers_dns_port(ports: PortSet) -> bool:
    """§9.4 "covers the DNS port": ``all``, or some range on no protocol,
    UDP or TCP that has no start or spans port 53."""
    if ports == ALL_PORTS:
        return True
    return any(_spans_dns_port(port_range) for port_range in ports)


def _spans_dns_port(port_range: PortRange) -> bool:
    if port_range.protocol not in (None, "UDP", "TCP"):
        return False
    if port_range.start is None:
        return True
    end = port_range.start if port_range.end is None else port_range.end
    return port_range.start <= DNS_PORT <= end


def describe_ports(ports: PortSet) -> str:
    """§7.5, with quirk Q7 not copied (``every port``): ranges described as
    ``every TCP port``, ``TCP 443``, ``any 53`` or ``UDP 1000-2000``, joined
    with ``, ``."""
    if ports == ALL_PORTS:
        return "every port"
    return ", ".join(describe_range(port_range) for port_range in ports)


def describe_range(port_range: PortRange) -> str:
    """§7.5 for one range."""
    if port_range.start is None:
        if port_range.protocol is None:
            return "every port"
        return f"every {port_range.protocol} port"
    protocol = "any" if port_range.protocol is None else port_range.protocol
    text = f"{protocol} {format_number(port_range.start)}"
    if port_range.end is not None:
        text += f"-{format_number(port_range.end)}"
    return text
