"""Every output of every command, byte for byte as recorded in
``digests.json`` (see ``cases.py``). Cases on ``../shared/corpus`` skip when
it is absent; the bench tree is generated once per session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bench_tree import generate_tree
from tests.golden.cases import BENCH_SHAPE, CORPUS, DIGESTS, Case, run_case
from tests.golden.changed_outputs import CHANGED

RECORDED: dict[str, dict[str, Any]] = json.loads(DIGESTS.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def bench_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-bench")
    generate_tree(root, **BENCH_SHAPE)
    return root


def _case(entry: dict[str, Any]) -> Case:
    root, cwd, *args = entry["case"]
    return Case(root, cwd, tuple(args))


def test_the_recorded_cases_cover_every_tree() -> None:
    roots = {entry["case"][0] for entry in RECORDED.values()}
    assert roots == {"fixtures", "corpus", "bench"}
    commands = {entry["case"][2] for entry in RECORDED.values()}
    assert commands == {"check", "explain", "generate", "rules"}


def test_every_output_changed_on_purpose_says_why() -> None:
    """The digests were taken before issue 11's layout; an entry changed
    since then carries its reason (``changed_outputs.CHANGED``)."""
    changed = sorted(key for key, entry in RECORDED.items() if "why" in entry)
    assert changed == sorted(CHANGED)
    assert all(len(RECORDED[key]["why"]) > 40 for key in changed)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_output_is_byte_identical(key: str, request: pytest.FixtureRequest) -> None:
    entry = RECORDED[key]
    case = _case(entry)
    roots: dict[str, Path] = {"fixtures": Path(__file__).resolve().parents[2] / "fixtures"}
    if case.root == "corpus":
        if not CORPUS.is_dir():
            pytest.skip("../shared/corpus is absent")
        roots["corpus"] = CORPUS.parent
    if case.root == "bench":
        roots["bench"] = request.getfixturevalue("bench_root")
    outcome = run_case(case, roots).digest()
    assert {k: entry[k] for k in outcome} == outcome, (
        f"{key}: output changed; if that is intended, run python -m tests.golden.regenerate"
    )
