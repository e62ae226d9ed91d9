"""The ``--to`` destination of ``egress-lint explain``.

Accepted forms: an address with a port (``169.254.169.254:80/TCP``,
``[2001:db8::1]:443``), a bare address or a CIDR (every port), and a
hostname with a port (``api.github.com:443``). The protocol defaults to TCP.
An IPv6 address takes a port only in brackets, so ``2001:db8::1:443`` is
one address.
Addresses and CIDRs are read by the engine's own CIDR parser (SEMANTICS
§8.1), so ``explain`` accepts exactly what policies may contain.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from lint.decision.cidr import parse_cidr
from lint.decision.hosts import host_problem
from lint.decision.model import Cidr, CidrPeer, PortRange

PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
_WITH_PORT: Final = re.compile(
    r"(?P<where>\[[^\]]*\]|[^\[\]/:]+):(?P<port>[0-9]{1,5})(?:/(?P<protocol>[A-Za-z]+))?",
    re.ASCII,
)


class DestinationError(ValueError):
    """A ``--to`` value that is none of the accepted forms."""


class Destination(msgspec.Struct, frozen=True):
    """What ``--to`` asks about. Exactly one of ``cidr`` and ``host`` is set;
    ``port`` None means every port and protocol."""

    text: str
    cidr: Cidr | None
    host: str | None
    port: int | None
    protocol: str | None

    @property
    def peer(self) -> CidrPeer | None:
        """The address or block as a cidr peer, for the engine's containment."""
        return None if self.cidr is None else CidrPeer(self.cidr, (), self.text)

    @property
    def wanted(self) -> PortRange:
        """The port range asked for (§9.4: every port is one range with no
        protocol and no start)."""
        if self.port is None:
            return PortRange(None)
        return PortRange(self.protocol, self.port)

    @property
    def single_address(self) -> bool:
        return self.cidr is not None and self.cidr.prefix == (32 if self.cidr.family == 4 else 128)


def parse_destination(text: str) -> Destination:
    """Read one ``--to`` value. Raises DestinationError naming the forms."""
    found = _WITH_PORT.fullmatch(text)
    if found is not None:
        port = int(found["port"])
        if not 1 <= port <= 65535:
            raise DestinationError(f"{text}: the port must be from 1 to 65535")
        protocol = _protocol(text, found["protocol"])
        where = found["where"]
        if where.startswith("["):
            return Destination(text, _address(text, where[1:-1], ipv6=True), None, port, protocol)
        cidr = parse_cidr(f"{where}/32")
        if cidr is not None:
            return Destination(text, cidr, None, port, protocol)
        return Destination(text, None, _hostname(text, where), port, protocol)
    if "/" in text:
        cidr = parse_cidr(text)
        if cidr is None:
            raise DestinationError(_forms(text))
        return Destination(text, cidr, None, None, None)
    if ":" in text or _looks_numeric(text):
        return Destination(text, _address(text, text, ipv6=":" in text), None, None, None)
    raise DestinationError(f"{text}: a hostname needs a port, for example {text}:443")


def _protocol(text: str, given: str | None) -> str:
    if given is None:
        return "TCP"
    protocol = given.upper()
    if protocol not in PROTOCOLS:
        raise DestinationError(f"{text}: the protocol must be one of {', '.join(PROTOCOLS)}")
    return protocol


def _address(text: str, address: str, *, ipv6: bool) -> Cidr:
    cidr = parse_cidr(f"{address}/{128 if ipv6 else 32}")
    if cidr is None or (cidr.family == 6) != ipv6:
        raise DestinationError(_forms(text))
    return cidr


def _hostname(text: str, host: str) -> str:
    problem = host_problem(host.lower())
    if problem is not None or host.startswith("."):
        raise DestinationError(f"{text}: {host!r} is not a hostname ({problem or 'leading dot'})")
    return host


def _looks_numeric(text: str) -> bool:
    return bool(text) and all(char.isdigit() or char == "." for char in text)


def _forms(text: str) -> str:
    return (
        f"{text}: not a destination; use ADDRESS:PORT[/PROTOCOL] (10.0.0.1:443/TCP), "
        "[IPV6]:PORT, a CIDR (10.0.0.0/8), or HOSTNAME:PORT (api.github.com:443)"
    )
