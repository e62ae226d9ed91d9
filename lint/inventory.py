"""The inventory: loaded documents grouped into namespaces (DESIGN §2.1).

Each object keeps the document it came from, so a finding can name its file
and line. Namespaced objects without ``metadata.namespace`` take the
defaulted namespace; cluster-scoped kinds are kept apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from lint.decision.values import JSON
from lint.kinds import CLUSTER_KINDS, INVENTORY_KINDS
from lint.loading import LoadedDocument


@dataclass(frozen=True, slots=True)
class KubeObject:
    """One object of a relevant kind, with where it came from."""

    kind: str
    name: str | None
    namespace: str | None
    document: LoadedDocument

    @property
    def value(self) -> JSON:
        return self.document.value

    @property
    def display_name(self) -> str:
        return self.name if self.name is not None else "(unnamed)"


@dataclass
class Namespace:
    """The objects of one namespace, by kind, in load order."""

    name: str
    objects: dict[str, list[KubeObject]] = field(default_factory=lambda: defaultdict(list))

    def of_kind(self, kind: str) -> list[KubeObject]:
        return self.objects.get(kind, [])

    def named(self, kind: str, name: str) -> KubeObject | None:
        """The last object of that kind and name: a later apply replaces an
        earlier one."""
        found = [obj for obj in self.of_kind(kind) if obj.name == name]
        return found[-1] if found else None


@dataclass
class Inventory:
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    cluster: dict[str, list[KubeObject]] = field(default_factory=lambda: defaultdict(list))

    def namespace(self, name: str) -> Namespace:
        if name not in self.namespaces:
            self.namespaces[name] = Namespace(name)
        return self.namespaces[name]

    def cluster_objects(self, kind: str) -> list[KubeObject]:
        return self.cluster.get(kind, [])

    def all_of_kind(self, kind: str) -> list[KubeObject]:
        if kind in CLUSTER_KINDS:
            return self.cluster_objects(kind)
        return [obj for ns in self.namespaces.values() for obj in ns.of_kind(kind)]


def _metadata_string(value: JSON, key: str) -> str | None:
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if not isinstance(metadata, dict):
        return None
    text = metadata.get(key)
    return text if isinstance(text, str) and text else None


def object_kind(document: LoadedDocument) -> str | None:
    """The kind a document stands for: its own ``kind``, else the kind its
    typed list holds. A list item without a readable kind is still a policy
    of the list's kind, judged (and failing closed) like any other
    (SEMANTICS §5.1)."""
    return document.kind


def build_inventory(documents: Iterable[LoadedDocument], default_namespace: str) -> Inventory:
    """Group documents by namespace (DESIGN §2.1)."""
    inventory = Inventory()
    for document in documents:
        kind = object_kind(document)
        if kind is None or kind not in INVENTORY_KINDS:
            continue
        name = _metadata_string(document.value, "name")
        if kind in CLUSTER_KINDS:
            inventory.cluster[kind].append(KubeObject(kind, name, None, document))
            continue
        namespace = _metadata_string(document.value, "namespace") or default_namespace
        inventory.namespace(namespace).objects[kind].append(
            KubeObject(kind, name, namespace, document)
        )
    return inventory
