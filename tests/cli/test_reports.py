"""Several reports from one run (issue 29): ``check --report FORMAT=PATH``,
repeatable, beside ``--format``/``--output``. The run is judged once and
each report is the bytes ``--format FORMAT --output PATH`` writes; a bad
FORMAT or a PATH that cannot be written is a usage error before anything
is judged."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner, Result

from lint.checks import runner
from lint.cli import main

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"


def check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", str(DEMO), *args])


def test_each_report_is_what_format_and_output_write(tmp_path: Path) -> None:
    reports = {"sarif": "a.sarif", "markdown": "b.md", "github": "c.txt", "json": "d.json"}
    given = [f"--report={fmt}={tmp_path / name}" for fmt, name in reports.items()]
    with mock.patch.object(runner, "_run_check", wraps=runner._run_check) as judged:
        result = check(*given)
    assert result.exit_code == 1, result.output
    assert judged.call_count == 1  # judged once for every report
    assert result.output == check().output  # --format text to standard output, as without
    for fmt, name in reports.items():
        alone = tmp_path / f"alone-{name}"
        assert check("--format", fmt, "--output", str(alone)).exit_code == 1
        assert (tmp_path / name).read_bytes() == alone.read_bytes(), fmt
        assert alone.stat().st_size > 0


def test_reports_beside_output_and_a_clean_exit(tmp_path: Path) -> None:
    """--format/--output keep their file; --fail-on sets the one exit code."""
    result = check(
        "--format",
        "json",
        "--output",
        str(tmp_path / "main.json"),
        "--report",
        f"text={tmp_path / 'report.txt'}",
        "--fail-on",
        "never",
    )
    assert result.exit_code == 0, result.output
    assert result.output == ""
    assert (tmp_path / "main.json").read_text(encoding="utf-8").startswith("{")
    text = (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert "egress-policy-widens" in text
    assert "\x1b[" not in text  # a file: no colour


def test_examined_applies_to_a_json_report(tmp_path: Path) -> None:
    selecting = tmp_path / "selecting.json"
    alone = tmp_path / "alone.json"
    assert check("--examined", "selecting", "--report", f"json={selecting}").exit_code == 1
    check("--examined", "selecting", "--format", "json", "--output", str(alone))
    assert selecting.read_bytes() == alone.read_bytes()
    assert b'"notSelecting"' in selecting.read_bytes()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("xml=out.xml", "unknown format 'xml'"),
        ("sarif", "is not FORMAT=PATH"),
        ("sarif=", "is not FORMAT=PATH"),
        ("sarif=missing/dir/out.sarif", "no directory missing/dir"),
        ("sarif=.", "it is a directory"),
    ],
)
def test_bad_report_is_a_usage_error_before_judging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with mock.patch.object(runner, "_run_check") as judged:
        result = check("--report", value)
    assert result.exit_code == 2, result.output
    assert message in result.output
    judged.assert_not_called()


def test_a_path_named_twice_is_a_usage_error(tmp_path: Path) -> None:
    same = str(tmp_path / "same")
    twice = check("--report", f"sarif={same}", "--report", f"json={same}")
    assert twice.exit_code == 2 and "named twice" in twice.output
    beside = check("--output", same, "--report", f"json={same}")
    assert beside.exit_code == 2 and "both --output and --report" in beside.output
    assert not Path(same).exists()


def test_a_path_under_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with mock.patch.object(runner, "_run_check") as judged:
        result = check("--report", f"markdown={tmp_path / 'file' / 'out.md'}")
    assert result.exit_code == 2
    assert "cannot write" in result.output and "no directory" in result.output
    judged.assert_not_called()
