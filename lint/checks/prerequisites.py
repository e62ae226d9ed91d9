"""Deployment prerequisites: facts the runtime would discover too late
(DESIGN §3 item 5, SEMANTICS §14 and §15.2, AGENT-SANDBOX §4.1 and §7)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from msgspec.structs import replace

from lint.checks.candidates import declared_location, location_of
from lint.checks.context import precise_location, rule_finding
from lint.decision.constants import DEFAULT_PER_SANDBOX_LABEL
from lint.decision.controller import controller_policy
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.values import JSON
from lint.declarations.entries import DeclarationNote, DeclaredSandbox
from lint.inventory import Inventory, KubeObject
from lint.kinds import (
    CONFIG_MAP,
    CONFIG_MAP_NAME,
    JUDGED_POLICY_KINDS,
    NETWORK_POLICY,
    SANDBOX_CLAIM,
    SANDBOX_TEMPLATE,
    SANDBOX_WARM_POOL,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
)
from lint.report.model import Finding, Location
from lint.rules import level_of
from lint.sandboxes import profile_key, target_object

DEFAULT_LABEL_DOMAINS = ("sandbox.users.io",)


def missing_templates(inventory: Inventory, entries: Iterable[DeclaredSandbox]) -> list[Finding]:
    findings = []
    for entry in entries:
        if entry.external:
            continue
        if target_object(entry, inventory.namespace(entry.namespace)) is None:
            unknown = (
                "its pod labels and controller policy are unknown"
                if entry.workload is None
                else "the labels of its pods are unknown"
            )
            message = (
                f"no {entry.target_kind} {entry.template!r} in namespace {entry.namespace} "
                f"is in the manifests; {unknown}"
            )
            findings.append(rule_finding("template-not-found", message, declared_location(entry)))
    return findings


def allowed_label_domains(config_map: KubeObject) -> tuple[str, ...]:
    """The controller's allowlist (AGENT-SANDBOX §7): split on ``,``, LF and
    CR, trimmed and lowercased; the default when the key is absent or empty."""
    data = config_map.value.get("data") if isinstance(config_map.value, dict) else None
    raw = data.get("allowed-label-domains") if isinstance(data, dict) else None
    if not isinstance(raw, str):
        return DEFAULT_LABEL_DOMAINS
    domains = tuple(item.strip().lower() for item in re.split(r"[,\n\r]", raw) if item.strip())
    return domains or DEFAULT_LABEL_DOMAINS


def label_domain_allowed(key: str, domains: Sequence[str]) -> bool:
    if "/" not in key:
        return False
    domain = key.split("/", 1)[0].lower()
    return any(domain == d or domain.endswith("." + d) for d in domains)


def claim_label_keys(egress: Mapping[str, JSON]) -> list[str]:
    """The label keys the host puts on a claim's pod metadata (§14, §15.1)."""
    keys = []
    if isinstance(egress.get("profile"), str):
        keys.append(profile_key(egress))
    per_sandbox = egress.get("perSandbox")
    if isinstance(per_sandbox, dict):
        label_key = per_sandbox.get("labelKey", DEFAULT_PER_SANDBOX_LABEL)
        if isinstance(label_key, str):
            keys.append(label_key)
    return keys


def label_domains(inventory: Inventory, entries: Iterable[DeclaredSandbox]) -> list[Finding]:
    config_maps = [
        obj for obj in inventory.all_of_kind(CONFIG_MAP.name) if obj.name == CONFIG_MAP_NAME
    ]
    if not config_maps:
        return []
    config_map = config_maps[-1]
    domains = allowed_label_domains(config_map)
    findings = []
    for entry in entries:
        for key in claim_label_keys(entry.egress):
            if label_domain_allowed(key, domains):
                continue
            message = (
                f"label key {key!r} of template {entry.template!r} is outside the controller's "
                f"allowed-label-domains ({', '.join(domains)}) set in ConfigMap "
                f"{CONFIG_MAP_NAME}; every claim carrying it would be rejected"
            )
            findings.append(
                rule_finding("label-domain-not-allowed", message, declared_location(entry))
            )
    return findings


def admission_fences(inventory: Inventory, entries: Iterable[DeclaredSandbox]) -> list[Finding]:
    """Under ``perSandbox`` both fence objects must be present (§15.2)."""
    findings = []
    for entry in entries:
        per_sandbox = entry.egress.get("perSandbox")
        if not isinstance(per_sandbox, dict):
            continue
        policy_name = per_sandbox.get("admissionPolicyName")
        binding_name = per_sandbox.get("admissionPolicyBindingName", f"{policy_name}-binding")
        wanted = (
            (VALIDATING_ADMISSION_POLICY.name, policy_name),
            (VALIDATING_ADMISSION_POLICY_BINDING.name, binding_name),
        )
        for kind, name in wanted:
            if not any(obj.name == name for obj in inventory.cluster_objects(kind)):
                message = (
                    f"{kind} {name!r} is not in the manifests; the host refuses every "
                    f"per-sandbox policy write for template {entry.template!r} until it can read it"
                )
                findings.append(
                    rule_finding("admission-fence-missing", message, declared_location(entry))
                )
    return findings


def _claim_template(inventory: Inventory, claim: KubeObject) -> str | None:
    spec = claim.value.get("spec") if isinstance(claim.value, dict) else None
    if not isinstance(spec, dict):
        return None
    direct = spec.get("sandboxTemplateRef")
    if isinstance(direct, dict) and isinstance(direct.get("name"), str):
        return str(direct["name"])
    pool_ref = spec.get("warmPoolRef")
    pool_name = pool_ref.get("name") if isinstance(pool_ref, dict) else None
    pool = inventory.namespace(claim.namespace or "").named(SANDBOX_WARM_POOL.name, str(pool_name))
    if pool is None or not isinstance(pool.value.get("spec"), dict):
        return None
    template_ref = pool.value["spec"].get("sandboxTemplateRef")
    name = template_ref.get("name") if isinstance(template_ref, dict) else None
    return name if isinstance(name, str) else None


def undeclared_claim_profiles(
    inventory: Inventory, entries: Sequence[DeclaredSandbox]
) -> list[Finding]:
    """SandboxClaims whose profile label no declaration covers (DESIGN §3 item 5)."""
    declared = {
        (e.namespace, e.template, profile_key(e.egress), e.egress.get("profile")) for e in entries
    }
    keys = {profile_key(e.egress) for e in entries}
    findings = []
    for claim in inventory.all_of_kind(SANDBOX_CLAIM.name):
        labels = _claim_labels(claim)
        template = _claim_template(inventory, claim)
        for key in sorted(keys & labels.keys()):
            if (claim.namespace, template, key, labels[key]) in declared:
                continue
            message = (
                f"SandboxClaim {claim.display_name!r} carries profile label {key}={labels[key]} "
                f"for template {template!r}, and no declaration covers that profile"
            )
            path = ("spec", "additionalPodMetadata", "labels", key)
            findings.append(
                rule_finding(
                    "claim-profile-undeclared", message, precise_location(claim, path), obj=claim
                )
            )
    return findings


def _claim_labels(claim: KubeObject) -> dict[str, str]:
    value = claim.value
    for key in ("spec", "additionalPodMetadata", "labels"):
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def controller_conflicts(
    inventory: Inventory, facts: ControllerFacts = DEFAULT_FACTS
) -> list[Finding]:
    """A rendered NetworkPolicy named like the controller's policy of a
    managed template in the same namespace (AGENT-SANDBOX §4.1, derived;
    what the controller then does depends on its version, §8)."""
    findings = []
    for namespace in inventory.namespaces.values():
        for template in namespace.of_kind(SANDBOX_TEMPLATE.name):
            if (
                template.name is None
                or controller_policy(template.value, namespace.name, facts.column) is None
            ):
                continue
            name = f"{template.name}-network-policy"
            clash = namespace.named(NETWORK_POLICY.name, name)
            if clash is None:
                continue
            outcome = (
                "the controller refuses to update a policy it does not own, so the template's "
                "reconcile fails"
                if facts.refuses_overwrite
                else f"controller {facts.version} overwrites it with its own on every reconcile"
            )
            message = (
                f"NetworkPolicy {name!r} has the name the agent-sandbox controller writes for "
                f"managed template {template.name!r}; {outcome}"
            )
            findings.append(
                rule_finding("controller-policy-conflict", message, location_of(clash), obj=clash)
            )
    return findings


def unnamed_policies(inventory: Inventory) -> list[Finding]:
    """Quirk Q18: a policy without a usable name cannot be applied."""
    findings = []
    for kind in JUDGED_POLICY_KINDS:
        for obj in inventory.all_of_kind(kind):
            if obj.name is None and isinstance(obj.value, dict):
                message = f"a {kind} has no usable metadata.name; it cannot be applied"
                findings.append(rule_finding("unnamed-policy", message, location_of(obj), obj=obj))
    return findings


def undeclared_templates(
    inventory: Inventory, entries: Sequence[DeclaredSandbox], defaults_applied: bool
) -> list[Finding]:
    """``template-undeclared``: a SandboxTemplate no declaration names is not
    checked at all, a warning; with no declaration file each template is
    checked against the default intent, a note that says so."""
    named = {(entry.namespace, entry.template) for entry in entries if entry.workload is None}
    findings = []
    for obj in inventory.all_of_kind(SANDBOX_TEMPLATE.name):
        if obj.name is None:
            continue
        where = f"SandboxTemplate {obj.name!r} in namespace {obj.namespace}"
        if defaults_applied:
            message = (
                f"{where} is named by no declaration (there is no .egress-lint.yaml), so it "
                "was checked against the default intent `deny-all` with `engine: core` and "
                "`host: none`: what the cluster lets its claimed and pooled pods reach"
            )
            finding = rule_finding("template-undeclared", message, location_of(obj), obj=obj)
            findings.append(replace(finding, level=level_of("template-undeclared", "defaults")))
        elif (obj.namespace, obj.name) not in named:
            message = f"{where} is named by no declaration, so its pods' egress is not checked"
            findings.append(rule_finding("template-undeclared", message, location_of(obj), obj=obj))
    return findings


def declaration_notes(notes: Iterable[DeclarationNote]) -> list[Finding]:
    """The notes docs/declarations.md promises, as ``declaration-note`` findings."""
    return [
        rule_finding(
            "declaration-note", f"{note.path}: {note.message}", Location(note.file, note.line)
        )
        for note in notes
    ]
