"""The baseline ingress NetworkPolicy for the agent port (SEMANTICS §13).

It is the reference deployment's ``namzu-sandbox-baseline`` without its
placeholder ``203.0.113.0/24`` egress rule: it selects every pod that carries
the template label, admits the sandbox host's pods on the agent port, and
keeps plain kube-dns egress only where no declaration in the namespace
forbids it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import msgspec

from lint.decision.constants import (
    CORE_API_VERSION,
    CORE_KIND,
    TEMPLATE_LABEL,
    kube_dns_rule,
)
from lint.decision.validation import narrowing_active
from lint.decision.values import JSON

BASELINE_NAME: Final = "namzu-sandbox-baseline"
HOST_COMPONENT_LABELS: Final = {"namzu.ai/component": "host"}


class DnsVerdict(msgspec.Struct, frozen=True):
    """Whether the baseline may carry the kube-dns egress rule, and if not,
    which declared fact forbids it."""

    keep: bool
    reason: str | None = None


def dns_names_narrowed(egress: Mapping[str, JSON]) -> bool:
    """``ciliumNarrowing.dnsNames`` is in use (§3.3 step 3): the narrowing is
    active and ``dnsNames`` is true or an object."""
    narrowing = egress.get("ciliumNarrowing")
    if not isinstance(narrowing, dict) or not narrowing_active(narrowing):
        return False
    dns_names = narrowing.get("dnsNames")
    return dns_names is True or isinstance(dns_names, dict)


def baseline_dns(egresses: Iterable[Mapping[str, JSON]]) -> DnsVerdict:
    """The baseline selects every sandbox pod of its namespace, so its egress
    is the strictest the namespace's declarations allow. Under DNS-name
    narrowing a plain kube-dns rule widens egress (§10.1 step 6b, §13); under
    ``no-network`` any egress rule does (§10.1 step 1)."""
    for egress in egresses:
        policy = egress.get("policy")
        kind = policy.get("kind") if isinstance(policy, dict) else None
        if kind == "no-network":
            return DnsVerdict(False, "no-network")
        if dns_names_narrowed(egress):
            return DnsVerdict(False, "dnsNames")
    return DnsVerdict(True)


def baseline_policy(namespace: str, agent_ports: Iterable[int], keep_dns: bool) -> dict[str, JSON]:
    """The baseline NetworkPolicy: ingress from the host's pods on each agent
    port (TCP), egress to the kube-dns pods on UDP and TCP 53 when kept."""
    ports: list[JSON] = [{"protocol": "TCP", "port": port} for port in sorted(set(agent_ports))]
    egress: list[JSON] = [kube_dns_rule()] if keep_dns else []
    return {
        "apiVersion": CORE_API_VERSION,
        "kind": CORE_KIND,
        "metadata": {"name": BASELINE_NAME, "namespace": namespace},
        "spec": {
            "podSelector": {"matchExpressions": [{"key": TEMPLATE_LABEL, "operator": "Exists"}]},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {
                    "from": [{"podSelector": {"matchLabels": dict(HOST_COMPONENT_LABELS)}}],
                    "ports": ports,
                }
            ],
            "egress": egress,
        },
    }
