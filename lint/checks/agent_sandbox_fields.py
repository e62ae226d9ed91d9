"""agent-sandbox objects read against the fields their CustomResourceDefinitions
know (AGENT-SANDBOX §2, §3; issue 28).

A field the definition requires and the object lacks is an error at the
object's line: the API server refuses the object. A field the definition
does not know is a warning at the field's line naming the nearest known
one: the API server refuses it under kubectl's strict validation or drops
it, and either way the field says nothing (``spec.template`` instead of
``spec.podTemplate`` leaves the pods without the template's labels).

The field lists are §3's, per kind and version, which agree with the
definitions upstream ships (``k8s/crds`` of kubernetes-sigs/agent-sandbox at
2fd412d). Only the levels §3 lists are looked into; below them (a PodSpec,
a NetworkPolicy rule, ``podTemplate.metadata``) any key is accepted. An
object of an apiVersion §2 does not list is not checked at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import msgspec

from lint.checks.candidates import location_of
from lint.checks.context import precise_location, rule_finding
from lint.inventory import Inventory, KubeObject
from lint.kinds import SANDBOX, SANDBOX_CLAIM, SANDBOX_TEMPLATE, SANDBOX_WARM_POOL
from lint.report.model import Finding


class Fields(msgspec.Struct, frozen=True):
    """The keys one mapping of an object may hold: each known key, with the
    fields below it when they are checked too (None: any value), and the
    keys that must be present."""

    known: Mapping[str, Fields | None]
    required: tuple[str, ...] = ()


_NAME_REF: Final = Fields({"name": None}, required=("name",))
_POD_TEMPLATE: Final = Fields({"metadata": None, "spec": None}, required=("spec",))
_TEMPLATE_V1BETA1: Final = {
    "podTemplate": _POD_TEMPLATE,
    # Its only fields are `ingress` and `egress`: the controller sets the rest.
    "networkPolicy": Fields({"ingress": None, "egress": None}),
    "networkPolicyManagement": None,
    "volumeClaimTemplates": None,
    "service": None,
    "envVarsInjectionPolicy": None,
    "volumeClaimTemplatesPolicy": None,
}
_TEMPLATE_V1ALPHA1: Final = {
    key: value for key, value in _TEMPLATE_V1BETA1.items() if key != "volumeClaimTemplatesPolicy"
}
_WARM_POOL: Final = {
    "sandboxTemplateRef": _NAME_REF,
    "replicas": None,
    "updateStrategy": Fields({"type": None}),
}
_CLAIM_SHARED: Final = {
    "additionalPodMetadata": Fields({"labels": None, "annotations": None}),
    "env": None,
    "lifecycle": Fields(
        {"shutdownTime": None, "ttlSecondsAfterFinished": None, "shutdownPolicy": None}
    ),
}
_SANDBOX_SHARED: Final = {
    # §3 does not say that a Sandbox's podTemplate needs a `spec`: not required here.
    "podTemplate": Fields({"metadata": None, "spec": None}),
    "volumeClaimTemplates": None,
    "service": None,
    "shutdownTime": None,
    "shutdownPolicy": None,
}

SPECS: Final[Mapping[tuple[str, str], Fields]] = {
    (SANDBOX_TEMPLATE.name, "v1beta1"): Fields(_TEMPLATE_V1BETA1, required=("podTemplate",)),
    (SANDBOX_TEMPLATE.name, "v1alpha1"): Fields(_TEMPLATE_V1ALPHA1, required=("podTemplate",)),
    (SANDBOX_WARM_POOL.name, "v1beta1"): Fields(_WARM_POOL, required=("sandboxTemplateRef",)),
    # §3 gives one field table for both versions; v1alpha1 has no default
    # for `replicas`, so it is required there.
    (SANDBOX_WARM_POOL.name, "v1alpha1"): Fields(
        _WARM_POOL, required=("sandboxTemplateRef", "replicas")
    ),
    (SANDBOX_CLAIM.name, "v1beta1"): Fields(
        {**_CLAIM_SHARED, "warmPoolRef": _NAME_REF, "volumeClaimTemplates": None},
        required=("warmPoolRef",),
    ),
    (SANDBOX_CLAIM.name, "v1alpha1"): Fields(
        {**_CLAIM_SHARED, "sandboxTemplateRef": _NAME_REF, "warmpool": None},
        required=("sandboxTemplateRef",),
    ),
    (SANDBOX.name, "v1beta1"): Fields(
        {**_SANDBOX_SHARED, "operatingMode": None}, required=("podTemplate",)
    ),
    (SANDBOX.name, "v1alpha1"): Fields(
        {**_SANDBOX_SHARED, "replicas": None}, required=("podTemplate",)
    ),
}
"""The fields of ``spec``, per kind and version (AGENT-SANDBOX §3)."""

_KINDS: Final = (SANDBOX_TEMPLATE, SANDBOX_WARM_POOL, SANDBOX_CLAIM, SANDBOX)


@dataclass
class _Found:
    missing: list[tuple[str, ...]] = field(default_factory=list)
    unknown: list[tuple[tuple[str, ...], str | None, tuple[str, ...]]] = field(default_factory=list)
    """Each unknown field's path, the nearest known key and every known key."""


def invalid_agent_sandbox_objects(inventory: Inventory) -> list[Finding]:
    """One error per missing required field, one warning per unknown field,
    for every agent-sandbox object of a version §2 lists."""
    findings = []
    for kind in _KINDS:
        for obj in inventory.all_of_kind(kind.key):
            findings.extend(_object_findings(obj, kind.group, kind.name))
    return findings


def _object_findings(obj: KubeObject, group: str, kind: str) -> list[Finding]:
    group_of, _, version = (obj.api_version or "").rpartition("/")
    fields = SPECS.get((kind, version))
    if fields is None or group_of != group or not isinstance(obj.value, dict):
        return []
    found = _Found()
    _walk(obj.value.get("spec"), fields, ("spec",), found)
    what = f"{kind} {_name(obj)} ({obj.api_version})"
    findings = [
        rule_finding(
            "agent-sandbox-invalid",
            f"{what} has no {_dotted(path)}, which its CustomResourceDefinition requires; "
            "the API server refuses the object",
            location_of(obj),
            obj=obj,
        )
        for path in found.missing
    ]
    for path, nearest, known in found.unknown:
        hint = (
            f"did you mean {_dotted((*path[:-1], nearest))}?"
            if nearest is not None
            else f"the fields known there are {', '.join(known)}"
        )
        message = (
            f"{what}: {_dotted(path)} is not a field its CustomResourceDefinition knows, so "
            f"it has no effect; {hint}"
        )
        location = precise_location(obj, path)
        findings.append(rule_finding("agent-sandbox-unknown-field", message, location, obj=obj))
    return findings


def _walk(value: object, fields: Fields, path: tuple[str, ...], found: _Found) -> None:
    """Record what ``value`` lacks and holds beyond ``fields``. A value of
    another type than a mapping is left to the checks that read it."""
    if value is None:
        found.missing.extend((*path, key) for key in fields.required)
        return
    if not isinstance(value, dict):
        return
    for key in fields.required:
        if value.get(key) is None:
            found.missing.append((*path, key))
    known = sorted(fields.known)
    for key in sorted(value, key=str):
        if not isinstance(key, str):
            continue
        if key not in fields.known:
            import difflib  # noqa: PLC0415 - only for an unknown field

            nearest = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            found.unknown.append(((*path, key), nearest[0] if nearest else None, tuple(known)))
            continue
        below = fields.known[key]
        if below is not None and value[key] is not None:
            _walk(value[key], below, (*path, key), found)


def _name(obj: KubeObject) -> str:
    return f"{obj.namespace}/{obj.display_name}" if obj.namespace else obj.display_name


def _dotted(path: tuple[str | None, ...]) -> str:
    return ".".join(part for part in path if part is not None)
