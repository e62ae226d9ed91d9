"""Turning one parsed document into the documents the check reads.

A ``kind: List`` or ``<Kind>List`` wrapper, or any object with an ``items``
key (kubectl opens those as lists whatever their kind: ``is_list_object``),
is opened and each item becomes a document of its own (INTEGRATIONS.md
§4.3). Items keep their own line. An ``items`` value that is not a list is
a problem, never "no policies" (quirk Q20). A non-object item of a
NetworkPolicyList or CiliumNetworkPolicyList is kept so the check reads it
as an unreadable policy (SEMANTICS §5.1). An object whose kind or namespace
cannot be read is a problem (``identity``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
from msgspec.structs import replace
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.kinds import (
    CATCH_ALL_GROUPS,
    CONFIG_MAP,
    CONFIG_MAP_NAMES,
    CONTROLLER_IMAGE_NAME,
    CONTROLLER_WORKLOADS,
    TYPED_POLICY_LISTS,
    WORKLOAD_POD_TEMPLATE,
)
from lint.loading.documents import LoadedDocument, LoadProblem
from lint.loading.identity import kind_of, kindless_policy, unreadable_namespace
from lint.loading.kinds import (
    NO_KIND,
    NOT_AN_OBJECT,
    is_list_object,
    item_kind_of,
)
from lint.loading.sniff import suspect_policy
from lint.yaml.parse import node_end_line


@dataclass(slots=True)
class Harvest:
    """What the documents of one file came to."""

    documents: list[LoadedDocument] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    size: int | None = None
    """The bytes of the file, once read (None: it could not be)."""


def keeps(value: dict[str, Any], kind: str, relevant: frozenset[str]) -> bool:
    """Whether an object of this kind is read. Of the ConfigMaps, only the
    controller's ``agent-sandbox-config`` (AGENT-SANDBOX.md §7) and Cilium's
    ``cilium-config`` (CLUSTER-POLICIES §7) are. Every
    object of a group whose kinds may all be policies is read, to fail
    closed (CLUSTER-POLICIES §2.1, §7)."""
    if kind in CONTROLLER_WORKLOADS and kind not in relevant:
        # Not declared as a workload: read only when it runs the controller.
        return runs_controller_image(value, kind)
    if kind not in relevant:
        return in_catch_all_group(value.get("apiVersion"))
    if kind != CONFIG_MAP.name:
        return True
    metadata = value.get("metadata")
    return isinstance(metadata, dict) and metadata.get("name") in CONFIG_MAP_NAMES


def runs_controller_image(value: dict[str, Any], kind: str) -> bool:
    """A workload whose pod has a container image naming the agent-sandbox
    controller: the only one of its kind kept unless a ``workload:``
    declaration names the kind (``lint.kinds.CONTROLLER_WORKLOADS``)."""
    return any(CONTROLLER_IMAGE_NAME in image for _, image in pod_images(value, kind))


def pod_images(value: object, kind: str) -> list[tuple[int, str]]:
    """The image of each container of the pod a workload of ``kind`` makes
    (``lint.kinds.WORKLOAD_POD_TEMPLATE``), by index in ``containers``."""
    containers: Any = value
    for key in (*WORKLOAD_POD_TEMPLATE.get(kind, ()), "spec", "containers"):
        containers = containers.get(key) if isinstance(containers, dict) else None
    if not isinstance(containers, list):
        return []
    return [
        (index, container["image"])
        for index, container in enumerate(containers)
        if isinstance(container, dict) and isinstance(container.get("image"), str)
    ]


def in_catch_all_group(api_version: object) -> bool:
    return isinstance(api_version, str) and api_version.rpartition("/")[0] in CATCH_ALL_GROUPS


def harvest(
    document: LoadedDocument,
    relevant: frozenset[str],
    root: Callable[[], Node | None],
    into: Harvest,
) -> None:
    """Add ``document`` (or its list items) to ``into``, or count it skipped.

    ``root`` gives the document's node tree, for the lines of list items; it
    is only called for a list with an item that is read or reported.
    """
    value = document.value
    if value is None:
        return
    if not isinstance(value, dict):
        into.skipped[NOT_AN_OBJECT] += 1
        return
    kind = kind_of(value)
    if is_list_object(value, kind):
        _open_list(document, kind or NO_KIND, relevant, root, into)
    elif kind is None:
        _kindless(document, value, into)
    elif keeps(value, kind, relevant):
        _keep(document, kind, into)
    else:
        into.skipped[kind] += 1


def _kindless(document: LoadedDocument, value: dict[str, Any], into: Harvest) -> None:
    problem = kindless_policy(document, value)
    if problem is None:
        into.skipped[NO_KIND] += 1
    else:
        into.problems.append(problem)


def _keep(document: LoadedDocument, kind: str, into: Harvest) -> None:
    into.documents.append(document)
    problem = unreadable_namespace(document, kind)
    if problem is not None:
        into.problems.append(problem)


MAX_LIST_NESTING: Final = 16
"""Lists inside lists that are opened. kubectl flattens any depth
(cli-runtime ``FlattenListVisitor``); past this bound the inner list is a
problem that fails closed instead."""


def _open_list(
    wrapper: LoadedDocument,
    kind: str,
    relevant: frozenset[str],
    root: Callable[[], Node | None],
    into: Harvest,
    nesting: int = 1,
) -> None:
    """Add the items of a list. Its node tree, for the items' lines, is
    only composed when an item is read or reported: most items of a large
    list (a ``PodList``) are skipped for their kind alone."""
    items = wrapper.value.get("items")
    if items is None:
        return
    spans = _LazySpans(root, wrapper)
    if not isinstance(items, list):
        into.problems.append(_items_not_a_list(wrapper, kind, spans.get().items_line))
        return
    implied = item_kind_of(kind)
    for index, item in enumerate(items):
        skipped = _skipped_kind(item, kind, implied, relevant)
        if skipped is not None:
            into.skipped[skipped] += 1
            continue
        known = spans.get()
        line, end_line = known.item(index)
        document = replace(
            wrapper, value=item, line=line, end_line=end_line, list_kind=kind, list_index=index
        )
        inner = _Inner(relevant, into, known.node(index), nesting)
        _add_item(document, kind, inner)


def _skipped_kind(
    item: Any, list_kind: str, implied: str | None, relevant: frozenset[str]
) -> str | None:
    """The kind an item is counted under when it is skipped, which its value
    alone settles; None when it is read, opened or reported (``_add_item``)."""
    if isinstance(item, dict):
        kind = kind_of(item) or implied
        if kind is None or is_list_object(item, kind) or keeps(item, kind, relevant):
            return None
        return kind
    if list_kind in TYPED_POLICY_LISTS or implied is None or implied in relevant:
        return None
    return implied


class _Inner(msgspec.Struct, frozen=True):
    """What an item of a list is read with: its node, for the lines of a
    list inside it, and how deep in lists it sits."""

    relevant: frozenset[str]
    into: Harvest
    node: Node | None
    nesting: int


def _add_item(document: LoadedDocument, list_kind: str, inner: _Inner) -> None:
    """Read, open or report an item that ``_skipped_kind`` does not skip."""
    item = document.value
    into = inner.into
    if isinstance(item, dict):
        kind = kind_of(item) or item_kind_of(list_kind)
        if is_list_object(item, kind):
            _nested_list(document, kind or NO_KIND, inner)
        elif kind is None:
            _kindless(document, item, into)
        else:
            _keep(document, kind, into)
    elif list_kind in TYPED_POLICY_LISTS:
        into.documents.append(document)
    else:
        into.problems.append(
            LoadProblem(
                document.file,
                document.line,
                f"item {document.list_index} of the {list_kind} is not an object",
            )
        )


def _nested_list(document: LoadedDocument, kind: str, inner: _Inner) -> None:
    """A list inside a list is opened too, as kubectl flattens it."""
    if inner.nesting >= MAX_LIST_NESTING:
        kind_named, namespace = suspect_policy(document.text)
        inner.into.problems.append(
            LoadProblem(
                document.file,
                document.line,
                f"not read: this {kind} is nested more than {MAX_LIST_NESTING} lists deep",
                suspect_kind=kind_named,
                suspect_namespace=namespace,
            )
        )
        return
    # The inner list's items are placed from its own node; their lines are
    # offsets in the text the outer document was parsed from.
    wrapper = replace(document, list_kind=None, list_index=None)
    node = inner.node
    _open_list(wrapper, kind, inner.relevant, lambda: node, inner.into, inner.nesting + 1)


def _items_not_a_list(wrapper: LoadedDocument, kind: str, line: int) -> LoadProblem:
    if kind in TYPED_POLICY_LISTS:
        # A list carries no namespace: its items take the defaulted one (§5.1).
        suspect: tuple[str | None, str | None] = (item_kind_of(kind), None)
    else:
        suspect = suspect_policy(wrapper.text)
    return LoadProblem(
        wrapper.file,
        line,
        f"the items of this {kind} are not a list, so none of them can be read",
        suspect_kind=suspect[0],
        suspect_namespace=suspect[1],
    )


class _Spans(msgspec.Struct, frozen=True):
    items_line: int
    lines: tuple[tuple[int, int], ...]
    fallback: tuple[int, int]
    nodes: tuple[Node, ...] = ()

    def item(self, index: int) -> tuple[int, int]:
        return self.lines[index] if index < len(self.lines) else self.fallback

    def node(self, index: int) -> Node | None:
        return self.nodes[index] if index < len(self.nodes) else None


class _LazySpans:
    """The spans of a list's items, read from its node tree on first use."""

    __slots__ = ("_root", "_spans", "_wrapper")

    def __init__(self, root: Callable[[], Node | None], wrapper: LoadedDocument) -> None:
        self._root = root
        self._wrapper = wrapper
        self._spans: _Spans | None = None

    def get(self) -> _Spans:
        if self._spans is None:
            self._spans = _item_spans(self._root(), self._wrapper)
        return self._spans


def _item_spans(root: Node | None, wrapper: LoadedDocument) -> _Spans:
    """Lines of the ``items`` key and of each item, read from the node tree."""
    fallback = (wrapper.line, wrapper.end_line)
    offset = wrapper.text_line
    if type(root) is not MappingNode:
        return _Spans(wrapper.line, (), fallback)
    found = [
        pair for pair in root.value if type(pair[0]) is ScalarNode and pair[0].value == "items"
    ]
    if not found:
        return _Spans(wrapper.line, (), fallback)
    key, items = found[-1]
    if type(items) is not SequenceNode:
        return _Spans(offset + key.start_mark.line, (), fallback)
    lines = tuple(
        (offset + item.start_mark.line, offset + node_end_line(item)) for item in items.value
    )
    return _Spans(offset + key.start_mark.line, lines, fallback, tuple(items.value))
