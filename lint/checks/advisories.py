"""Stricter-than-the-host advisories (issue 15, item 7; the facts are
``lint.decision.advisories``).

Each is a warning of its own rule, at the culprit's file and line. They
never change the union, the ingress decision or any verdict: the host
accepts what they point at, and the network may not keep it out.

- ``ingress-peers-cover-everything``: an ingress rule on the agent port
  whose peers together cover every address of a family (``0.0.0.0/1`` and
  ``128.0.0.0/1``, ``::/0`` written long-form), in a policy the host reads
  as closing the port;
- ``clusterwide-endpoints-admit-every-pod``: a CiliumClusterwideNetworkPolicy
  ingress rule on the agent port with ``fromEndpoints: [{}]``;
- ``nat-prefix-reaches-private``: an allowance (``public-internet``) that takes in
  a NAT64 prefix, whose addresses map back to IPv4, private ranges included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lint.checks.candidates import Sourced, declared_location
from lint.checks.context import JudgedEntry, precise_location, rule_finding
from lint.decision.advisories import (
    cilium_source_cidrs,
    core_peer_cidrs,
    empty_endpoint_selectors,
    reachable_nat64,
    whole_family_peers,
)
from lint.decision.constants import CLUSTERWIDE_KIND, CORE_KIND
from lint.decision.ingress_ports import cilium_port_reach, core_port_reach
from lint.decision.model import Allowance, IngressVerdict, Tri
from lint.decision.values import JSON
from lint.declarations import DeclaredSandbox
from lint.report.model import Finding, Location

PEERS_RULE: Final = "ingress-peers-cover-everything"
CLUSTERWIDE_RULE: Final = "clusterwide-endpoints-admit-every-pod"
NAT64_RULE: Final = "nat-prefix-reaches-private"

# The verdicts of a document the host counts as keeping the port closed
# (SEMANTICS §13.4): an advisory is about what it lets through anyway.
_ACCEPTED: Final = frozenset({IngressVerdict.COVERS, IngressVerdict.NOT_INGRESS_SCOPED})
_FAMILY: Final = {4: "IPv4", 6: "IPv6"}


def ingress_advisories(judged: Sequence[JudgedEntry], agent_port: int) -> list[Finding]:
    """The advisories about the ingress rules of the documents the host
    accepted for the agent port."""
    findings: list[Finding] = []
    for entry in judged:
        origin, document = entry.origin, entry.examined.document
        if entry.examined.verdict not in _ACCEPTED or not isinstance(origin, Sourced):
            continue
        base = origin.base if document.spec_index is None else ("specs", document.spec_index)
        body = _at(origin.obj.value, base)
        rules = body.get("ingress") if isinstance(body, dict) else None
        if not isinstance(rules, list):
            continue
        for verdict in document.rules:
            rule = rules[verdict.index] if verdict.index < len(rules) else None
            if verdict.outcome is not Tri.NO or not isinstance(rule, dict):
                continue
            path = (*base, "ingress", verdict.index)
            title = f"{document.kind}/{document.name}"
            if document.kind == CORE_KIND:
                findings += _core_rule(origin, title, rule, path, agent_port)
            else:
                clusterwide = document.kind == CLUSTERWIDE_KIND
                findings += _cilium_rule(origin, title, rule, path, agent_port, clusterwide)
    return findings


def _core_rule(
    origin: Sourced, title: str, rule: dict[str, JSON], path: tuple[str | int, ...], port: int
) -> list[Finding]:
    # The peers first: most rules have no ipBlock, and the port costs more.
    cidrs = core_peer_cidrs(rule.get("from"))
    if not whole_family_peers(cidrs) or core_port_reach(rule, port)[0] is not Tri.YES:
        return []
    return _whole_family(origin, title, cidrs, (*path, "from"), port, path[-1])


def _cilium_rule(
    origin: Sourced,
    title: str,
    rule: dict[str, JSON],
    path: tuple[str | int, ...],
    port: int,
    clusterwide: bool,
) -> list[Finding]:
    cidrs = cilium_source_cidrs(rule)
    empty = empty_endpoint_selectors(rule) if clusterwide else []
    if not (whole_family_peers(cidrs) or empty) or cilium_port_reach(rule, port)[0] is not Tri.YES:
        return []
    findings = _whole_family(origin, title, cidrs, path, port, path[-1])
    if empty:
        for index in empty[:1]:
            message = (
                f"{title}: ingress rule {path[-1]} admits `fromEndpoints: [{{}}]` on TCP "
                f"{port}; in a clusterwide policy an empty endpoint selector is every pod of "
                "every namespace, which the host reads as closing the agent port"
            )
            location = precise_location(origin.obj, (*path, "fromEndpoints", index))
            findings.append(rule_finding(CLUSTERWIDE_RULE, message, location, obj=origin.obj))
    return findings


def _whole_family(
    origin: Sourced,
    title: str,
    cidrs: list[str],
    path: tuple[str | int, ...],
    port: int,
    rule_index: str | int,
) -> list[Finding]:
    families = whole_family_peers(cidrs)
    if not families:
        return []
    every = " and ".join(_FAMILY[family] for family in families)
    message = (
        f"{title}: the peers of ingress rule {rule_index} together admit "
        f"every {every} address on TCP {port} ({', '.join(cidrs)}); the host counts only "
        "`0.0.0.0/0` and `::/0` as wide open, so it reads the agent port as closed"
    )
    location = precise_location(origin.obj, path)
    return [rule_finding(PEERS_RULE, message, location, obj=origin.obj)]


def nat64_advisory(declared: DeclaredSandbox, allowance: Allowance) -> list[Finding]:
    """``nat-prefix-reaches-private`` for a declaration whose allowance takes in
    a NAT64 prefix."""
    prefixes = reachable_nat64(allowance)
    if not prefixes:
        return []
    kind = declared.translation.policy_kind
    message = (
        f"the {kind} egress of template {declared.template!r} in namespace "
        f"{declared.namespace!r} lets the pod reach the NAT64 prefix "
        f"{' and '.join(prefixes)}; on a cluster with NAT64 its addresses map back to "
        "IPv4, private ranges included, which the IPv4 exclusions mean to keep out"
    )
    line = declared.line_of("egress.policy.exceptCidrs")
    located = declared_location(declared)
    location = Location(located.file, line, located.source, located.source_line)
    return [rule_finding(NAT64_RULE, message, location)]


def _at(value: JSON, path: Sequence[str | int]) -> JSON:
    for key in path:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and key < len(value) else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value
