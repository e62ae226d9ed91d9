"""Limits (issue 7, item 1): input past a limit is a problem at a file and line
that names the limit and its flag, never a crash, a hang or a huge read; and
input that might be a policy fails closed (SEMANTICS §17.7)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from lint.loading import DEFAULT_LIMITS, LoadLimits, files, load, parse_size
from lint.loading.files import _read_file
from lint.loading.limits import DEPTH_CEILING, describe_size
from lint.yaml.parse import ParseFailure, parse_yaml
from tests.loading.helpers import write

POLICY = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: {name}, namespace: team}}\nspec: {{podSelector: {{}}}}\n"
UNREAD = ("NetworkPolicy", None)


def suspect(problem: Any) -> tuple[str | None, str | None]:
    return problem.suspect_kind, problem.suspect_namespace


# -- the limits themselves ------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"max_file_size": 0},
        {"max_total_size": -1},
        {"max_document_size": True},
        {"max_depth": 1.5},
        {"max_alias_expansion": "10"},
        {"max_depth": DEPTH_CEILING + 1},
    ],
)
def test_limits_must_be_positive_integers(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(changes))):
        LoadLimits(**changes)


def test_default_limits() -> None:
    assert (
        LoadLimits(
            max_file_size=64 * 2**20,
            max_total_size=128 * 2**20,
            max_document_size=8 * 2**20,
            max_depth=100,
            max_alias_expansion=1_000_000,
        )
        == DEFAULT_LIMITS
    )


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1", 1),
        ("65536", 65536),
        ("64k", 64 * 1024),
        ("64K", 64 * 1024),
        ("64KiB", 64 * 1024),
        ("64kb", 64 * 1024),
        ("8M", 8 * 2**20),
        ("8MiB", 8 * 2**20),
        (" 2G ", 2 * 2**30),
        ("100B", 100),
    ],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "0M", "-1", "1.5M", "12T", "M", "1 0", "ten"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


@pytest.mark.parametrize(
    ("size", "text"),
    [(64 * 2**20, "64 MiB"), (2**30, "1 GiB"), (3 * 1024, "3 KiB"), (1000, "1,000 bytes")],
)
def test_describe_size(size: int, text: str) -> None:
    assert describe_size(size) == text


# -- file and total size --------------------------------------------------


def test_a_file_over_the_size_limit_is_not_read_and_fails_closed(tree: Path) -> None:
    write(tree, "a.yaml", POLICY.format(name="small"))
    write(tree, "b.yaml", POLICY.format(name="big") + "#" * 200 + "\n")
    result = load(["."], limits=LoadLimits(max_file_size=200))
    assert [d.value["metadata"]["name"] for d in result.documents] == ["small"]
    (problem,) = result.problems
    assert (problem.file, problem.line, problem.severity) == ("b.yaml", 1, "error")
    assert "over the 200 bytes limit on one file" in problem.message
    assert "--max-file-size" in problem.message
    # Not read, so it may hold any policy for any namespace.
    assert suspect(problem) == UNREAD
    assert result.bytes == len(POLICY.format(name="small"))


def test_files_past_the_total_limit_are_not_read(tree: Path) -> None:
    for name in ("a", "b", "c"):
        write(tree, f"{name}.yaml", POLICY.format(name=name))
    size = len(POLICY.format(name="a"))
    result = load(["."], limits=LoadLimits(max_total_size=2 * size + 1))
    assert [d.file for d in result.documents] == ["a.yaml", "b.yaml"]
    (problem,) = result.problems
    assert problem.file == "c.yaml"
    assert "limit on all files together" in problem.message
    assert "--max-total-size" in problem.message
    assert suspect(problem) == UNREAD
    assert (result.files, result.bytes) == (2, 2 * size)


def test_stdin_over_the_size_limit(tree: Path) -> None:
    data = POLICY.format(name="piped").encode()
    result = load(["-"], stdin=data, limits=LoadLimits(max_file_size=len(data) - 1))
    (problem,) = result.problems
    assert (problem.file, problem.line, suspect(problem)) == ("<stdin>", 1, UNREAD)
    assert not result.documents


class _Endless(io.RawIOBase):
    """A stream that never ends, like `yes | egress-lint check -`."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = b"#" * len(buffer)
        return len(buffer)


def test_an_endless_stdin_is_read_only_up_to_the_limit(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Endless())))
    result = load(["-"], limits=LoadLimits(max_file_size=4096))
    (problem,) = result.problems
    assert "over the 4 KiB limit on one file" in problem.message


def test_a_device_given_to_load_is_skipped_not_read(tree: Path) -> None:
    # The command line refuses it (tests/cli/test_paths.py); load() notes it.
    result = load(["/dev/zero"], limits=LoadLimits(max_file_size=4096))
    (problem,) = result.problems
    assert (problem.severity, problem.message) == ("warning", "skipped: not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_inside_a_tree_is_skipped_not_read(tree: Path) -> None:
    write(tree, "d/a.yaml", POLICY.format(name="a"))
    os.mkfifo(tree / "d" / "pipe.yaml")  # reading it would block forever
    result = load(["d"])
    assert [d.file for d in result.documents] == ["d/a.yaml"]
    (problem,) = result.problems
    assert (problem.file, problem.severity) == ("d/pipe.yaml", "warning")
    assert "not a regular file" in problem.message


@pytest.mark.skipif(
    os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads anything"
)
def test_a_file_without_read_permission_fails_closed(tree: Path) -> None:
    path = write(tree, "secret.yaml", POLICY.format(name="secret"))
    path.chmod(0)
    try:
        (problem,) = load(["."]).problems
    finally:
        path.chmod(0o644)
    assert (problem.file, problem.message, suspect(problem)) == (
        "secret.yaml",
        "cannot read: Permission denied",
        UNREAD,
    )


def test_a_directory_that_cannot_be_listed_fails_closed(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tree, "locked/a.yaml", POLICY.format(name="a"))
    real = os.scandir

    def refuse(path: Any) -> Any:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", refuse)
    (problem,) = load(["."]).problems
    assert (problem.file, suspect(problem)) == ("locked", UNREAD)


# -- document size --------------------------------------------------------


def test_a_document_over_the_size_limit_is_a_problem_at_its_line(tree: Path) -> None:
    big = POLICY.format(name="big") + "  # " + "x" * 300 + "\n"
    text = (
        "kind: Namespace\nmetadata: {name: ns}\n---\n" + big + "---\n" + POLICY.format(name="after")
    )
    write(tree, "m.yaml", text)
    result = load(["m.yaml"], limits=LoadLimits(max_document_size=300))
    assert [d.value["metadata"]["name"] for d in result.documents] == ["ns", "after"]
    (problem,) = result.problems
    assert problem.line == 4
    assert "over the 300 bytes limit on one document" in problem.message
    assert "--max-document-size" in problem.message
    # Its text names a policy and a namespace: that namespace fails closed.
    assert suspect(problem) == ("NetworkPolicy", "team")


def test_documents_skipped_unparsed_are_not_limited(tree: Path) -> None:
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n" + "#" * 500 + "\n"
    write(tree, "m.yaml", deployment)
    result = load(["m.yaml"], limits=LoadLimits(max_document_size=100))
    assert (result.problems, dict(result.skipped)) == ((), {"Deployment": 1})


def test_a_json_file_over_the_document_limit(tree: Path) -> None:
    text = (
        '{"kind": "NetworkPolicy", "metadata": {"namespace": "team"}, "pad": "' + "x" * 300 + '"}'
    )
    write(tree, "p.json", text)
    (problem,) = load(["p.json"], limits=LoadLimits(max_document_size=100)).problems
    assert (problem.line, suspect(problem)) == (1, ("NetworkPolicy", "team"))


# -- nesting depth --------------------------------------------------------


def nested_block(depth: int) -> str:
    """A block mapping ``depth`` mappings deep, one key per line."""
    return (
        "".join(f"{'  ' * level}k{level}:\n" for level in range(depth - 1))
        + "  " * (depth - 1)
        + "leaf: 1\n"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (nested_block(11), 10),
        ("a: " + "[" * 11 + "]" * 11 + "\n", 0),
        ("a:\n" + "- " * 11 + "x\n", 1),
    ],
)
def test_nesting_past_the_depth_limit_is_refused_at_its_line(text: str, line: int) -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_yaml(text, limits=LoadLimits(max_depth=10))
    assert caught.value.line == line
    assert "nested deeper than 10 levels" in caught.value.message
    assert "--max-depth" in caught.value.message


def test_nesting_at_the_depth_limit_is_read() -> None:
    assert parse_yaml(nested_block(10), limits=LoadLimits(max_depth=10)).value is not None


def test_the_deepest_allowed_limit_is_read_without_recursion_errors() -> None:
    text = "a: " + "[" * (DEPTH_CEILING - 1) + "]" * (DEPTH_CEILING - 1) + "\n"
    parsed = parse_yaml(text, limits=LoadLimits(max_depth=DEPTH_CEILING))
    assert isinstance(parsed.value["a"], list)


@pytest.mark.parametrize("depth", [1_001, 100_000])
def test_nesting_past_libyaml_s_own_bound_names_our_limit(depth: int) -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_yaml("[" * depth + "]" * depth)
    assert "nested deeper than 100 levels" in caught.value.message


def test_aliases_cannot_nest_past_the_depth_limit() -> None:
    # Each anchor is 3 levels deep on its own; used inside one another the
    # expanded value is 9 levels deep.
    text = "a: &a [[[1]]]\nb: &b [[[*a]]]\nc: [[[*b]]]\n"
    with pytest.raises(ParseFailure) as caught:
        parse_yaml(text, limits=LoadLimits(max_depth=8))
    assert "nested deeper than 8 levels" in caught.value.message
    assert parse_yaml(text, limits=LoadLimits(max_depth=10)).value["c"] == [[[[[[[[[1]]]]]]]]]


def test_deep_json_is_refused_at_its_line(tree: Path) -> None:
    text = '{"kind": "NetworkPolicy",\n "spec":\n ' + "[" * 120 + "]" * 120 + "}\n"
    write(tree, "p.json", text)
    (problem,) = load(["p.json"]).problems
    assert problem.line == 3
    assert "nested deeper than 100 levels" in problem.message
    assert problem.suspect_kind == "NetworkPolicy"


# -- alias expansion ------------------------------------------------------


def laughs(levels: int, width: int = 10) -> str:
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_the_alias_limit_can_be_lowered_and_raised() -> None:
    text = laughs(4)  # about 11,000 values once expanded
    with pytest.raises(ParseFailure) as caught:
        parse_yaml(text, limits=LoadLimits(max_alias_expansion=10_000))
    assert "more than 10,000 values" in caught.value.message
    assert parse_yaml(text, limits=LoadLimits(max_alias_expansion=20_000)).value is not None


def test_a_billion_laughs_is_refused_quickly_and_fails_closed(tree: Path) -> None:
    text = "kind: NetworkPolicy\nmetadata: {namespace: team}\n" + laughs(9)
    write(tree, "bomb.yaml", text)
    (problem,) = load(["bomb.yaml"]).problems
    assert "more than 1,000,000 values" in problem.message
    assert suspect(problem) == ("NetworkPolicy", "team")


@pytest.mark.parametrize(
    ("content", "expected", "allowance", "read"),
    [
        (b"abc", 3, 10, b"abc"),  # as its status said
        (b"abcdef", 3, 10, b"abcdef"),  # grew after its status was taken
        (b"abcdef", 3, 4, b"abcde"),  # grew past the allowance: one byte over
        (b"ab", 3, 10, b"ab"),  # shrank
        (b"abcdef", None, 10, b"abcdef"),  # no status size (a pipe or device)
    ],
)
def test_a_file_is_read_whole_whatever_its_status_said(
    tmp_path: Path, content: bytes, expected: int | None, allowance: int, read: bytes
) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes(content)
    assert _read_file(path, expected)(allowance + 1) == read


@pytest.mark.parametrize(("expected", "allowance"), [(8, 20), (3, 20), (None, 20), (20, 20)])
def test_a_file_given_in_pieces_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expected: int | None, allowance: int
) -> None:
    """A read may give fewer bytes than asked for: the file is read on to
    its end, whatever size its status gave."""
    path = tmp_path / "m.yaml"
    path.write_bytes(b"abcdefgh")
    real_read = os.read
    monkeypatch.setattr(
        files.os, "read", lambda descriptor, size: real_read(descriptor, min(size, 3))
    )
    assert _read_file(path, expected)(allowance + 1) == b"abcdefgh"
