"""Port lists (SEMANTICS.md §7.1, §7.3, §7.4, §7.5, §9.4)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lint.decision.model import ALL_PORTS, PortRange, PortSet
from lint.decision.ports import (
    TO_PORTS_ENTRY_NOT_AN_OBJECT,
    TO_PORTS_NOT_A_LIST,
    TO_PORTS_PORT_UNREADABLE,
    TO_PORTS_PORTS_NOT_A_LIST,
    CiliumPortsError,
    covers,
    covers_dns_port,
    describe_ports,
    read_cilium_ports,
    read_port_list,
    wanted_ranges,
)
from lint.decision.values import UNREADABLE, read_list

TCP, UDP = "TCP", "UDP"


def core(entries: Any) -> object:
    return read_port_list(read_list({"ports": entries}, "ports"), "TCP")


def cilium(entries: Any) -> object:
    return read_port_list(read_list({"ports": entries}, "ports"), None)


# --- §7.1 reading ----------------------------------------------------------------

CORE_READS = [
    # absent, null and empty all mean every port
    (None, ALL_PORTS),
    ([], ALL_PORTS),
    # default protocol TCP for core
    ([{"port": 443}], (PortRange(TCP, 443),)),
    ([{"protocol": "UDP", "port": 53}], (PortRange(UDP, 53),)),
    # protocols are uppercased; ANY means no protocol
    ([{"protocol": "udp", "port": 53}], (PortRange(UDP, 53),)),
    ([{"protocol": "Sctp", "port": 9}], (PortRange("SCTP", 9),)),
    ([{"protocol": "any", "port": 53}], (PortRange(None, 53),)),
    ([{"protocol": "ANY"}], (PortRange(None),)),
    # a missing port is every port on that protocol, and endPort is ignored
    ([{"protocol": "UDP"}], (PortRange(UDP),)),
    ([{"protocol": "UDP", "endPort": 90}], (PortRange(UDP),)),
    ([{}], (PortRange(TCP),)),
    # endPort is kept as the range end
    ([{"port": 1000, "endPort": 2000}], (PortRange(TCP, 1000, 2000),)),
    # 53 and 53.0 are the same number
    ([{"port": 53.0}], (PortRange(TCP, 53),)),
    # strings go through Number()
    ([{"port": "53"}], (PortRange(TCP, 53),)),
    ([{"port": " 0x35 "}], (PortRange(TCP, 53),)),
    ([{"port": "1e2"}], (PortRange(TCP, 100),)),
    ([{"port": ""}], (PortRange(TCP, 0),)),
    # sign and range are not checked
    ([{"port": -5}], (PortRange(TCP, -5),)),
    ([{"port": 70000}], (PortRange(TCP, 70000),)),
    ([{"port": 0}], (PortRange(TCP, 0),)),
    ([{"port": 10, "endPort": 5}], (PortRange(TCP, 10, 5),)),
    # order is kept
    (
        [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
        (PortRange(UDP, 53), PortRange(TCP, 53)),
    ),
]


@pytest.mark.parametrize(("entries", "expected"), CORE_READS)
def test_core_reading(entries: Any, expected: PortSet) -> None:
    assert core(entries) == expected


UNREADABLE_ENTRIES = [
    "443",  # the list itself is not a list
    {"port": 443},
    [443],  # an entry that is not an object
    [None],
    [{"protocol": 6, "port": 443}],  # protocol not a string
    [{"protocol": None, "port": 443}],  # null protocol
    [{"port": 443, "endPort": "500"}],  # endPort not a number
    [{"port": 443, "endPort": None}],
    [{"port": 443, "endPort": True}],
    [{"protocol": "UDP", "endPort": None}],  # endPort is checked even without a port
    [{"port": "https"}],  # a named port
    [{"port": "53.5"}],
    [{"port": 53.5}],
    [{"port": "Infinity"}],
    [{"port": math.inf}],
    [{"port": True}],  # booleans are NaN
    [{"port": None}],  # null is NaN
    [{"port": [53]}],
    [{"port": 53}, {"port": "http"}],  # one bad entry spoils the list
]


@pytest.mark.parametrize("entries", UNREADABLE_ENTRIES)
def test_unreadable(entries: Any) -> None:
    assert core(entries) is UNREADABLE


def test_cilium_has_no_default_protocol() -> None:
    assert cilium([{"port": "443"}]) == (PortRange(None, 443),)
    assert cilium([{"port": "443", "protocol": "TCP"}]) == (PortRange(TCP, 443),)


def test_integral_float_is_stored_as_int() -> None:
    result = core([{"port": "53", "endPort": 60.0}])
    assert isinstance(result, tuple)
    assert type(result[0].start) is int and type(result[0].end) is int


# --- §7.3 Cilium toPorts ------------------------------------------------------------

CILIUM_READS = [
    ({}, ALL_PORTS),
    ({"toPorts": None}, ALL_PORTS),
    ({"toPorts": []}, ALL_PORTS),
    ({"toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}]}, (PortRange(None, 53),)),
    (
        {"toPorts": [{"ports": [{"port": "443"}]}, {"ports": [{"port": "80", "protocol": "tcp"}]}]},
        (PortRange(None, 443), PortRange(TCP, 80)),
    ),
    # an entry with absent, null or empty ports reaches every port and stops the read,
    # so the malformed entries after it are never examined
    ({"toPorts": [{"ports": [{"port": "443"}]}, {}, 5]}, ALL_PORTS),
    ({"toPorts": [{"ports": None}, {"ports": "x"}]}, ALL_PORTS),
    ({"toPorts": [{"ports": []}, {"ports": [{"port": "https"}]}]}, ALL_PORTS),
    # rules and serverNames never affect ports
    (
        {
            "toPorts": [
                {"ports": [{"port": "443", "protocol": "TCP"}], "serverNames": ["a"], "rules": 5}
            ]
        },
        (PortRange(TCP, 443),),
    ),
]


@pytest.mark.parametrize(("rule", "expected"), CILIUM_READS)
def test_cilium_ports(rule: dict[str, Any], expected: PortSet) -> None:
    assert read_cilium_ports(rule) == expected


CILIUM_FAILURES = [
    ({"toPorts": {"ports": []}}, TO_PORTS_NOT_A_LIST),
    ({"toPorts": "443"}, TO_PORTS_NOT_A_LIST),
    ({"toPorts": [5]}, TO_PORTS_ENTRY_NOT_AN_OBJECT),
    ({"toPorts": [None]}, TO_PORTS_ENTRY_NOT_AN_OBJECT),
    ({"toPorts": [{"ports": [{"port": "443"}]}, "x"]}, TO_PORTS_ENTRY_NOT_AN_OBJECT),
    ({"toPorts": [{"ports": {"port": "443"}}]}, TO_PORTS_PORTS_NOT_A_LIST),
    ({"toPorts": [{"ports": [{"port": "https"}]}]}, TO_PORTS_PORT_UNREADABLE),
    ({"toPorts": [{"ports": ["443"]}]}, TO_PORTS_PORT_UNREADABLE),
    # entries are concatenated before they are read, so a bad port in the first entry
    # does not stop the structural check of later entries
    ({"toPorts": [{"ports": [{"port": "https"}]}, 7]}, TO_PORTS_ENTRY_NOT_AN_OBJECT),
]


@pytest.mark.parametrize(("rule", "expected"), CILIUM_FAILURES)
def test_cilium_port_failures(rule: dict[str, Any], expected: CiliumPortsError) -> None:
    assert read_cilium_ports(rule) == expected


def test_the_four_cilium_failures_have_distinct_details() -> None:
    details = {
        error.detail
        for error in (
            TO_PORTS_NOT_A_LIST,
            TO_PORTS_ENTRY_NOT_AN_OBJECT,
            TO_PORTS_PORTS_NOT_A_LIST,
            TO_PORTS_PORT_UNREADABLE,
        )
    }
    assert len(details) == 4
    assert all("toPorts" in detail for detail in details)


# --- §7.4 coverage --------------------------------------------------------------------

COVERAGE = [
    # all covers everything, including every-protocol-every-port
    (ALL_PORTS, PortRange(None), True),
    (ALL_PORTS, PortRange(UDP, 1, 65535), True),
    # protocol
    ((PortRange(None, 53),), PortRange(UDP, 53), True),
    ((PortRange(TCP, 53),), PortRange(TCP, 53), True),
    ((PortRange(TCP, 53),), PortRange(UDP, 53), False),
    # a wanted every-protocol range is covered only by an every-protocol range (Q5)
    ((PortRange(UDP, 53), PortRange(TCP, 53)), PortRange(None, 53), False),
    ((PortRange(None, 53),), PortRange(None, 53), True),
    # start and end
    ((PortRange(TCP, 1000, 2000),), PortRange(TCP, 1500), True),
    ((PortRange(TCP, 1000, 2000),), PortRange(TCP, 1000, 2000), True),
    ((PortRange(TCP, 1000, 2000),), PortRange(TCP, 1500, 2500), False),
    ((PortRange(TCP, 1000, 2000),), PortRange(TCP, 999), False),
    ((PortRange(TCP, 443),), PortRange(TCP, 443, 444), False),
    ((PortRange(TCP, 443),), PortRange(TCP, 442), False),
    # an allowed range with no start covers every port on its protocol
    ((PortRange(TCP),), PortRange(TCP, 8080, 9090), True),
    ((PortRange(TCP),), PortRange(TCP), True),
    # a wanted range with no start needs an allowed range with no start
    ((PortRange(TCP, 0, 65535),), PortRange(TCP), False),
    # any range of the set may cover
    ((PortRange(UDP, 53), PortRange(TCP, 443)), PortRange(TCP, 443), True),
    ((), PortRange(TCP, 443), False),
]


@pytest.mark.parametrize(("allowed", "wanted", "expected"), COVERAGE)
def test_covers(allowed: PortSet, wanted: PortRange, expected: bool) -> None:
    assert covers(allowed, wanted) is expected


def test_wanted_ranges() -> None:
    assert wanted_ranges(ALL_PORTS) == (PortRange(None),)
    ranges = (PortRange(UDP, 53), PortRange(TCP, 53))
    assert wanted_ranges(ranges) == ranges


DNS_PORT_CASES = [
    (ALL_PORTS, True),
    ((PortRange(UDP, 53),), True),
    ((PortRange(TCP, 53),), True),
    ((PortRange(None, 53),), True),
    ((PortRange("SCTP", 53),), False),
    ((PortRange(UDP),), True),
    ((PortRange(TCP, 50, 60),), True),
    ((PortRange(TCP, 54, 60),), False),
    ((PortRange(TCP, 40, 52),), False),
    ((PortRange(TCP, 443), PortRange(UDP, 53)), True),
    ((PortRange(TCP, 443),), False),
]


@pytest.mark.parametrize(("ports", "expected"), DNS_PORT_CASES)
def test_covers_dns_port(ports: PortSet, expected: bool) -> None:
    assert covers_dns_port(ports) is expected


# --- §7.5 description ---------------------------------------------------------------------

DESCRIPTIONS = [
    (ALL_PORTS, "every port"),
    ((PortRange(None),), "every port"),  # Q7 not copied: one space
    ((PortRange(TCP),), "every TCP port"),
    ((PortRange(TCP, 443),), "TCP 443"),
    ((PortRange(None, 53),), "any 53"),
    ((PortRange(UDP, 1000, 2000),), "UDP 1000-2000"),
    ((PortRange(UDP, 53), PortRange(TCP, 53)), "UDP 53, TCP 53"),
    ((PortRange(TCP, 53.0, 60.0),), "TCP 53-60"),
]


@pytest.mark.parametrize(("ports", "expected"), DESCRIPTIONS)
def test_describe_ports(ports: PortSet, expected: str) -> None:
    assert describe_ports(ports) == expected


def test_describe_read_ports_renders_integers() -> None:
    ports = core([{"port": "53.0", "protocol": "udp"}, {"port": 1e2, "endPort": 2e2}])
    assert ports is not UNREADABLE
    assert describe_ports(ports) == "UDP 53, TCP 100-200"  # type: ignore[arg-type]
