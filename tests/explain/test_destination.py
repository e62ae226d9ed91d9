"""The ``--to`` forms: address:port[/protocol], [ipv6]:port, a bare address
or CIDR (every port), hostname:port; anything else is a usage error."""

from __future__ import annotations

import pytest

from lint.decision.cidr import parse_cidr
from lint.explain.destination import DestinationError, parse_destination


@pytest.mark.parametrize(
    ("text", "cidr", "host", "port", "protocol"),
    [
        ("169.254.169.254:80/TCP", "169.254.169.254/32", None, 80, "TCP"),
        ("10.0.0.1:53/udp", "10.0.0.1/32", None, 53, "UDP"),
        ("10.0.0.1:443", "10.0.0.1/32", None, 443, "TCP"),
        ("[2001:db8::1]:443", "2001:db8::1/128", None, 443, "TCP"),
        ("[::ffff:10.0.0.1]:8443/SCTP", "::ffff:10.0.0.1/128", None, 8443, "SCTP"),
        ("10.0.0.0/8", "10.0.0.0/8", None, None, None),
        ("2001:db8::/32", "2001:db8::/32", None, None, None),
        ("10.1.2.3", "10.1.2.3/32", None, None, None),
        ("2001:db8::7", "2001:db8::7/128", None, None, None),
        # Unbracketed, the last group is part of the address, not a port.
        ("2001:db8::1:443", "2001:db8::1:443/128", None, None, None),
        ("api.github.com:443", None, "api.github.com", 443, "TCP"),
        ("API.GitHub.com:22/tcp", None, "API.GitHub.com", 22, "TCP"),
    ],
)
def test_accepted_forms(
    text: str, cidr: str | None, host: str | None, port: int | None, protocol: str | None
) -> None:
    parsed = parse_destination(text)
    assert parsed.cidr == (parse_cidr(cidr) if cidr else None)
    assert (parsed.host, parsed.port, parsed.protocol) == (host, port, protocol)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("api.github.com", "needs a port"),
        ("api.github.com:0", "from 1 to 65535"),
        ("api.github.com:70000", "from 1 to 65535"),
        ("api.github.com:443/ICMP", "protocol must be one of"),
        ("*.github.com:443", "not a hostname"),
        ("under_score.example:443", "not a hostname"),
        ("10.0.0.0/33", "not a destination"),
        ("10.0.0.256", "not a destination"),
        ("[10.0.0.1]:80", "not a destination"),
        ("[nonsense]:80", "not a destination"),
    ],
)
def test_refused_forms(text: str, message: str) -> None:
    with pytest.raises(DestinationError, match=message):
        parse_destination(text)


def test_a_destination_without_a_port_wants_every_port() -> None:
    everything = parse_destination("10.0.0.0/8").wanted
    assert (everything.protocol, everything.start) == (None, None)
    one = parse_destination("10.0.0.1:53/UDP").wanted
    assert (one.protocol, one.start) == ("UDP", 53)
