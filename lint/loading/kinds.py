"""How the loader reads kind names: list wrappers and the keys of ``skipped``.

Which kinds are read at all is ``lint.kinds``. List wrappers are always
opened, because their items can be of any kind.
"""

from __future__ import annotations

from typing import Any, Final

NO_KIND: Final = "(no kind)"
"""Key in ``skipped`` for objects without a string ``kind``."""

NOT_AN_OBJECT: Final = "(not an object)"
"""Key in ``skipped`` for non-empty documents that are not mappings."""


def is_list_kind(kind: str) -> bool:
    """``List`` and every ``<Kind>List`` wrapper (DESIGN §2.1)."""
    return kind.endswith("List")


def is_list_object(value: dict[str, Any], kind: str | None) -> bool:
    """Whether kubectl opens this object as a list: when it has an ``items``
    key, whatever its kind and whatever ``items`` holds (null is an empty
    list, anything but a list an error), as apimachinery's unstructured
    decoder does (docs/yaml.md, "List wrappers"). A ``<Kind>List`` without
    ``items`` is opened too, as an empty list: it holds no policy either way."""
    return "items" in value or (kind is not None and is_list_kind(kind))


def item_kind_of(list_kind: str) -> str | None:
    """The kind a list's items take when they name none: the list's kind
    without its ``List`` suffix, as apimachinery's ``decodeToList`` trims it
    (``NetworkPolicyList`` holds ``NetworkPolicy``; a ``NetworkPolicy`` with
    ``items`` holds ``NetworkPolicy`` too). A plain ``List`` names none."""
    if list_kind == NO_KIND:
        return None
    return list_kind.removesuffix("List") or None
