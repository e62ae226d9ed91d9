"""CIDR parsing and containment (SEMANTICS.md §8, quirk Q25)."""

from __future__ import annotations

import ipaddress

import pytest

from lint.decision.cidr import contains, is_ipv6_text, overlaps, parse_cidr
from lint.decision.model import Cidr


def v4(text: str, prefix: int) -> Cidr:
    return Cidr(family=4, base=int(ipaddress.IPv4Address(text)), prefix=prefix)


def v6(text: str, prefix: int) -> Cidr:
    return Cidr(family=6, base=int(ipaddress.IPv6Address(text)), prefix=prefix)


# --- §8.1 accepted inputs --------------------------------------------------------

ACCEPTED = [
    ("10.0.0.0/8", v4("10.0.0.0", 8)),
    ("0.0.0.0/0", v4("0.0.0.0", 0)),
    ("255.255.255.255/32", v4("255.255.255.255", 32)),
    # rule 2: leading zeros in the prefix are allowed
    ("10.0.0.0/08", v4("10.0.0.0", 8)),
    ("10.0.0.0/000", v4("0.0.0.0", 0)),
    # rule 4: leading zeros in parts are decimal, not octal
    ("010.0.0.0/8", v4("10.0.0.0", 8)),
    ("192.168.001.010/32", v4("192.168.1.10", 32)),
    # rule 6: host bits are masked
    ("10.0.0.1/8", v4("10.0.0.0", 8)),
    ("10.1.2.3/0", v4("0.0.0.0", 0)),
    ("::/0", v6("::", 0)),
    ("::1/128", v6("::1", 128)),
    ("fc00::/7", v6("fc00::", 7)),
    ("FE80::/10", v6("fe80::", 10)),
    ("2001:db8::1/32", v6("2001:db8::", 32)),
    ("1:2:3:4:5:6:7:8/128", v6("1:2:3:4:5:6:7:8", 128)),
    ("0001:0002:0003:0004:0005:0006:0007:0008/128", v6("1:2:3:4:5:6:7:8", 128)),
    # rule 5: an embedded IPv4 tail counts as two groups
    ("::ffff:10.0.0.1/128", v6("::ffff:10.0.0.1", 128)),
    ("1:2:3:4:5:6:1.2.3.4/128", v6("1:2:3:4:5:6:102:304", 128)),
    ("::1.2.3.4/128", v6("::102:304", 128)),
    ("::ffff:0.0.0.0/96", v6("::ffff:0:0", 96)),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED)
def test_parse_accepts(text: str, expected: Cidr) -> None:
    assert parse_cidr(text) == expected


REJECTED = [
    "10.0.0.0",  # rule 1: no slash
    "10.0.0.0/",  # empty prefix
    "10.0.0.0/1234",  # more than three digits
    "10.0.0.0/33",  # above 32 for IPv4
    "::/129",  # above 128 for IPv6
    "10.0.0.0/8/8",  # the prefix is everything after the first slash
    "10.0.0.0/-1",
    "10.0.0/8",  # three parts
    "10.0.0.0.0/8",  # five parts
    "10.0.0.256/32",  # a part above 255
    "10.0.0.0000/32",  # a part of four digits
    "10..0.0/8",
    "/8",
    "a.b.c.d/8",
    "1:2:3:4:5:6:7/128",  # seven groups without ::
    "1:2:3:4:5:6:7:8:9/128",  # nine groups
    "1::2::3/64",  # more than one ::
    "1::::2/64",  # splits into three pieces on ::
    "12345::/16",  # a group of five digits
    "g::/16",
    "1:2:3:4:5:6:7:8:1.2.3.4/128",  # ten groups with the IPv4 tail
    "::ffff:1.2.3/128",  # a bad IPv4 tail
    "::ffff:1.2.3.256/128",
    "::1.2.3.4:5/128",  # the dotted text is not after the last colon
    "",
    "/",
]


@pytest.mark.parametrize("text", REJECTED)
def test_parse_rejects(text: str) -> None:
    assert parse_cidr(text) is None


@pytest.mark.parametrize("value", [None, 8, 8.0, True, ["10.0.0.0/8"], {"cidr": "10.0.0.0/8"}])
def test_parse_rejects_non_strings(value: object) -> None:
    assert parse_cidr(value) is None


# --- §8.3: every row where Python's ipaddress differs, plus quirk Q25 --------

SECTION_8_3 = [
    ("010.0.0.0/8", v4("10.0.0.0", 8)),
    ("::ffff:010.0.0.1/128", v6("::ffff:10.0.0.1", 128)),
    ("1:2:3:4::5:6:7:8/128", v6("1:2:3:4:5:6:7:8", 128)),
    ("1:2:3:4:5:6:7:8:/128", v6("1:2:3:4:5:6:7:8", 128)),
    (":1:2:3:4:5:6:7:8/128", v6("1:2:3:4:5:6:7:8", 128)),
    ("1:::2/64", v6("1::", 64)),
    ("fe80::1%eth0/64", None),
    ("10.0.0.0/255.0.0.0", None),
    ("10.0.0.0/0.255.255.255", None),
    ("10.0.0.0/+8", None),
    (" 10.0.0.0/8", None),
    ("10.0.0.0/8 ", None),
    ("10.0.0.0/8\n", None),
    ("\u0661\u0660.0.0.0/8", None),  # Arabic-Indic digits in an IPv4 part
    ("10.0.0.0/\u0668", None),  # Arabic-Indic digit in the prefix
    ("2001:db8::\u0661/128", None),  # Arabic-Indic digit in an IPv6 group
    ("10.0.0.0/\uff18", None),  # fullwidth digit
]


@pytest.mark.parametrize(("text", "expected"), SECTION_8_3)
def test_section_8_3_table(text: str, expected: Cidr | None) -> None:
    assert parse_cidr(text) == expected


def test_stray_colons_and_empty_gap_match_the_plain_address() -> None:
    """Q25: `::` may stand for zero groups, and empty groups are skipped."""
    plain = parse_cidr("1:2:3:4:5:6:7:8/128")
    for text in ("1:2:3:4::5:6:7:8/128", "1:2:3:4:5:6:7:8:/128", ":1:2:3:4:5:6:7:8/128"):
        assert parse_cidr(text) == plain


# --- §8.2 containment and overlap --------------------------------------------------

CONTAINS = [
    ("0.0.0.0/0", "10.0.0.0/8", True),
    ("10.0.0.0/8", "10.0.0.0/8", True),
    ("10.0.0.0/8", "10.1.0.0/16", True),
    ("10.0.0.0/8", "11.0.0.0/16", False),
    ("10.1.0.0/16", "10.0.0.0/8", False),  # inner wider than outer
    ("10.0.0.0/8", "10.255.255.255/32", True),
    ("::/0", "2001:db8::/32", True),
    ("::/0", "0.0.0.0/0", False),  # different families
    ("0.0.0.0/0", "::/0", False),
    ("::ffff:0:0/96", "10.0.0.0/8", False),  # a mapped range is still IPv6
    ("fc00::/7", "fd00::/8", True),
    ("fc00::/7", "fe00::/8", False),
    ("10.0.0.1/8", "10.2.0.0/16", True),  # host bits were masked away
]


@pytest.mark.parametrize(("outer", "inner", "expected"), CONTAINS)
def test_contains(outer: str, inner: str, expected: bool) -> None:
    left, right = parse_cidr(outer), parse_cidr(inner)
    assert left is not None and right is not None
    assert contains(left, right) is expected


OVERLAPS = [
    ("10.0.0.0/8", "10.1.0.0/16", True),
    ("10.1.0.0/16", "10.0.0.0/8", True),
    ("10.0.0.0/16", "10.1.0.0/16", False),
    ("10.0.0.0/8", "10.0.0.0/8", True),
    ("::/0", "0.0.0.0/0", False),
]


@pytest.mark.parametrize(("first", "second", "expected"), OVERLAPS)
def test_overlaps(first: str, second: str, expected: bool) -> None:
    left, right = parse_cidr(first), parse_cidr(second)
    assert left is not None and right is not None
    assert overlaps(left, right) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2001:db8::/32", True),
        ("::/0", True),
        ("10.0.0.0/8", False),
        ("::ffff:10.0.0.1/128", True),
        ("10.0.0.0/8:", False),  # only the part before the slash counts
        ("fe80::1", True),  # no slash: the whole text is the address
    ],
)
def test_is_ipv6_text(text: str, expected: bool) -> None:
    assert is_ipv6_text(text) is expected
