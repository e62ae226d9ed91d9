"""The documentation users read cites nothing they do not have.

`README.md` and every `docs/*.md` ship with the project, while the
specification the project was built from does not: a section number, a spec
file name or a path beside the checkout would send a reader nowhere. Each
such citation is a hit, reported at its file and line. Upstream citations (a
repository and commit) are not matched and stay welcome.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Section signs, the names of the specification's documents, and the path of
# the directory that holds them beside the checkout.
CITATION = re.compile(
    r"§|SEMANTICS|AGENT-SANDBOX|CLUSTER-POLICIES|INTEGRATIONS\.md|DESIGN\b|REPORT\.md|\.\./shared"
)


def _documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def citations(text: str) -> list[tuple[int, str]]:
    """Every line of `text` that cites the specification, as (line, text)."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if CITATION.search(line)
    ]


@pytest.mark.parametrize(
    "line",
    [
        "the fence of SEMANTICS.md §15.2",
        "(CLUSTER-POLICIES §2.3)",
        "`spec/AGENT-SANDBOX.md`",
        "as INTEGRATIONS.md asks",
        "Be fast (DESIGN §7).",
        "as REPORT.md specifies",
        "python bench/run.py  # then ../shared/corpus",
        "the newest column of §8",
    ],
)
def test_each_kind_of_citation_is_caught(line: str) -> None:
    assert citations(f"intro\n{line}\n") == [(2, line)]


@pytest.mark.parametrize(
    "line",
    [
        "kubernetes/kubernetes at commit 1758d176899c3cef671eb4a3bb77df852280eb95",
        "cilium/cilium (`pkg/k8s/apis/cilium.io/v2/cidrgroups_types.go`)",
        "the DESIGNATED namespace",
        "a shared corpus of real manifests",
        "issue 27 fixed this",
    ],
)
def test_upstream_citations_and_plain_words_pass(line: str) -> None:
    assert citations(line) == []


def test_the_documents_exist() -> None:
    # Guards the check below against passing on an empty glob.
    names = {path.name for path in _documents() if path.is_file()}
    assert {"README.md", "declarations.md", "json-schema.md"} <= names


def test_docs_cite_no_document_users_do_not_have() -> None:
    hits = [
        f"{path.relative_to(REPO)}:{number}: {line}"
        for path in _documents()
        for number, line in citations(path.read_text(encoding="utf-8"))
    ]
    assert not hits, "explain in our own words instead of citing:\n" + "\n".join(hits)
