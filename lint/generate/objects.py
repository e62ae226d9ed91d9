"""Which objects ``generate`` writes, with the data each template lays out.

Every manifest here is computed in Python: the egress policy is the
engine's translation itself (SEMANTICS §3), the baseline comes from its own
builder (§13), and the fence and RBAC from ``per_sandbox``. Templates only
add the comment header and place the serialised manifest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from lint.decision.allow_rules import ALLOW_POLICY_KIND
from lint.decision.cidr import is_ipv6_text
from lint.decision.constants import CILIUM_KIND, CORE_KIND, IPV4_EXCLUSIONS, IPV6_EXCLUSIONS
from lint.decision.validation import narrowing_active, profile_label_key
from lint.decision.values import JSON, compact_json
from lint.declarations.entries import DeclaredSandbox
from lint.generate import baseline
from lint.generate.model import GeneratedObject, GenerateError, Source, source_of
from lint.generate.per_sandbox import by_namespace, per_sandbox_objects

__all__ = ["GenerateError", "GeneratedObject", "Source", "plan"]


ALLOW_TEMPLATE: Final = "networkpolicy-allow.yaml.j2"
ALLOW_HOSTS_TEMPLATE: Final = "ciliumnetworkpolicy-allow-hosts.yaml.j2"
EGRESS_TEMPLATES: Final = {
    CORE_KIND: "networkpolicy-egress.yaml.j2",
    CILIUM_KIND: "ciliumnetworkpolicy-egress.yaml.j2",
}


def plan(sandboxes: Sequence[DeclaredSandbox]) -> list[GeneratedObject]:
    """Every object for these declarations, in a stable order: each egress
    policy in declaration order, then each namespace's baseline, then the
    per-sandbox fence and RBAC."""
    objects = _ObjectSet()
    for sandbox in sandboxes:
        objects.add(egress_object(sandbox))
        companion = hosts_object(sandbox)
        if companion is not None:
            objects.add(companion)
    # The baseline selects the namzu template label: `host: none` pods lack it.
    namzu = [sandbox for sandbox in sandboxes if sandbox.host == "namzu"]
    for namespace, members in by_namespace(namzu).items():
        found = baseline_object(namespace, members)
        if found is not None:
            objects.add(found)
    for obj in per_sandbox_objects(sandboxes):
        objects.add(obj)
    return objects.ordered()


@dataclass
class _ObjectSet:
    """Objects by (kind, namespace, name). The same object twice is kept once
    with both sources; two different objects under one key refuse."""

    by_key: dict[tuple[str, str | None, str], GeneratedObject] = field(default_factory=dict)

    def add(self, obj: GeneratedObject) -> None:
        key = (obj.kind, obj.namespace, obj.name)
        known = self.by_key.get(key)
        if known is None:
            self.by_key[key] = obj
        elif _same_bytes(known.manifest, obj.manifest):
            merged = tuple(dict.fromkeys((*known.sources, *obj.sources)))
            self.by_key[key] = GeneratedObject(
                known.kind,
                known.name,
                known.namespace,
                known.manifest,
                known.template,
                known.facts,
                merged,
            )
        else:
            raise GenerateError(_conflict_message(known, obj))

    def ordered(self) -> list[GeneratedObject]:
        return list(self.by_key.values())


def _same_bytes(left: JSON, right: JSON) -> bool:
    return json.dumps(left) == json.dumps(right)


def _conflict_message(known: GeneratedObject, other: GeneratedObject) -> str:
    where = f" in namespace {known.namespace}" if known.namespace else ""
    first = ", ".join(source.where for source in known.sources)
    second = ", ".join(source.where for source in other.sources)
    return (
        f"{known.kind} {json.dumps(known.name)}{where} would be generated twice with "
        f"different content: for {first} and for {second}. One object cannot serve "
        "both; give the declarations different names (networkPolicyName, "
        "admissionPolicyName) or namespaces."
    )


# --- the egress policy: the translation itself --------------------------------------


def egress_object(sandbox: DeclaredSandbox) -> GeneratedObject:
    translation = sandbox.translation
    if translation.policy_kind == ALLOW_POLICY_KIND:
        return GeneratedObject(
            kind=translation.kind,
            name=translation.name,
            namespace=translation.namespace,
            manifest=translation.manifest,
            template=ALLOW_TEMPLATE,
            facts=allow_facts(sandbox),
            sources=(source_of(sandbox),),
        )
    return GeneratedObject(
        kind=translation.kind,
        name=translation.name,
        namespace=translation.namespace,
        manifest=translation.manifest,
        template=EGRESS_TEMPLATES[translation.kind],
        facts=egress_facts(sandbox),
        sources=(source_of(sandbox),),
    )


def hosts_object(sandbox: DeclaredSandbox) -> GeneratedObject | None:
    """The CiliumNetworkPolicy of an ``allow`` intent's ``allowHosts``, if any."""
    translation = sandbox.translation
    if translation.companion is None:
        return None
    return GeneratedObject(
        kind=CILIUM_KIND,
        name=translation.name,
        namespace=translation.namespace,
        manifest=translation.companion,
        template=ALLOW_HOSTS_TEMPLATE,
        facts=allow_facts(sandbox),
        sources=(source_of(sandbox),),
    )


def allow_facts(sandbox: DeclaredSandbox) -> dict[str, JSON]:
    """What the header of an ``allow`` intent's objects explains."""
    rules = sandbox.egress.get("allow")
    return {
        "policy_kind": ALLOW_POLICY_KIND,
        "named": sandbox.translation.named,
        "target": f"{sandbox.target_kind} {sandbox.template}",
        "rules": len(rules) if isinstance(rules, list) else 0,
        "hosts": sandbox.translation.companion is not None,
    }


def egress_facts(sandbox: DeclaredSandbox) -> dict[str, JSON]:
    """What the egress header explains: the kind and the declared options
    that shaped the manifest."""
    egress = sandbox.egress
    policy = egress.get("policy")
    profile = egress.get("profile")
    per_sandbox = egress.get("perSandbox")
    facts: dict[str, JSON] = {
        "policy_kind": sandbox.translation.policy_kind,
        "named": sandbox.translation.named,
        "target": f"{sandbox.target_kind} {sandbox.template}",
        "engine": egress.get("engine") if isinstance(egress.get("engine"), str) else "core",
        "profile": profile if isinstance(profile, str) else None,
        "profile_key": profile_label_key(egress),
        "named_only": egress.get("verify") == "named-object-only",
        "per_sandbox_fence": (
            per_sandbox.get("admissionPolicyName") if isinstance(per_sandbox, dict) else None
        ),
    }
    if sandbox.translation.kind == CILIUM_KIND:
        facts.update(_cilium_facts(egress))
    else:
        facts.update(_except_facts(policy if isinstance(policy, dict) else {}))
    return facts


def _except_facts(policy: Mapping[str, JSON]) -> dict[str, JSON]:
    """The built-in exclusion lists, and the declaration's additions by family (§3.2)."""
    extras = [entry for entry in policy.get("exceptCidrs") or [] if isinstance(entry, str)]
    return {
        "builtin_v4": list(IPV4_EXCLUSIONS),
        "builtin_v6": list(IPV6_EXCLUSIONS),
        "extra_v4": [entry for entry in extras if not is_ipv6_text(entry)],
        "extra_v6": [entry for entry in extras if is_ipv6_text(entry)],
    }


def _cilium_facts(egress: Mapping[str, JSON]) -> dict[str, JSON]:
    """The narrowing as the translation applied it: an inactive
    ``ciliumNarrowing`` is ignored entirely (§1.3)."""
    narrowing = egress.get("ciliumNarrowing")
    active = isinstance(narrowing, dict) and narrowing_active(narrowing)
    settings: Mapping[str, JSON] = narrowing if active and isinstance(narrowing, dict) else {}
    return {
        "narrowed": active,
        "narrowing_json": compact_json(narrowing) if active else None,
        "ports": "ports" in settings,
        "host_ports": bool(settings.get("hostPorts")),
        "dns_names": baseline.dns_names_narrowed(egress),
        "tls_server_names": settings.get("tlsServerNames") is True,
    }


# --- the baseline ingress policy ----------------------------------------------------


def baseline_object(namespace: str, sandboxes: Sequence[DeclaredSandbox]) -> GeneratedObject | None:
    """The namespace's baseline (§13), when at least one of its declarations
    checks the agent port; its egress suits every declaration there."""
    ports = [sandbox.agent_port for sandbox in sandboxes if sandbox.agent_port is not None]
    if not ports:
        return None
    dns = baseline.baseline_dns(sandbox.egress for sandbox in sandboxes)
    blocking = [
        source_of(sandbox).template
        for sandbox in sandboxes
        if dns.reason is not None and _blocks_dns(sandbox, dns.reason)
    ]
    return GeneratedObject(
        kind=CORE_KIND,
        name=baseline.BASELINE_NAME,
        namespace=namespace,
        manifest=baseline.baseline_policy(namespace, ports, dns.keep),
        template="networkpolicy-baseline.yaml.j2",
        facts={
            "agent_ports": sorted(set(ports)),
            "keep_dns": dns.keep,
            "dns_reason": dns.reason,
            "dns_blockers": list(dict.fromkeys(blocking)),
        },
        sources=tuple(source_of(sandbox) for sandbox in sandboxes),
    )


def _blocks_dns(sandbox: DeclaredSandbox, reason: str) -> bool:
    if reason == "dnsNames":
        return baseline.dns_names_narrowed(sandbox.egress)
    return sandbox.translation.policy_kind == "no-network"
