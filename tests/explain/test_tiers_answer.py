"""The words explain's tier answer uses for a rule's ports
(``reachAdmittedBy``'s ``ports``)."""

from __future__ import annotations

from lint.decision.tiers.model import EVERY_PORT, UNREADABLE_PORTS, Ports, PortSpan, Protocol
from lint.explain.tiers_answer import ports_text


def test_every_port_and_unreadable_ports() -> None:
    assert ports_text(EVERY_PORT) == "every port"
    assert ports_text(UNREADABLE_PORTS) == "unknown ports"


def test_spans_icmp_and_other_protocols_in_order() -> None:
    ports = Ports(
        spans=(PortSpan(Protocol.TCP, 443, 443), PortSpan(Protocol.UDP, 1000, 2000)),
        icmp=True,
        other_numbers=(47,),
    )
    assert ports_text(ports) == "TCP 443, UDP 1000-2000, ICMP, protocol 47"
    excluded = Ports(spans=(PortSpan(Protocol.TCP, 1, 65535),), exclude=Ports(icmp=True))
    assert ports_text(excluded) == "TCP 1-65535 (less some)"
