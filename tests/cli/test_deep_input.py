"""Deep input fails closed (issue 26, item 5): a Calico selector nested a
few hundred levels deep (under 1 KB) ended in RecursionError and exit 3;
now it is unreadable, its policy not evaluable at its file and line, and
the check exits 1. A baseline nested past the decoder's stack is a usage
error naming the file, not exit 3."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lint.cli import main
from lint.decision.model import Tri
from lint.decision.reach.calico_selector import (
    MAX_NESTING,
    KeyState,
    SelectorError,
    evaluate,
    parse_selector,
    print_selector,
)
from tests.minimal_tree import DECLARATION, TEMPLATE

MANIFESTS = (
    TEMPLATE
    + """\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: task-egress, namespace: sbx}
spec:
  podSelector:
    matchLabels: {sandbox.namzu.ai/template: task}
  policyTypes: [Egress]
  egress: []
---
apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata: {name: deep}
spec:
  selector: SELECTOR
  types: [Egress]
  egress:
    - action: Allow
"""
)


def nested(levels: int, inner: str = "a == 'b'") -> str:
    return "(" * levels + inner + ")" * levels


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_selector_nested_past_the_bound_is_unreadable() -> None:
    assert isinstance(parse_selector(nested(MAX_NESTING + 1)), SelectorError)
    assert isinstance(parse_selector(nested(5000)), SelectorError)
    assert isinstance(parse_selector("!(" * 3000 + "has(a)" + ")" * 3000), SelectorError)


def test_a_selector_at_the_bound_reads_prints_and_evaluates() -> None:
    deepest = "(" + " || ".join(["has(x)", nested(MAX_NESTING - 1, "!has(a) && has(b)")]) + ")"
    node = parse_selector(deepest)
    assert not isinstance(node, SelectorError)
    assert parse_selector(print_selector(node)) == node
    assert evaluate(node, lambda key: KeyState.UNKNOWN) is Tri.UNKNOWN
    assert evaluate(node, lambda key: KeyState.ABSENT) is Tri.NO


@pytest.mark.parametrize("levels", [240, 5000])
def test_a_deep_calico_selector_fails_closed_end_to_end(in_tmp: Path, levels: int) -> None:
    selector = json.dumps(nested(levels))
    (in_tmp / "m.yaml").write_text(MANIFESTS.replace("SELECTOR", selector))
    (in_tmp / ".egress-lint.yaml").write_text(DECLARATION)
    result = invoke("check", ".", "--format", "json")
    assert result.exit_code == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    unreadable = [f for f in findings if f["ruleId"] == "egress-reach-not-evaluable"]
    assert [(f["file"], f["level"]) for f in unreadable] == [("m.yaml", "error")]
    assert unreadable[0]["line"] >= 17  # the deep policy's document
    assert "nested deeper than" in unreadable[0]["message"]


def test_a_deeply_nested_baseline_is_a_usage_error(in_tmp: Path) -> None:
    (in_tmp / "m.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    deep = "[" * 200_000 + "]" * 200_000
    (in_tmp / "b.json").write_text(f'{{"version": 1, "findings": {deep}}}')
    result = invoke("check", "m.yaml", "--baseline", "b.json")
    assert result.exit_code == 2
    assert "b.json" in result.stderr and "nested too deeply" in result.stderr
