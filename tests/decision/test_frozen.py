"""``quick_init``: a frozen dataclass made through it is the one its own
``__init__`` would make, and still frozen."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from typing import Any

import pytest

import lint
from lint.decision.frozen import quick_init


def _twin() -> tuple[type[Any], type[Any]]:
    """The same class twice, the second given ``quick_init``."""

    def make() -> type[Any]:
        @dataclass(frozen=True, slots=True)
        class Shape:
            first: int
            second: str
            third: tuple[int, ...] = ()
            hidden: str = field(default="set", init=False)
            fourth: str | None = None
            named: bool = field(default=False, kw_only=True)

        return Shape

    return make(), quick_init(make())


def _values(obj: object) -> dict[str, object]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((1, "a"), {}),
        ((1, "a", (2, 3)), {}),
        ((1,), {"second": "b", "fourth": "x", "named": True}),
        ((), {"first": 4, "second": "c", "third": (5,), "fourth": None}),
    ],
)
def test_the_instance_is_the_one_the_dataclass_makes(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    plain, quick = _twin()
    made, expected = quick(*args, **kwargs), plain(*args, **kwargs)
    assert _values(made) == _values(expected)
    assert repr(made) == repr(expected)
    assert hash(made) == hash(quick(*args, **kwargs))
    assert made == quick(*args, **kwargs)


def test_the_same_calls_fail() -> None:
    plain, quick = _twin()
    for args, kwargs in [((1,), {}), ((1, "a", (), None, True), {}), ((1, "a"), {"hidden": "x"})]:
        with pytest.raises(TypeError):
            plain(*args, **kwargs)
        with pytest.raises(TypeError):
            quick(*args, **kwargs)


def test_it_stays_frozen() -> None:
    _, quick = _twin()
    made = quick(1, "a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.first = 2
    assert dataclasses.replace(made, first=2).first == 2


def test_a_field_named_like_the_methods_own_names_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Clashing:
        _set0: int
        value: int

    with pytest.raises(TypeError):
        quick_init(Clashing)


@pytest.mark.parametrize("kind", ["plain", "unslotted", "post_init", "factory"])
def test_only_a_class_it_can_make_exactly(kind: str) -> None:
    if kind == "plain":

        @dataclass(slots=True)
        class Plain:
            value: int

        cls: type[Any] = Plain
    elif kind == "unslotted":

        @dataclass(frozen=True)
        class Unslotted:
            value: int

        cls = Unslotted
    elif kind == "post_init":

        @dataclass(frozen=True, slots=True)
        class Checked:
            value: int

            def __post_init__(self) -> None:
                pass

        cls = Checked
    else:

        @dataclass(frozen=True, slots=True)
        class Listed:
            value: list[int] = field(default_factory=list)

        cls = Listed
    with pytest.raises(TypeError):
        quick_init(cls)


def _quick_classes() -> list[type[Any]]:
    found = []
    for module in pkgutil.walk_packages(lint.__path__, "lint."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            init = getattr(value, "__init__", None)
            code = getattr(init, "__code__", None)
            if (
                inspect.isclass(value)
                and value.__module__ == loaded.__name__
                and code is not None
                and code.co_filename.startswith("<quick_init")
            ):
                found.append(value)
    return found


def test_every_quick_class_keeps_the_dataclass_signature() -> None:
    """Each class of the tool given ``quick_init`` takes the parameters its
    own dataclass ``__init__`` takes, with the same defaults."""
    classes = _quick_classes()
    assert {cls.__name__ for cls in classes} >= {"PolicyDocument", "ExaminedEntry", "Location"}
    for cls in classes:
        twin = dataclasses.make_dataclass(
            cls.__name__,
            [
                (f.name, f.type, field(default=f.default, init=f.init, kw_only=f.kw_only))
                for f in dataclasses.fields(cls)
            ],
            frozen=True,
            slots=True,
        )
        ours = inspect.signature(cls).parameters.values()
        theirs = inspect.signature(twin).parameters.values()
        assert [(p.name, p.kind, p.default) for p in ours] == [
            (p.name, p.kind, p.default) for p in theirs
        ], cls
