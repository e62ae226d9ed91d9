"""Text output escapes what could rewrite or reorder the screen."""

from __future__ import annotations

import pytest

from lint.report.escaping import escape


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("line\rover", "line\\x0dover"),
        ("c1\x9bx", "c1\\x9bx"),
        ("evil\u202etxt.yaml", "evil\\u202etxt.yaml"),
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("plain é ✓", "plain é ✓"),
    ],
)
def test_escape(raw: str, shown: str) -> None:
    assert escape(raw) == shown
