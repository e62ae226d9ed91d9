"""The loader over the real manifests of ``shared/corpus``: it never drops a
document the check reads, and it never crashes.

The corpus lives beside the repository and is never copied into it; these
tests skip when it is absent.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import lint.loading.loader as loader_module
from lint.loading import LoadResult, load
from lint.loading.decode import decode
from tests.loading.reference import assert_agrees

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present"),
]


@pytest.fixture(scope="module")
def in_corpus() -> Iterator[Path]:
    previous = Path.cwd()
    os.chdir(CORPUS)
    try:
        yield CORPUS
    finally:
        os.chdir(previous)


@pytest.fixture(scope="module")
def sniffed(in_corpus: Path) -> LoadResult:
    return load(["."])


@pytest.fixture(scope="module")
def unsniffed(in_corpus: Path) -> Iterator[LoadResult]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loader_module, "certain_kind", lambda text, chunk: None)
        yield load(["."])


def test_the_sniff_drops_no_relevant_document(sniffed: LoadResult, unsniffed: LoadResult) -> None:
    assert sniffed.documents == unsniffed.documents
    assert len(sniffed.documents) > 500
    assert {p for p in unsniffed.problems if p.suspect_kind} <= set(sniffed.problems)


def test_every_file_agrees_with_a_whole_stream_parse(sniffed: LoadResult, in_corpus: Path) -> None:
    checked = 0
    for path in sorted(in_corpus.rglob("*")):
        if path.suffix.lower() not in {".yaml", ".yml", ".json"} or not path.is_file():
            continue
        text = decode(path.read_bytes())
        if isinstance(text, str):
            assert_agrees(sniffed, path.relative_to(in_corpus).as_posix(), text)
            checked += 1
    assert checked > 1000


def test_every_document_has_a_location(sniffed: LoadResult) -> None:
    for document in sniffed.documents:
        assert 1 <= document.line <= document.end_line
        assert document.text
    for problem in sniffed.problems:
        assert problem.line >= 1
        assert problem.message
