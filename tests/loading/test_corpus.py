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
from lint.loading.files import HELM_CHART_FILE, KUSTOMIZATION_FILES
from tests.loading.reference import assert_agrees

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

UNRENDERED_MARKERS = (HELM_CHART_FILE, *KUSTOMIZATION_FILES)

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
        tree = _unrendered_tree(path, in_corpus)
        if tree is not None:
            # A chart or a kustomization is not read as manifests: one
            # problem at its Chart.yaml or kustomization file says so.
            assert not [d for d in sniffed.documents if d.file == _name(path, in_corpus)]
            assert any(
                p.file.startswith(f"{tree}/") and p.render is not None for p in sniffed.problems
            ), tree
            continue
        text = decode(path.read_bytes())
        if isinstance(text, str):
            assert_agrees(sniffed, _name(path, in_corpus), text)
            checked += 1
    assert checked > 1000


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _unrendered_tree(path: Path, root: Path) -> str | None:
    """The outermost directory above ``path`` that is a Helm chart or a
    Kustomize directory, if any."""
    for parent in reversed(path.relative_to(root).parents):
        directory = root / parent
        if any((directory / name).is_file() for name in UNRENDERED_MARKERS):
            return parent.as_posix()
    return None


def test_every_document_has_a_location(sniffed: LoadResult) -> None:
    for document in sniffed.documents:
        assert 1 <= document.line <= document.end_line
        assert document.text
    for problem in sniffed.problems:
        assert problem.line >= 1
        assert problem.message
