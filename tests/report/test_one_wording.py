"""One wording for every format a person reads: text, SARIF, GitHub
annotations, Markdown and baseline files say a peer the same way, in words
(``lint.report.messages``), never as the compact JSON of the decision's
details. The JSON report alone keeps that raw detail, for programs."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.golden.cases import FIXTURES, fixture_dirs

RAW_PEER = re.compile(r'\{"(?:cidr|podSelector)"')
"""A peer as the decision's compact JSON. (A mismatch with the expected
object quotes the differing field's value whole, which is not a peer.)"""
PERSON_FORMATS = ("text", "sarif", "github", "markdown")


def _run(cwd: Path, args: list[str]) -> str:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return result.output


def _baseline(cwd: Path, tmp_path: Path) -> str:
    written = tmp_path / "baseline.json"
    _run(cwd, ["check", ".", "--write-baseline", str(written)])
    return written.read_text(encoding="utf-8")


@pytest.mark.parametrize("tree", [*fixture_dirs(), "helm"])
def test_no_format_a_person_reads_shows_a_raw_peer(tree: str, tmp_path: Path) -> None:
    outputs = {
        fmt: _run(FIXTURES / tree, ["check", ".", "--format", fmt]) for fmt in PERSON_FORMATS
    }
    outputs["baseline"] = _baseline(FIXTURES / tree, tmp_path)
    for name, output in outputs.items():
        found = RAW_PEER.findall(output)
        assert not found, (tree, name, found)


def test_every_format_says_the_demo_culprit_in_the_same_words(tmp_path: Path) -> None:
    words = "spec.egress[0]: peer 169.254.169.254/32 on TCP 80"
    demo = FIXTURES / "demo"
    for fmt in PERSON_FORMATS:
        assert words in _run(demo, ["check", ".", "--format", fmt]), fmt
    messages = [f["message"] for f in json.loads(_baseline(demo, tmp_path))["findings"]]
    assert any(words in message for message in messages)
    # The JSON report keeps the decision's raw detail.
    raw = json.loads(_run(demo, ["check", ".", "--format", "json"]))
    assert any('{"cidr":"169.254.169.254/32"}' in f["message"] for f in raw["findings"])


def test_the_pattern_catches_a_raw_peer() -> None:
    assert RAW_PEER.search('peer {"cidr":"10.0.0.0/8"} on TCP 443')
    assert RAW_PEER.search('peer {"podSelector":{"matchLabels":{"a":"b"}}} on TCP 80')
    assert not RAW_PEER.search("peer 10.0.0.0/8 on TCP 443")
