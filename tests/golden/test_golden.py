"""Every output of every command, as recorded (see ``cases.py``): on the
fixture trees the whole text, compared with a unified diff on failure; on
the large trees the digests. Cases on ``../shared/corpus`` skip when it is
absent; the bench tree is generated once per session."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from lint.report.reporters import CHECK_REPORTERS
from tests.bench_tree import generate_tree
from tests.golden.cases import (
    BENCH_SHAPE,
    CORPUS,
    DIGESTS,
    FIXTURES,
    OUTPUTS,
    Case,
    all_cases,
    fixture_dirs,
    outputs_file,
    read_sections,
    run_case,
    stored_text,
)

RECORDED: dict[str, dict[str, Any]] = json.loads(DIGESTS.read_text(encoding="utf-8"))
STORED: dict[str, dict[tuple[str, ...], str]] = {
    cwd: read_sections(outputs_file(cwd)) for cwd in fixture_dirs()
}
MAX_DIFF_LINES = 400
REGENERATE = "if that is intended, run python -m tests.golden.regenerate"


@pytest.fixture(scope="session")
def bench_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-bench")
    generate_tree(root, **BENCH_SHAPE)
    return root


def _fixture_cases() -> list[tuple[str, tuple[str, ...]]]:
    return [(cwd, args) for cwd, sections in STORED.items() for args in sections]


@pytest.mark.parametrize(("cwd", "args"), _fixture_cases())
def test_fixture_output_is_as_recorded(cwd: str, args: tuple[str, ...]) -> None:
    case = Case("fixtures", cwd, args)
    actual = stored_text(case, run_case(case, {"fixtures": FIXTURES}))
    expected = STORED[cwd][args]
    if actual != expected:
        pytest.fail(f"{case.key}: output changed; {REGENERATE}\n{_diff(expected, actual)}")


def _diff(expected: str, actual: str) -> str:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            "recorded",
            "now",
        )
    )
    shown = "".join(lines[:MAX_DIFF_LINES])
    if len(lines) > MAX_DIFF_LINES:
        shown += f"... {len(lines) - MAX_DIFF_LINES} more diff lines\n"
    return shown


def test_every_case_of_every_fixture_tree_is_recorded() -> None:
    """No case missing and none left over: a new fixture, command or format
    is recorded before it counts as pinned."""
    cases = all_cases({"fixtures": FIXTURES})
    wanted = {(case.cwd, case.args) for case in cases if case.root == "fixtures"}
    assert set(_fixture_cases()) == wanted
    assert {path.name for path in OUTPUTS.glob("*.txt")} == {
        outputs_file(cwd).name for cwd in fixture_dirs()
    }


def test_every_registered_format_is_pinned() -> None:
    demo = {args for cwd, args in _fixture_cases() if cwd == "demo"}
    for fmt in CHECK_REPORTERS:
        assert ("check", ".", "--format", fmt) in demo


def test_a_changed_output_fails_with_a_readable_diff() -> None:
    shown = _diff("a\nb\nc\n", "a\nB\nc\n")
    assert "-b\n" in shown and "+B\n" in shown and "recorded" in shown


def test_the_large_trees_are_recorded() -> None:
    roots = {entry["case"][0] for entry in RECORDED.values()}
    assert roots <= {"corpus", "bench"} and "bench" in roots
    commands = {entry["case"][2] for entry in RECORDED.values()}
    assert {"check", "explain", "generate"} <= commands


def _case(entry: dict[str, Any]) -> Case:
    root, cwd, *args = entry["case"]
    return Case(root, cwd, tuple(args))


# The cases on the 16 MB bench tree take 10 to 25 s each: `pytest -m slow`.
@pytest.mark.parametrize(
    "key",
    [
        pytest.param(key, marks=pytest.mark.slow) if key.startswith("bench:") else key
        for key in sorted(RECORDED)
    ],
)
def test_large_tree_output_is_byte_identical(key: str, request: pytest.FixtureRequest) -> None:
    entry = RECORDED[key]
    case = _case(entry)
    roots: dict[str, Path] = {}
    if case.root == "corpus":
        if not CORPUS.is_dir():
            pytest.skip("../shared/corpus is absent")
        roots["corpus"] = CORPUS.parent
    if case.root == "bench":
        roots["bench"] = request.getfixturevalue("bench_root")
    outcome = run_case(case, roots).digest()
    assert {k: entry[k] for k in outcome} == outcome, f"{key}: output changed; {REGENERATE}"


FORBIDDEN = ("§", "SEMANTICS", '{"cidr"', "<kustomize build")
"""What no output of any fixture, in any format, may show: a section sign or
the name of a document users do not have, a peer as raw JSON, or a place
that is no file."""


def test_no_recorded_output_shows_what_a_user_cannot_follow() -> None:
    found = [
        (cwd, args, word)
        for cwd, sections in STORED.items()
        for args, text in sections.items()
        for word in FORBIDDEN
        if word in text
    ]
    assert found == []
    assert sum(map(len, STORED.values())) > 900
