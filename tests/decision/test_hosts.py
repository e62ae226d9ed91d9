"""Host grammar (§2.7), the TLS ``.domain`` check (§2.8) and the ``.domain``
expansion (§3.4)."""

from __future__ import annotations

import pytest

from lint.decision.hosts import (
    check_hosts,
    check_tls_domains,
    expand_host,
    host_problem,
    judged_form,
    strip_leading_dot,
)
from lint.decision.model import ConfigRefusal

# A fragment unique to each row's reason, so a test fails if another row fires.
H1 = "is not a string"
H2 = "is empty"
H3 = "names no domain"
H4 = "contains a glob"
H5 = "is not a DNS name"
H6 = "longer than a DNS name"
H7 = "top-level domain"
H8 = "all-numeric label"

LONG_LABEL = "a" * 100  # quirk Q14: no 63-character label limit

REFUSED = [
    # H1: anything that is not a string
    (5, H1),
    (None, H1),
    (True, H1),
    (["a.example"], H1),
    ({"matchName": "a.example"}, H1),
    # H2
    ("", H2),
    # H3: only a dot
    (".", H3),
    # H4: a glob anywhere, even where H5 would also fail
    ("*", H4),
    ("*.example.com", H4),
    (".*.example.com", H4),
    ("exa*mple.com", H4),
    ("https://*.example.com", H4),
    # H5: not a DNS name
    ("..example.com", H5),
    ("https://example.com", H5),
    ("example.com:443", H5),
    ("example.com/path", H5),
    ("[::1]", H5),
    ("::1", H5),
    ("example.com.", H5),
    ("under_score.example", H5),
    ("a..b", H5),
    ("-a.example", H5),
    ("a-.example", H5),
    ("a.-b", H5),
    (" a.example", H5),
    ("a.example\n", H5),  # §0.2: no match before a trailing newline
    ("API.example.com", H5),  # judged as written here; the config path lowercases first
    ("bücher.example", H5),
    ("a.\u0661\u0662", H5),  # Arabic-Indic digits are not [0-9]
    # H6: bare longer than 253
    ("a" * 254, H6),
    ("." + "a" * 250 + ".com", H6),
    # H7: a whole TLD
    (".com", H7),
    (".x", H7),
    # H8: last label all digits
    ("10.0.0.1", H8),
    ("example.123", H8),
    (".example.123", H8),
    ("0", H8),
]

ACCEPTED = [
    "api.github.com",
    ".pypi.org",
    "a",
    "com",  # one host, not a domain entry: H7 needs a leading dot
    "a-b.c-d",
    "3com.com",
    "10.0.0.a",
    "123.example",
    "xn--bcher-kva.example",
    f"{LONG_LABEL}.example",
    "a" * 253,
    "." + "a" * 249 + ".com",  # bare is exactly 253
    "a.b.c.d.e.f",
]


@pytest.mark.parametrize(("entry", "fragment"), REFUSED)
def test_host_problem_refuses_each_row(entry: object, fragment: str) -> None:
    reason = host_problem(entry)
    assert reason is not None
    assert fragment in reason


@pytest.mark.parametrize("entry", ACCEPTED)
def test_host_problem_accepts_dns_names(entry: str) -> None:
    assert host_problem(entry) is None


def test_h4_reason_names_the_leading_dot_spelling() -> None:
    reason = host_problem("*.example.com")
    assert reason is not None and ".example.com" in reason


@pytest.mark.parametrize(
    ("entry", "judged"),
    [
        ("API.Example.COM", "api.example.com"),
        (".PyPI.org", ".pypi.org"),
        ("\u212aube.example", "kube.example"),  # quirk Q24: KELVIN SIGN lowercases to ASCII k
        ("STRASSE.example", "strasse.example"),
        ("STRAẞE.example", "straße.example"),  # lowercase, not casefold: ß stays ß
        (5, 5),
        (None, None),
    ],
)
def test_judged_form_lowercases_strings_only(entry: object, judged: object) -> None:
    assert judged_form(entry) == judged


def test_kelvin_sign_passes_the_grammar_once_lowercased() -> None:
    """Q24: the judged form is plain ASCII, so the grammar accepts it."""
    assert host_problem("\u212aube.example") is not None
    assert host_problem(judged_form("\u212aube.example")) is None


def test_sharp_s_is_not_folded_into_the_grammar() -> None:
    """JavaScript's toLowerCase keeps ß, so the entry is not a DNS name."""
    assert host_problem(judged_form("Straße.example")) is not None


def test_check_hosts_reports_the_first_failure_in_list_order() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        check_hosts(["ok.example", "bad_host", 5], "policy.allowedHosts")
    refusal = caught.value
    assert refusal.field == "policy.allowedHosts[1]"
    assert refusal.error_class == "host"
    assert '"bad_host"' in refusal.message
    assert H5 in refusal.message


def test_check_hosts_message_names_grammar_and_that_nothing_was_emitted() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        check_hosts([".com"], "hosts")
    message = caught.value.message
    assert '".com"' in message
    assert H7 in message
    assert "`api.example.com`" in message
    assert "`.example.com`" in message
    assert "Nothing was emitted" in message


def test_check_hosts_names_non_string_entries_as_json() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        check_hosts([{"a": 1}], "hosts")
    assert caught.value.field == "hosts[0]"
    assert '{"a":1}' in caught.value.message
    assert H1 in caught.value.message


def test_check_hosts_returns_the_entries_when_all_pass() -> None:
    assert check_hosts(["a.example", ".b.example"], "hosts") == ["a.example", ".b.example"]
    assert check_hosts([], "hosts") == []


def test_tls_check_refuses_the_first_domain_entry() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        check_tls_domains(
            ["a.example", ".pypi.org", ".npmjs.org"], "ciliumNarrowing.tlsServerNames"
        )
    refusal = caught.value
    assert refusal.field == "ciliumNarrowing.tlsServerNames"
    assert refusal.error_class == "host"
    message = refusal.message
    assert '".pypi.org"' in message and "npmjs" not in message
    assert "config.egress.ciliumNarrowing.tlsServerNames" in message
    assert "SNI" in message and "*.pypi.org" in message
    assert "exact hosts" in message and "leave tlsServerNames off" in message


def test_tls_check_names_the_per_sandbox_field() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        check_tls_domains([".pypi.org"], "perSandbox.narrowing.tlsServerNames")
    assert caught.value.field == "perSandbox.narrowing.tlsServerNames"
    assert "config.egress.perSandbox.narrowing.tlsServerNames" in caught.value.message


def test_tls_check_accepts_exact_hosts() -> None:
    check_tls_domains(["a.example", "b.example"], "ciliumNarrowing.tlsServerNames")


@pytest.mark.parametrize(
    ("entry", "expansion"),
    [
        ("host.example", [{"matchName": "host.example"}]),
        (".example.com", [{"matchName": "example.com"}, {"matchPattern": "*.example.com"}]),
        ("API.example.com", [{"matchName": "API.example.com"}]),
    ],
)
def test_expand_host(entry: str, expansion: list[dict[str, str]]) -> None:
    assert expand_host(entry) == expansion
    # Key order is part of the bytes: matchName entries carry only matchName.
    assert [list(item) for item in expand_host(entry)] == [list(item) for item in expansion]


def test_strip_leading_dot_removes_exactly_one() -> None:
    assert strip_leading_dot(".example.com") == "example.com"
    assert strip_leading_dot("..example.com") == ".example.com"
    assert strip_leading_dot("example.com") == "example.com"
