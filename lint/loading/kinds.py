"""How the loader reads kind names: list wrappers and the keys of ``skipped``.

Which kinds are read at all is ``lint.kinds``. List wrappers are always
opened, because their items can be of any kind.
"""

from __future__ import annotations

from typing import Final

NO_KIND: Final = "(no kind)"
"""Key in ``skipped`` for objects without a string ``kind``."""

NOT_AN_OBJECT: Final = "(not an object)"
"""Key in ``skipped`` for non-empty documents that are not mappings."""


def is_list_kind(kind: str) -> bool:
    """``List`` and every ``<Kind>List`` wrapper (DESIGN §2.1)."""
    return kind.endswith("List")


def item_kind_of(list_kind: str) -> str | None:
    """The kind a typed list holds: ``NetworkPolicyList`` holds ``NetworkPolicy``.
    A plain ``List`` names none."""
    return list_kind[: -len("List")] or None
