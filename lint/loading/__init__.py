"""The loading layer: manifest files in, documents with locations out.

This is the only interface the rest of the tool uses::

    result = load(["manifests/"], relevant_kinds=RELEVANT_KINDS)
    for document in result.documents:
        ...  # document.value is JSON-shaped; document.file/line locate it
    line = locate(document, ("spec", "egress", 2))

See ``docs/yaml.md`` for how YAML is read and ``docs/limits.md`` for the
bounds ``load(..., limits=LoadLimits(...))`` applies.
"""

from __future__ import annotations

from lint.kinds import RELEVANT_KINDS
from lint.loading.documents import (
    STDIN_NAME,
    LoadedDocument,
    LoadProblem,
    LoadResult,
)
from lint.loading.limits import DEFAULT_LIMITS, LoadLimits, parse_size
from lint.loading.loader import load
from lint.loading.locate import locate
from lint.loading.rendered import RenderedInput

__all__ = [
    "DEFAULT_LIMITS",
    "RELEVANT_KINDS",
    "STDIN_NAME",
    "LoadLimits",
    "LoadProblem",
    "LoadResult",
    "LoadedDocument",
    "RenderedInput",
    "load",
    "locate",
    "parse_size",
]
