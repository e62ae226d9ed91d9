"""A slow, independent reading of a stream, to check the fast loader against.

It parses the whole stream with libyaml in one go (no splitting, no sniffing)
and keeps every document the check would read, keyed by its position in the
file and in its list wrapper.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode

from lint.kinds import TYPED_POLICY_LISTS
from lint.loading import RELEVANT_KINDS, LoadResult
from lint.loading.json_stream import json_stream
from lint.loading.kinds import is_list_kind, item_kind_of
from lint.loading.lists import keeps
from lint.yaml.construct import Builder, BuildError
from lint.yaml.tags import MAP_TAG, PLAIN_TAG, SEQ_TAG, STR_TAG

View = dict[tuple[int, int | None], Any]


class _StreamLoader(yaml.CSafeLoader):  # type: ignore[misc]
    def resolve(self, kind: type, value: object, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return PLAIN_TAG if implicit[0] else STR_TAG
        return MAP_TAG if kind is MappingNode else SEQ_TAG


def stream_values(text: str) -> tuple[list[Any], bool]:
    """Every document's value in order, and whether the whole stream parsed."""
    values: list[Any] = []
    loader = _StreamLoader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            builder = Builder(shared=True, tagged_text=text)
            values.append(None if node is None else builder.build(node))
    except (yaml.YAMLError, BuildError, RecursionError):
        return values, False
    finally:
        loader.dispose()
    return values, True


def relevant_view(values: list[Any]) -> View:
    """The documents and list items the check reads, by (index, list index)."""
    view: View = {}
    for index, value in enumerate(values):
        kind = value.get("kind") if isinstance(value, dict) else None
        if not isinstance(kind, str):
            continue
        if not is_list_kind(kind):
            if keeps(value, kind, RELEVANT_KINDS):
                view[(index, None)] = value
            continue
        items = value.get("items")
        for position, item in enumerate(items if isinstance(items, list) else []):
            if _item_read(item, kind):
                view[(index, position)] = item
    return view


def _item_read(item: Any, list_kind: str) -> bool:
    implied = item_kind_of(list_kind)
    if not isinstance(item, dict):
        return list_kind in TYPED_POLICY_LISTS
    own = item.get("kind")
    kind = own if isinstance(own, str) else implied
    return kind is not None and keeps(item, kind, RELEVANT_KINDS)


def loaded_view(result: LoadResult, file: str) -> View:
    """The loader's documents of one file, keyed like ``relevant_view``."""
    return {(d.index, d.list_index): d.value for d in result.documents if d.file == file}


def assert_agrees(result: LoadResult, file: str, text: str) -> None:
    """The loader kept exactly what the reference reads, as far as the
    reference could read the stream."""
    values, complete = stream_values(text)
    expected = relevant_view(values)
    loaded = loaded_view(result, file)
    if complete and json_stream(text) is not None:
        # apimachinery reads this stream as JSON values and then YAML, so a
        # piece libyaml takes as the end of a document (a leading '...')
        # can be a document of its own there: the documents must agree,
        # in order, while their positions may not.
        assert _in_order(loaded) == _in_order(expected), file
        return
    if complete:
        assert loaded == expected, file
        return
    # The loader goes on after a broken document; the reference cannot, so
    # only the documents before the break are compared. The last one the
    # reference read may share its text with the break (libyaml ends a
    # document at a dedent and only then fails): the loader may refuse that
    # text as a whole, provided it reports an error there.
    last = len(values) - 1

    def before(view: View, stop: int) -> View:
        return {key: value for key, value in view.items() if key[0] < stop}

    expected_last = {k: v for k, v in expected.items() if k[0] == last}
    errors = [p for p in result.problems if p.file == file and p.severity == "error"]
    if json_stream(text) is not None:
        # Positions may differ, as above: the documents before the break
        # agree in order, and the next ones are the last the reference
        # read, unless the loader refused its text with an error there.
        wanted = _in_order(before(expected, last))
        ordered = _in_order(loaded)
        assert ordered[: len(wanted)] == wanted, file
        following = ordered[len(wanted) : len(wanted) + len(expected_last)]
        assert following == _in_order(expected_last) or errors, file
        return
    assert before(loaded, last) == before(expected, last), file
    at_last = {k: v for k, v in loaded.items() if k[0] == last}
    assert at_last == expected_last or (not at_last and errors), file


def _in_order(view: View) -> list[Any]:
    return [
        view[key]
        for key in sorted(view, key=lambda key: (key[0], -1 if key[1] is None else key[1]))
    ]
