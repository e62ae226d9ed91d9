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
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.checks.runner import CheckOptions, run_check
from lint.cli import main
from lint.report import text_report
from lint.report.bounded import (
    MESSAGE_LIMIT,
    QUOTE_LIMIT,
    bounded,
    capped,
    fit_document,
    report_size,
)
from lint.report.github_report import render_github
from lint.report.json_report import render_json
from lint.report.markdown_report import render_markdown
from lint.report.sarif_report import SarifOptions, render_sarif
from tests.report.reference_fit import fit_json

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


def test_the_reference_leaves_a_report_within_the_bound_alone() -> None:
    text = '{"findings":[],"sandboxes":[]}\n'
    assert fit_json(text, 1000) == (text, None)


def _fitted(document: dict[str, Any], limit: int) -> tuple[str, dict[str, Any]]:
    """``fit_document`` over the document's members."""
    members = list(document.items())
    size = report_size(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")
    chunks, truncated = fit_document(members, size, limit)
    return "".join(chunks), truncated


def test_fit_document_caps_strings_then_leaves_out_trailing_entries() -> None:
    document = {
        "schemaVersion": 1,
        "sandboxes": [{"detail": "y" * 5000}] * 50,
        "findings": [{"message": "x" * 5000, "n": i} for i in range(300)],
        "parseErrors": [],
    }
    text = json.dumps(document, separators=(",", ":")) + "\n"
    fitted, truncated = _fitted(document, 20_000)
    assert (fitted, truncated) == fit_json(text, 20_000)
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


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=260) | st.sampled_from(
    ["", "é" * 201, "x" * 199, "\u2028"]
)
_ENTRY = st.dictionaries(st.sampled_from(["a", "detail", "é"]), _TEXT | st.integers(), max_size=3)


@settings(max_examples=150, deadline=None)
@given(
    sandboxes=st.lists(_ENTRY, max_size=6),
    findings=st.lists(_ENTRY, max_size=6),
    errors=st.lists(_ENTRY, max_size=3),
    stale=st.none() | st.lists(_TEXT, max_size=3),
    controller=st.none() | _ENTRY,
    share=st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
)
def test_fit_document_cuts_a_report_to_the_bytes_of_the_reference(
    sandboxes: list[dict[str, Any]],
    findings: list[dict[str, Any]],
    errors: list[dict[str, Any]],
    stale: list[str] | None,
    controller: dict[str, Any] | None,
    share: float,
) -> None:
    """Every path of the cut (capping enough, lists left out in part or
    whole, a skeleton past the limit) gives the bytes of issue 15's."""
    document: dict[str, Any] = {"schemaVersion": 1, "tool": {"name": "é" * 201}}
    document |= {"sandboxes": sandboxes, "findings": findings, "parseErrors": errors}
    if stale is not None:
        document["staleBaseline"] = stale
    if controller is not None:
        document["controller"] = controller
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
    limit = max(1, int(report_size(text) * share))
    assert _fitted(document, limit) == fit_json(text, limit)


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
