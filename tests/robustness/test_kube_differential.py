"""A differential property between two readings of the same bytes.

The reference is a small port of how kubectl reads a stream (apimachinery's
``YAMLReader`` and ``YAMLOrJSONDecoder``, cli-runtime's list flattening;
docs/yaml.md names the sources), written here apart from the loader. Every
policy the reference finds must be read by the loader, in the same
namespace, or be covered by a problem that fails that namespace closed.
Streams are built from the fragments where the two have parted: separators
followed by Unicode spaces, form feeds or comments, JSON objects on
consecutive lines, tags, escapes, nested Lists, broken documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.kinds import POLICY_KINDS, RELEVANT_KINDS
from lint.loading.files import SourceFile
from lint.loading.loader import load_file
from lint.yaml.parse import ParseFailure, parse_json, parse_yaml

# Go's unicode.IsSpace, written out again: the reference shares no code
# with the loader.
GO_SPACES = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)
_DECODER = json.JSONDecoder()


def _reference_pieces(text: str) -> Iterator[Any]:
    """The values kubectl decodes from ``text``, in order."""
    lead = text.lstrip(GO_SPACES)
    rest = text
    if lead.startswith("{"):
        position, count = 0, 0
        while True:
            while position < len(text) and text[position] in " \t\r\n":
                position += 1
            if position == len(text):
                return
            try:
                value, end = _DECODER.raw_decode(text, position)
            except ValueError:
                break
            yield value
            count, position = count + 1, end
        if count > 1:
            return
        while position < len(text) and text[position] in GO_SPACES:
            position += 1
            if text[position - 1] == "\n":
                break
        rest = text[position:]
    yield from _yaml_pieces(rest)


def _yaml_pieces(text: str) -> Iterator[Any]:
    buffer: list[str] = []
    for line in text.split("\n"):
        if line.startswith("---"):
            trimmed = line[3:].strip(GO_SPACES)
            if not trimmed or trimmed.startswith("#"):
                yield from _parsed("\n".join(buffer))
                buffer = []
                continue
        buffer.append(line)
    yield from _parsed("\n".join(buffer))


def _parsed(piece: str) -> Iterator[Any]:
    if not piece.strip():
        return
    value = parse_json(piece)
    if value is None:
        try:
            value = parse_yaml(piece).value
        except ParseFailure:
            return  # kubectl refuses the piece (or reads less of it)
    yield value


def _flattened(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    if not isinstance(value, dict):
        return
    kind = value.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and depth < 8:
        for item in value.get("items") or []:
            yield from _flattened(item, depth + 1)
    else:
        yield value


def _namespace(value: dict[str, Any]) -> str | None:
    metadata = value.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return namespace if isinstance(namespace, str) else None


def _policy(namespace: str | None, style: str) -> str:
    body: dict[str, Any] = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "p"} | ({"namespace": namespace} if namespace else {}),
        "spec": {"podSelector": {}, "egress": [{}]},
    }
    if style == "json":
        return json.dumps(body, separators=(",", ":"))
    meta = f"{{name: p{', namespace: ' + namespace if namespace else ''}}}"
    kind = {
        "plain": "NetworkPolicy",
        "tagged": "!k8s NetworkPolicy",
        "binary": "!!binary TmV0d29ya1BvbGljeQ==",
        "escaped": '"Net\\u0077orkPolicy"',
    }[style]
    text = f"apiVersion: networking.k8s.io/v1\nkind: {kind}\nmetadata: {meta}\nspec: {{egress: [{{}}]}}"
    return text


SEPARATORS = [
    "---",
    "--- ",
    "---\u00a0",
    "---\u3000",
    "---\f",
    "---\v",
    "---#c",
    "--- # c",
    "---\u00a0# c",
    "...",
    "----",
    "",
]
OTHERS = [
    "kind: Deployment\nmetadata: {name: d}",
    "{kind: [",
    '{"kind":"ConfigMap","metadata":{"name":"c"}}',
    "a: 1",
    "# just a comment",
]


@st.composite
def fragments(draw: st.DrawFn) -> str:
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.sampled_from(OTHERS))
    namespace = draw(st.sampled_from([None, "a", "b"]))
    style = draw(st.sampled_from(["plain", "tagged", "binary", "escaped", "json"]))
    policy = _policy(namespace, style)
    if choice == 1:
        return policy
    if choice == 2 and style == "json":
        return '{"kind":"List","items":[{"kind":"List","items":[' + policy + "]}]}"
    # A broken copy: the loader cannot parse it, and must fail closed.
    return policy + "\n  broken: [" if style != "json" else policy[:-2]


@st.composite
def streams(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        parts.append(draw(fragments()))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "\n".join(parts[:-1]) + "\n"


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(streams())
def test_every_policy_kubectl_reads_is_read_or_fails_closed(text: str) -> None:
    harvest = load_file(SourceFile("m.yaml", text.encode("utf-8")), RELEVANT_KINDS)
    read = {
        (document.kind, _namespace(document.value))
        for document in harvest.documents
        if isinstance(document.value, dict)
    }
    closed = [
        problem.suspect_namespace
        for problem in harvest.problems
        if problem.severity == "error" and problem.suspect_kind in POLICY_KINDS
    ]
    for value in _reference_pieces(text):
        for obj in _flattened(value):
            if obj.get("kind") not in POLICY_KINDS:
                continue
            namespace = _namespace(obj)
            covered = (obj["kind"], namespace) in read or None in closed or namespace in closed
            assert covered, (obj, text)
