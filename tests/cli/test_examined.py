"""``check --format json --examined all|selecting`` (issue 18): ``all``, the
default, is the contract; ``selecting`` leaves out exactly the
``does-not-select`` entries of each decision and counts them in
``notSelecting``. With another format the flag is a usage error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lint.cli import main
from tests.checks.scenario_runner import DEMO, SCENARIOS

TREES = [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())[::6]]


def _check(tree: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    monkeypatch.chdir(tree)
    return CliRunner().invoke(main, ["check", ".", *args], catch_exceptions=False)


def _decisions(sandbox: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every decision of a sandbox entry, by where it sits."""
    egress, ingress = sandbox["egress"], sandbox["ingress"]
    for name, decision in (("union", egress["union"]), ("reach", egress["reach"])):
        if decision is not None:
            yield name, decision
    if ingress is not None:
        yield "ingress", ingress
        if ingress["reach"] is not None:
            yield "ingress.reach", ingress["reach"]


def _without_lists(value: Any) -> Any:
    """The report with every examined list and count taken out."""
    if isinstance(value, dict):
        return {
            k: _without_lists(v) for k, v in value.items() if k not in ("examined", "notSelecting")
        }
    if isinstance(value, list):
        return [_without_lists(v) for v in value]
    return value


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_selecting_leaves_out_exactly_the_entries_that_do_not_select(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full_run = _check(tree, monkeypatch, "--format", "json")
    selecting_run = _check(tree, monkeypatch, "--format", "json", "--examined", "selecting")
    assert selecting_run.exit_code == full_run.exit_code
    full, selecting = json.loads(full_run.stdout), json.loads(selecting_run.stdout)
    assert _without_lists(selecting) == _without_lists(full)
    left_out = 0
    for whole, kept in zip(full["sandboxes"], selecting["sandboxes"], strict=True):
        for (name, decision), (_, cut) in zip(_decisions(whole), _decisions(kept), strict=True):
            quiet = [e for e in decision["examined"] if e["verdict"] == "does-not-select"]
            others = [e for e in decision["examined"] if e["verdict"] != "does-not-select"]
            assert cut["examined"] == others, name
            assert cut["notSelecting"] == len(quiet), name
            assert "notSelecting" not in decision
            # The count sits where the entries were: right after the list.
            keys = list(cut)
            assert keys[keys.index("examined") + 1] == "notSelecting"
            left_out += len(quiet)
    if tree == DEMO:
        assert left_out > 0, "the demo has policies that do not select some pods"


def test_all_is_the_default_and_the_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    default = _check(DEMO, monkeypatch, "--format", "json")
    given = _check(DEMO, monkeypatch, "--format", "json", "--examined", "all")
    assert given.stdout_bytes == default.stdout_bytes
    assert "notSelecting" not in default.stdout
    assert '"verdict":"does-not-select"' in default.stdout


@pytest.mark.parametrize("fmt", ["text", "sarif", "github", "markdown"])
@pytest.mark.parametrize("examined", ["all", "selecting"])
def test_examined_with_another_format_is_a_usage_error(
    fmt: str, examined: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _check(DEMO, monkeypatch, "--format", fmt, "--examined", examined)
    assert result.exit_code == 2
    assert "--examined applies to --format json only" in result.output


def test_examined_takes_only_its_two_words(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(DEMO, monkeypatch, "--format", "json", "--examined", "some")
    assert result.exit_code == 2
    assert "'all'" in result.output and "'selecting'" in result.output
