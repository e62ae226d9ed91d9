"""Frozen records: every one is a frozen ``msgspec.Struct``; the few that
carry where they were read from compare without it (``equal_without``);
those whose hash is kept keep the right one."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

import lint
from lint.checks.runner import CheckOptions
from lint.decision.frozen import equal_without
from lint.decision.tiers.evaluate import SlotOut, Step
from lint.decision.tiers.model import EVERY_PORT, Action, TierRule
from lint.loading.documents import LoadedDocument


def _classes() -> list[type[Any]]:
    found = []
    for module in pkgutil.walk_packages(lint.__path__, "lint."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if inspect.isclass(value) and value.__module__ == loaded.__name__:
                found.append(value)
    return found


def test_every_frozen_record_is_a_frozen_struct() -> None:
    """One shape: no frozen dataclass is left beside the Structs (the
    dataclasses left are mutable state: memos, builders, indexes)."""
    classes = _classes()
    frozen_dataclasses = [
        cls.__qualname__
        for cls in classes
        if dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ]
    assert frozen_dataclasses == []
    structs = [cls for cls in classes if issubclass(cls, msgspec.Struct)]
    assert {cls.__name__ for cls in structs} >= {"Location", "Finding", "TierRule", "KubeObject"}
    assert all(cls.__struct_config__.frozen for cls in structs)
    # A dataclass field left as a default would be the default itself.
    defaults = [(cls, d) for cls in structs for d in cls.__struct_defaults__]
    assert [cls for cls, d in defaults if isinstance(d, dataclasses.Field)] == []


class _Read(msgspec.Struct, frozen=True):
    value: int
    where: str = ""
    __eq__ = equal_without("where")
    __hash__ = None  # type: ignore[assignment]


class _Other(msgspec.Struct, frozen=True):
    value: int
    where: str = ""


def test_equal_without_leaves_out_only_the_named_fields() -> None:
    assert _Read(1, "a.yaml") == _Read(1, "b.yaml")
    assert _Read(1, "a.yaml") != _Read(2, "a.yaml")
    assert _Read(1) != _Other(1)  # another class is never equal
    assert _Read(1).__eq__(_Other(1)) is NotImplemented


def test_a_document_is_equal_whatever_text_it_was_read_from() -> None:
    first = LoadedDocument("f.yaml", 1, 3, 0, {"kind": "Pod"}, text="a", text_line=1)
    again = LoadedDocument("f.yaml", 1, 3, 0, {"kind": "Pod"}, text="b", text_line=2)
    moved = LoadedDocument("f.yaml", 2, 3, 0, {"kind": "Pod"}, text="a", text_line=1)
    assert first == again
    assert first != moved
    with pytest.raises(TypeError):
        hash(first)  # its value is a dict


def test_options_are_equal_whatever_reports_progress() -> None:
    assert CheckOptions(progress=print) == CheckOptions(progress=None)
    assert CheckOptions(jobs=2) != CheckOptions(jobs=1)


def _rule(index: int) -> TierRule:
    return TierRule(frozenset({Action.ALLOW}), EVERY_PORT, None, index, ("spec", index), "rule")


def test_a_kept_hash_is_the_records_own() -> None:
    """A record made by ``replace`` from one whose hash is kept has its own
    hash, not the original's."""
    rule = _rule(0)
    hash(rule)  # kept now
    changed = replace(rule, index=1, path=("spec", 1))
    assert hash(changed) == hash(_rule(1))
    assert changed != rule
    step = Step("kube-admin", Action.ALLOW, 0, rule)
    hash(step)
    assert hash(replace(step, rule=changed)) == hash(Step("kube-admin", Action.ALLOW, 0, _rule(1)))
    out = SlotOut(Action.ALLOW, step)
    hash(out)
    assert hash(replace(out, end_pass=True)) == hash(SlotOut(Action.ALLOW, step, end_pass=True))
    assert {rule, _rule(0)} == {rule}


def test_a_record_stays_frozen() -> None:
    rule = _rule(0)
    with pytest.raises(AttributeError):
        rule.index = 2  # type: ignore[misc]
    assert replace(rule, index=2).index == 2
