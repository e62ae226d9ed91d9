"""Showing untrusted text on a terminal: every report and error message
may quote the input, so control characters are written as visible escapes.

A module of its own, with nothing but ``re``, so that the CLI's one
``fail()`` can use it without importing the reporters.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escape(text: str) -> str:
    """Replace control characters (C0, DEL, C1) and the bidirectional
    controls that could reorder a line on screen with visible escapes."""
    return _CONTROL.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
