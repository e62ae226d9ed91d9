"""Validation of a narrowing object (SEMANTICS.md §2.3, N1-N6).

Shared by ``ciliumNarrowing`` (validated when active) and
``perSandbox.narrowing`` (validated whenever present). Every refusal names
the field path under ``config.egress``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from lint.decision.model import ConfigRefusal, ErrorClass
from lint.decision.values import (
    ABSENT,
    JSON,
    compact_json,
    is_integer,
    is_object,
    js_items,
    js_trim,
)

MAX_PORT: Final = 65535


PORTS_SHAPE: Final = "a list of port numbers"
DNS_NAMES_SHAPE: Final = "true, false or an object"


def validate_narrowing(narrowing: Mapping[str, JSON], prefix: str) -> None:
    """§2.3 N1-N6 in order, with field paths under ``prefix``
    (``ciliumNarrowing`` or ``perSandbox.narrowing``)."""
    _check_optional_ports(narrowing, "ports", prefix)
    _check_host_ports(narrowing, prefix)
    _check_optional_ports(narrowing, "tlsPorts", prefix)
    _check_dns_names(narrowing, prefix)


def is_valid_port(value: JSON) -> bool:
    """N2 (§2.3): a number (never a boolean) that is an integer in 1-65535."""
    return is_integer(value) and 1 <= value <= MAX_PORT


def _check_optional_ports(narrowing: Mapping[str, JSON], key: str, prefix: str) -> None:
    value = narrowing.get(key, ABSENT)
    if value is not ABSENT:
        _check_port_list(value, f"{prefix}.{key}")


def _check_port_list(value: JSON, field: str) -> None:
    if not isinstance(value, list):
        raise wrong_type(field, value, PORTS_SHAPE, ErrorClass.POLICY_CONFIG)
    if not value:
        raise ConfigRefusal(
            field,
            ErrorClass.POLICY_CONFIG,
            f"config.egress.{field} is [], and the list must not be empty: omit "
            "the field for no port restriction, or list at least one port.",
        )
    for entry in value:
        if not is_valid_port(entry):
            raise ConfigRefusal(
                field,
                ErrorClass.POLICY_CONFIG,
                f"config.egress.{field} entry {compact_json(entry)} is not a port: "
                "a port must be an integer from 1 to 65535.",
            )


def _check_host_ports(narrowing: Mapping[str, JSON], prefix: str) -> None:
    host_ports = narrowing.get("hostPorts", ABSENT)
    if host_ports is ABSENT:
        return
    field = f"{prefix}.hostPorts"
    if not is_object(host_ports):
        expected = "an object from allowlist entries to ports"
        raise wrong_type(field, host_ports, expected, ErrorClass.POLICY_CONFIG)
    for key in host_ports:
        if not isinstance(key, str):
            raise ConfigRefusal(
                field,
                ErrorClass.POLICY_CONFIG,
                f"config.egress.{field} has the key {compact_json(key)}, but its keys "
                "must be allowlist entries written as strings.",
            )
    # Quirk Q10: keys are validated in JavaScript object order.
    for key, value in js_items(host_ports):
        _check_port_list(value, f"{field}[{compact_json(key)}]")


def _check_dns_names(narrowing: Mapping[str, JSON], prefix: str) -> None:
    dns_names = narrowing.get("dnsNames", ABSENT)
    if dns_names is ABSENT or isinstance(dns_names, bool):
        return
    field = f"{prefix}.dnsNames"
    if not is_object(dns_names):
        raise wrong_type(field, dns_names, DNS_NAMES_SHAPE, ErrorClass.POLICY_CONFIG)
    _check_cluster_domain(dns_names, field)
    _check_search_suffixes(dns_names, field)
    namespace = dns_names.get("namespace", ABSENT)
    # §2.3: the namespace's content is never validated; only its type is.
    if namespace is not ABSENT and not isinstance(namespace, str):
        raise wrong_type(f"{field}.namespace", namespace, "a string", ErrorClass.POLICY_CONFIG)


def _check_cluster_domain(dns_names: Mapping[str, JSON], field: str) -> None:
    domain = dns_names.get("clusterDomain", ABSENT)
    if domain is ABSENT:
        return
    if not isinstance(domain, str):
        raise wrong_type(f"{field}.clusterDomain", domain, "a string", ErrorClass.POLICY_CONFIG)
    if js_trim(domain) == "":
        raise ConfigRefusal(
            f"{field}.clusterDomain",
            ErrorClass.POLICY_CONFIG,
            f"config.egress.{field}.clusterDomain {compact_json(domain)} must not be "
            "empty; omit it for the default cluster.local.",
        )


def _check_search_suffixes(dns_names: Mapping[str, JSON], field: str) -> None:
    suffixes = dns_names.get("searchSuffixes", ABSENT)
    if suffixes is ABSENT:
        return
    field = f"{field}.searchSuffixes"
    if not isinstance(suffixes, list):
        raise wrong_type(field, suffixes, "a list of DNS suffixes", ErrorClass.POLICY_CONFIG)
    for entry in suffixes:
        if not isinstance(entry, str) or js_trim(entry) == "":
            raise ConfigRefusal(
                field,
                ErrorClass.POLICY_CONFIG,
                f"config.egress.{field} entry {compact_json(entry)} is not a usable "
                "DNS suffix: it must be a non-blank string.",
            )


def wrong_type(field: str, value: JSON, expected: str, error_class: ErrorClass) -> ConfigRefusal:
    """A value of a type outside the host's contract, refused by name (§0.1)."""
    return ConfigRefusal(
        field,
        error_class,
        f"config.egress.{field} is {compact_json(value)}, but it must be {expected}. "
        "Values outside the sandbox host's configuration contract are refused.",
    )
