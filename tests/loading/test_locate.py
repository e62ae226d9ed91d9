"""``locate()``: the line of a field, computed on demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.loading import LoadedDocument, locate
from tests.loading.helpers import load_text

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
