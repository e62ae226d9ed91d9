"""`egress-lint check - --passthrough`, the Argo CD gate's contract
(INTEGRATIONS.md §3.1, DESIGN §6): the input bytes go to stdout unchanged,
the report goes to stderr, and the exit status is the check's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.integrations.support import (
    CORPUS,
    DECLARATION,
    WIDENS,
    Ran,
    console_script,
    demo_tree,
    helm_stream,
    run,
)


def passthrough(data: bytes, cwd: Path, *extra: str) -> Ran:
    return run([console_script(), "check", "-", "--passthrough", *extra], cwd, stdin=data)


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return demo_tree(tmp_path / "clean", widening=False)


@pytest.fixture
def widening(tmp_path: Path) -> Path:
    return demo_tree(tmp_path / "widening", widening=True)


# Inputs whose bytes a careless copy would change: line ends, encodings,
# missing final newline, document markers, binary noise. Each is appended to
# the clean demo stream, so the check itself still passes or fails on the demo.
ODD_TAILS = {
    "nothing": b"",
    "crlf": b"---\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: crlf}\r\n",
    "no-final-newline": b"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: tail}",
    "bom-and-latin1": b"---\n\xef\xbb\xbf# caf\xe9 \xff\xfe\n",
    "nul-bytes": b"---\n# \x00\x01\x02\n",
    "empty-documents": b"---\n---\n...\n---\nnull\n",
    "json-document": b'---\n{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n',
    "unparseable": b"---\nkind: [unclosed\n",
    "tabs-and-trailing-space": b"---\n# \t trailing   \n\n\n",
}


@pytest.mark.parametrize("tail", sorted(ODD_TAILS))
def test_stdout_is_the_input_byte_for_byte(clean: Path, tail: str) -> None:
    data = helm_stream(clean) + ODD_TAILS[tail]
    result = passthrough(data, clean)
    assert result.stdout == data
    assert result.stderr, "the report goes to stderr"


def test_stdout_holds_only_the_manifests_when_findings_fail_the_check(widening: Path) -> None:
    data = helm_stream(widening)
    result = passthrough(data, widening)
    assert result.returncode == 1
    assert result.stdout == data
    assert WIDENS in result.err


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_reports_go_to_stderr_whole(widening: Path, fmt: str) -> None:
    data = helm_stream(widening)
    result = passthrough(data, widening, "--format", fmt)
    assert result.stdout == data
    report = json.loads(result.stderr)
    rule_ids = (
        [f["ruleId"] for f in report["findings"]]
        if fmt == "json"
        else [r["ruleId"] for r in report["runs"][0]["results"]]
    )
    assert WIDENS in rule_ids


def test_output_file_takes_the_report_and_stdout_keeps_the_manifests(widening: Path) -> None:
    data = helm_stream(widening)
    report = widening / "report.txt"
    result = passthrough(data, widening, "--output", str(report))
    assert result.stdout == data
    assert WIDENS in report.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("case", "extra", "expected"),
    [
        ("clean", (), 0),
        ("widening", (), 1),
        ("widening", ("--fail-on", "never"), 0),
        ("clean", ("--fail-on", "never"), 0),
    ],
)
def test_exit_status_is_the_checks(
    tmp_path: Path, case: str, extra: tuple[str, ...], expected: int
) -> None:
    tree = demo_tree(tmp_path / case, widening=case == "widening")
    data = helm_stream(tree)
    result = passthrough(data, tree, *extra)
    assert result.returncode == expected, result.err
    assert result.stdout == data


def test_bad_declaration_exits_2_and_leaks_nothing_to_stdout(clean: Path) -> None:
    (clean / DECLARATION).write_text(
        "version: 1\n"
        "sandboxes:\n"
        "  - template: namzu-task\n"
        "    egress:\n"
        "      policy: {kind: public-internet, exceptCidrs: [not-a-cidr]}\n",
        encoding="utf-8",
    )
    data = helm_stream(clean)
    result = passthrough(data, clean)
    assert result.returncode == 2
    # Generation fails either way; what matters is that no report text is
    # mistaken for manifests.
    assert result.stdout in (b"", data)
    assert "exceptCidrs" in result.err


def test_passthrough_without_stdin_is_a_usage_error(clean: Path) -> None:
    result = run([console_script(), "check", ".", "--passthrough"], clean)
    assert result.returncode == 2
    assert result.stdout == b""


# --- the whole corpus --------------------------------------------------------


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


@needs_corpus
@pytest.mark.slow
def test_corpus_concatenated_passes_through_unchanged(tmp_path: Path) -> None:
    """Every corpus file's bytes, concatenated as they are (whatever the
    boundaries make of the YAML), through one real process."""
    data = b"".join(p.read_bytes() for p in _corpus_files())
    result = passthrough(data, tmp_path, "--fail-on", "never")
    assert result.returncode == 0, result.err[-2000:]
    assert result.stdout == data


@needs_corpus
@pytest.mark.slow
def test_every_corpus_file_passes_through_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each corpus file on its own (in process: one subprocess per file
    would take minutes). Failures are collected so one run names them all."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    changed = []
    files = _corpus_files()
    for path in files:
        data = path.read_bytes()
        result = runner.invoke(
            main, ["check", "-", "--passthrough", "--fail-on", "never"], input=data
        )
        if result.exit_code != 0 or result.stdout_bytes != data:
            changed.append(f"{path.relative_to(CORPUS)}: exit {result.exit_code}")
    assert files
    assert changed == []
