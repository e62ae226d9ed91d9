"""How deep a YAML document may nest and how far its aliases may expand.

These two bounds belong to the reading of one document, so their defaults
live here; ``lint.loading.limits.LoadLimits`` carries them, with the bounds
on files, among the limits of a whole load, and satisfies
:class:`DocumentBounds`.
"""

from __future__ import annotations

from typing import Final, Protocol

import msgspec

MAX_DEPTH: Final = 100
"""The default deepest nesting of mappings and sequences in a document."""

MAX_ALIAS_EXPANSION: Final = 1_000_000
"""The default number of values a document may hold once its aliases are
expanded: the bound on alias bombs ("billion laughs")."""


class DocumentBounds(Protocol):
    """The bounds the reader applies to one document."""

    @property
    def max_depth(self) -> int: ...

    @property
    def max_alias_expansion(self) -> int: ...


class _DefaultBounds(msgspec.Struct, frozen=True):
    max_depth: int = MAX_DEPTH
    max_alias_expansion: int = MAX_ALIAS_EXPANSION


DEFAULT_BOUNDS: Final[DocumentBounds] = _DefaultBounds()
"""The default bounds, for a document read outside a load."""
