"""ClusterNetworkPolicy, `policy.networking.k8s.io/v1alpha2` (CLUSTER-POLICIES.md §4).

Read as AdminNetworkPolicy (§3) with these differences:

- `spec.tier` must be exactly `Admin` or `Baseline` (§4.3 step 4a); an
  Admin document joins the admin group, a Baseline one the baseline group.
- actions are `Accept`, `Deny`, `Pass`; the v1alpha1 `Allow` is unknown and
  the detail suggests `Accept` (§4.4);
- a Baseline Pass is allow-like whatever ISO is: it skips the remaining
  baseline rules and lands in the default allow (§4.4);
- ports come from `protocols` (§4.5); a leftover pre-release `ports` key is
  pruned by the API server, so such a rule matches every port (§4.5 step 5);
- `domainNames` peers exist in both tiers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from lint.decision.model import ALL_PORTS, PortRange
from lint.decision.reach.admin import (
    ANP_PEER_FIELDS,
    PASS_TO_UNISOLATED,
    Flavour,
    PortsRead,
    judge_document,
    port_span,
    present,
    valid_port,
)
from lint.decision.reach.model import ReachCandidate, ReachData, ReachDocument, ReachSubject
from lint.decision.values import JSON, UNREADABLE, compact_json, read_list

API_VERSION: Final = "policy.networking.k8s.io/v1alpha2"
KIND: Final = "ClusterNetworkPolicy"
TIERS: Final = ("Admin", "Baseline")
PROTOCOL_KEYS: Final = ("tcp", "udp", "sctp")
NAMED_PORT_KEY: Final = "destinationNamedPort"
BASELINE_PASS: Final = (
    "a baseline Pass skips the remaining baseline rules and lands in the default allow"
)


def read_protocols(rule: Mapping[str, JSON]) -> PortsRead | str:
    """§4.5 steps 1-4: the rule's wanted ports from ``protocols``."""
    entries = read_list(rule, "protocols")
    if entries is UNREADABLE:
        return "`protocols` is not a list"
    if not entries:
        return ALL_PORTS, False
    ranges: list[PortRange] = []
    named = False
    for entry in entries:
        read = _read_protocol_entry(entry)
        if isinstance(read, str):
            return read
        entry_ranges, entry_named = read
        ranges.extend(entry_ranges)
        named = named or entry_named
    return (ALL_PORTS, True) if named else (tuple(ranges), False)


def _read_protocol_entry(entry: JSON) -> tuple[list[PortRange], bool] | str:
    problem = f"a `protocols` entry cannot be read: {compact_json(entry)}"
    if not isinstance(entry, dict):
        return problem
    keys = [key for key in (*PROTOCOL_KEYS, NAMED_PORT_KEY) if present(entry, key)]
    if not keys:
        return (
            f"the `protocols` entry {compact_json(entry)} names no protocol the linter "
            "knows (tcp, udp, sctp, destinationNamedPort)"
        )
    ranges: list[PortRange] = []
    named = False
    for key in keys:
        if key == NAMED_PORT_KEY:
            value = entry[key]
            if not isinstance(value, str) or not value:
                return problem
            named = True
            continue
        read = _protocol_range(key.upper(), entry[key])
        if read is None:
            return problem
        ranges.append(read)
    return ranges, named


def _protocol_range(protocol: str, value: JSON) -> PortRange | None:
    """§4.5 step 3: ``{destinationPort?: {number} | {range: {start, end}}}``."""
    if not isinstance(value, dict):
        return None
    port = value.get("destinationPort")
    if port is None:
        return PortRange(protocol)
    if not isinstance(port, dict) or present(port, "number") == present(port, "range"):
        return None
    if present(port, "number"):
        number = port["number"]
        return PortRange(protocol, number) if valid_port(number) else None
    span = port["range"]
    if not isinstance(span, dict):
        return None
    return port_span(protocol, span.get("start"), span.get("end"))


def _suggest_accept(action: JSON) -> str | None:
    if action == "Allow":
        return (
            "; `Allow` is the v1alpha1 spelling, write `Accept` (the CRD rejects `Allow`, "
            "so such a manifest never becomes a policy)"
        )
    return None


def flavour_of(tier: JSON) -> Flavour:
    """How a ClusterNetworkPolicy of this ``tier`` reads its rules."""
    baseline = tier == "Baseline"
    unreadable_tier = (
        None
        if tier in TIERS and isinstance(tier, str)
        else f"`spec.tier` {compact_json(tier)} is not one of Admin, Baseline"
    )
    return Flavour(
        group="baseline" if baseline else "admin",
        actions=("Accept", "Deny", "Pass"),
        peer_fields=ANP_PEER_FIELDS,
        read_ports=read_protocols,
        baseline=baseline,
        pass_allow_like=baseline,
        pass_note=BASELINE_PASS if baseline else PASS_TO_UNISOLATED,
        action_hint=_suggest_accept,
        unreadable_tier=unreadable_tier,
    )


def tier_of(raw: JSON) -> JSON:
    spec = raw.get("spec") if isinstance(raw, dict) else None
    return spec.get("tier") if isinstance(spec, dict) else None


def cluster_network_policy_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """§4: one document per v1alpha2 ClusterNetworkPolicy; () for anything else.
    A document whose tier is not exactly ``Baseline`` is in the admin group."""
    if candidate.api_version != API_VERSION or candidate.kind != KIND:
        return ()
    return (judge_document(candidate, subject, data, flavour_of(tier_of(candidate.raw))),)
