"""Paths and outputs on the command line (issue 15): only regular files and
directories are read, symbolic links stay inside the directory named, and a
path or an output that cannot be used is a usage error naming it, exit 2."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lint.cli import main

POLICY = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
    "metadata: {name: p, namespace: outside}\nspec: {podSelector: {}, egress: [{}]}\n"
)


def check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args])


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.yaml").write_text("kind: ConfigMap\nmetadata: {name: a}\n")
    return tmp_path


def test_a_missing_path_is_a_usage_error(tree: Path) -> None:
    result = check("m", "mistyped")
    assert result.exit_code == 2
    assert "cannot read mistyped: no such file or directory" in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_named_on_the_command_line_is_a_usage_error_not_a_hang(tree: Path) -> None:
    os.mkfifo(tree / "rendered")  # nobody writes to it: reading would block forever
    result = check("rendered")
    assert result.exit_code == 2
    assert "cannot read rendered: not a regular file or a directory (a pipe)" in result.output


def test_a_device_named_on_the_command_line_is_a_usage_error(tree: Path) -> None:
    result = check("/dev/zero")
    assert result.exit_code == 2
    assert "(a device)" in result.output


def test_a_socket_named_on_the_command_line_is_a_usage_error(tree: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind("s.sock")
        result = check("s.sock")
    assert result.exit_code == 2
    assert "(a socket)" in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_inside_a_tree_is_skipped_with_a_note(tree: Path) -> None:
    os.mkfifo(tree / "m" / "pipe.yaml")
    result = check("m")
    assert "m/pipe.yaml:1" in result.output
    assert "skipped: not a regular file" in result.output


def test_a_symlink_out_of_the_tree_is_skipped_with_a_note(tree: Path) -> None:
    outside = tree / "outside"
    outside.mkdir()
    (outside / "open.yaml").write_text(POLICY)
    (tree / "m" / "everything").symlink_to(outside, target_is_directory=True)
    (tree / "m" / "one.yaml").symlink_to(outside / "open.yaml")
    result = check("m", "--format", "json")
    assert '"open.yaml"' not in result.output
    assert result.output.count("a symbolic link that leads outside the directory named") == 2


def test_a_symlink_inside_the_tree_is_followed(tree: Path) -> None:
    (tree / "m" / "inner").mkdir()
    (tree / "m" / "inner" / "p.yaml").write_text(POLICY)
    (tree / "m" / "again.yaml").symlink_to(tree / "m" / "inner" / "p.yaml")
    (tree / "m" / "alias").symlink_to(tree / "m" / "inner", target_is_directory=True)
    result = check("m", "--format", "json")
    assert "leads outside" not in result.output


@pytest.mark.parametrize(
    ("flag", "target", "reason"),
    [
        ("--output", "missing-dir/report.txt", "No such file or directory"),
        ("--output", "/dev/full", "No space left on device"),
        ("--write-baseline", "missing-dir/baseline.yaml", "No such file or directory"),
    ],
)
def test_an_output_that_cannot_be_written_is_a_usage_error(
    tree: Path, flag: str, target: str, reason: str
) -> None:
    if target.startswith("/dev/") and not Path(target).exists():
        pytest.skip(f"no {target} here")
    result = check("m", flag, target)
    assert result.exit_code == 2
    assert f"cannot write {target}: {reason}" in result.output
    assert "internal error" not in result.output
