"""The limits from the command line (docs/limits.md). ``load()`` takes a
``LoadLimits``; these tests wait for ``egress-lint check`` to pass one, built
from the flags below with ``parse_size`` for the sizes, and to read standard
input within the file size limit. They fail until lint/cli/options.py and
lint/checks/runner.py carry the limits through."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.robustness.trees import REPO

WIRING = (
    "lint/cli/options.py: `check` needs --max-file-size, --max-total-size, --max-document-size "
    "(parsed with lint.loading.parse_size), --max-depth and --max-alias-expansion, "
    "passed through CheckOptions to load(..., limits=LoadLimits(...))"
)
POLICY = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
    "metadata: {name: p, namespace: sbx}\nspec: {podSelector: {}, egress: [{to: [[[[1]]]]}]}\n"
)


def check(tmp_path: Path, *args: str) -> tuple[int, str]:
    (tmp_path / "p.yaml").write_text(POLICY + "# " + "x" * 3000 + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["check", str(tmp_path / "p.yaml"), "--format", "json", *args]
    )
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--max-file-size", "1K", "over the 1 KiB limit on one file"),
        ("--max-total-size", "2000", "over the 2,000 bytes limit on all files together"),
        ("--max-document-size", "1KiB", "over the 1 KiB limit on one document"),
        ("--max-depth", "5", "nested deeper than 5 levels"),
    ],
)
def test_each_limit_has_a_flag(tmp_path: Path, flag: str, value: str, message: str) -> None:
    code, output = check(tmp_path, flag, value)
    assert (code, message in output) == (1, True), output


def test_the_alias_limit_has_a_flag(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "kind: Namespace\nmetadata: {name: a}\nx: &x [1, 2, 3]\ny: [*x, *x, *x]\n", encoding="utf-8"
    )
    result = CliRunner().invoke(
        main, ["check", str(tmp_path / "a.yaml"), "--max-alias-expansion", "10"]
    )
    assert "more than 10 values" in result.output


@pytest.mark.parametrize(("flag", "value"), [("--max-file-size", "0"), ("--max-depth", "9999")])
def test_a_bad_limit_is_a_usage_error(tmp_path: Path, flag: str, value: str) -> None:
    code, output = check(tmp_path, flag, value)
    assert code == 2
    assert "No such option" not in output
    assert flag in output


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))


def _on_endless_stdin(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The command line with /dev/zero as standard input, in 2 GiB of memory."""
    with open("/dev/zero", "rb") as endless:
        return subprocess.run(
            [sys.executable, "-m", "lint.cli", *args],
            stdin=endless,
            cwd=cwd,
            capture_output=True,
            timeout=120,
            preexec_fn=_limit_memory,
            check=False,
        )


def test_an_endless_standard_input_is_read_within_the_limit() -> None:
    result = _on_endless_stdin(["check", "-", "--format", "json"], REPO)
    assert result.returncode == 1, result.stderr[-500:]
    assert b"limit on one file" in result.stdout


# -- explain and generate read manifests too, within the same limits ----------

DEMO = REPO / "fixtures" / "demo"
EXPLAIN = ["explain", "--template", "namzu-task", str(DEMO)]
GENERATE = ["generate", "--stdout", str(DEMO)]


@pytest.mark.parametrize("command", [EXPLAIN, GENERATE], ids=["explain", "generate"])
@pytest.mark.parametrize(("flag", "value"), [("--max-file-size", "0"), ("--max-depth", "9999")])
def test_other_commands_refuse_a_bad_limit(command: list[str], flag: str, value: str) -> None:
    result = CliRunner().invoke(main, [*command, flag, value])
    assert result.exit_code == 2
    assert flag in result.output


def test_explain_fails_closed_on_a_file_past_the_limit() -> None:
    result = CliRunner().invoke(main, [*EXPLAIN, "--max-file-size", "100", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"refusal":"not-evaluable"' in result.output.replace(" ", "")
    assert "limit on one file" in result.output


@pytest.mark.parametrize("flag", ["--max-file-size", "--max-total-size", "--max-document-size"])
def test_generate_reads_within_a_limit_that_fits(flag: str) -> None:
    plain = CliRunner().invoke(main, GENERATE)
    limited = CliRunner().invoke(main, [*GENERATE, flag, "1M"])
    assert (limited.exit_code, limited.output) == (0, plain.output)


@pytest.mark.parametrize(
    "command",
    [
        ["explain", "-", "--template", "t", "--namespace", "n"],
        ["generate", "--stdout", "-"],
    ],
    ids=["explain", "generate"],
)
def test_other_commands_read_an_endless_standard_input_within_the_limit(
    command: list[str], tmp_path: Path
) -> None:
    result = _on_endless_stdin([*command, "--max-file-size", "1M"], tmp_path)
    # Nothing is declared or found, so each stops with its own usage error
    # or empty output; what matters is that it stopped, within memory.
    assert result.returncode in (0, 2), result.stderr[-500:]
    assert b"Traceback" not in result.stderr
