"""The limits from the command line (docs/limits.md). ``load()`` takes a
``LoadLimits``; these tests wait for ``egress-lint check`` to pass one, built
from the flags below with ``parse_size`` for the sizes, and to read standard
input within the file size limit. They fail until lint/cli.py and
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
    "lint/cli.py: `check` needs --max-file-size, --max-total-size, --max-document-size "
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


def test_an_endless_standard_input_is_read_within_the_limit() -> None:
    with open("/dev/zero", "rb") as endless:
        result = subprocess.run(
            [sys.executable, "-m", "lint.cli", "check", "-", "--format", "json"],
            stdin=endless,
            cwd=REPO,
            capture_output=True,
            timeout=120,
            preexec_fn=_limit_memory,
            check=False,
        )
    assert result.returncode == 1, result.stderr[-500:]
    assert b"limit on one file" in result.stdout
