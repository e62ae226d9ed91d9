"""What ``egress-lint init`` proposes to declare, read from an inventory.

Each SandboxTemplate, and each workload that a NetworkPolicy selects,
becomes one proposed entry:

- the host is ``namzu`` only when the manifests hold the namzu host's own
  objects: policies of the namespace that select on a label the host puts
  on its pods (``sandbox.namzu.ai/template``, its profile and per-sandbox
  labels), as its named egress policy ``<template>-egress`` does. Otherwise
  it is ``none``;
- under ``namzu``, the intent is read back from the named policy: the first
  declaration whose translation the named comparison accepts (a policy
  kind, ``static`` hosts for a Cilium policy, else the policy's own rules as
  ``allow``);
- under ``none``, the intent is what the NetworkPolicies selecting the pods
  let out today: their egress rules as ``allow``, ``deny-all`` when they
  let nothing out, and every rule when none of them restricts egress.

Everything a person should look at is kept as a note on the entry; the
writer (``lint.init.emit``) turns notes into comments. Plain data in and
out: no file is read here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final, Literal

import msgspec

from lint.decision.allow_rules import validate_allow_rules
from lint.decision.constants import TEMPLATE_LABEL
from lint.decision.model import ConfigRefusal, Tri
from lint.decision.named import compare_named
from lint.decision.selectors import match_selector, selector_label_keys
from lint.decision.translation import translate, translate_allow
from lint.decision.values import ABSENT, JSON
from lint.inventory import Inventory, KubeObject, Namespace
from lint.kinds import CILIUM_NETWORK_POLICY, NETWORK_POLICY, SANDBOX_TEMPLATE, WORKLOAD_KINDS
from lint.sandboxes import template_pod_labels, workload_pod_labels

Host = Literal["namzu", "none"]

CORE_KINDS: Final = ("deny-all", "no-network", "allow-all", "public-internet")
"""The policy kinds a core named policy may be read back as, narrowest first."""

NAMZU_LABELS: Final = TEMPLATE_LABEL.partition("/")[0] + "/"
"""The prefix of the labels the namzu host puts on its pods (template,
egress profile, per-sandbox)."""

EVERYTHING: Final[JSON] = [{}]
"""One egress rule with no peer and no port: every destination."""


class Proposed(msgspec.Struct, frozen=True):
    """One proposed entry of ``sandboxes:``."""

    namespace: str
    name: str
    workload_kind: str | None
    """None for a SandboxTemplate; the kind for a workload."""
    host: Host
    egress: dict[str, JSON]
    notes: tuple[str, ...]
    """What to review, one sentence each."""

    @property
    def order(self) -> tuple[str, int, str, str]:
        return (
            self.namespace,
            0 if self.workload_kind is None else 1,
            self.workload_kind or "",
            self.name,
        )


def proposals(inventory: Inventory) -> tuple[Proposed, ...]:
    """Every proposed entry, in a fixed order whatever the order of the input."""
    found: list[Proposed] = []
    for namespace in inventory.namespaces.values():
        for template in _named(namespace.of_kind(SANDBOX_TEMPLATE.name)):
            found.append(_template_entry(namespace, template))
        for kind in WORKLOAD_KINDS:
            for workload in _named(namespace.of_kind(kind.name)):
                labels = workload_pod_labels(workload, kind.name)
                if _selecting(namespace, NETWORK_POLICY.name, labels):
                    found.append(_none_entry(namespace, workload, kind.name, labels, ()))
    return tuple(sorted(found, key=lambda entry: entry.order))


def _named(objects: Iterable[KubeObject]) -> Iterator[KubeObject]:
    """The objects that have a name, each name once (the first in file order)."""
    seen: set[str] = set()
    for obj in sorted(objects, key=_where):
        if obj.name is not None and obj.name not in seen:
            seen.add(obj.name)
            yield obj


def _where(obj: KubeObject) -> tuple[str, str, int, int]:
    return (obj.name or "", obj.document.file, obj.document.line, obj.document.list_index or 0)


def located(obj: KubeObject) -> str:
    """``Kind/name (file:line)``, as a note names an object."""
    return f"{obj.kind_name}/{obj.display_name} ({obj.document.file}:{obj.document.line})"


# --- which policies select the pods ------------------------------------------


def _selecting(
    namespace: Namespace, kind: str, labels: Mapping[str, str]
) -> list[tuple[KubeObject, Tri]]:
    """The policies of ``kind`` whose selector may select pods with these
    labels, in a fixed order, each with whether it surely does."""
    cilium = kind != NETWORK_POLICY.name
    key = "endpointSelector" if cilium else "podSelector"
    found: list[tuple[KubeObject, Tri]] = []
    for policy in sorted(namespace.of_kind(kind), key=_where):
        spec = _spec(policy)
        outcome = (
            match_selector(spec.get(key, ABSENT), labels, cilium=cilium) if spec else Tri.UNKNOWN
        )
        if outcome is not Tri.NO:
            found.append((policy, outcome))
    return found


def _spec(policy: KubeObject) -> dict[str, JSON]:
    value = policy.value
    spec = value.get("spec") if isinstance(value, dict) else None
    return spec if isinstance(spec, dict) else {}


def _restricts_egress(spec: Mapping[str, JSON]) -> bool:
    """A NetworkPolicy isolates egress when its policyTypes say Egress, or,
    without policyTypes, when it has egress rules."""
    types = spec.get("policyTypes")
    if isinstance(types, list):
        return "Egress" in types
    return "egress" in spec


# --- host: none ----------------------------------------------------------------


def _none_entry(
    namespace: Namespace,
    target: KubeObject,
    workload_kind: str | None,
    labels: Mapping[str, str],
    notes: Sequence[str],
) -> Proposed:
    """An entry whose intent is what the selecting NetworkPolicies let out."""
    name = target.display_name
    kept: list[str] = list(notes)
    restricting: list[KubeObject] = []
    rules: list[JSON] = []
    seen: set[str] = set()
    for policy, outcome in _selecting(namespace, NETWORK_POLICY.name, labels):
        spec = _spec(policy)
        if not _restricts_egress(spec):
            continue
        restricting.append(policy)
        if outcome is Tri.UNKNOWN:
            kept.append(f"{located(policy)} may select these pods: its rules are included")
        for index, rule in enumerate(_rules(spec)):
            refusal = _refusal(rule)
            if refusal is not None:
                kept.append(
                    f"{located(policy)} spec.egress[{index}] is left out ({refusal}); "
                    "check reports it until it is written here or narrowed"
                )
                continue
            text = json.dumps(rule, sort_keys=True)
            if text not in seen:
                seen.add(text)
                rules.append(rule)
    for policy, _ in _selecting(namespace, CILIUM_NETWORK_POLICY.name, labels):
        kept.append(
            f"{located(policy)} may select these pods too; its rules are not written "
            "here: with `engine: cilium` check judges it, add the hosts it needs under "
            "`allowHosts`"
        )
    egress: dict[str, JSON]
    if not restricting:
        egress = {"allow": EVERYTHING}
        kept.append(
            "no NetworkPolicy restricts egress of these pods today, so everything is let "
            "out: narrow `allow` to what they need"
        )
    elif not rules:
        egress = {"policy": {"kind": "deny-all"}}
        kept.append(
            "the policies selecting these pods let nothing out today; deny-all also lets "
            "out cluster DNS (write `allow: []` for nothing at all)"
        )
    else:
        egress = {"allow": rules}
        names = ", ".join(f"{p.kind_name}/{p.display_name}" for p in restricting)
        kept.append(f"`allow` is what {names} let out today: keep only what the pods should reach")
    return Proposed(namespace.name, name, workload_kind, "none", egress, tuple(kept))


def _rules(spec: Mapping[str, JSON]) -> list[JSON]:
    rules = spec.get("egress")
    return rules if isinstance(rules, list) else []


def _refusal(rule: JSON) -> str | None:
    """Why a rule cannot be written as an ``allow`` rule, if it cannot."""
    try:
        validate_allow_rules([rule])
    except ConfigRefusal as refusal:
        return refusal.message.rstrip(".")
    return None


# --- SandboxTemplates ----------------------------------------------------------


def _template_entry(namespace: Namespace, template: KubeObject) -> Proposed:
    name = template.display_name
    labels = template_pod_labels(template)
    if not _template_label_selected(namespace):
        return _none_entry(namespace, template, None, labels, _controller_note(template))
    named = _named_policy(namespace, name)
    notes: list[str] = []
    if named is None:
        egress: dict[str, JSON] = {"policy": {"kind": "deny-all"}}
        notes.append(
            f"policies here select on {NAMZU_LABELS}* labels, so the namzu host is assumed, but "
            f"its policy {name}-egress is not in the manifests: write the intent the host "
            "is configured with"
        )
    else:
        read = read_back(named, name, namespace.name)
        if read is None:
            egress = {"policy": {"kind": "deny-all"}}
            notes.append(
                f"{located(named)} matches no intent this file can write: check reports how "
                "it differs from this one; write the intent the host is configured with"
            )
        else:
            egress = read
            notes.append(
                f"the host's policy {located(named)} reads back as this intent: confirm it "
                "is the one the host is configured with"
            )
    host_labels = {**labels, TEMPLATE_LABEL: name}
    for policy, _ in _selecting(namespace, NETWORK_POLICY.name, host_labels):
        if policy is not named and _restricts_egress(_spec(policy)) and _rules(_spec(policy)):
            notes.append(
                f"{located(policy)} also selects these pods: check reports it if it lets "
                "out more than this"
            )
    return Proposed(namespace.name, name, None, "namzu", egress, tuple(notes))


def _controller_note(template: KubeObject) -> tuple[str, ...]:
    """A note when the agent-sandbox controller writes a policy for the template."""
    if _spec(template).get("networkPolicyManagement") == "Unmanaged":
        return ()
    return (
        "the agent-sandbox controller writes a NetworkPolicy for this template's pods (from "
        "its spec.networkPolicy, else its own default): check judges it against this intent",
    )


def _named_policy(namespace: Namespace, template: str) -> KubeObject | None:
    """The host's named egress policy for the template, core first."""
    for kind in (NETWORK_POLICY.name, CILIUM_NETWORK_POLICY.name):
        found = namespace.named(kind, f"{template}-egress")
        if found is not None:
            return found
    return None


def _template_label_selected(namespace: Namespace) -> bool:
    """Whether a policy of the namespace selects on a label the host puts on
    its pods: the template label, the profile or the per-sandbox label."""
    for kind, key, cilium in (
        (NETWORK_POLICY.name, "podSelector", False),
        (CILIUM_NETWORK_POLICY.name, "endpointSelector", True),
    ):
        for policy in namespace.of_kind(kind):
            keys = selector_label_keys(_spec(policy).get(key, ABSENT), cilium=cilium)
            if any(key.startswith(NAMZU_LABELS) for key in keys):
                return True
    return False


def read_back(named: KubeObject, template: str, namespace: str) -> dict[str, JSON] | None:
    """The first intent whose translation the named comparison accepts for
    this object, if any."""
    for egress in _candidates(named):
        try:
            if egress.get("allow") is not None:
                translation = translate_allow(egress, template, namespace)
            else:
                translation = translate(egress, template, namespace)
        except ConfigRefusal:
            continue
        if compare_named(named.value, translation).result == "match":
            return egress
    return None


def _candidates(named: KubeObject) -> Iterator[dict[str, JSON]]:
    spec = _spec(named)
    if named.kind == NETWORK_POLICY.name:
        for kind in CORE_KINDS:
            yield {"policy": {"kind": kind}}
        rules = spec.get("egress")
        if isinstance(rules, list):
            yield {"allow": rules}
        return
    hosts = _fqdn_hosts(spec)
    if hosts:
        yield {"engine": "cilium", "policy": {"kind": "static", "allowedHosts": hosts}}


def _fqdn_hosts(spec: Mapping[str, JSON]) -> list[JSON]:
    """The allowlist a Cilium policy's ``toFQDNs`` name: ``matchName: h`` is
    ``h``, ``matchPattern: '*.d'`` is ``.d`` (which also stands for ``d``),
    in the order first met."""
    names: list[str] = []
    for rule in _rules(spec):
        entries = rule.get("toFQDNs") if isinstance(rule, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict):
                continue
            name, pattern = entry.get("matchName"), entry.get("matchPattern")
            if isinstance(name, str):
                names.append(name)
            elif isinstance(pattern, str) and pattern.startswith("*."):
                names.append(pattern[1:])
    domains = {name[1:] for name in names if name.startswith(".")}
    hosts: list[JSON] = []
    for name in names:
        if name not in domains and name not in hosts:
            hosts.append(name)
    return hosts
