"""The README and the docs render as their authors wrote them under CommonMark.

A closing code fence glued to the end of the line before it (``notes```)
closes nothing: a CommonMark renderer keeps the block open, and every
section after it shows as code. Each document is parsed with a CommonMark
parser (markdown-it-py), and compared with a plain scan of its raw text
that reads a fence as closed where its author closed it, glued or not:
every heading the author wrote is a heading once parsed, no code block
holds one, and every code block ends on a fence line of its own.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

markdown_it = pytest.importorskip("markdown_it")

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    *sorted((REPO / "docs").glob("*/*.md")),
]
README_SECTIONS = (
    "# egress-lint",
    "## Install",
    "## Quick start",
    "## Declaring intent",
    "## Commands",
    "## Use it in…",
    "## Test",
    "## Layout",
)
"""The README's sections, as written: each must come out as a heading."""

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def intended_headings(text: str) -> list[tuple[int, str]]:
    """Every line starting with ``#`` outside code fences, as (0-based
    line, line), by a scan independent of any Markdown parser. A fence is
    closed where its author closed it: by a line that ends with the fence
    marker, even when text comes before it on that line."""
    headings: list[tuple[int, str]] = []
    marker: str | None = None
    for number, line in enumerate(text.splitlines()):
        if marker is not None:
            if line.rstrip().endswith(marker):
                marker = None
            continue
        opening = _FENCE.match(line)
        if opening:
            marker = opening.group(1)
        elif line.startswith("#"):
            headings.append((number, line.rstrip()))
    return headings


def render_problems(text: str) -> list[str]:
    """What a CommonMark renderer does differently from what the author
    wrote, one sentence each; empty when the document renders as written."""
    tokens = markdown_it.MarkdownIt("commonmark").parse(text)
    lines = text.splitlines()
    intended = intended_headings(text)
    parsed = {token.map[0] for token in tokens if token.type == "heading_open" and token.map}
    problems = [
        f"line {number + 1}: {heading!r} is not rendered as a heading"
        for number, heading in intended
        if number not in parsed
    ]
    for token in tokens:
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        swallowed = [heading for number, heading in intended if start <= number < end]
        problems += [f"line {start + 1}: the code block holds {h!r}" for h in swallowed]
        last = lines[end - 1].strip() if end - 1 > start else ""
        if not _FENCE.fullmatch(last) or last[0] != token.markup[0]:
            problems.append(
                f"line {start + 1}: the code block is never closed on a line of its own"
            )
    return problems


def test_a_glued_closing_fence_is_found() -> None:
    # The README's demo output once ended so: everything after it was code.
    text = "# Title\n\n```\n4 paths checked```\n\n## Declaring intent\n\nText.\n"
    problems = render_problems(text)
    assert any("'## Declaring intent' is not rendered" in p for p in problems), problems
    assert any("holds '## Declaring intent'" in p for p in problems), problems
    assert any("never closed" in p for p in problems), problems


def test_a_document_that_renders_as_written_has_no_problem() -> None:
    text = "# Title\n\n  ```sh\n  # a shell comment\n  run\n  ```\n\n## Next\n\n~~~\nx\n~~~\n"
    assert render_problems(text) == []
    assert intended_headings(text) == [(0, "# Title"), (7, "## Next")]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_document_renders_as_written(path: Path) -> None:
    assert render_problems(path.read_text(encoding="utf-8")) == []


def test_every_readme_section_is_a_heading() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    tokens = markdown_it.MarkdownIt("commonmark").parse(text)
    headings = [
        f"{opening.markup} {inline.content}"
        for opening, inline in pairwise(tokens)
        if opening.type == "heading_open"
    ]
    missing = [section for section in README_SECTIONS if section not in headings]
    assert not missing, headings
