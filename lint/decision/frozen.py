"""A quicker ``__init__`` for the frozen dataclasses a check makes by the
ten thousand (judged documents, examined entries, locations). It implements
no part of the specification: the decision's own classes and the layers
around it (checks, report) use it alike, so it lives here, importing nothing.

A frozen dataclass sets each field through ``object.__setattr__``, looked up
anew for every field of every instance: for a class of eight fields that is
most of the cost of making one. A slotted class keeps each field in a slot
whose descriptor sets it directly, without passing through the class's own
``__setattr__`` (the one that refuses changes), so ``quick_init`` writes an
``__init__`` that calls those descriptors. The instance is the same: the
same fields, defaults and signature, still frozen afterwards; only making it
is cheaper.
"""

from __future__ import annotations

import dataclasses
from types import MemberDescriptorType
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass an ``__init__`` that fills its slots
    directly. A class it cannot do that for exactly (a ``__post_init__``, a
    default factory, a field without its own slot) is a programming error."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    # The checks above make it a dataclass; fields() is typed for instances of one.
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    for field in fields:
        # The method's own names: a field so named would hide one of them.
        if field.name == "self" or field.name.startswith(("_set", "_default")):
            raise TypeError(f"{cls.__name__}.{field.name} is a name the method uses")
    names: dict[str, Any] = {}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for number, field in enumerate(fields):
        if field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{field.name} has a default factory")
        slot = getattr(cls, field.name, None)
        if not isinstance(slot, MemberDescriptorType):
            raise TypeError(f"{cls.__name__}.{field.name} has no slot of its own")
        setter, default = f"_set{number}", f"_default{number}"
        names[setter] = slot.__set__
        if field.default is not dataclasses.MISSING:
            names[default] = field.default
        if not field.init:
            # Set to its default, as the dataclass's own __init__ does.
            if field.default is not dataclasses.MISSING:
                body.append(f"    {setter}(self, {default})")
            continue
        parameter = field.name
        if field.default is not dataclasses.MISSING:
            parameter += f"={default}"
        (keyword if field.kw_only else positional).append(parameter)
        body.append(f"    {setter}(self, {field.name})")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}) -> None:\n" + "\n".join(body or ["    pass"]) + "\n"
    # Our own text, made from the field names; named so a traceback shows whose it is.
    exec(compile(source, f"<quick_init {cls.__qualname__}>", "exec"), names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
