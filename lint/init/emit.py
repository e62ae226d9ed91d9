"""The starter declaration file as text: ruamel.yaml's round-trip writer
(the library that reads the declaration file), so the comments that say
what to review are part of the document.

Small mappings and lists of scalars are written in flow style
(``ports: [{protocol: UDP, port: 53}]``), as the documentation writes them;
everything else in block style. Paths under ``renders:`` are written
relative to the directory of the file, as the file's reader resolves them.
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import msgspec
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from lint.decision.values import JSON
from lint.init.propose import Proposed
from lint.init.roots import ProposedRender
from lint.render import HelmRender
from lint.report.escaping import escape

SCHEMA_REFERENCE: Final = ".egress-lint.schema.json"
"""What the ``yaml-language-server`` modeline names: a file beside the
declaration, which ``egress-lint schema`` writes."""
WIDTH: Final = 88
"""Comment lines are wrapped at this width."""


class Starter(msgspec.Struct, frozen=True):
    """Everything the file says."""

    entries: tuple[Proposed, ...]
    renders: tuple[ProposedRender, ...]
    default_namespace: str | None
    header: tuple[str, ...]
    """Sentences for the top of the file, after the fixed ones."""
    renders_note: str | None = None


def declaration_text(starter: Starter, directory: Path) -> str:
    """The file's text; ``directory`` is where it is written."""
    document = CommentedMap()
    document["version"] = 1
    if starter.default_namespace is not None:
        document["defaultNamespace"] = starter.default_namespace
    if starter.renders:
        document["renders"] = _renders(starter.renders, directory)
        if starter.renders_note is not None:
            document.yaml_set_comment_before_after_key(
                "renders", before="\n".join(_lines(starter.renders_note))
            )
    document["sandboxes"] = _sandboxes(starter.entries, starter.default_namespace)
    document.yaml_set_comment_before_after_key(
        "sandboxes",
        before="\n".join(
            _lines(
                "Each entry: the pods of one SandboxTemplate or workload, and what they may "
                "reach. `review:` marks what to check before you rely on it."
            )
        ),
    )
    yaml = YAML()
    yaml.width = 4096  # flow collections stay on one line
    yaml.indent(mapping=2, sequence=4, offset=2)
    stream = io.StringIO()
    yaml.dump(document, stream)
    return _header(starter.header) + stream.getvalue()


def _header(extra: Sequence[str]) -> str:
    sentences = [
        "A starter declaration written by `egress-lint init`. The intent of each entry "
        "is what the manifests let out today, not what the pods should reach: narrow it, "
        "then run `egress-lint check`. The file's fields: docs/declarations.md in the "
        f"egress-lint repository. `egress-lint schema > {SCHEMA_REFERENCE}` writes the "
        "schema editors read through the first line.",
        *extra,
    ]
    lines = [f"# yaml-language-server: $schema={SCHEMA_REFERENCE}"]
    for sentence in sentences:
        lines += ["#", *(f"# {line}" for line in _lines(sentence))]
    return "\n".join(lines) + "\n"


def _lines(text: str, continuation: str = "") -> list[str]:
    """A comment's lines without the ``# `` ruamel adds. Names and messages
    in it come from the input: control characters are shown escaped, so no
    line break can end the comment and start YAML of the input's making."""
    return textwrap.wrap(
        escape(text),
        WIDTH - 6,
        subsequent_indent=continuation,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _review(notes: Sequence[str]) -> str:
    return "\n".join(line for note in notes for line in _lines(f"review: {note}", "  "))


def _renders(renders: Sequence[ProposedRender], directory: Path) -> CommentedSeq:
    items = CommentedSeq()
    for render in renders:
        entry = CommentedMap()
        entry["name"] = render.name
        spec = render.spec
        if isinstance(spec, HelmRender):
            chart = spec.chart
            entry["helm"] = chart if "://" in chart else _relative(chart, directory)
            if spec.values:
                entry["values"] = _flow([_relative(v, directory) for v in spec.values])
            if spec.set_values:
                entry["set"] = _flow(list(spec.set_values))
            if spec.release is not None:
                entry["release"] = spec.release
            if spec.kube_version is not None:
                entry["kubeVersion"] = spec.kube_version
            if spec.api_versions:
                entry["apiVersions"] = _flow(list(spec.api_versions))
        else:
            entry["kustomize"] = _relative(spec.directory, directory)
        if render.namespace is not None:
            entry["namespace"] = render.namespace
        items.append(entry)
    return items


def _relative(path: str, directory: Path) -> str:
    """``path`` (relative to the current directory) relative to ``directory``."""
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(directory))
    return relative.replace(os.sep, "/")


def _sandboxes(entries: Sequence[Proposed], default_namespace: str | None) -> CommentedSeq:
    items = CommentedSeq()
    for proposed in entries:
        entry = CommentedMap()
        if proposed.workload_kind is None:
            entry["template"] = proposed.name
        else:
            entry["workload"] = _flow({"kind": proposed.workload_kind, "name": proposed.name})
        if proposed.namespace != (default_namespace or "default"):
            entry["namespace"] = proposed.namespace
        entry["host"] = proposed.host
        entry["egress"] = _value(proposed.egress)
        if proposed.notes:
            entry.yaml_set_comment_before_after_key(
                "egress", before=_review(proposed.notes), indent=4
            )
        items.append(entry)
    return items


def _value(value: JSON) -> object:
    """A JSON value as ruamel's round-trip types, small collections in flow style."""
    if isinstance(value, dict):
        mapping = CommentedMap((key, _value(item)) for key, item in value.items())
        if _is_small(value):
            mapping.fa.set_flow_style()
        return mapping
    if isinstance(value, list):
        sequence = CommentedSeq(_value(item) for item in value)
        if _is_small(value):
            sequence.fa.set_flow_style()
        return sequence
    return value


def _is_small(value: JSON) -> bool:
    """Scalars only, or (in a list) mappings of scalars only."""
    if isinstance(value, dict):
        return all(not isinstance(item, (dict, list)) for item in value.values())
    if isinstance(value, list):
        return all(
            not isinstance(item, (dict, list)) or (isinstance(item, dict) and _is_small(item))
            for item in value
        )
    return True


def _flow(value: Mapping[str, JSON] | list[JSON]) -> object:
    converted = _value(dict(value) if isinstance(value, Mapping) else list(value))
    assert isinstance(converted, (CommentedMap, CommentedSeq))
    converted.fa.set_flow_style()
    return converted
