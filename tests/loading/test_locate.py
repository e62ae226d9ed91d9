"""``locate()``: the line of a field, computed on demand."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from lint.loading import LoadedDocument, locate
from tests.loading.helpers import load_text

# The package exports the function under the module's name.
locate_module = importlib.import_module("lint.loading.locate")

POLICY = """---
# Source: chart/templates/np.yaml
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
spec:
  podSelector:
    matchLabels: {app: web}
  egress:
  - to:
    - ipBlock:
        cidr: 10.0.0.0/8
  - ports:
    - port: 53
      protocol: UDP

  - {to: [{podSelector: {}}]}
"""


def only(tree: Path, text: str) -> LoadedDocument:
    (document,) = load_text(
        tree, "kind: Namespace\nmetadata: {name: first}\n---\n" + text
    ).documents[1:]
    return document


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ((), 6),
        (("metadata",), 8),
        (("metadata", "name"), 9),
        (("spec", "egress"), 13),
        (("spec", "egress", 0), 14),
        (("spec", "egress", 1), 17),
        (("spec", "egress", 2), 21),
        (("spec", "egress", 1, "ports", 0, "protocol"), 19),
        (("spec", "egress", 0, "to", 0, "ipBlock", "cidr"), 16),
        # The deepest step that exists.
        (("spec", "egress", 9), 13),
        (("spec", "missing", "deeper"), 10),
        (("nothing",), 6),
        (("spec", "egress", "not-an-index"), 13),
        (("metadata", 0), 8),
    ],
)
def test_lines_of_nested_paths(tree: Path, path: tuple[str | int, ...], line: int) -> None:
    document = only(tree, POLICY)
    assert document.line == 6
    assert locate(document, path) == line


def test_list_items_are_located_inside_their_wrapper(tree: Path) -> None:
    text = "kind: List\nitems:\n- kind: Namespace\n  metadata: {name: a}\n- kind: Role\n  metadata:\n    name: b\n"
    result = load_text(tree, text)
    role = result.documents[1]
    assert role.line == 5
    assert locate(role, ()) == 5
    assert locate(role, ("metadata", "name")) == 7


def test_merged_keys_are_found_where_they_are_written(tree: Path) -> None:
    text = "kind: Namespace\nbase: &b\n  x: 1\nmetadata:\n  <<: *b\n  name: n\n"
    (document,) = load_text(tree, text).documents
    assert locate(document, ("metadata", "x")) == 3
    assert locate(document, ("metadata", "name")) == 6


def test_the_last_of_repeated_keys_is_located(tree: Path) -> None:
    text = "kind: Namespace\nmetadata: {name: a}\nmetadata:\n  name: b\n"
    (document,) = load_text(tree, text).documents
    assert locate(document, ("metadata", "name")) == 4


def test_keys_are_matched_as_kubernetes_reads_them(tree: Path) -> None:
    text = 'kind: Namespace\nmetadata: {name: n}\ndata:\n  on: 1\n  "off": 2\n  0x10: 3\n'
    (document,) = load_text(tree, text).documents
    assert locate(document, ("data", "true")) == 4
    assert locate(document, ("data", "off")) == 5
    assert locate(document, ("data", "16")) == 6


def test_json_documents_are_located(tree: Path) -> None:
    text = '{\n "kind": "Namespace",\n "metadata": {\n  "name": "j"\n }\n}\n'
    (document,) = load_text(tree, text, name="n.json").documents
    assert locate(document, ("metadata", "name")) == 4


# Items of a large list are located from their own lines, so a list is not
# parsed again for each of its items; the answers must not change.

BLOCK_LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: networking.k8s.io/v1
  kind: NetworkPolicy
  metadata:
    name: first
  spec:
    egress:
    - to: [{podSelector: {}}]
    - ports:
      - port: 53
-   kind: NetworkPolicy   # a wider indent
    metadata: {name: second}
    spec: {egress: [{}, {}]}
- kind: Namespace
  metadata: &meta
    name: third
- kind: Namespace
  metadata: *meta
"""
JSON_LIST = """{
  "kind": "List",
  "items": [
    {
      "kind": "NetworkPolicy",
      "metadata": {"name": "first"},
      "spec": {
        "egress": [
          {"to": []},
          {"ports": [{"port": 53}]}
        ]
      }
    },
    {"kind": "Namespace", "metadata": {"name": "a"}}, {"kind": "Namespace", "metadata": {"name": "b"}}
  ]
}
"""
FLOW_LIST = "kind: List\nitems: [{kind: Namespace, metadata: {name: a}},\n  {kind: Namespace, metadata: {name: b}}]\n"
PATHS: list[tuple[str | int, ...]] = [
    (),
    ("metadata",),
    ("metadata", "name"),
    ("spec", "egress", 1),
    ("spec", "egress", 1, "ports", 0, "port"),
    ("nothing",),
]


@pytest.mark.parametrize(
    ("text", "name"),
    [(BLOCK_LIST, "l.yaml"), (JSON_LIST, "l.json"), (FLOW_LIST, "l.yaml")],
)
def test_items_are_located_as_inside_the_whole_list(
    tree: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str
) -> None:
    items = load_text(tree, text, name=name).documents
    fast = [[locate(item, path) for path in PATHS] for item in items]
    monkeypatch.setattr(locate_module, "_item_root", lambda document: None)
    monkeypatch.setattr(locate_module, "_ANSWERS", locate_module._Answers(10))
    whole = [[locate(item, path) for path in PATHS] for item in items]
    assert fast == whole


def _composed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    texts: list[str] = []
    real = locate_module.compose

    def counting(text: str, *args: Any) -> Any:
        texts.append(text)
        return real(text, *args)

    monkeypatch.setattr(locate_module, "compose", counting)
    monkeypatch.setattr(locate_module, "_NODES", locate_module._NodeCache(2**20))
    monkeypatch.setattr(locate_module, "_ANSWERS", locate_module._Answers(10))
    return texts


def test_a_block_list_is_never_parsed_whole_to_locate_its_items(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "kind: List\nitems:\n" + "".join(
        f"- kind: Namespace\n  metadata:\n    name: n{i}\n" for i in range(50)
    )
    items = load_text(tree, text).documents
    composed = _composed(monkeypatch)
    lines = [locate(item, ("metadata", "name")) for item in items]
    assert lines == [5 + 3 * i for i in range(50)]
    assert text not in composed


def test_a_flow_list_is_parsed_whole_once(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = load_text(tree, FLOW_LIST).documents
    composed = _composed(monkeypatch)
    for _ in range(3):
        assert [locate(item, ("metadata", "name")) for item in items] == [2, 3]
    assert composed.count(FLOW_LIST) == 1


def test_the_node_cache_keeps_a_budget_but_always_the_latest() -> None:
    cache = locate_module._NodeCache(budget=20)
    first, second, big = "a: 1\n", "b: 2\n", "c: " + "x" * 40 + "\n"
    cache.root(first)
    cache.root(second)
    assert list(cache._trees) == [first, second]
    cache.root(big)  # over the budget alone: the others go, the latest stays
    assert list(cache._trees) == [big]
    cache.root(first)
    assert list(cache._trees) == [first]
