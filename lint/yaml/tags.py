"""The YAML tags the readers compare nodes against, written once.

``PLAIN_TAG`` is not a YAML tag: it is what our composer's resolver gives an
untagged plain scalar, so that the scalar rules (``scalars``) decide what it
means. The others are the tags of the YAML specification's types; the
declaration file's reader (``lint.declarations.ruamel_loader``) names the
ones it treats apart.
"""

from __future__ import annotations

from typing import Final

PLAIN_TAG: Final = "!plain"
"""Tag the composer gives untagged plain scalars; resolved by the builder."""

_CORE: Final = "tag:yaml.org,2002:"
STR_TAG: Final = _CORE + "str"
MAP_TAG: Final = _CORE + "map"
SEQ_TAG: Final = _CORE + "seq"
INT_TAG: Final = _CORE + "int"
FLOAT_TAG: Final = _CORE + "float"
BOOL_TAG: Final = _CORE + "bool"
NULL_TAG: Final = _CORE + "null"
MERGE_TAG: Final = _CORE + "merge"
TIMESTAMP_TAG: Final = _CORE + "timestamp"
SET_TAG: Final = _CORE + "set"
OMAP_TAG: Final = _CORE + "omap"
PAIRS_TAG: Final = _CORE + "pairs"
BINARY_TAG: Final = _CORE + "binary"
