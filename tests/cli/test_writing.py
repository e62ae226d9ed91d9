"""Where a report is written, chunk by chunk (issue 18): a file, a named
pipe or ``/dev/stdout`` named by ``--output``, standard output, or
standard error under ``--passthrough`` after the input copy. A file that
cannot be written is a usage error naming it; a standard stream whose
reader went away ends the writing quietly, with the check's exit status."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from lint.cli.writing import BATCH, write_output, write_standard
from lint.report.escaping import Style, neutralise
from tests.bench_tree import generate_tree

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"
DEMO_EXIT = 1
"""The demo's widening policy fails the check."""
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def _console(
    args: Sequence[str], *, stdout: int, stdin: bytes = b"", stderr: int = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    """The command line of this checkout in a process of its own."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "lint.console", *args],
        cwd=DEMO,
        input=stdin,
        stdout=stdout,
        stderr=stderr,
        env=env,
        timeout=120,
        check=False,
    )


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone: every write to
    it fails with EPIPE, whenever the child writes."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.fixture(scope="module")
def large_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated namespace whose JSON report (about 2 MB) is far more
    than a pipe holds."""
    root = tmp_path_factory.mktemp("writing") / "tree"
    generate_tree(root, namespaces=1)
    return root


def _check(*args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout_bytes, result.stderr


@pytest.mark.parametrize("fail_on", ["error", "never"])
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_closed_standard_output_ends_the_writing_quietly(fmt: str, fail_on: str) -> None:
    """No message, and the exit status the check gives (click's own
    handling of EPIPE would exit 1 whatever the check found)."""
    write = _closed_pipe()
    try:
        done = _console(["check", ".", "--format", fmt, "--fail-on", fail_on], stdout=write)
    finally:
        os.close(write)
    assert done.stderr == b""
    assert done.returncode == (DEMO_EXIT if fail_on == "error" else 0)


def _manifests() -> bytes:
    return b"".join(
        p.read_bytes() + b"\n---\n" for p in sorted(DEMO.glob("*.yaml")) if p.name[0] != "."
    )


def test_under_passthrough_the_input_comes_first_then_the_report() -> None:
    """Both streams into one pipe: the input copy is written whole before
    the report starts."""
    manifests = _manifests()
    args = ["check", "-", "--passthrough", "--format", "json"]
    separate = _console(args, stdout=subprocess.PIPE, stdin=manifests)
    merged = _console(args, stdout=subprocess.PIPE, stdin=manifests, stderr=subprocess.STDOUT)
    assert merged.stdout == manifests + separate.stderr


def test_under_passthrough_a_closed_standard_output_still_gets_the_report_on_stderr() -> None:
    manifests = _manifests()
    args = ["check", "-", "--passthrough", "--format", "json"]
    whole = _console(args, stdout=subprocess.PIPE, stdin=manifests)
    assert whole.stdout == manifests
    write = _closed_pipe()
    try:
        closed = _console(args, stdout=write, stdin=manifests)
    finally:
        os.close(write)
    assert closed.returncode == whole.returncode == DEMO_EXIT
    assert closed.stderr == whole.stderr
    assert whole.stderr.startswith(b'{"schemaVersion":1,')


def test_output_to_dev_stdout_is_the_report(tmp_path: Path) -> None:
    if not Path("/dev/stdout").exists():
        pytest.skip("no /dev/stdout here")
    plain = _console(["check", ".", "--format", "json"], stdout=subprocess.PIPE)
    with (tmp_path / "out").open("wb") as out:
        named = _console(
            ["check", ".", "--format", "json", "--output", "/dev/stdout"], stdout=out.fileno()
        )
    assert named.returncode == plain.returncode == DEMO_EXIT
    assert (tmp_path / "out").read_bytes() == plain.stdout
    assert plain.stdout.startswith(b'{"schemaVersion":1,')


@needs_fifo
@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_output_to_a_named_pipe_is_the_report(large_tree: Path, tmp_path: Path, fmt: str) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    args = [str(large_tree), "--config", str(large_tree / ".egress-lint.yaml"), "--format", fmt]
    code, _, _ = _check(*args, "--output", str(fifo))
    reader.join(timeout=60)
    plain_code, plain, _ = _check(*args)
    assert code == plain_code
    assert received == [plain]
    assert len(plain) > 1 << 16 or fmt != "json"


@needs_fifo
def test_a_named_pipe_whose_reader_left_is_a_usage_error_naming_it(
    large_tree: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    # The reader opens the pipe and leaves without reading: the report,
    # far more than the pipe holds, cannot all be written.
    reader = threading.Thread(target=lambda: os.close(os.open(fifo, os.O_RDONLY)))
    reader.start()
    args = [str(large_tree), "--config", str(large_tree / ".egress-lint.yaml")]
    code, _, stderr = _check(*args, "--format", "json", "--output", str(fifo))
    reader.join(timeout=60)
    assert code == 2
    assert f"cannot write {fifo}: Broken pipe" in stderr
    assert "internal error" not in stderr


@pytest.mark.parametrize(
    ("style", "colour"), [("text", False), ("text", True), ("json", False), ("annotations", False)]
)
def test_many_small_chunks_are_written_as_their_whole_made_safe(
    style: Style, colour: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chunks are gathered into batches before they are made safe: a
    command split over chunks, a colour sequence within one, a chunk past
    the batch size, and thousands of chunks of a few bytes come out as the
    whole text made safe at once, in a file and on standard output."""
    pieces = ["\x1b[31merror\x1b[0m", "\n  ", ":", ":warning::x\n", "#", "#", "[y", " \x07\n"]
    chunks = [*pieces * 3000, "z" * (BATCH + 5), "::tail\n"]
    whole = neutralise("".join(chunks), style, colour=colour)
    path = tmp_path / "report"
    write_output(path, chunks, style, colour=colour)
    assert path.read_text(encoding="utf-8") == whole
    write_standard(chunks, to_stderr=False, style=style, colour=colour)
    assert capsys.readouterr().out == whole
