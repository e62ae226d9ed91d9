"""The order candidates are judged in (``by_name``): API-server list order,
and copies of one name ordered by their content, so no file or document
order decides which copy a refusal names first."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lint.checks.candidates import by_name
from lint.inventory import Inventory, KubeObject, Namespace
from lint.loading.documents import LoadedDocument

_OBJECTS = st.lists(
    st.tuples(
        st.one_of(st.none(), st.sampled_from(["a", "b", "c", "é", "B"])),
        st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 3), max_size=2),
    ),
    max_size=8,
)


def _object(index: int, name: str | None, value: dict[str, int]) -> KubeObject:
    document = LoadedDocument(f"f{index}.yaml", 1, 1, 0, {"metadata": {"name": name}, **value})
    return KubeObject("NetworkPolicy", name, "team", document)


def _by_every_content(objects: list[KubeObject]) -> list[KubeObject]:
    """The order written plainly: name (unnamed last, in load order), then
    the content of every named object."""

    def key(obj: KubeObject) -> tuple[bool, bytes, str]:
        content = "" if obj.name is None else json.dumps(obj.value, sort_keys=True)
        return (obj.name is None, (obj.name or "").encode(), content)

    return sorted(objects, key=key)


@given(_OBJECTS)
def test_copies_of_a_name_are_ordered_by_content_and_nothing_else_moves(
    specs: list[tuple[str | None, dict[str, int]]],
) -> None:
    objects = [_object(i, name, value) for i, (name, value) in enumerate(specs)]
    assert [id(o) for o in by_name(objects)] == [id(o) for o in _by_every_content(objects)]


@given(_OBJECTS)
def test_the_order_does_not_depend_on_the_load_order_of_named_objects(
    specs: list[tuple[str | None, dict[str, int]]],
) -> None:
    named = [_object(i, n, v) for i, (n, v) in enumerate(specs) if n is not None]
    forward = [(o.name, o.value) for o in by_name(named)]
    backward = [(o.name, o.value) for o in by_name(list(reversed(named)))]
    assert forward == backward


@given(_OBJECTS, _OBJECTS)
def test_a_namespace_sorts_once_and_again_when_objects_are_added(
    first: list[tuple[str | None, dict[str, int]]],
    more: list[tuple[str | None, dict[str, int]]],
) -> None:
    namespace = Namespace("team")
    for i, (name, value) in enumerate(first):
        namespace.objects["NetworkPolicy"].append(_object(i, name, value))
    kept = namespace.ordered("NetworkPolicy", by_name)
    assert list(kept) == by_name(namespace.of_kind("NetworkPolicy"))
    assert namespace.ordered("NetworkPolicy", by_name) is kept  # sorted once
    for i, (name, value) in enumerate(more, start=len(first)):
        namespace.objects["NetworkPolicy"].append(_object(i, name, value))
    again = namespace.ordered("NetworkPolicy", by_name)
    assert list(again) == by_name(namespace.of_kind("NetworkPolicy"))


@given(_OBJECTS)
def test_a_cluster_scoped_kind_is_sorted_once_for_every_namespace(
    specs: list[tuple[str | None, dict[str, int]]],
) -> None:
    inventory = Inventory()
    for i, (name, value) in enumerate(specs):
        inventory.cluster["NetworkPolicy"].append(_object(i, name, value))
    kept = inventory.ordered_cluster("NetworkPolicy", by_name)
    assert list(kept) == by_name(inventory.cluster_objects("NetworkPolicy"))
    assert inventory.ordered_cluster("NetworkPolicy", by_name) is kept
    inventory.cluster["NetworkPolicy"].append(_object(len(specs), "a", {}))
    assert list(inventory.ordered_cluster("NetworkPolicy", by_name)) == by_name(
        inventory.cluster_objects("NetworkPolicy")
    )
