"""Building the label views of reach from the data-only kinds (CLUSTER-POLICIES.md §2.3, §11 Q3).

- Namespace labels: known from exactly one readable `v1` Namespace manifest
  of that name; else from the declaration's ``namespaces:`` entry; else the
  partial view, where only ``kubernetes.io/metadata.name`` is known. A
  manifest, when present, wins; ``declared_disagrees`` tells the caller to
  warn.
- The service account's name from the pod template, and its labels from
  exactly one `v1` ServiceAccount manifest of that name in the namespace.

Pure helpers: the caller gathers the manifests; nothing here reads files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from lint.decision.reach.common import object_name
from lint.decision.reach.model import (
    LabelView,
    ReachCandidate,
    known_labels,
    namespace_label_view,
    partial_labels,
)
from lint.decision.values import JSON

DEFAULT_SERVICE_ACCOUNT: Final = "default"


def _readable_labels(raw: JSON) -> dict[str, str] | None:
    """``metadata.labels`` when absent (no labels) or an object of strings."""
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    if not isinstance(metadata, dict):
        return None
    labels = metadata.get("labels")
    if labels is None:
        return {}
    if isinstance(labels, dict) and all(isinstance(v, str) for v in labels.values()):
        return dict(labels)
    return None


def _named(candidates: Sequence[ReachCandidate], kind: str, name: str) -> list[ReachCandidate]:
    return [
        c
        for c in candidates
        if c.api_version == "v1" and c.kind == kind and object_name(c.raw, c.position) == name
    ]


def manifest_namespace_labels(
    namespace: str, manifests: Sequence[ReachCandidate]
) -> dict[str, str] | None:
    """The labels of exactly one readable Namespace manifest named
    ``namespace``; None with none, several, or unreadable labels (§2.3)."""
    found = _named(manifests, "Namespace", namespace)
    return _readable_labels(found[0].raw) if len(found) == 1 else None


def namespace_view(
    namespace: str,
    manifests: Sequence[ReachCandidate],
    declared: Mapping[str, str] | None = None,
) -> LabelView:
    """§2.3 and §11 Q3: the manifest wins, then the declaration, else partial."""
    labels = manifest_namespace_labels(namespace, manifests)
    if labels is None and declared is not None:
        labels = dict(declared)
    return namespace_label_view(namespace, labels)


def declared_disagrees(
    namespace: str, manifests: Sequence[ReachCandidate], declared: Mapping[str, str] | None
) -> bool:
    """A Namespace manifest and the declaration both state labels, and they
    differ (the `kubernetes.io/metadata.name` label aside, which is forced)."""
    labels = manifest_namespace_labels(namespace, manifests)
    if labels is None or declared is None:
        return False
    forced = namespace_label_view(namespace, labels).values
    return dict(forced) != dict(namespace_label_view(namespace, declared).values)


def service_account_name(pod_template: JSON) -> str:
    """§2.3: `spec.serviceAccountName`, else `spec.serviceAccount` (non-empty
    strings), else `default`."""
    spec = pod_template.get("spec") if isinstance(pod_template, dict) else None
    if isinstance(spec, dict):
        for key in ("serviceAccountName", "serviceAccount"):
            value = spec.get(key)
            if isinstance(value, str) and value:
                return value
    return DEFAULT_SERVICE_ACCOUNT


def service_account_view(
    namespace: str, name: str, manifests: Sequence[ReachCandidate]
) -> LabelView:
    """§2.3: the labels of exactly one ServiceAccount manifest of that name
    in the namespace, known; otherwise partial (no label known)."""
    found = [
        c
        for c in _named(manifests, "ServiceAccount", name)
        if c.namespace_or(namespace) == namespace
    ]
    labels = _readable_labels(found[0].raw) if len(found) == 1 else None
    return partial_labels() if labels is None else known_labels(labels)
