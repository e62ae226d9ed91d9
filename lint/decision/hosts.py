"""Allowlist entries: the host grammar, the TLS ``.domain`` check and the
``.domain`` expansion (SEMANTICS.md §2.7, §2.8, §3.4).

Both the config-level allowlist and the per-sandbox host list go through
these functions; only how an entry is judged and which bytes are emitted
differ between the two paths (§2.7).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from lint.decision.model import ConfigRefusal, ErrorClass
from lint.decision.values import JSON, compact_json

# §2.7 H5. No 63-character label limit (quirk Q14); ASCII only (§0.2).
_DNS_NAME: Final = re.compile(
    r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*", re.ASCII
)
_ALL_DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)
_MAX_DNS_NAME: Final = 253

_GRAMMAR: Final = (
    "An allowlist entry is either one host (`api.example.com`) or a domain "
    "with its subdomains, written with a leading dot (`.example.com`)."
)


def strip_leading_dot(entry: str) -> str:
    """``bare`` (§2.7) and ``host`` (§3.6): the entry with exactly one leading
    dot removed."""
    return entry[1:] if entry.startswith(".") else entry


def host_problem(entry: JSON) -> str | None:
    """The first of H1-H8 (§2.7) that the judged entry fails, as a reason,
    or None when the entry is a valid allowlist entry."""
    if not isinstance(entry, str):
        return "is not a string"
    if entry == "":
        return "is empty"
    bare = strip_leading_dot(entry)
    if bare == "":
        return "names no domain after its leading dot"
    if "*" in entry:
        return (
            "contains a glob; a domain and its subdomains are written with a "
            "leading dot instead (`.example.com`)"
        )
    if not _DNS_NAME.fullmatch(bare):
        return (
            "is not a DNS name (schemes, paths, ports, address literals, `_`, "
            "`..` and a trailing dot are not allowed)"
        )
    # H5 has made ``bare`` ASCII, so its length is the reference's length.
    if len(bare) > _MAX_DNS_NAME:
        return f"is longer than a DNS name may be ({_MAX_DNS_NAME} characters)"
    if entry.startswith(".") and "." not in bare:
        return "names a whole top-level domain; a domain entry needs at least two labels"
    if _ALL_DIGITS.fullmatch(bare.rsplit(".", 1)[-1]):
        return (
            "ends in an all-numeric label, so it is an address rather than a "
            "hostname, and toFQDNs never matches an address"
        )
    return None


def judged_form(entry: JSON) -> JSON:
    """How an entry is judged (§2.7): a string is lowercased, anything else
    is judged as it is. Python's ``str.lower`` agrees with JavaScript's
    ``toLowerCase`` on the case that matters (quirk Q24, KELVIN SIGN)."""
    return entry.lower() if isinstance(entry, str) else entry


def check_hosts(judged: Sequence[JSON], field_prefix: str) -> list[str]:
    """Run H1-H8 (§2.7) over the judged entries in list order and refuse the
    first failure. ``field_prefix`` is the list's field path; the refusal's
    field is ``<field_prefix>[<index>]``. Returns the entries, now known to be
    strings."""
    for index, entry in enumerate(judged):
        reason = host_problem(entry)
        if reason is not None:
            raise ConfigRefusal(
                f"{field_prefix}[{index}]",
                ErrorClass.HOST,
                f"allowlist entry {compact_json(entry)} {reason}. {_GRAMMAR} "
                "Nothing was emitted for this declaration.",
            )
    return [entry for entry in judged if isinstance(entry, str)]


def check_tls_domains(entries: Sequence[str], tls_field: str) -> None:
    """§2.8: with ``tlsServerNames: true``, refuse the first ``.domain`` entry.
    ``tls_field`` is the path under ``config.egress`` of the
    ``tlsServerNames`` flag that is on."""
    for entry in entries:
        if entry.startswith("."):
            raise ConfigRefusal(
                tls_field,
                ErrorClass.HOST,
                f"allowlist entry {compact_json(entry)} is a domain entry, but "
                f"config.egress.{tls_field} is true. A TLS server name is one "
                "exact SNI value, and this entry expands to a name plus a "
                f"`*.{strip_leading_dot(entry)}` pattern. List the exact hosts "
                "instead, or leave tlsServerNames off for a domain list.",
            )


def expand_host(entry: str) -> list[JSON]:
    """§3.4: ``host`` gives one ``matchName``; ``.domain`` gives the name
    without its one leading dot, then the ``*.`` pattern."""
    if entry.startswith("."):
        bare = entry[1:]
        return [{"matchName": bare}, {"matchPattern": f"*.{bare}"}]
    return [{"matchName": entry}]
