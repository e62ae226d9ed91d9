"""Building one entry's egress configuration and its line map.

``defaults`` is merged under each entry's ``egress`` one top-level key at a
time: a key the entry writes replaces the default value as a whole (no
deep merge, so an entry's ``policy`` or ``ciliumNarrowing`` never inherits
half of another one), and ``policy``, ``allow`` and ``allowHosts`` are
one intent: an entry that writes any of them inherits none. Lines follow
the values: a key taken from ``defaults`` keeps the line where
``defaults`` writes it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from lint.decision.values import JSON
from lint.declarations.fieldpaths import Path

INTENT_KEYS: frozenset[str] = frozenset({"policy", "allow", "allowHosts"})
"""The keys that say what may leave: one ``policy``, or ``allow`` with its hosts."""


@dataclass(frozen=True)
class MergedEgress:
    """An entry's egress after merging, the keys that came from
    ``defaults``, and every line relative to the entry (``()`` is the
    entry itself, ``("egress", "policy")`` its policy)."""

    egress: dict[str, JSON]
    inherited: frozenset[str]
    lines: dict[Path, int]


def merge_egress(
    document: Mapping[str, JSON], lines: Mapping[Path, int], index: int
) -> MergedEgress:
    """Merge ``defaults`` under ``sandboxes[index].egress`` (entry keys win)."""
    entry = document["sandboxes"][index]
    own = _as_mapping(entry.get("egress"))
    defaults = _as_mapping(document.get("defaults"))
    # `host` and `environments` are an entry's own settings, not its egress.
    defaults.pop("host", None)
    defaults.pop("environments", None)
    if INTENT_KEYS & own.keys():
        # The intent is one slot: an entry's `allow` replaces a default
        # `policy`, and its `policy` a default `allow` (with its hosts).
        defaults = {key: value for key, value in defaults.items() if key not in INTENT_KEYS}
    inherited = frozenset(key for key in defaults if key not in own)
    egress = {key: defaults[key] for key in defaults if key in inherited}
    egress.update(own)
    # Entries must not share default values: each gets its own copy.
    egress = copy.deepcopy(egress)
    entry_lines = _relocated(lines, entry, ("sandboxes", index), ())
    for key in inherited:
        entry_lines.update(_relocated(lines, defaults[key], ("defaults", key), ("egress", key)))
    return MergedEgress(egress, inherited, entry_lines)


def _as_mapping(value: JSON) -> dict[str, JSON]:
    return dict(value) if isinstance(value, dict) else {}


def _relocated(
    lines: Mapping[Path, int], value: JSON, source: Path, target: Path
) -> dict[Path, int]:
    """The lines of ``value``, which sits at ``source``, re-rooted at
    ``target``. The value's own shape names every path below it, so only
    those lines are read, never the whole file's map."""
    return {
        target + below: lines[source + below] for below in _paths(value) if source + below in lines
    }


def _paths(value: JSON, below: Path = ()) -> Iterator[Path]:
    """Every path inside ``value``, itself first, in document order."""
    yield below
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*below, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _paths(item, (*below, position))
