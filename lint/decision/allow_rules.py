"""The ``egress.allow`` form: egress rules in NetworkPolicy syntax, checked
the way an API server checks a NetworkPolicy's ``spec.egress``, and the
optional ``allowHosts`` list (issue 17; SEMANTICS.md §2.7, §4.1, §4.2).

A rule list that passes becomes the ``spec.egress`` of a core NetworkPolicy
in the sandbox's namespace, so its allowance is §4.2 applied to that
manifest; ``allowHosts`` becomes a CiliumNetworkPolicy beside it whose
allowance part is §4.1 (the resolver peer on port 53 and one ``fqdns``
grant per host). Every refusal is a :class:`ConfigRefusal` whose field is
the path under ``egress`` (``allow[0].to[1].ipBlock.except[0]``).

The checks follow the API server's NetworkPolicy validation
(kubernetes/kubernetes ``pkg/apis/networking/validation/validation.go`` at
commit 1758d176899c3cef671eb4a3bb77df852280eb95: ``ValidateNetworkPolicyPort``,
``ValidateNetworkPolicyPeer``, ``ValidateIPBlock``, and apimachinery's
``ValidateLabelSelector``). CIDRs are read with the §8.1 parser, which
accepts host bits. Where
the linter is stricter it says why: a named port cannot be judged offline
(§7.1 reads it as unreadable), a null is refused rather than read as absent,
unknown keys are refused as everywhere in the declaration file, and a
``.domain`` host is refused because the union reads ``toFQDNs`` by
``matchName`` only (§4.1, §10.2 step 8).

Under ``host: none`` (issue 28) ``allowHosts`` also takes a Cilium
``matchPattern`` host and ports with a protocol (``cluster_forms``); the
allowance then reads them as Cilium does (``lint.decision.fqdn_patterns``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

import msgspec

from lint.decision.cidr import contains, parse_cidr
from lint.decision.constants import dns_visibility_rule
from lint.decision.fqdn_patterns import is_pattern
from lint.decision.hosts import host_problem
from lint.decision.model import Cidr, ConfigRefusal, ErrorClass, PortRange
from lint.decision.validation import label_key_problem
from lint.decision.values import JSON, compact_json, format_number

__all__ = [
    "ALLOW_HOSTS_FIELD",
    "ALLOW_POLICY_KIND",
    "AllowHost",
    "allow_hosts",
    "allow_hosts_rules",
    "validate_allow_rules",
]

ALLOW_POLICY_KIND: Final = "allow"
"""The ``policyKind`` an ``allow`` intent reports (beside deny-all and the rest)."""
ALLOW_FIELD: Final = "allow"
ALLOW_HOSTS_FIELD: Final = "allowHosts"

_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist")
_MAX_PORT: Final = 65535
_LABEL_VALUE: Final = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?", re.ASCII)

_RULE_KEYS: Final = ("to", "ports")
_PEER_KEYS: Final = ("ipBlock", "namespaceSelector", "podSelector")
_PORT_KEYS: Final = ("protocol", "port", "endPort")
_IP_BLOCK_KEYS: Final = ("cidr", "except")
_SELECTOR_KEYS: Final = ("matchLabels", "matchExpressions")
_EXPRESSION_KEYS: Final = ("key", "operator", "values")
_HOST_KEYS: Final = ("host", "ports")
_HOST_PORT_KEYS: Final = ("port", "protocol")

_API_SERVER: Final = "an API server refuses such a NetworkPolicy egress rule"


def _refuse(field: str, message: str) -> ConfigRefusal:
    return ConfigRefusal(field, ErrorClass.POLICY_CONFIG, message)


def _known_keys(value: Mapping[str, JSON], known: Sequence[str], field: str, what: str) -> None:
    for key in value:
        if key not in known:
            allowed = ", ".join(known)
            raise _refuse(
                f"{field}.{key}" if key.isidentifier() else f"{field}[{compact_json(key)}]",
                f"{compact_json(key)} is not a field of {what}; the fields are {allowed}.",
            )
        if value[key] is None:
            raise _refuse(
                f"{field}.{key}",
                f"{key} is null; leave the field out instead, so the declaration "
                "says exactly what the generated policy holds.",
            )


def _object(value: JSON, field: str, what: str) -> Mapping[str, JSON]:
    if not isinstance(value, dict):
        raise _refuse(field, f"{what} is {compact_json(value)}, but it must be a mapping.")
    return value


def _list(value: JSON, field: str, what: str) -> list[JSON]:
    if not isinstance(value, list):
        raise _refuse(field, f"{what} is {compact_json(value)}, but it must be a list.")
    return value


# --- rules ---------------------------------------------------------------------------


def validate_allow_rules(rules: JSON) -> list[JSON]:
    """Check ``allow`` rule by rule; the first problem is refused. Returns
    the rules, now known to be a list of valid egress rules."""
    checked = _list(rules, ALLOW_FIELD, "allow")
    for index, rule in enumerate(checked):
        _validate_rule(rule, f"{ALLOW_FIELD}[{index}]")
    return checked


def _validate_rule(rule: JSON, field: str) -> None:
    mapping = _object(rule, field, "an egress rule")
    _known_keys(mapping, _RULE_KEYS, field, "a NetworkPolicy egress rule")
    if "ports" in mapping:
        ports = _list(mapping["ports"], f"{field}.ports", "ports")
        for index, port in enumerate(ports):
            _validate_port(port, f"{field}.ports[{index}]")
    if "to" in mapping:
        peers = _list(mapping["to"], f"{field}.to", "to")
        for index, peer in enumerate(peers):
            _validate_peer(peer, f"{field}.to[{index}]")


def _is_port_number(value: JSON) -> bool:
    """An integer from 1 to 65535 (booleans are not numbers)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= _MAX_PORT


def _validate_port(port: JSON, field: str) -> None:
    mapping = _object(port, field, "a ports entry")
    _known_keys(mapping, _PORT_KEYS, field, "a NetworkPolicy port")
    protocol = mapping.get("protocol", "TCP")
    if protocol not in _PROTOCOLS:
        raise _refuse(
            f"{field}.protocol",
            f"protocol {compact_json(protocol)} is not TCP, UDP or SCTP; {_API_SERVER}.",
        )
    number = mapping.get("port")
    if isinstance(number, str):
        raise _refuse(
            f"{field}.port",
            f"port {compact_json(number)} is a named port. A named port resolves to "
            "a number only on a running pod, so the check cannot judge it offline; "
            "write the port number.",
        )
    if "port" in mapping and not _is_port_number(number):
        raise _refuse(
            f"{field}.port",
            f"port {compact_json(number)} is not an integer from 1 to 65535; {_API_SERVER}.",
        )
    if "endPort" in mapping:
        _validate_end_port(mapping, field)


def _validate_end_port(mapping: Mapping[str, JSON], field: str) -> None:
    end = mapping["endPort"]
    if "port" not in mapping:
        raise _refuse(
            f"{field}.endPort",
            f"endPort {compact_json(end)} is given without a port; {_API_SERVER} "
            "(a range needs its first port).",
        )
    if not _is_port_number(end):
        raise _refuse(
            f"{field}.endPort",
            f"endPort {compact_json(end)} is not an integer from 1 to 65535; {_API_SERVER}.",
        )
    start = mapping["port"]
    if _is_port_number(start) and end < start:
        raise _refuse(
            f"{field}.endPort",
            f"endPort {end} is below port {start}; {_API_SERVER} (endPort must be at least port).",
        )


def _validate_peer(peer: JSON, field: str) -> None:
    mapping = _object(peer, field, "a `to` peer")
    _known_keys(mapping, _PEER_KEYS, field, "a NetworkPolicy peer")
    if not mapping:
        raise _refuse(
            field,
            "the peer names nothing; give an ipBlock, a namespaceSelector, a "
            f"podSelector or both selectors ({_API_SERVER}). To allow every "
            "destination, leave `to` out of the rule.",
        )
    if "ipBlock" in mapping:
        if len(mapping) > 1:
            raise _refuse(
                field,
                "the peer has an ipBlock and a selector; a peer is either an ipBlock "
                f"or selectors, never both ({_API_SERVER}). Write two peers.",
            )
        _validate_ip_block(mapping["ipBlock"], f"{field}.ipBlock")
        return
    for key in ("namespaceSelector", "podSelector"):
        if key in mapping:
            _validate_selector(mapping[key], f"{field}.{key}")


def _validate_ip_block(block: JSON, field: str) -> None:
    mapping = _object(block, field, "ipBlock")
    _known_keys(mapping, _IP_BLOCK_KEYS, field, "an ipBlock")
    if "cidr" not in mapping:
        raise _refuse(f"{field}.cidr", f"an ipBlock needs a cidr; {_API_SERVER}.")
    outer = _cidr(mapping["cidr"], f"{field}.cidr", "cidr")
    excepts = _list(mapping.get("except", []), f"{field}.except", "except")
    for index, entry in enumerate(excepts):
        inner = _cidr(entry, f"{field}.except[{index}]", "except entry")
        if not contains(outer, inner) or inner.prefix <= outer.prefix:
            raise _refuse(
                f"{field}.except[{index}]",
                f"except entry {compact_json(entry)} is not a strict subset of cidr "
                f"{compact_json(mapping['cidr'])}; {_API_SERVER}.",
            )


def _cidr(value: JSON, field: str, what: str) -> Cidr:
    parsed = parse_cidr(value)
    if parsed is None:
        raise _refuse(
            field,
            f"{what} {compact_json(value)} is not an IPv4 or IPv6 CIDR the check can "
            f"read; {_API_SERVER}.",
        )
    return parsed


def _validate_selector(selector: JSON, field: str) -> None:
    mapping = _object(selector, field, "a label selector")
    _known_keys(mapping, _SELECTOR_KEYS, field, "a label selector")
    labels = _object(mapping.get("matchLabels", {}), f"{field}.matchLabels", "matchLabels")
    for key, value in labels.items():
        where = f"{field}.matchLabels[{compact_json(key)}]"
        _validate_label_key(key, where)
        _validate_label_value(value, where)
    expressions = _list(
        mapping.get("matchExpressions", []), f"{field}.matchExpressions", "matchExpressions"
    )
    for index, expression in enumerate(expressions):
        _validate_expression(expression, f"{field}.matchExpressions[{index}]")


def _validate_expression(expression: JSON, field: str) -> None:
    mapping = _object(expression, field, "a selector expression")
    _known_keys(mapping, _EXPRESSION_KEYS, field, "a selector expression")
    if "key" not in mapping:
        raise _refuse(f"{field}.key", "a selector expression needs a key.")
    _validate_label_key(mapping["key"], f"{field}.key")
    operator = mapping.get("operator")
    if operator not in _OPERATORS:
        raise _refuse(
            f"{field}.operator",
            f"operator {compact_json(operator)} is not In, NotIn, Exists or DoesNotExist.",
        )
    values = _list(mapping.get("values", []), f"{field}.values", "values")
    if operator in ("In", "NotIn") and not values:
        raise _refuse(
            f"{field}.values", f"operator {operator} needs at least one value; {_API_SERVER}."
        )
    if operator in ("Exists", "DoesNotExist") and values:
        raise _refuse(f"{field}.values", f"operator {operator} takes no values; {_API_SERVER}.")
    for index, value in enumerate(values):
        _validate_label_value(value, f"{field}.values[{index}]")


def _validate_label_key(key: JSON, field: str) -> None:
    problem = label_key_problem(key)
    if problem is not None:
        raise _refuse(
            field,
            f"label key {compact_json(key)} is not a Kubernetes label key: {problem}.",
        )


def _validate_label_value(value: JSON, field: str) -> None:
    if not isinstance(value, str) or not _LABEL_VALUE.fullmatch(value):
        raise _refuse(
            field,
            f"label value {compact_json(value)} is not a Kubernetes label value (at "
            "most 63 letters, digits, `-`, `_` or `.`, beginning and ending with a "
            "letter or digit, or empty).",
        )


# --- allowHosts ----------------------------------------------------------------------


class AllowHost(msgspec.Struct, frozen=True):
    """One ``allowHosts`` entry: a hostname (under ``host: none`` also a
    Cilium ``matchPattern``), and its ports (None: every port)."""

    host: str
    ports: tuple[PortRange, ...] | None

    @property
    def pattern(self) -> bool:
        return is_pattern(self.host)


def allow_hosts(entries: JSON, *, cluster_forms: bool = False) -> list[AllowHost]:
    """Check ``allowHosts``: each entry a hostname (``api.example.com``) or
    ``{host, ports}``, the host judged lowercased with the grammar of §2.7 and
    emitted lowercased. A ``.domain`` entry is refused (see the module).

    ``cluster_forms`` (``host: none``, issue 28): no host vocabulary binds
    the entry, so it takes what a CiliumNetworkPolicy can say: a
    ``matchPattern`` host (``*.debian.org``) and ports with a protocol
    (``{port: 443, protocol: UDP}``). The namzu host refuses both, as
    before."""
    listed = _list(entries, ALLOW_HOSTS_FIELD, "allowHosts")
    hosts: list[AllowHost] = []
    for index, entry in enumerate(listed):
        field = f"{ALLOW_HOSTS_FIELD}[{index}]"
        hosts.append(_allow_host(entry, field, cluster_forms))
    return hosts


def _allow_host(entry: JSON, field: str, cluster_forms: bool) -> AllowHost:
    ports: tuple[PortRange, ...] | None = None
    host = entry
    host_field = field
    if isinstance(entry, dict):
        _known_keys(entry, _HOST_KEYS, field, "an allowHosts entry")
        host, host_field = entry.get("host"), f"{field}.host"
        if "ports" in entry:
            ports = _host_ports(entry["ports"], f"{field}.ports", cluster_forms)
    judged = host.lower() if isinstance(host, str) else host
    problem = _host_entry_problem(judged, cluster_forms)
    if problem is not None:
        raise ConfigRefusal(
            host_field,
            ErrorClass.HOST,
            f"allowHosts entry {compact_json(judged)} {problem}. An entry is one host "
            f"{_FORMS_NONE if cluster_forms else _FORMS_NAMZU}. "
            "Nothing was emitted for this declaration.",
        )
    assert isinstance(judged, str)
    if judged.startswith("."):
        raise ConfigRefusal(
            host_field,
            ErrorClass.HOST,
            f"allowHosts entry {compact_json(judged)} is a domain entry. "
            + (_domain_instead(judged) if cluster_forms else _DOMAIN_NAMZU),
        )
    return AllowHost(judged, ports)


_FORMS_NAMZU: Final = "(`api.example.com`), or `{host: api.example.com, ports: [443]}`"
_FORMS_NONE: Final = (
    "(`api.example.com`), a Cilium matchPattern (`*.example.com`), or "
    "`{host: api.example.com, ports: [443, {port: 443, protocol: UDP}]}`"
)
_DOMAIN_NAMZU: Final = (
    "It would become a toFQDNs matchPattern, and the host's union check reads toFQDNs "
    "by matchName only, so no policy could be judged inside it; list the exact hosts."
)


def _domain_instead(judged: str) -> str:
    return (
        f"Write the Cilium matchPattern `*{judged}` for its subdomains, and "
        f"`{judged[1:]}` for the domain itself."
    )


def _host_entry_problem(judged: JSON, cluster_forms: bool) -> str | None:
    """The host grammar (§2.7); under ``cluster_forms`` a ``*`` may stand
    for DNS characters inside a label, one star at a time."""
    if not (cluster_forms and isinstance(judged, str) and is_pattern(judged)):
        return host_problem(judged)
    if "**" in judged:
        return (
            "holds `**`, which Cilium versions read differently (one label, or "
            "one or more labels); write `*` for one label"
        )
    problem = host_problem(judged.replace("*", "a"))
    return None if problem is None else f"is not a Cilium matchPattern over a DNS name: {problem}"


def _host_ports(ports: JSON, field: str, cluster_forms: bool) -> tuple[PortRange, ...]:
    listed = _list(ports, field, "ports")
    if not listed:
        raise _refuse(field, "ports is empty; leave it out for every port, or list one.")
    return tuple(
        _host_port(port, f"{field}[{index}]", cluster_forms) for index, port in enumerate(listed)
    )


def _host_port(port: JSON, field: str, cluster_forms: bool) -> PortRange:
    """A port number is TCP; under ``cluster_forms`` also ``{port, protocol}``."""
    if cluster_forms and isinstance(port, dict):
        _known_keys(port, _HOST_PORT_KEYS, field, "an allowHosts port")
        protocol = port.get("protocol", "TCP")
        if protocol not in _PROTOCOLS:
            raise _refuse(
                f"{field}.protocol",
                f"protocol {compact_json(protocol)} is not TCP, UDP or SCTP.",
            )
        number = port.get("port")
        if not _is_port_number(number):
            raise _refuse(
                f"{field}.port", f"port {compact_json(number)} is not an integer from 1 to 65535."
            )
        assert isinstance(number, int) and isinstance(protocol, str)
        return PortRange(protocol, number)
    if not _is_port_number(port):
        raise _refuse(field, f"port {compact_json(port)} is not an integer from 1 to 65535.")
    assert isinstance(port, int)
    return PortRange("TCP", port)


def allow_hosts_rules(hosts: Sequence[AllowHost]) -> list[JSON]:
    """The CiliumNetworkPolicy egress of ``allowHosts`` (§3.3 shapes): the DNS
    visibility rule, which the toFQDNs rules need, then one rule per host."""
    rules: list[JSON] = [dns_visibility_rule()]
    for entry in hosts:
        selector = "matchPattern" if entry.pattern else "matchName"
        rule: dict[str, JSON] = {"toFQDNs": [{selector: entry.host}]}
        if entry.ports is not None:
            ports: list[JSON] = [
                {"port": format_number(port.start), "protocol": port.protocol}
                for port in entry.ports
                if port.start is not None
            ]
            rule["toPorts"] = [{"ports": ports}]
        rules.append(rule)
    return rules
