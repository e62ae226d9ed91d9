"""Which examined entries a JSON report lists (``--examined``).

A module of its own, with nothing else in it, so that the command line can
offer the choice without importing the report model: ``check`` parses its
options before the model and the checks are imported.
"""

from __future__ import annotations

from typing import Final, Literal

Examined = Literal["all", "selecting"]
"""``--examined``: ``all`` lists every examined entry (the contract);
``selecting`` leaves out the ``does-not-select`` ones and counts them."""
EXAMINED_MODES: Final[tuple[Examined, ...]] = ("all", "selecting")
