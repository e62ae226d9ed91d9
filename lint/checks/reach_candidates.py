"""What reach is offered: the objects of the new kinds a sandbox namespace
can be governed by, and the data their readers look up
(CLUSTER-POLICIES §1.5, §2.1, §2.3, §7).

Every new-kind object is offered whatever the engine: its presence in the
manifests is the evidence that the cluster may enforce it (§1.5). Each kind's
objects come sorted by name (§5.1), kinds in the table's order; the objects
of kinds the table does not name (§7 catch-alls) come last, by key and name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from lint.checks.candidates import by_name, location_of
from lint.checks.context import rule_finding
from lint.decision.reach.model import LabelView, ReachCandidate, ReachData, namespace_label_view
from lint.decision.values import compact_json
from lint.declarations.entries import Declarations
from lint.inventory import Inventory, KubeObject
from lint.kinds import (
    CALICO_GLOBAL_NETWORK_SET,
    CALICO_NETWORK_SET,
    CALICO_TIER,
    CILIUM_CIDR_GROUP,
    CILIUM_CONFIG_MAP_NAME,
    CILIUM_CONFIG_NAMESPACE,
    CONFIG_MAP,
    KINDS,
    NAMESPACE,
    SERVICE_ACCOUNT,
    Decision,
    Kind,
    Scope,
)
from lint.report.model import Finding, Location

REACH_KINDS: tuple[Kind, ...] = tuple(
    kind for kind in KINDS if kind.read and kind.decision in (Decision.REACH, Decision.CATCH_ALL)
)
"""The kinds reach judges, in the table's order."""


class Offered(msgspec.Struct, frozen=True):
    """One candidate with the object it came from."""

    candidate: ReachCandidate
    obj: KubeObject


def offered(obj: KubeObject, position: int) -> Offered:
    entry = obj.entry
    api_version = obj.api_version
    if api_version is None:
        api_version = entry.api_version if entry is not None else ""
    candidate = ReachCandidate(api_version, obj.kind_name, obj.value, position, obj.namespace)
    return Offered(candidate, obj)


def _numbered(objects: Iterable[KubeObject], ordered: bool = False) -> list[Offered]:
    """The objects as candidates at their places in name order (``ordered``:
    they are in it already)."""
    in_order = objects if ordered else by_name(objects)
    return [offered(obj, position) for position, obj in enumerate(in_order)]


def reach_candidates(inventory: Inventory, namespace: str) -> tuple[Offered, ...]:
    """The new-kind candidates for a sandbox in ``namespace`` (§2.1, §7):
    cluster-scoped kinds always, namespaced kinds in that namespace, and
    Cilium's ``kube-system/cilium-config`` ConfigMap (``enable-policy: never``)."""
    found: list[Offered] = []
    own = inventory.namespace(namespace)
    for kind in REACH_KINDS:
        if kind.scope is Scope.CLUSTER:
            found += _numbered(inventory.ordered_cluster(kind.key, by_name), ordered=True)
        else:
            found += _numbered(own.ordered(kind.key, by_name), ordered=True)
    unlisted: dict[str, list[KubeObject]] = {}
    for obj in inventory.unlisted:
        if obj.namespace in (None, namespace):
            unlisted.setdefault(obj.kind, []).append(obj)
    for key in sorted(unlisted):
        found += _numbered(unlisted[key])
    cilium_config = [
        obj
        for obj in inventory.namespace(CILIUM_CONFIG_NAMESPACE).of_kind(CONFIG_MAP.key)
        if obj.name == CILIUM_CONFIG_MAP_NAME
    ]
    found += _numbered(cilium_config)
    return tuple(found)


def _labels_of(obj: KubeObject) -> dict[str, str] | None:
    """``metadata.labels`` when absent or an object of strings, else None
    (unreadable: the view stays partial)."""
    value = obj.value
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        return None
    labels = metadata.get("labels")
    if labels is None:
        return {}
    if not isinstance(labels, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
    ):
        return None
    return dict(labels)


def manifest_namespace_labels(inventory: Inventory) -> dict[str, dict[str, str] | None]:
    """Each namespace named by exactly one readable Namespace manifest, with
    its labels; None for a namespace named by several, or by one whose labels
    cannot be read (§2.3)."""
    named: dict[str, list[KubeObject]] = {}
    for obj in inventory.cluster_objects(NAMESPACE.key):
        if obj.name is not None:
            named.setdefault(obj.name, []).append(obj)
    return {name: _labels_of(objs[0]) if len(objs) == 1 else None for name, objs in named.items()}


def namespace_views(
    inventory: Inventory, declared: Mapping[str, Mapping[str, str]]
) -> dict[str, LabelView]:
    """§2.3 and §11 Q3: a Namespace manifest's labels (a manifest that
    cannot be read as one set of labels leaves the view partial); else the
    labels the declaration file states; else (no entry) the partial view."""
    views: dict[str, LabelView] = {}
    manifests = manifest_namespace_labels(inventory)
    for name, labels in declared.items():
        views[name] = namespace_label_view(name, labels)
    for name, manifest_labels in manifests.items():
        if manifest_labels is not None:
            views[name] = namespace_label_view(name, manifest_labels)
        else:
            views.pop(name, None)
    return views


def service_account_views(inventory: Inventory) -> dict[tuple[str, str], LabelView]:
    """§2.3: labels known from exactly one readable ServiceAccount manifest."""
    views: dict[tuple[str, str], LabelView] = {}
    for namespace in inventory.namespaces.values():
        named: dict[str, list[KubeObject]] = {}
        for obj in namespace.of_kind(SERVICE_ACCOUNT.key):
            if obj.name is not None:
                named.setdefault(obj.name, []).append(obj)
        for name, objects in named.items():
            labels = _labels_of(objects[0]) if len(objects) == 1 else None
            if labels is not None:
                views[(namespace.name, name)] = LabelView(labels, frozenset(), complete=True)
    return views


def reach_data(inventory: Inventory, declared: Mapping[str, Mapping[str, str]]) -> ReachData:
    """The data-only kinds, gathered once per run."""
    network_sets = [
        offered.candidate
        for kind in (CALICO_NETWORK_SET, CALICO_GLOBAL_NETWORK_SET)
        for offered in _numbered(inventory.all_of_kind(kind.key))
    ]
    return ReachData(
        namespace_labels=namespace_views(inventory, declared),
        service_accounts=service_account_views(inventory),
        cidr_groups=tuple(
            o.candidate for o in _numbered(inventory.all_of_kind(CILIUM_CIDR_GROUP.key))
        ),
        calico_tiers=tuple(o.candidate for o in _numbered(inventory.all_of_kind(CALICO_TIER.key))),
        network_sets=tuple(network_sets),
    )


def namespace_label_disagreements(
    inventory: Inventory, declarations: Declarations
) -> list[Finding]:
    """``namespace-labels-disagree``: a ``namespaces:`` entry whose labels
    differ from its Namespace manifest's, which wins (§11 Q3)."""
    findings = []
    manifests = manifest_namespace_labels(inventory)
    for name, declared in sorted(declarations.namespaces.items()):
        if name not in manifests:
            continue
        manifest = manifests[name]
        stated = namespace_label_view(name, declared).values
        if manifest is not None and namespace_label_view(name, manifest).values == stated:
            continue
        objects = [o for o in inventory.cluster_objects(NAMESPACE.key) if o.name == name]
        where = Location(declarations.file or "", declarations.line_of(f'namespaces["{name}"]'))
        message = (
            f"namespaces[{name!r}] states the labels {compact_json(dict(declared))}, but the "
            f"Namespace manifest {name} "
            + (
                f"has {compact_json(manifest)}; the manifest's labels are the ones read"
                if manifest is not None
                else "cannot be read as one set of labels; neither is trusted"
            )
        )
        related = [location_of(obj) for obj in objects]
        findings.append(rule_finding("namespace-labels-disagree", message, where, related=related))
    return findings
