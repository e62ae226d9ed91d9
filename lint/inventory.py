"""The inventory: loaded documents grouped into namespaces (DESIGN §2.1).

Each object keeps the document it came from, so a finding can name its file
and line. Objects are identified by ``lint.kinds.identify`` (apiVersion and
kind) and filed under their kind's ``key``. Namespaced objects without
``metadata.namespace`` take the defaulted namespace; cluster-scoped kinds are
kept apart. An object of a policy-like kind the table does not name (a §7
catch-all of CLUSTER-POLICIES) is kept in ``unlisted``, with the namespace it
names, if any.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import msgspec

from lint.decision.values import JSON
from lint.kinds import (
    RELEVANT_KINDS,
    SANDBOX_TEMPLATE,
    SERVICE_ACCOUNT,
    WORKLOAD_KINDS,
    Kind,
    Scope,
    identify,
    is_listed,
)
from lint.loading import LoadedDocument


# Made once per document of a relevant kind, 25,000 times on the bench tree.
class KubeObject(msgspec.Struct, frozen=True):
    """One object of a relevant kind, with where it came from. ``kind`` is
    the key of its entry in ``lint.kinds`` (its name, for the kinds the
    union reads); ``entry`` is that entry, when known."""

    kind: str
    name: str | None
    namespace: str | None
    document: LoadedDocument
    entry: Kind | None = None

    @property
    def value(self) -> JSON:
        return self.document.value

    @property
    def display_name(self) -> str:
        return self.name if self.name is not None else "(unnamed)"

    @property
    def api_version(self) -> str | None:
        value = self.document.value
        api_version = value.get("apiVersion") if isinstance(value, dict) else None
        return api_version if isinstance(api_version, str) else None

    @property
    def kind_name(self) -> str:
        """The ``kind`` as written (the kind a typed list holds, for a list item)."""
        return self.document.kind or (self.entry.name if self.entry else self.kind)


Order: TypeAlias = Callable[[list[KubeObject]], list[KubeObject]]
"""A way to sort a kind's objects (``lint.checks.candidates.by_name``)."""

OrderedObjects: TypeAlias = dict[tuple[str, Order], tuple[int, tuple[KubeObject, ...]]]
"""Per kind and order, the objects in that order, with how many there were."""


def _ordered_once(
    kept: OrderedObjects, kind: str, objects: list[KubeObject], order: Order
) -> tuple[KubeObject, ...]:
    built = kept.get((kind, order))
    if built is None or built[0] != len(objects):
        # Objects are only ever appended, while the inventory is built.
        built = (len(objects), tuple(order(objects)))
        kept[(kind, order)] = built
    return built[1]


@dataclass
class Namespace:
    """The objects of one namespace, by kind, in load order."""

    name: str
    objects: dict[str, list[KubeObject]] = field(default_factory=lambda: defaultdict(list))
    _by_name: dict[str, tuple[int, dict[str | None, list[KubeObject]]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """Per kind, the objects by name, with the count of objects it was built
    from: a lookup by name is a dict, not a scan of the kind's objects."""
    _ordered: OrderedObjects = field(default_factory=dict, repr=False, compare=False)
    """Per kind and order, the objects in that order (``ordered``)."""

    def of_kind(self, kind: str) -> list[KubeObject]:
        return self.objects.get(kind, [])

    def named_all(self, kind: str, name: str) -> list[KubeObject]:
        """Every object of that kind and name, in load order."""
        objects = self.of_kind(kind)
        built = self._by_name.get(kind)
        if built is None or built[0] != len(objects):
            # Objects are only ever appended, while the inventory is built.
            names: dict[str | None, list[KubeObject]] = {}
            for obj in objects:
                names.setdefault(obj.name, []).append(obj)
            built = (len(objects), names)
            self._by_name[kind] = built
        return list(built[1].get(name, ()))

    def ordered(self, kind: str, order: Order) -> Sequence[KubeObject]:
        """The kind's objects as ``order`` sorts them, sorted once: every path
        of the namespace asks for the same order again."""
        return _ordered_once(self._ordered, kind, self.of_kind(kind), order)

    def named(self, kind: str, name: str) -> KubeObject | None:
        """The last object of that kind and name: a later apply replaces an
        earlier one. Where two copies exist, ``duplicate-object`` says so,
        and the decisions judge both (``lint.checks.duplicates``)."""
        found = self.named_all(kind, name)
        return found[-1] if found else None


@dataclass
class Inventory:
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    cluster: dict[str, list[KubeObject]] = field(default_factory=lambda: defaultdict(list))
    unlisted: list[KubeObject] = field(default_factory=list)
    """Objects of policy-like kinds the table does not name (§7), in load order."""
    foreign: list[KubeObject] = field(default_factory=list)
    """Agent-sandbox kinds of another API group (another vendor's
    ``SandboxTemplate``), in load order: counted and skipped (issue 14)."""
    _ordered: OrderedObjects = field(default_factory=dict, repr=False, compare=False)
    """Per cluster-scoped kind and order, the objects in that order."""

    def namespace(self, name: str) -> Namespace:
        if name not in self.namespaces:
            self.namespaces[name] = Namespace(name)
        return self.namespaces[name]

    def cluster_objects(self, kind: str) -> list[KubeObject]:
        return self.cluster.get(kind, [])

    def ordered_cluster(self, kind: str, order: Order) -> Sequence[KubeObject]:
        """``Namespace.ordered`` for a cluster-scoped kind: every namespace
        asks for the same order again."""
        return _ordered_once(self._ordered, kind, self.cluster_objects(kind), order)

    def all_of_kind(self, kind: str) -> list[KubeObject]:
        cluster = self.cluster.get(kind)
        if cluster is not None:
            return cluster
        return [obj for ns in self.namespaces.values() for obj in ns.of_kind(kind)]

    def every_object(self) -> Iterator[KubeObject]:
        """Every object, cluster-scoped first, then by namespace, then unlisted."""
        for objects in self.cluster.values():
            yield from objects
        for namespace in self.namespaces.values():
            for objects in namespace.objects.values():
                yield from objects
        yield from self.unlisted


_WORKLOAD_NAMES = frozenset(kind.name for kind in WORKLOAD_KINDS)
_KEPT_WHEN_ASKED = _WORKLOAD_NAMES | {SERVICE_ACCOUNT.name}
"""Kinds the loader keeps only when asked: workloads a declaration names,
and ServiceAccounts when a Calico policy reads their labels (``lint.intake``)."""


def _metadata_string(value: JSON, key: str) -> str | None:
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if not isinstance(metadata, dict):
        return None
    text = metadata.get(key)
    return text if isinstance(text, str) and text else None


def object_kind(document: LoadedDocument) -> Kind | None:
    """The kind a document stands for: its own ``apiVersion`` and ``kind``,
    else the kind its typed list holds. A list item without a readable kind
    is still a policy of the list's kind, judged (and failing closed) like
    any other (SEMANTICS §5.1); it takes the list's apiVersion."""
    name = document.kind
    if name is None or (name not in RELEVANT_KINDS and name not in _KEPT_WHEN_ASKED):
        return None
    value = document.value
    api_version = value.get("apiVersion") if isinstance(value, dict) else None
    if api_version is None and document.list_kind is not None:
        api_version = _list_api_version(document)
    return identify(api_version, name)


def _list_api_version(document: LoadedDocument) -> object:
    """The wrapper's apiVersion, for a typed list's item that names none.
    The wrapper's value is not kept, so it is read back from the item's text."""
    for line in document.text.splitlines():
        if line.startswith("apiVersion:"):
            return line.partition(":")[2].strip().strip("'\"") or None
    return None


def build_inventory(documents: Iterable[LoadedDocument], default_namespace: str) -> Inventory:
    """Group documents by namespace (DESIGN §2.1)."""
    inventory = Inventory()
    for document in documents:
        kind = object_kind(document)
        if kind is None:
            continue
        name = _metadata_string(document.value, "name")
        if not is_listed(kind):
            namespace = _metadata_string(document.value, "namespace")
            inventory.unlisted.append(KubeObject(kind.key, name, namespace, document, kind))
            continue
        if kind.scope is Scope.CLUSTER:
            inventory.cluster[kind.key].append(KubeObject(kind.key, name, None, document, kind))
            continue
        namespace = _metadata_string(document.value, "namespace") or default_namespace
        if _foreign(kind, document.value):
            inventory.foreign.append(KubeObject(kind.key, name, namespace, document, kind))
            continue
        inventory.namespace(namespace).objects[kind.key].append(
            KubeObject(kind.key, name, namespace, document, kind)
        )
    return inventory


def _foreign(kind: Kind, value: JSON) -> bool:
    """A SandboxTemplate whose apiVersion names another group than
    ``extensions.agents.x-k8s.io`` (AGENT-SANDBOX §2): not agent-sandbox's."""
    if kind.name != SANDBOX_TEMPLATE.name:
        return False
    api_version = value.get("apiVersion") if isinstance(value, dict) else None
    if not isinstance(api_version, str):
        return False
    return api_version.rpartition("/")[0] != SANDBOX_TEMPLATE.group
