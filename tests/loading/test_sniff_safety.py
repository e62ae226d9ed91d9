"""The kind sniff never skips a document the check reads.

Streams are built from shapes chosen to fool a textual kind check: flow
style, JSON, quoted and complex keys, indented documents, anchors and merge
keys, repeated kind keys, comments naming another kind, tags, directives,
content on the marker line, CRLF. Each stream is loaded with and without
the sniff, and against a whole-stream reference parse.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lint.loading.loader as loader_module
from lint.loading import LoadResult, load
from tests.loading.helpers import write
from tests.loading.reference import assert_agrees

KINDS = ["NetworkPolicy", "CiliumNetworkPolicy", "ConfigMap", "Deployment", "Service", "Namespace"]
NAMES = ["agent-sandbox-config", "web", "np-1"]

# Each shape renders a document of kind {kind} named {name}; {other} is a
# kind the shape tries to make the text look like instead.
SHAPES = [
    "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n",
    "kind: {kind}\nmetadata:\n  name: {name}\nspec:\n  kind: {other}\n",
    "{{kind: {kind}, metadata: {{name: {name}}}}}\n",
    '{{"apiVersion": "v1", "kind": "{kind}", "metadata": {{"name": "{name}"}}}}\n',
    '"kind": {kind}\nmetadata: {{name: {name}}}\n',
    "'kind': '{kind}'\nmetadata: {{name: {name}}}\n",
    "? kind\n: {kind}\nmetadata: {{name: {name}}}\n",
    "  kind: {kind}\n  metadata:\n    name: {name}\n",
    "base: &b\n  kind: {kind}\n  metadata: {{name: {name}}}\n<<: *b\n",
    "kind: {other}\n<<: {{kind: {kind}, metadata: {{name: {name}}}}}\n",
    "kind: {other}\nmetadata: {{name: {name}}}\nkind: {kind}\n",
    "kind: {kind} # kind: {other}\nmetadata: {{name: {name}}}\n",
    "# kind: {other}\nkind: {kind}\nmetadata: {{name: {name}}}\n",
    "kind:\n  {kind}\nmetadata: {{name: {name}}}\n",
    "kind: !!str {kind}\nmetadata: {{name: {name}}}\n",
    "kind: ! {kind}\nmetadata: {{name: {name}}}\n",
    "kind: &k {kind}\nmetadata: {{name: {name}}}\nalso: *k\n",
    'metadata: {{name: {name}}}\nkind: "{kind}"\n',
    "kind: '{kind}'\nmetadata:\n  name: \"{name}\"\n",
    "kind: {kind}\nmetadata:\n  name: |-\n    {name}\n",
    "metadata:\n  name: {name}\n  labels:\n    kind: {other}\nkind: {kind}\n",
    "kind: List\nitems:\n- kind: {kind}\n  metadata: {{name: {name}}}\n- kind: {other}\n",
    "kind: {kind}List\nitems:\n- metadata: {{name: {name}}}\n",
    "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\ndata:\n  x: |\n    kind: {other}\n",
    # A plain scalar continued on the next line: the kind is "<other> List".
    "kind: {other}\n  List\nitems:\n- kind: {kind}\n  metadata: {{name: {name}}}\n",
    # Broken: indented content before a column-0 kind line.
    "  kind: {kind}\n  metadata: {{name: {name}}}\nkind: {other}\n",
]
SEPARATORS = [
    "---\n",
    "--- # comment\n",
    "---\n# Source: chart/templates/x.yaml\n",
    "---\n# Source: chart/templates/y.yaml\n---\n",
    "...\n---\n",
    "---\n\n# note\n\n",
    "--- !!map\n",
    "--- {}\n---\n",
]

document = st.builds(
    lambda shape, kind, other, name: shape.format(kind=kind, other=other, name=name),
    st.sampled_from(SHAPES),
    st.sampled_from(KINDS),
    st.sampled_from(KINDS),
    st.sampled_from(NAMES),
)


@st.composite
def streams(draw: st.DrawFn) -> str:
    documents = draw(st.lists(document, min_size=1, max_size=6))
    parts = [draw(st.sampled_from(["", "%YAML 1.1\n---\n", "# header\n"]))]
    for number, text in enumerate(documents):
        if number:
            parts.append(draw(st.sampled_from(SEPARATORS)))
        parts.append(text)
    stream = "".join(parts)
    return stream.replace("\n", "\r\n") if draw(st.booleans()) else stream


def load_unsniffed(path: str, monkeypatch: pytest.MonkeyPatch) -> LoadResult:
    with monkeypatch.context() as patch:
        patch.setattr(loader_module, "certain_kind", lambda text, chunk: None)
        return load([path])


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stream=streams())
# Found by Hypothesis: a JSON value, then '...', then a block document.
# kubectl stops at the '...' (docs/yaml.md); libyaml reads two documents.
@example(
    stream='{"apiVersion": "v1", "kind": "NetworkPolicy", "metadata": {"name": "agent-sandbox-config"}}'
    "\n...\n---\napiVersion: v1\nkind: NetworkPolicy\nmetadata:\n  name: agent-sandbox-config\n"
)
# A stream that starts as JSON and breaks later: the stray '...' is a
# document of its own for the loader, so positions differ from the
# reference's while the documents agree in order.
@example(
    stream='{"apiVersion": "v1", "kind": "NetworkPolicy", "metadata": {"name": "agent-sandbox-config"}}'
    "\n...\n---\napiVersion: v1\nkind: NetworkPolicy\nmetadata:\n  name: agent-sandbox-config\n"
    "---\n  kind: NetworkPolicy\n  metadata: {name: agent-sandbox-config}\nkind: NetworkPolicy\n"
)
# Extra '...' lines after a document are skipped, with no index of their own.
@example(stream="kind: NetworkPolicy\nmetadata: {name: web}\n...\n...\n---\nkind: NetworkPolicy\n")
def test_sniff_never_changes_what_is_loaded(
    stream: str, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tree, "s.yaml", stream)
    sniffed = load(["s.yaml"])
    unsniffed = load_unsniffed("s.yaml", monkeypatch)
    assert sniffed.documents == unsniffed.documents
    assert set(sniffed.problems) <= set(unsniffed.problems)
    # Problems that make the check fail closed are never lost.
    assert {p for p in unsniffed.problems if p.suspect_kind} <= set(sniffed.problems)
    assert_agrees(sniffed, "s.yaml", stream)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["NetworkPolicy", "ConfigMap"])
def test_every_shape_of_a_relevant_kind_is_loaded(
    shape: str, kind: str, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = shape.format(kind=kind, other="Deployment", name="agent-sandbox-config")
    write(tree, "s.yaml", text)
    sniffed, unsniffed = load(["s.yaml"]), load_unsniffed("s.yaml", monkeypatch)
    assert sniffed.documents == unsniffed.documents
    assert {p for p in unsniffed.problems if p.suspect_kind} <= set(sniffed.problems)
    assert_agrees(sniffed, "s.yaml", text)
