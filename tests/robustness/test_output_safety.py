"""Output safety (issue 7, item 4): input text cannot rewrite the terminal,
break the JSON or SARIF report, or lead ``generate`` outside ``--out``.

Names reach the reports from three channels: manifest values (a policy's
name), declaration values (a template's name) and file names, which may hold
bytes that are not UTF-8 at all.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.checks.runner import CheckOptions, run_check
from lint.cli import main
from lint.generate.command import GenerateOptions, run_generate
from lint.generate.output import MAX_COMPONENT_BYTES, safe_component
from lint.loading import load
from lint.report.json_report import render_json, report_document
from lint.report.sarif_report import SarifOptions, render_sarif
from lint.report.text_report import render_text
from tests.robustness.strategies import quote

# C0 and C1 controls and DEL: what a terminal acts on. A report line may
# end with a newline, nothing else.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
HOSTILE_NAMES = [
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "\x1b]0;pwned\x07",  # set the window title
    "\x9b31m",  # C1 CSI
    "ok\rFAIL",  # carriage return over the line
    "tab\there",
    "nul\x00byte",
    "line\u2028sep",
    "\u202eright-to-left",
    "\U0001f600",
]

DECLARATION = """\
version: 1
sandboxes:
  - template: task
    namespace: sbx
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""
TEMPLATE = """\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: task, namespace: sbx}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {metadata: {labels: {app: task}}}
"""


def widening(name: str) -> str:
    return (
        "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        f"metadata: {{name: {quote(name)}, namespace: sbx}}\n"
        "spec: {podSelector: {}, policyTypes: [Egress], egress: [{}]}\n"
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION, encoding="utf-8")
    return tmp_path


def cli(*args: str) -> bytes:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout_bytes


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_policy_name_cannot_drive_the_terminal(workdir: Path, name: str) -> None:
    (workdir / "m.yaml").write_text(TEMPLATE + widening(name), encoding="utf-8")
    text = cli("check", ".").decode("utf-8")
    assert RAW_CONTROL.search(text) is None
    assert "NetworkPolicy/" in text
    explained = cli("explain", "--template", "task", "--namespace", "sbx").decode("utf-8")
    assert RAW_CONTROL.search(explained) is None


def test_escaped_names_stay_readable(workdir: Path) -> None:
    (workdir / "m.yaml").write_text(TEMPLATE + widening("\x1b[2Jevil"), encoding="utf-8")
    assert "\\x1b[2Jevil" in cli("check", ".").decode("utf-8")


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_json_and_sarif_carry_any_name_exactly(workdir: Path, name: str) -> None:
    (workdir / "m.yaml").write_text(TEMPLATE + widening(name), encoding="utf-8")
    report = json.loads(cli("check", ".", "--format", "json"))
    examined = report["sandboxes"][0]["egress"]["union"]["examined"]
    assert name in [entry["name"] for entry in examined]
    sarif = json.loads(cli("check", ".", "--format", "sarif"))
    assert any(name in result["message"]["text"] for result in sarif["runs"][0]["results"])


# File names are bytes: on Linux they may not be UTF-8 at all, and Python
# carries such bytes as lone surrogates, which no UTF-8 output can hold.
FILE_NAMES = [b"bad\xff.yaml", b"\x1b[31mred.yaml", b"a\x9bb.yaml", b"\xed\xa0\x80.yaml"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
@pytest.mark.parametrize("raw", FILE_NAMES)
def test_any_file_name_gives_valid_reports(workdir: Path, raw: bytes) -> None:
    # A broken policy, so that its file name is in every report.
    body = TEMPLATE + "---\nkind: NetworkPolicy\nmetadata: {namespace: sbx}\nspec: [\n"
    (workdir / os.fsdecode(raw)).write_bytes(body.encode())
    for fmt in ("json", "sarif"):
        output = cli("check", ".", "--format", fmt)
        json.loads(output.decode("utf-8"))  # strict UTF-8, then strict JSON
    text = cli("check", ".").decode("utf-8")
    assert RAW_CONTROL.search(text) is None
    (document,) = load(["."]).documents
    document.file.encode("utf-8")
    assert "\\x" in document.file or raw.decode("utf-8") == document.file


SAFE = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=SAFE, label=SAFE)
def test_reports_are_valid_json_for_any_text(workdir: Path, name: str, label: str) -> None:
    """Any name and label value, control characters, NUL and astral planes
    included, comes back out of the JSON report exactly."""
    template = TEMPLATE.replace("{app: task}", f"{{app: task, extra: {quote(label)}}}")
    (workdir / "m.yaml").write_text(template + widening(name), encoding="utf-8")
    report = run_check(CheckOptions(paths=("m.yaml",), config=workdir / ".egress-lint.yaml"))
    rendered = render_json(report)
    document = json.loads(rendered.encode("utf-8"))
    value = report_document(report)
    assert rendered == json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
    sandbox = document["sandboxes"][0]
    assert sandbox["podLabels"]["extra"] == label
    assert name in [entry["name"] for entry in sandbox["egress"]["union"]["examined"]]
    json.loads(render_sarif(report, SarifOptions(None, "egress-lint")).encode("utf-8"))
    assert RAW_CONTROL.search(render_text(report, colour=False, show_suppressed=True)) is None


# -- generate -------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=300))
def test_any_name_is_one_harmless_path_component(name: str) -> None:
    component = safe_component(name)
    assert component not in ("", ".", "..")
    assert not component.startswith(".")
    assert "/" not in component and "\\" not in component and "\x00" not in component
    assert component.isascii()
    assert len(component.encode()) <= MAX_COMPONENT_BYTES


TRAVERSALS = [
    "..",
    "../..",
    "..\\..\\windows",
    "a/../../b",
    "/etc",
    "\u2215etc\u2215passwd",  # a division slash, not a separator
    "%2e%2e%2fout",
    "x" * 300 + "/../..",
    "\x00",
]


@pytest.mark.parametrize("field", ["template", "namespace", "networkPolicyName"])
@pytest.mark.parametrize("name", TRAVERSALS)
def test_generate_writes_only_under_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, name: str
) -> None:
    monkeypatch.chdir(tmp_path)
    values: dict[str, Any] = {
        "template": "task",
        "namespace": "sbx",
        "networkPolicyName": "task-egress",
    }
    values[field] = name
    declaration = (
        "version: 1\nsandboxes:\n"
        f"  - template: {quote(values['template'])}\n"
        f"    namespace: {quote(values['namespace'])}\n"
        "    external: true\n"
        f"    egress: {{policy: {{kind: deny-all}}, networkPolicyName: {quote(values['networkPolicyName'])}}}\n"
    )
    (tmp_path / ".egress-lint.yaml").write_text(declaration, encoding="utf-8")
    out = tmp_path / "deep" / "out"
    writes = run_generate(GenerateOptions(out=Path("deep/out")))
    assert writes
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".egress-lint.yaml"]
    assert written
    assert all(p.resolve().is_relative_to(out.resolve()) for p in written)
