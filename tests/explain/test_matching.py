"""Does one grant reach the destination: engine port coverage and CIDR
containment with excepts, Cilium-style FQDN matching, and MAYBE (with the
reason) for whatever cannot be resolved offline."""

from __future__ import annotations

from typing import Any

import pytest

from lint.explain.destination import parse_destination
from lint.explain.grants import Fqdn, cilium_rule_grants, core_rule_grants
from lint.explain.matching import Reach, fqdn_matches, match_grant


def _reach(rule: Any, to: str, *, cilium: bool = False) -> Reach:
    read = cilium_rule_grants(rule, clusterwide=False) if cilium else core_rule_grants(rule)
    (grant,) = read.grants
    return match_grant(grant, parse_destination(to)).reach


METADATA = {
    "to": [{"ipBlock": {"cidr": "169.254.169.254/32"}}],
    "ports": [{"protocol": "TCP", "port": 80}],
}
PUBLIC = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "169.254.0.0/16"]}}]}


@pytest.mark.parametrize(
    ("rule", "to", "reach"),
    [
        (METADATA, "169.254.169.254:80/TCP", Reach.YES),
        (METADATA, "169.254.169.254:80/UDP", Reach.NO),
        (METADATA, "169.254.169.254:443", Reach.NO),
        (METADATA, "169.254.169.253:80", Reach.NO),
        (METADATA, "169.254.169.254", Reach.PART),  # every port asked, TCP 80 given
        ({"ports": [{"port": 8000, "endPort": 9000}]}, "1.2.3.4:8443", Reach.YES),
        ({"ports": [{"port": 8000, "endPort": 9000}]}, "1.2.3.4:9001", Reach.NO),
        (PUBLIC, "8.8.8.8:443", Reach.YES),
        (PUBLIC, "10.1.2.3:443", Reach.NO),  # inside an except hole
        (PUBLIC, "169.254.169.254:80", Reach.NO),
        (PUBLIC, "0.0.0.0/0", Reach.PART),
        (PUBLIC, "11.0.0.0/8", Reach.YES),
        (PUBLIC, "[2001:db8::1]:443", Reach.NO),  # another family
        (PUBLIC, "api.github.com:443", Reach.MAYBE),  # names are not resolved offline
        ({}, "api.github.com:443", Reach.YES),
        ({"to": [{"podSelector": {}}]}, "10.0.0.1:80", Reach.MAYBE),
        ({"to": [{"podSelector": {}}], "ports": [{"port": 53}]}, "10.0.0.1:80", Reach.NO),
    ],
)
def test_core_grants(rule: Any, to: str, reach: Reach) -> None:
    assert _reach(rule, to) is reach


@pytest.mark.parametrize(
    ("rule", "to", "reach"),
    [
        ({"toFQDNs": [{"matchName": "api.github.com"}]}, "api.github.com:443", Reach.YES),
        ({"toFQDNs": [{"matchName": "api.github.com"}]}, "API.GitHub.com:443", Reach.YES),
        ({"toFQDNs": [{"matchName": "api.github.com"}]}, "github.com:443", Reach.NO),
        ({"toFQDNs": [{"matchName": "api.github.com"}]}, "140.82.112.5:443", Reach.MAYBE),
        (
            {
                "toFQDNs": [{"matchName": "api.github.com"}],
                "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}],
            },
            "api.github.com:22",
            Reach.NO,
        ),
        ({"toEntities": ["all"]}, "10.0.0.1:1", Reach.YES),
        ({"toEntities": ["world"]}, "8.8.8.8:53/UDP", Reach.MAYBE),
        ({"toEntities": ["cluster"]}, "api.github.com:443", Reach.MAYBE),
        ({"toCIDR": ["169.254.169.254/32"]}, "169.254.169.254:80", Reach.YES),
        ({"toServices": [{}]}, "10.0.0.1:80", Reach.MAYBE),
    ],
)
def test_cilium_grants(rule: Any, to: str, reach: Reach) -> None:
    assert _reach(rule, to, cilium=True) is reach


def test_maybe_says_why() -> None:
    (grant,) = core_rule_grants({"to": [{"podSelector": {"matchLabels": {"app": "db"}}}]}).grants
    found = match_grant(grant, parse_destination("10.0.0.5:5432"))
    assert found.reach is Reach.MAYBE
    assert found.why is not None and "cannot be resolved offline" in found.why


@pytest.mark.parametrize(
    ("name", "pattern", "host", "matches"),
    [
        ("api.github.com", None, "api.github.com.", True),
        (None, "*.pypi.org", "files.pypi.org", True),
        (None, "*.pypi.org", "FILES.PyPI.org", True),
        (None, "*.pypi.org", "pypi.org", False),
        (None, "*.pypi.org", "a.b.pypi.org", False),  # `*` stays within one label
        (None, "*.pypi.org", "files.pypi.org.evil.example", False),
        (None, "api-*.example.com", "api-eu.example.com", True),
        (None, "*", "anything.example", True),
        (None, "a.b", "axb", False),  # dots are literal
    ],
)
def test_fqdn_matching(name: str | None, pattern: str | None, host: str, matches: bool) -> None:
    assert fqdn_matches(Fqdn(name, pattern), host) is matches
