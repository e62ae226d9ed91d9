"""Bounded details (issue 15, item 5): the reports a person reads cap every
value quoted from the input, the JSON report keeps its details but is
bounded by ``--max-report-bytes``, and an alias-amplified input costs a
small multiple of a plain one of the same size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lint.checks.runner import CheckOptions, run_check
from lint.cli import main
from lint.report import text_report
from lint.report.bounded import (
    MESSAGE_LIMIT,
    QUOTE_LIMIT,
    bounded,
    capped,
    fit_json,
)
from lint.report.github_report import render_github
from lint.report.json_report import render_json
from lint.report.markdown_report import render_markdown
from lint.report.sarif_report import SarifOptions, render_sarif

DECLARATION = (
    "version: 1\nsandboxes:\n  - {template: task, namespace: hostile, "
    "egress: {policy: {kind: deny-all}}}\n"
)
TEMPLATE = (
    "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
    "metadata: {name: task, namespace: hostile}\n"
    "spec: {networkPolicyManagement: Unmanaged, podTemplate: {metadata: {labels: {app: t}}}}\n"
)
HEAD = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
    "metadata: {name: aliases, namespace: hostile}\nspec:\n  podSelector: {}\n"
)


def amplified() -> str:
    """Six levels of eight aliases: 8**6 copies of one CIDR in the peer's
    `except`, within the default alias limit, quoted by the details."""
    lines = ["a0: &a0 [" + ", ".join(["10.0.0.0/8"] * 8) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]" for i in range(1, 6)]
    body = "".join(f"  {line}\n" for line in lines)
    return HEAD + body + "  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8, except: *a5}}]}]\n"


def plain(size: int) -> str:
    """A policy as unreadable, with its `except` written out, padded to ``size``."""
    text = HEAD + "  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8, except: [[10.0.0.0/8]]}}]}]\n"
    return text + "#" * max(0, size - len(text) - 1) + "\n"


def _tree(root: Path, policy: str) -> CheckOptions:
    root.mkdir()
    (root / "template.yaml").write_text(TEMPLATE, encoding="utf-8")
    (root / "policy.yaml").write_text(policy, encoding="utf-8")
    (root / "declaration.yaml").write_text(DECLARATION, encoding="utf-8")
    return CheckOptions(paths=(str(root),), config=root / "declaration.yaml")


def test_a_short_value_is_kept() -> None:
    assert capped("x" * QUOTE_LIMIT) == "x" * QUOTE_LIMIT
    assert bounded("a short message") == "a short message"


def test_a_long_value_keeps_its_head_and_says_its_size() -> None:
    value = "é" * 12_345
    assert capped(value) == "é" * QUOTE_LIMIT + "…(24,690 bytes)"


def test_each_quoted_run_is_capped_and_the_words_around_it_kept() -> None:
    peer = json.dumps({"ipBlock": {"except": ["10.0.0.0/8"] * 1000}}, separators=(",", ":"))
    message = f"a `to` peer cannot be read: {peer} on TCP 1024"
    assert bounded(message) == (
        f"a `to` peer cannot be read: {peer[:QUOTE_LIMIT]}…({len(peer):,} bytes) on TCP 1024"
    )


def test_a_message_of_many_short_quotes_is_capped_as_a_whole() -> None:
    message = " ".join(["10.0.0.0/8"] * 10_000)
    result = bounded(message)
    assert result.startswith(message[:MESSAGE_LIMIT])
    assert result.endswith(f"…({len(message):,} bytes)")
    assert len(result) < MESSAGE_LIMIT + 30


def test_fit_json_leaves_a_report_within_the_bound_alone() -> None:
    text = '{"findings":[],"sandboxes":[]}\n'
    assert fit_json(text, 1000) == (text, None)


def test_fit_json_caps_strings_then_leaves_out_trailing_entries() -> None:
    document = {
        "schemaVersion": 1,
        "sandboxes": [{"detail": "y" * 5000}] * 50,
        "findings": [{"message": "x" * 5000, "n": i} for i in range(300)],
        "parseErrors": [],
    }
    text = json.dumps(document) + "\n"
    fitted, truncated = fit_json(text, 20_000)
    assert truncated is not None
    assert len(fitted.encode()) <= 20_000
    result = json.loads(fitted)
    assert list(result) == ["schemaVersion", "sandboxes", "findings", "parseErrors", "truncated"]
    assert result["findings"] == [
        {"message": "x" * QUOTE_LIMIT + "…(5,000 bytes)", "n": i}
        for i in range(len(result["findings"]))
    ]
    assert truncated["omitted"]["findings"] == 300 - len(result["findings"]) > 0
    assert truncated["reportBytes"] == len(text)
    assert truncated["cappedStrings"] == 350


def _sizes(options: CheckOptions, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Bytes of each report a person reads, and the characters the text
    report escaped (its work)."""
    escaped = [0]
    escape = text_report.escape

    def counting(text: str) -> str:
        escaped[0] += len(text)
        return escape(text)

    monkeypatch.setattr(text_report, "escape", counting)
    report = run_check(options)
    return {
        "text": len(text_report.render_text(report).encode()),
        "escaped": escaped[0],
        "sarif": len(render_sarif(report, SarifOptions()).encode()),
        "github": len(render_github(report).encode()),
        "markdown": len(render_markdown(report).encode()),
        "json": len(render_json(report).encode()),
    }


def test_an_alias_amplified_input_costs_a_small_multiple_of_a_plain_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = amplified()
    amplified_sizes = _sizes(_tree(tmp_path / "aliases", hostile), monkeypatch)
    plain_sizes = _sizes(_tree(tmp_path / "plain", plain(len(hostile))), monkeypatch)
    # The JSON keeps the expanded peer, as REPORT.md specifies: megabytes.
    assert amplified_sizes["json"] > 100 * plain_sizes["json"]
    for measure in ("text", "escaped", "sarif", "github", "markdown"):
        assert amplified_sizes[measure] <= 3 * plain_sizes[measure], measure


def _cli(tmp_path: Path, *flags: str) -> Any:
    _tree(tmp_path / "t", amplified())
    root = tmp_path / "t"
    args = ["check", str(root), "--config", str(root / "declaration.yaml"), "--format", "json"]
    return CliRunner().invoke(main, [*args, *flags], catch_exceptions=False)


def test_the_json_report_is_bounded_by_the_flag_and_says_it_truncated(tmp_path: Path) -> None:
    result = _cli(tmp_path, "--max-report-bytes", "64K")
    assert result.exit_code == 1
    assert len(result.stdout_bytes) <= 64 * 1024
    report = json.loads(result.stdout)
    assert report["truncated"]["maxReportBytes"] == 65536
    assert report["truncated"]["reportBytes"] > 10 * 2**20
    assert report["findings"], "the findings are kept"
    assert "past --max-report-bytes" in result.stderr


def test_under_the_default_bound_the_json_report_is_whole(tmp_path: Path) -> None:
    result = _cli(tmp_path)
    report = json.loads(result.stdout)
    assert "truncated" not in report
    assert result.stderr == ""


@pytest.mark.parametrize("value", ["1K", "lots"])
def test_a_bad_bound_is_a_usage_error(tmp_path: Path, value: str) -> None:
    result = _cli(tmp_path, "--max-report-bytes", value)
    assert result.exit_code == 2
    assert "--max-report-bytes" in result.output
