"""The status line of a long run: on standard error only when it is a
terminal, rewritten in place, erased before the report or an error, and
never in a pipe or a log."""

from __future__ import annotations

import io
import os
import pty
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from lint.cli.exits import USAGE, fail
from lint.cli.progress import Progress
from tests.render.tools import FIXTURE, find_tools

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"
ERASE = "\r\x1b[K"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_steps_rewrite_one_line_and_clear_erases_it() -> None:
    terminal = _Terminal()
    progress = Progress(terminal)
    progress("reading demo")
    progress("judging 2 declared sandbox(es)")
    assert progress.shown
    progress.clear()
    assert terminal.getvalue() == (
        f"{ERASE}egress-lint: reading demo{ERASE}egress-lint: judging 2 declared sandbox(es){ERASE}"
    )
    assert not progress.shown


def test_nothing_is_written_off_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    progress("reading demo")
    progress.clear()
    assert stream.getvalue() == ""
    assert not progress.shown


def test_a_step_is_escaped_and_kept_within_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    terminal = _Terminal()
    Progress(terminal)("reading \x1b[2Jx" + "y" * 100)
    line = terminal.getvalue().removeprefix(ERASE)
    assert "\x1b[2J" not in line
    assert len(line) == 39  # a wrapped line could not be erased


def test_an_error_erases_the_line_first(capsys: pytest.CaptureFixture[str]) -> None:
    terminal = _Terminal()
    Progress(terminal)("rendering dev (2/4)")
    with pytest.raises(SystemExit):
        fail("cannot read nonesuch", USAGE)
    assert terminal.getvalue().endswith(ERASE)
    assert capsys.readouterr().err == "egress-lint: cannot read nonesuch\n"


def _on_a_terminal(args: Sequence[str], cwd: Path, path: str | None = None) -> tuple[str, str]:
    """The command's standard output (a pipe) and what it wrote to standard
    error, which is a pseudo-terminal."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    if path is not None:
        env["PATH"] = path
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lint.console", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            timeout=300,
            check=False,
        )
    finally:
        os.close(follower)
    written = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the terminal has no writer left
            break
        if not chunk:
            break
        written += chunk
    os.close(leader)
    return done.stdout.decode(), written.decode()


def _in_a_pipe(args: Sequence[str], cwd: Path, path: str | None = None) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run(
        [sys.executable, "-m", "lint.console", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    return done.stdout.decode(), done.stderr.decode()


def test_a_check_shows_its_steps_on_a_terminal_and_the_report_is_unchanged() -> None:
    report, status = _on_a_terminal(["check", "."], DEMO)
    assert "egress-lint: reading ." in status
    assert "egress-lint: judging 2 declared sandbox(es)" in status
    assert status.endswith(ERASE)  # erased before the report
    piped_report, piped_status = _in_a_pipe(["check", "."], DEMO)
    assert report == piped_report
    assert "FAIL namzu-sandboxes/namzu-build" in report
    assert piped_status == ""


def test_the_report_written_to_a_file_is_announced(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    _, status = _on_a_terminal(["check", ".", "--format", "json", "--output", str(out)], DEMO)
    assert f"egress-lint: writing the report to {out}" in status
    assert status.endswith(ERASE)
    assert out.read_text(encoding="utf-8").startswith('{"schemaVersion":1')


@pytest.mark.slow
def test_each_environment_is_shown_as_it_renders(tmp_path: Path) -> None:
    tools = find_tools(str(tmp_path / "tools"))
    if not (tools.helm and tools.kustomize) or shutil.which("helm") is None:
        pytest.skip("helm and kustomize (or kubectl) are not on the PATH")
    path = os.pathsep.join([str(tools.directory), "/usr/local/bin", "/usr/bin", "/bin"])
    report, status = _on_a_terminal(["check"], FIXTURE, path)
    for number, name in enumerate(["prod", "dev", "kustomize-prod", "kustomize-dev"], start=1):
        assert f"egress-lint: environment {name} ({number}/4): " in status
    assert "egress-lint: reading the rendered manifests" in status
    assert status.endswith(ERASE)
    assert report == _in_a_pipe(["check"], FIXTURE, path)[0]
