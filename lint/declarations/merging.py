"""Building one entry's egress configuration and its line map.

``defaults`` is merged under each entry's ``egress`` one top-level key at a
time: a key the entry writes replaces the default value as a whole (no
deep merge, so an entry's ``policy`` or ``ciliumNarrowing`` never inherits
half of another one). Lines follow the values: a key taken from
``defaults`` keeps the line where ``defaults`` writes it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass

from lint.decision.values import JSON
from lint.declarations.fieldpaths import Path


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
    inherited = frozenset(key for key in defaults if key not in own)
    egress = {key: defaults[key] for key in defaults if key in inherited}
    egress.update(own)
    # Entries must not share default values: each gets its own copy.
    egress = copy.deepcopy(egress)
    entry_lines = _subtree(lines, ("sandboxes", index), ())
    for key in inherited:
        entry_lines.update(_subtree(lines, ("defaults", key), ("egress", key)))
    return MergedEgress(egress, inherited, entry_lines)


def _as_mapping(value: JSON) -> dict[str, JSON]:
    return dict(value) if isinstance(value, dict) else {}


def _subtree(lines: Mapping[Path, int], source: Path, target: Path) -> dict[Path, int]:
    """The lines under ``source`` (a two-step path), re-rooted at ``target``."""
    size = len(source)
    return {target + path[size:]: line for path, line in _grouped(lines).get(source, ())}


_GROUPS: dict[int, tuple[Mapping[Path, int], dict[Path, list[tuple[Path, int]]]]] = {}


def _grouped(lines: Mapping[Path, int]) -> dict[Path, list[tuple[Path, int]]]:
    """The line map grouped by its first two steps, built once per map:
    re-rooting one entry must not scan every line of a large file."""
    cached = _GROUPS.get(id(lines))
    if cached is not None and cached[0] is lines:
        return cached[1]
    groups: dict[Path, list[tuple[Path, int]]] = {}
    for path, line in lines.items():
        groups.setdefault(path[:2], []).append((path, line))
    _GROUPS.clear()  # one declaration file at a time
    _GROUPS[id(lines)] = (lines, groups)
    return groups
