"""Cutting streams into documents: markers, lines, empty documents and Helm's
``# Source:`` comments (INTEGRATIONS.md §4.1, §4.3, §5.1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.loading.split import _CONTENT, STRAY_CONTENT, STRAY_END, split_stream


def summary(text: str) -> list[tuple[int, int, str | None, str | None]]:
    """(index, line of the chunk, content line or None, source) per chunk."""
    return [
        (
            chunk.index,
            chunk.line,
            None if chunk.content is None else str(chunk.line_at(text, chunk.content)),
            chunk.source(text),
        )
        for chunk in split_stream(text)
    ]


def test_no_documents_in_empty_or_comment_only_stream() -> None:
    assert split_stream("") == []
    assert split_stream("# only a comment\n\n") == []


def test_single_implicit_document() -> None:
    assert summary("a: 1\nb: 2\n") == [(0, 1, "1", None)]


def test_explicit_empty_documents_are_counted() -> None:
    text = "---\n---\nkind: A\n---\n"
    assert summary(text) == [(0, 1, None, None), (1, 2, "3", None), (2, 4, None, None)]


def test_leading_comments_and_directives_join_the_first_document() -> None:
    text = "# header\n%YAML 1.1\n---\nkind: A\n"
    chunks = split_stream(text)
    assert len(chunks) == 1
    assert text[chunks[0].start : chunks[0].end] == text
    assert chunks[0].line_at(text, chunks[0].content or 0) == 4


def test_content_line_skips_comments_and_blank_lines() -> None:
    text = "---\n# Source: c/templates/a.yaml\n\n# more\nkind: A\n"
    assert summary(text) == [(0, 1, "5", "c/templates/a.yaml")]


def test_marker_needs_a_blank_or_end_after_it() -> None:
    text = "a: 1\n----\nb: |\n  ---x\n---\n"
    assert [chunk.index for chunk in split_stream(text)] == [0, 1]


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_lines_are_counted_per_document(line_end: str) -> None:
    text = line_end.join(["a: 1", "---", "b: 2", "c: 3", "---", "", "d: 4", ""])
    assert [row[2] for row in summary(text)] == ["1", "3", "7"]


def test_helm_split_source_belongs_to_the_next_non_empty_document() -> None:
    text = (
        "---\n# Source: chart/templates/a.yaml\n---\nkind: A\n"
        "---\n# Source: chart/templates/b.yaml\nkind: B\n"
        "---\nkind: C\n"
    )
    assert summary(text) == [
        (0, 1, None, None),
        (1, 3, "4", "chart/templates/a.yaml"),
        (2, 5, "7", "chart/templates/b.yaml"),
        (3, 8, "9", None),
    ]


def test_a_document_own_source_wins_over_an_inherited_one() -> None:
    text = "---\n# Source: x/templates/hidden.yaml\n---\n# Source: x/templates/own.yaml\nkind: A\n"
    assert summary(text)[1][3] == "x/templates/own.yaml"


def test_inherited_source_skips_several_empty_documents() -> None:
    text = "---\n# Source: x/templates/t.yaml\n---\n---\n# comment\n---\nkind: A\n"
    assert summary(text)[-1] == (3, 6, "7", "x/templates/t.yaml")


def test_source_comment_below_content_is_not_the_document_source() -> None:
    text = "---\nkind: A\n# Source: late.yaml\n"
    assert summary(text) == [(0, 1, "2", None)]


def test_source_of_the_first_document_without_marker() -> None:
    assert summary("# Source: c/templates/x.yaml\nkind: A\n")[0][3] == "c/templates/x.yaml"


def test_document_end_marker_closes_the_document() -> None:
    text = "a: 1\n...\n---\nb: 2\n"
    chunks = split_stream(text)
    assert [(c.index, c.problem) for c in chunks] == [(0, None), (1, None)]
    assert text[chunks[0].body : chunks[0].stop] == "a: 1\n"


def test_content_after_document_end_without_marker_is_flagged() -> None:
    chunks = split_stream("a: 1\n...\nb: 2\n")
    assert [c.problem for c in chunks] == [None, STRAY_CONTENT]


def test_document_end_without_document_is_flagged() -> None:
    chunks = split_stream("# c\n...\n")
    assert [(c.content, c.problem) for c in chunks] == [(None, STRAY_END)]


def test_content_on_the_marker_line_starts_the_document_there() -> None:
    text = "--- |\n  literal\n"
    chunks = split_stream(text)
    assert chunks[0].body == 0
    assert chunks[0].content == 0
    assert not chunks[0].plain_keys


def test_kind_lines_and_plain_keys_are_recorded() -> None:
    text = "---\napiVersion: v1\nkind: Service\nmetadata:\n  kind: Deep\n"
    (chunk,) = split_stream(text)
    assert [value for value, _ in chunk.kind_lines] == [" Service"]
    assert chunk.plain_keys


@pytest.mark.parametrize(
    "line",
    [
        '"quoted": 1',
        "{a: 1}",
        "[1]",
        "? complex",
        "&anchor a: 1",
        "*alias : 1",
        "!tag a: 1",
        "<<: *base",
        "key : spaced",
        "plain text",
        "%DIRECTIVE",
    ],
)
def test_column_zero_lines_that_are_not_plain_keys_are_noticed(line: str) -> None:
    (chunk,) = split_stream(f"---\napiVersion: v1\n{line}\nkind: Service\n")
    assert not chunk.plain_keys


def test_last_content_line_ignores_trailing_comments() -> None:
    text = "---\na: 1\nb:\n  - 2\n\n# trailing\n---\nc: 3\n"
    first, second = split_stream(text)
    assert first.last_content_line(text) == 4
    assert second.last_content_line(text) == 8


_LINES = [
    "---",
    "--- # c",
    "...",
    "# Source: a/b.yaml",
    "#",
    "",
    " ",
    "\t# c",
    "%YAML 1.1",
    " %x",
    "a: b",
    "- x",
    "kind: A",
    "\r",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=12).map("\n".join))
def test_each_document_starts_where_the_content_pattern_finds_it(text: str) -> None:
    """A document whose body opens with a comment line is searched from the
    next line on: the same line as searching the whole body."""
    for chunk in split_stream(text):
        found = _CONTENT.search(text, chunk.body, chunk.stop)
        assert chunk.content == (None if found is None else found.start())
