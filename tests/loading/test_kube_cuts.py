"""The table of docs/yaml.md "Documents": each stream is cut as
apimachinery's reader cuts it (the sources and commits are named there), and
yields the documents and problems the table lists, in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.loading.files import SourceFile
from lint.loading.loader import _cut, load_file
from lint.loading.sniff import has_unusual_breaks
from lint.loading.split import kube_separators, marked_lines, split_marked, split_stream

PAGE = Path(__file__).resolve().parents[2] / "docs" / "yaml.md"
_ROW = re.compile(r"^\| `(?P<stream>[^`]+)` \| (?P<documents>[A-Za-z, ]+) \|$", re.M)
KINDS = frozenset({"A", "B", "C"})


def table() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("| Stream | Documents read |")
    end = text.index("\n\n", start)
    return [(row["stream"], row["documents"]) for row in _ROW.finditer(text, start, end)]


def test_the_table_is_there() -> None:
    assert len(table()) >= 20


def read(stream: str) -> str:
    """What loading the stream yields: kinds and problems, by line."""
    text = stream.encode("ascii").decode("unicode_escape")
    harvest = load_file(SourceFile("m.yaml", text.encode("utf-8")), KINDS)
    found = [(document.line, 0, str(document.kind)) for document in harvest.documents]
    found += [(problem.line, 1, "problem") for problem in harvest.problems]
    return ", ".join(label for _, _, label in sorted(found))


@pytest.mark.parametrize(("stream", "documents"), table())
def test_streams_are_cut_as_apimachinery_cuts_them(stream: str, documents: str) -> None:
    assert read(stream) == documents


_MARKED_LINE = re.compile(r"^---([^\n]+)", re.M)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["-", "\n", " ", "\r", "#", "a", "\u00a0", "\f"])))
def test_marked_lines_are_the_lines_a_multiline_regex_finds(text: str) -> None:
    expected = [(m.start(1), m.end(1)) for m in _MARKED_LINE.finditer(text)]
    assert list(marked_lines(text)) == expected


_LINE_STARTS = [
    "---",
    "--- ",
    "---\t",
    "---\r",
    "---#x",
    "---\u00a0",
    "---\f",
    "-",
    "- a",
    "...",
    "kind: A",
]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_LINE_STARTS),
            st.text(alphabet=st.sampled_from(["-", " ", "\r", "#", "a", ":", "\u00a0", "\f"])),
        ),
        max_size=8,
    ).map("\n".join)
)
def test_the_cut_notes_every_line_the_separator_rewrite_looks_at(text: str) -> None:
    """``split_marked`` says whether ``marked_lines`` finds a line, so the
    loader's cut of a text with only LF and CRLF breaks (``_cut``) is the cut
    of the rewritten text, searched or not."""
    chunks, marked = split_marked(text)
    assert marked == any(True for _ in marked_lines(text))
    assert chunks == split_stream(text)
    if not has_unusual_breaks(text):
        rewritten = kube_separators(text)
        assert _cut(text) == (rewritten, split_stream(rewritten))
