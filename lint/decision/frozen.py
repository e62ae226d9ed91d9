"""What the frozen records of a run share. Records are ``msgspec.Struct``
classes (``frozen=True``): the decision's own and the layers' around it
alike. It implements no part of the specification, so it lives here,
importing nothing of the project.

A few records carry where they were read from (a document's text, a
declaration's line map) beside what they are; ``equal_without`` is their
``__eq__``, which leaves that out.

Mutable state (memos, indexes, the loader's working records) stays in plain
dataclasses: it is made a few times a run, and some of it keeps attributes
a Struct has no room for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec


def equal_without(*ignored: str) -> Callable[[Any, object], bool]:
    """An ``__eq__`` for a Struct: equal when of the same class and equal in
    every field but ``ignored``."""

    def __eq__(self: msgspec.Struct, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        names = self.__struct_fields__
        return all(getattr(self, n) == getattr(other, n) for n in names if n not in ignored)

    return __eq__
