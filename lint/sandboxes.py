"""Which pods a declaration describes: acquisition paths and pod labels
(DESIGN §2.3, SEMANTICS §14 and §17.4, AGENT-SANDBOX §6).

A declaration's target is a SandboxTemplate, or a workload (issue 17),
whose pods carry its pod template's labels and arrive by the ``direct``
path only. Under ``host: none`` no namzu label is added."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from lint.decision.constants import DEFAULT_PROFILE_LABEL, TEMPLATE_LABEL
from lint.decision.controller import TEMPLATE_HASH_LABEL, name_hash, strip_reserved_labels
from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox
from lint.inventory import KubeObject, Namespace
from lint.kinds import SANDBOX_TEMPLATE, SANDBOX_WARM_POOL, WORKLOAD_POD_TEMPLATE

Path = Literal["direct", "pooled"]
PATHS: tuple[Path, ...] = ("direct", "pooled")


def template_pod_labels(template: KubeObject | None) -> dict[str, str]:
    """``spec.podTemplate.metadata.labels`` of a SandboxTemplate, string
    values only (a non-string label value never reaches a pod)."""
    if template is None:
        return {}
    labels = _dig(template.value, ("spec", "podTemplate", "metadata", "labels"))
    if not isinstance(labels, dict):
        return {}
    return {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}


def _dig(value: JSON, keys: tuple[str, ...]) -> JSON:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def profile_key(egress: Mapping[str, JSON]) -> str:
    key = egress.get("profileLabelKey")
    return key if isinstance(key, str) else DEFAULT_PROFILE_LABEL


def workload_pod_labels(workload: KubeObject | None, kind: str) -> dict[str, str]:
    """The labels of the pods a workload makes: its pod template's
    ``metadata.labels`` (a CronJob's under ``spec.jobTemplate.spec``, a Pod's
    own), string values only."""
    if workload is None:
        return {}
    labels = _dig(workload.value, (*WORKLOAD_POD_TEMPLATE[kind], "metadata", "labels"))
    if not isinstance(labels, dict):
        return {}
    return {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}


def target_object(declared: DeclaredSandbox, namespace: Namespace) -> KubeObject | None:
    """The declared target in the manifests: the SandboxTemplate, or the workload."""
    return namespace.named(declared.target_kind, declared.template)


def sandbox_template(declared: DeclaredSandbox, namespace: Namespace) -> KubeObject | None:
    """The SandboxTemplate a declaration names; None for a workload."""
    if declared.workload is not None:
        return None
    return namespace.named(SANDBOX_TEMPLATE.name, declared.template)


def pod_labels(declared: DeclaredSandbox, target: KubeObject | None, path: Path) -> dict[str, str]:
    """The pod's labels on one path (§17.4): the template's labels minus the
    reserved keys the controller strips, the template label (namzu host
    only), the profile label, the entry's ``podLabels``; pooled pods also
    carry the template-ref-hash label. A workload's pods carry its pod
    template's labels and the entry's ``podLabels``."""
    if declared.workload is not None:
        labels = workload_pod_labels(target, declared.workload.kind)
        labels.update(declared.pod_labels)
        return labels
    labels = strip_reserved_labels(template_pod_labels(target))
    if declared.host == "namzu":
        labels[TEMPLATE_LABEL] = declared.template
    if declared.profile is not None:
        labels[profile_key(declared.egress)] = declared.profile
    labels.update(declared.pod_labels)
    if path == "pooled":
        labels[TEMPLATE_HASH_LABEL] = name_hash(declared.template)
    return labels


def pools_naming(namespace: Namespace, template_name: str) -> list[KubeObject]:
    """SandboxWarmPools in the namespace whose ``sandboxTemplateRef.name`` is the template."""
    return [
        pool
        for pool in namespace.of_kind(SANDBOX_WARM_POOL.name)
        if _dig(pool.value, ("spec", "sandboxTemplateRef", "name")) == template_name
    ]


def acquisition_paths(
    declared: tuple[str, ...] | None, namespace: Namespace, template_name: str
) -> tuple[Path, ...]:
    """The paths to check (DESIGN §2.3): the declared ones, or direct plus
    pooled when a SandboxWarmPool names the template."""
    if declared:
        return tuple(p for p in PATHS if p in declared)
    if pools_naming(namespace, template_name):
        return PATHS
    return ("direct",)


def declared_paths(declared: DeclaredSandbox, namespace: Namespace) -> tuple[Path, ...]:
    """The paths one declaration is checked on: ``direct`` for a workload,
    :func:`acquisition_paths` for a template."""
    if declared.workload is not None:
        return ("direct",)
    return acquisition_paths(declared.paths, namespace, declared.template)
