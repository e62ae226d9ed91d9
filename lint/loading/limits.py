"""How much input one load may read, and how deep and wide a document may be.

Every limit turns hostile or runaway input into a problem at a file and line
instead of a crash, a hang or an exhausted machine. The defaults leave room
for every real manifest we have seen (the largest corpus document is 1.4 MB
and 36 levels deep); ``docs/limits.md`` gives each limit, its default, what it
costs in time and memory, and the flag that raises it.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from lint.yaml.bounds import MAX_ALIAS_EXPANSION, MAX_DEPTH

KIB: Final = 1024
MIB: Final = 1024 * KIB
GIB: Final = 1024 * MIB

DEPTH_CEILING: Final = 256
"""The deepest nesting a load may allow. The loader and the engine walk
values recursively; past this, Python's recursion limit would be the real
bound, and libyaml's own (1,000 levels) past that."""


class LoadLimits(msgspec.Struct, frozen=True):
    """The bounds of one load. Sizes are in bytes, except the document size,
    which counts characters of decoded text (the same for ASCII)."""

    max_file_size: int = 64 * MIB
    """Largest file (or standard input) read; a larger one is not read."""
    max_total_size: int = 128 * MIB
    """Most bytes read over all inputs; files past it are not read."""
    max_document_size: int = 8 * MIB
    """Largest document parsed. Documents skipped unparsed (see
    ``docs/yaml.md``) cost nothing and are not limited."""
    max_depth: int = MAX_DEPTH
    """Deepest nesting of mappings and sequences in a document."""
    max_alias_expansion: int = MAX_ALIAS_EXPANSION
    """Most values a document may hold once its aliases are expanded: the
    bound on alias bombs ("billion laughs")."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if self.max_depth > DEPTH_CEILING:
            raise ValueError(f"max_depth cannot exceed {DEPTH_CEILING}, not {self.max_depth}")


DEFAULT_LIMITS: Final = LoadLimits()

_SIZE: Final = re.compile(r"\s*([0-9]+)\s*(?:([kKmMgG])(?:i?[bB])?|[bB])?\s*")
_UNITS: Final = {"k": KIB, "m": MIB, "g": GIB}


def parse_size(text: str) -> int:
    """A size written as a number of bytes with an optional binary unit:
    ``65536``, ``64K``, ``64KiB``, ``64M``, ``1G``, ``1GB`` (K, M and G are
    powers of 1024). Raises ValueError for anything else, zero included."""
    found = _SIZE.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a size: write bytes, or a number with K, M or G")
    number, unit = found.groups()
    size = int(number) * (_UNITS[unit.lower()] if unit else 1)
    if size < 1:
        raise ValueError(f"{text!r} is not a positive size")
    return size


def describe_size(size: int) -> str:
    """A byte count for messages: ``64 MiB`` when it is a whole number of
    a unit, else the bytes with thousands separators."""
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit:,} {name}"
    return f"{size:,} bytes"
