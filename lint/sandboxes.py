"""Which pods a declaration describes: acquisition paths and pod labels
(DESIGN §2.3, SEMANTICS §14 and §17.4, AGENT-SANDBOX §6 and §8).

Three paths: ``direct`` (§6.2 (a)), ``pooled`` (a claim's pod, (c) and
(d)) and ``warm`` (an unclaimed pool pod, (b)). The labels each pod carries
follow the controller version's §8 column.

A declaration's target is a SandboxTemplate, or a workload (issue 17),
whose pods carry its pod template's labels and arrive by the ``direct``
path only. Under ``host: none`` no namzu label is added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import msgspec

from lint.decision.constants import DEFAULT_PROFILE_LABEL, TEMPLATE_LABEL, UNKNOWN_LABEL_VALUE
from lint.decision.controller import (
    CLAIM_UID_LABEL,
    CREATED_BY_LABEL,
    SANDBOX_NAME_HASH_LABEL,
    TEMPLATE_HASH_LABEL,
    WARM_POOL_LABEL,
    name_hash,
    strip_reserved_labels,
)
from lint.decision.controller_versions import NEWEST, ControllerColumn
from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox, HostName
from lint.inventory import KubeObject, Namespace
from lint.kinds import SANDBOX_CLAIM, SANDBOX_TEMPLATE, SANDBOX_WARM_POOL, WORKLOAD_POD_TEMPLATE

Path = Literal["direct", "pooled", "warm"]
PATHS: tuple[Path, ...] = ("direct", "pooled", "warm")


def template_pod_labels(template: KubeObject | None) -> dict[str, str]:
    """``spec.podTemplate.metadata.labels`` of a SandboxTemplate, string
    values only (a non-string label value never reaches a pod)."""
    if template is None:
        return {}
    return _string_labels(_dig(template.value, ("spec", "podTemplate", "metadata", "labels")))


def _string_labels(labels: JSON) -> dict[str, str]:
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


class PodVariant(msgspec.Struct, frozen=True):
    """One pod shape on one path: ``claims`` names the SandboxClaims whose
    ``additionalPodMetadata.labels`` it carries (empty: none), ``pool`` the
    SandboxWarmPool of a warm pod. ``claim_annotations`` maps each
    annotation those claims add to the pod to the first claim (by name)
    that adds it, and that claim's value."""

    path: Path
    claims: tuple[str, ...] = ()
    claim_labels: dict[str, str] = msgspec.field(default_factory=dict)
    pool: str | None = None
    claim_annotations: dict[str, tuple[str, str]] = msgspec.field(default_factory=dict)

    @property
    def claim(self) -> str | None:
        return ", ".join(self.claims) if self.claims else None


def workload_pod_labels(workload: KubeObject | None, kind: str) -> dict[str, str]:
    """The labels of the pods a workload makes: its pod template's
    ``metadata.labels`` (a CronJob's under ``spec.jobTemplate.spec``, a Pod's
    own), string values only."""
    if workload is None:
        return {}
    labels = _dig(workload.value, (*WORKLOAD_POD_TEMPLATE[kind], "metadata", "labels"))
    return _string_labels(labels)


def target_object(declared: DeclaredSandbox, namespace: Namespace) -> KubeObject | None:
    """The declared target in the manifests: the SandboxTemplate, or the workload."""
    return namespace.named(declared.target_kind, declared.template)


def sandbox_template(declared: DeclaredSandbox, namespace: Namespace) -> KubeObject | None:
    """The SandboxTemplate a declaration names; None for a workload."""
    if declared.workload is not None:
        return None
    return namespace.named(SANDBOX_TEMPLATE.name, declared.template)


def pod_labels(
    declared: DeclaredSandbox,
    target: KubeObject | None,
    path: Path | PodVariant,
    column: ControllerColumn = NEWEST,
) -> dict[str, str]:
    """The pod's labels on one path (§17.4, AGENT-SANDBOX §6): the
    template's labels (minus the reserved keys, where the version strips
    them); except on a warm pod, the template label (namzu host only), the
    profile label and the entry's ``podLabels``, which the host's Sandbox or
    claim adds; a claim's labels; ``sandbox-name-hash`` of unknown value
    on every path; the template-ref-hash on pooled and warm pods where the
    version puts it there, and the warm pool's own labels on a warm pod.
    A workload's pods (issue 17), which the controller never makes, carry
    its pod template's labels and the entry's ``podLabels``."""
    if declared.workload is not None:
        labels = workload_pod_labels(target, declared.workload.kind)
        labels.update(declared.pod_labels)
        return labels
    variant = path if isinstance(path, PodVariant) else PodVariant(path)
    strip = strip_reserved_labels if column.strips_reserved else dict
    labels = strip(template_pod_labels(target))
    if variant.path != "warm":
        # The host adds these to the Sandbox or the claim it creates; an
        # unclaimed pool pod has neither (§6.2 (b)).
        if declared.host == "namzu":
            labels[TEMPLATE_LABEL] = declared.template
        if declared.profile is not None:
            labels[profile_key(declared.egress)] = declared.profile
        labels.update(declared.pod_labels)
    for key, value in strip(variant.claim_labels).items():
        labels.setdefault(key, value)
    labels[SANDBOX_NAME_HASH_LABEL] = UNKNOWN_LABEL_VALUE
    if variant.path == "direct":
        return labels
    if column.hash_on_pods == "pooled":
        labels[TEMPLATE_HASH_LABEL] = name_hash(declared.template)
        if variant.path == "warm":
            pool = variant.pool
            labels[WARM_POOL_LABEL] = name_hash(pool) if pool else UNKNOWN_LABEL_VALUE
            labels[CREATED_BY_LABEL] = "controller"
    elif column.hash_on_pods == "never-written" and variant.path == "pooled":
        labels[CLAIM_UID_LABEL] = UNKNOWN_LABEL_VALUE
    return labels


def pools_naming(namespace: Namespace, template_name: str) -> list[KubeObject]:
    """SandboxWarmPools in the namespace whose ``sandboxTemplateRef.name`` is the template."""
    return [
        pool
        for pool in namespace.of_kind(SANDBOX_WARM_POOL.name)
        if _dig(pool.value, ("spec", "sandboxTemplateRef", "name")) == template_name
    ]


def claim_template(namespace: Namespace, claim: KubeObject) -> str | None:
    """The template a SandboxClaim's pod comes from (AGENT-SANDBOX §3.3):
    v1alpha1's ``sandboxTemplateRef.name``, or the template of the pool
    v1beta1's ``warmPoolRef.name`` names, in the claim's namespace."""
    direct = _dig(claim.value, ("spec", "sandboxTemplateRef", "name"))
    if isinstance(direct, str):
        return direct
    pool_name = _dig(claim.value, ("spec", "warmPoolRef", "name"))
    if not isinstance(pool_name, str):
        return None
    pool = namespace.named(SANDBOX_WARM_POOL.name, pool_name)
    name = _dig(pool.value, ("spec", "sandboxTemplateRef", "name")) if pool else None
    return name if isinstance(name, str) else None


def claims_naming(namespace: Namespace, template_name: str) -> list[KubeObject]:
    """SandboxClaims in the namespace whose pods come from the template, by name."""
    claims = [
        claim
        for claim in namespace.of_kind(SANDBOX_CLAIM.name)
        if claim.name is not None and claim_template(namespace, claim) == template_name
    ]
    return sorted(claims, key=lambda claim: claim.name or "")


def claim_labels(claim: KubeObject) -> dict[str, str]:
    """``spec.additionalPodMetadata.labels`` of a claim, string values only."""
    return _string_labels(_dig(claim.value, ("spec", "additionalPodMetadata", "labels")))


def claim_annotations(claim: KubeObject) -> dict[str, str]:
    """``spec.additionalPodMetadata.annotations`` of a claim, string values only."""
    return _string_labels(_dig(claim.value, ("spec", "additionalPodMetadata", "annotations")))


WITHOUT_HOST: Final = (
    "without the namzu host, a SandboxTemplate's pods come only out of SandboxClaims "
    "and SandboxWarmPools (a Sandbox names no template)"
)
"""Why the pooled path exists for a ``host: none`` template that no claim or
pool in the manifests names (AGENT-SANDBOX §3.4, §6.2)."""


def implied_paths(
    namespace: Namespace, template_name: str, host: HostName = "namzu"
) -> dict[Path, str]:
    """The paths the manifests make possible for the template, each with why
    it exists. The direct path is the namzu host's own (it creates Sandboxes
    from the template); without it a template's pods arrive pooled only,
    claimed or out of a warm pool (issue 25; DESIGN §13)."""
    paths: dict[Path, str] = {}
    if host == "namzu":
        paths["direct"] = "the host creates Sandboxes of the template directly"
    pools = [p.display_name for p in pools_naming(namespace, template_name)]
    claims = [c.display_name for c in claims_naming(namespace, template_name)]
    if pools or claims:
        named = [f"SandboxWarmPool {n!r}" for n in pools] + [f"SandboxClaim {n!r}" for n in claims]
        paths["pooled"] = f"{', '.join(named)} name{'s' if len(named) == 1 else ''} the template"
    elif host != "namzu":
        paths["pooled"] = WITHOUT_HOST
    if pools:
        listed = ", ".join(repr(n) for n in pools)
        paths["warm"] = f"SandboxWarmPool {listed} keeps unclaimed pods of the template"
    return paths


def acquisition_paths(
    declared: tuple[str, ...] | None,
    namespace: Namespace,
    template_name: str,
    host: HostName = "namzu",
) -> tuple[Path, ...]:
    """The paths to check (DESIGN §2.3): the declared ones, or those the
    manifests imply for the host (``implied_paths``)."""
    if declared:
        return tuple(p for p in PATHS if p in declared)
    implied = implied_paths(namespace, template_name, host)
    return tuple(p for p in PATHS if p in implied)


def declared_paths(declared: DeclaredSandbox, namespace: Namespace) -> tuple[Path, ...]:
    """The paths one declaration is checked on: ``direct`` for a workload,
    :func:`acquisition_paths` for a template."""
    if declared.workload is not None:
        return ("direct",)
    return acquisition_paths(declared.paths, namespace, declared.template, declared.host)


def pod_variants(path: Path, namespace: Namespace, template_name: str) -> list[PodVariant]:
    """The pod shapes of one path. ``pooled``: one for the host's own claims
    (no added labels) unless every claim of the template is in the manifests
    and no pool exists, then one per distinct label set of the manifests'
    claims, naming them (a claim adding no label joins the host's entry when
    a pool exists). ``warm``: one per pool (the pool's name is in a
    label); ``direct``: one."""
    if path == "direct":
        return [PodVariant("direct")]
    pools = sorted(p.display_name for p in pools_naming(namespace, template_name))
    if path == "warm":
        return [PodVariant("warm", pool=pool) for pool in pools] or [PodVariant("warm")]
    by_labels: dict[tuple[tuple[str, str], ...], list[str]] = {}
    annotating: dict[tuple[tuple[str, str], ...], list[KubeObject]] = {}
    claims = claims_naming(namespace, template_name)
    if pools or not claims:
        by_labels[()] = []
    for claim in claims:
        labels = tuple(sorted(claim_labels(claim).items()))
        annotating.setdefault(labels, []).append(claim)
        if pools and not labels:
            continue  # the host's own claims' pod: the unnamed entry
        by_labels.setdefault(labels, []).append(claim.display_name)
    variants = [
        PodVariant(
            "pooled",
            tuple(names),
            dict(labels),
            claim_annotations=_annotations_added(annotating.get(labels, [])),
        )
        for labels, names in by_labels.items()
    ]
    return sorted(variants, key=lambda variant: variant.claims)


def _annotations_added(claims: list[KubeObject]) -> dict[str, tuple[str, str]]:
    """Every annotation the claims of one pod shape add, with the first
    claim that adds it: one pod shape stands for all of them, so an
    annotation any of them adds is on the shape (AGENT-SANDBOX §6)."""
    added: dict[str, tuple[str, str]] = {}
    for claim in claims:
        for key, value in claim_annotations(claim).items():
            added.setdefault(key, (claim.display_name, value))
    return added
