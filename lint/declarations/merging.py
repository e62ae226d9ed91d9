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

from collections.abc import Mapping

import msgspec

from lint.decision.values import JSON
from lint.declarations.fieldpaths import Path

INTENT_KEYS: frozenset[str] = frozenset({"policy", "allow", "allowHosts"})
"""The keys that say what may leave: one ``policy``, or ``allow`` with its hosts."""


class MergedEgress(msgspec.Struct, frozen=True):
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
    egress = {key: _copied(value) for key, value in egress.items()}
    entry_lines = _relocated(lines, entry, ("sandboxes", index), ())
    for key in inherited:
        entry_lines.update(_relocated(lines, defaults[key], ("defaults", key), ("egress", key)))
    return MergedEgress(egress, inherited, entry_lines)


def _as_mapping(value: JSON) -> dict[str, JSON]:
    return dict(value) if isinstance(value, dict) else {}


def _copied(value: JSON) -> JSON:
    """A copy of a plain value whose dicts and lists are its own: what
    ``copy.deepcopy`` makes of a tree that shares no part (a read file's
    tree never does), in a fifth of the time."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _relocated(
    lines: Mapping[Path, int], value: JSON, source: Path, target: Path
) -> dict[Path, int]:
    """The lines of ``value``, which sits at ``source``, re-rooted at
    ``target``, in document order. The value's own shape names every path
    below it, so only those lines are read, never the whole file's map."""
    found: dict[Path, int] = {}
    _collect_lines(lines, value, source, target, found)
    return found


def _collect_lines(
    lines: Mapping[Path, int], value: JSON, source: Path, target: Path, found: dict[Path, int]
) -> None:
    line = lines.get(source)
    if line is not None:
        found[target] = line
    if isinstance(value, dict):
        for key, item in value.items():
            _collect_lines(lines, item, (*source, key), (*target, key), found)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _collect_lines(lines, item, (*source, position), (*target, position), found)
