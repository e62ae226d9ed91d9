"""Cilium ``toFQDNs.matchPattern`` read the way Cilium reads it, for the
``allowHosts`` of a ``host: none`` entry (issue 28). No host vocabulary binds
such an entry, so its intent is judged in the cluster's own terms (the
namzu host's union, SEMANTICS.md §4.1 and §10.2 step 8, never reads a
pattern and is unchanged).

Cilium (cilium/cilium ``pkg/fqdn/matchpattern/matchpattern.go`` at commit
0f7e0e5e9d2e4809bfb02fa8d0f389409328cece, its tests in
``matchpattern_test.go`` at commit 076bbeb36a867baf65fbae1f8c70b82a333841d7,
and a later copy of the file that adds the ``**.`` prefix) lowercases a
pattern and turns it into an anchored regular expression:

- ``*`` stands for any run, possibly empty, of ``[-a-zA-Z0-9_]`` (``_``
  joined the class after the first commit): never a dot, so it stays
  inside one DNS label. ``*.debian.org`` matches
  ``a.debian.org`` but neither ``debian.org`` nor ``a.b.debian.org``.
- A pattern of stars alone (``*``, ``**``, with or without a final dot)
  matches every name.
- Later versions read a leading run of two or more stars followed by a dot
  (``**.debian.org``) as one or more whole labels; elsewhere a run of stars
  is one star. Older versions read ``**`` as two stars.

Every answer here is one-sided: ``True`` only when every name the policy
side can match is matched by the declared side, under either reading of
``**``. A ``False`` is a finding, never a pass.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "is_pattern",
    "name_in_pattern",
    "normalise_name",
    "pattern_within",
]

# What one `*` stands for in Cilium: DNS characters, never a dot.
_LABEL_RUN: Final = "[-a-z0-9_]*"
# Stands for one of the policy pattern's stars while it is matched against
# the declared one: no literal character matches it, only a declared star.
_STAR_MARK: Final = "\x00"
_MULTI_LABEL_PREFIX: Final = re.compile(r"\*{2,}\.")


def normalise_name(text: str) -> str:
    """Lowercase (ASCII, as Cilium's ``strings.ToLower`` on DNS characters)
    and without one final dot."""
    lowered = text.lower()
    return lowered[:-1] if lowered.endswith(".") else lowered


def is_pattern(text: str) -> bool:
    """Whether a declared host is a pattern (holds a ``*``)."""
    return "*" in text


def _matches_everything(pattern: str) -> bool:
    return pattern != "" and set(pattern) == {"*"}


def _regex(pattern: str, star: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in re.sub(r"\*+", "*", pattern).split("*")]
    return re.compile(star.join(parts), re.ASCII)


def name_in_pattern(name: str, pattern: str) -> bool:
    """Whether Cilium's ``matchPattern: pattern`` matches the name
    (``matchName``). A ``**.`` prefix counts only as one label here, so a
    name it would match under the later reading only is not claimed."""
    name, pattern = normalise_name(name), normalise_name(pattern)
    if _matches_everything(pattern):
        return True
    return _regex(pattern, _LABEL_RUN).fullmatch(name) is not None


def pattern_within(inner: str, outer: str) -> bool:
    """Whether every name the policy's ``matchPattern: inner`` matches is
    matched by the declared ``outer``.

    ``outer`` matching everything covers anything; otherwise an ``inner``
    that matches everything, or that may span several labels (``**.``),
    is not covered. For the rest, each star of ``inner`` is replaced by a
    mark that only a star of ``outer`` can absorb: when ``outer`` then
    matches that text, it matches every name ``inner`` matches, each star's
    text absorbed where the mark was. A star of ``outer`` is read as one
    label, the narrower of Cilium's readings of ``**``.
    """
    inner, outer = normalise_name(inner), normalise_name(outer)
    if _matches_everything(outer):
        return True
    if _matches_everything(inner) or _MULTI_LABEL_PREFIX.match(inner):
        return False
    marked = re.sub(r"\*+", _STAR_MARK, inner)
    return _regex(outer, f"[-a-z0-9_{_STAR_MARK}]*").fullmatch(marked) is not None
