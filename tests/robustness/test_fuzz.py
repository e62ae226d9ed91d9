"""Fuzzing (issue 7, item 3): no input makes an exception escape ``load()``
or the check, and the same input always gives the same output.

The loader gets arbitrary bytes, arbitrary text and text assembled from the
tokens that steer a YAML parser. The check gets real trees (the demo's
shapes, Cilium included) with arbitrary JSON values written into policy
positions: replacing a field, or adding a key the engine reads.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.loading import LoadLimits, load
from lint.report.json_report import render_json
from lint.report.sarif_report import SarifOptions, render_sarif
from lint.report.text_report import render_text
from tests.robustness.mutate import _fields, _roots
from tests.robustness.outcome import Checker
from tests.robustness.strategies import json_values, keys, to_yaml, yaml_texts
from tests.robustness.synthetic import synthetic_trees
from tests.robustness.trees import Tree

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Small limits, so that the limits themselves are fuzzed too.
SMALL = LoadLimits(max_document_size=2048, max_depth=12, max_alias_expansion=500)


def _load_twice(directory: Path, data: bytes, name: str) -> None:
    (directory / name).write_bytes(data)
    previous = Path.cwd()
    os.chdir(directory)
    try:
        for limits in (LoadLimits(), SMALL):
            first = load([name], limits=limits)
            assert load([name], limits=limits) == first
            assert all(problem.line >= 1 for problem in first.problems)
            assert all(document.line >= 1 for document in first.documents)
    finally:
        os.chdir(previous)


@FUZZ
@given(data=st.binary(max_size=300))
def test_any_bytes_load_without_an_exception(tmp_path: Path, data: bytes) -> None:
    _load_twice(tmp_path, data, "f.yaml")


@FUZZ
@given(text=yaml_texts, suffix=st.sampled_from(["yaml", "json"]))
def test_any_yaml_like_text_loads_without_an_exception(
    tmp_path: Path, text: str, suffix: str
) -> None:
    _load_twice(tmp_path, text.encode("utf-8"), f"f.{suffix}")


@FUZZ
@given(value=json_values)
def test_any_value_as_a_document_loads_as_itself(tmp_path: Path, value: Any) -> None:
    text = "kind: Namespace\nvalue: " + to_yaml(value) + "\n"
    (tmp_path / "v.yaml").write_text(text, encoding="utf-8")
    result = load([str(tmp_path / "v.yaml")])
    assert result.problems == ()
    (document,) = result.documents
    assert _same(document.value["value"], value)


_INT64 = range(-(2**63), 2**64)


def _same(loaded: Any, written: Any) -> bool:
    """Equal as Kubernetes reads it: an integer past 64 bits becomes a float."""
    if isinstance(written, float) and math.isnan(written):
        return isinstance(loaded, float) and math.isnan(loaded)
    if isinstance(written, int) and not isinstance(written, bool) and written not in _INT64:
        return loaded == float(written)
    if isinstance(written, list):
        return (
            isinstance(loaded, list)
            and len(loaded) == len(written)
            and all(_same(a, b) for a, b in zip(loaded, written, strict=True))
        )
    if isinstance(written, dict):
        return (
            isinstance(loaded, dict)
            and {str(k) for k in written} == set(loaded)
            and all(_same(loaded[str(k)], v) for k, v in written.items())
        )
    return type(loaded) is type(written) and loaded == written


# -- the check ------------------------------------------------------------

TREES = synthetic_trees()


def _edit_points(tree: Tree) -> list[tuple[int, tuple[str | int, ...]]]:
    points = []
    for index, document in enumerate(tree.documents):
        for root in _roots(document):
            node = document
            for step in root:
                node = node[step]
            points += [(index, path) for path, _ in _fields(node, root)]
    return points


@st.composite
def edited_trees(draw: st.DrawFn) -> tuple[Tree, list[Any]]:
    tree = draw(st.sampled_from(TREES))
    documents = [_copy(d) for d in tree.documents]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        index, path = draw(st.sampled_from(_edit_points(tree)))
        parent = _walk(documents[index], path[:-1])
        if parent is None:
            continue
        value = draw(json_values)
        last = path[-1]
        if isinstance(parent, dict) and (draw(st.booleans()) or not isinstance(last, str)):
            parent[draw(keys)] = value  # a key the policy did not have
        elif isinstance(parent, dict) or (isinstance(parent, list) and _index(parent, last)):
            parent[last] = value
    return tree, documents


def _index(items: list[Any], step: str | int) -> bool:
    return isinstance(step, int) and step < len(items)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _walk(node: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        if (isinstance(node, dict) and step in node) or (
            isinstance(node, list) and isinstance(step, int) and step < len(node)
        ):
            node = node[step]
        else:
            return None
    return node


class _YamlChecker(Checker):
    """Writes documents as YAML flow text, so that NaN and the infinities
    reach the engine as numbers."""

    def report(self, documents: Any) -> Any:
        from lint.checks.runner import run_check  # noqa: PLC0415

        data = "".join(f"---\n{to_yaml(d)}\n" for d in documents).encode()
        return run_check(self._options, stdin=data)


@pytest.mark.slow
@FUZZ
@given(edited=edited_trees())
def test_any_value_in_a_policy_position_is_judged_without_an_exception(
    tmp_path: Path, edited: tuple[Tree, list[Any]]
) -> None:
    tree, documents = edited
    checker = _YamlChecker(tree, tmp_path)
    with checker.running():
        first = checker.report(documents)
        second = checker.report(documents)
    rendered = render_json(first)
    assert render_json(second) == rendered
    assert render_sarif(second, SarifOptions(None, "egress-lint")) == render_sarif(
        first, SarifOptions(None, "egress-lint")
    )
    render_text(first, colour=False, show_suppressed=True)
