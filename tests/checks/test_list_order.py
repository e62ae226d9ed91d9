"""The order candidates are judged in (``by_name``): API-server list order,
and copies of one name ordered by their content, so no file or document
order decides which copy a refusal names first."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lint.checks.candidates import Sourced, by_name, merged_by_name, with_synthesized
from lint.checks.context import CheckContext
from lint.checks.judging import _prepare, _prepared_with
from lint.decision.model import Candidate
from lint.inventory import Inventory, KubeObject, Namespace, build_inventory
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


@given(_OBJECTS, st.lists(st.sampled_from(["a", "b", "c", "é", "B", "bb"]), max_size=4))
def test_controller_policies_go_in_where_sorting_the_namespace_again_puts_them(
    specs: list[tuple[str | None, dict[str, int]]], names: list[str]
) -> None:
    """Each synthesized policy is put in among the namespace's sorted ones
    where a stable sort of them all puts it: after the manifests of an
    equal name, and in its own order among equal synthesized ones."""
    namespace = Namespace("team")
    for i, (name, value) in enumerate(specs):
        namespace.objects["NetworkPolicy"].append(_object(i, name, value))
    synthesized = [
        Sourced(
            Candidate("NetworkPolicy", {"metadata": {"name": name}}, 0),
            "synthesized",
            _object(100 + i, name, {}),
            ("spec", "networkPolicy"),
        )
        for i, name in enumerate(names)
    ]
    objects = namespace.ordered("NetworkPolicy", by_name)
    by_sorting = sorted(
        [*((obj, None) for obj in objects), *((item.obj, item) for item in synthesized)],
        key=lambda pair: (pair[0].name is None, (pair[0].name or "").encode()),
    )
    merged = merged_by_name(namespace, synthesized)
    assert [(id(obj), id(item)) for obj, item in merged] == [
        (id(obj), id(item)) for obj, item in by_sorting
    ]


def _synthesized(name: str) -> Sourced:
    obj = _object(50, name, {})
    return Sourced(
        Candidate("NetworkPolicy", {"metadata": {"name": name}}, 0),
        "synthesized",
        obj,
        ("spec", "networkPolicy"),
    )


def test_a_manifest_is_prepared_once_per_place_it_takes() -> None:
    """Templates whose controller policies sort elsewhere move the
    namespace's manifests by other counts: each manifest's preparation is
    kept per place, and a template's run is the one made afresh."""
    namespace = Namespace("team")
    for i, name in enumerate(["a", "c", "e"]):
        namespace.objects["NetworkPolicy"].append(_object(i, name, {}))
    ctx = CheckContext(build_inventory([], "team"), [])
    for names in (["b"], ["d"], ["b"], ["b", "d"], ["f"]):
        synthesized = [_synthesized(name) for name in names]
        run = _prepared_with(ctx, namespace, synthesized)
        fresh = tuple(map(_prepare, with_synthesized(namespace, synthesized)))
        assert run == fresh
        assert [p.item.candidate.position for p in run] == list(range(len(run)))
        assert [p.item.obj.name for p in run] == sorted(["a", "c", "e", *names])
