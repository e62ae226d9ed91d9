"""Where each document of the tier model came from: its file and line, and
the line and name of one of its rules, for the deciding rules ``explain
--to`` names.

The model's documents carry only an opaque ``ref`` into the list of
objects check's reach built the model from. That list lives with reach's
memoized judgement of the path; explain asks the same judgement (the same
context, the same path), so it finds the one entry whose model is the very
input it was handed, and reads the objects from it. When it is not found
(a model built some other way), documents are simply not located.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from lint.checks.candidates import location_of
from lint.checks.context import CheckContext, precise_location
from lint.decision.tiers.model import TierInput, TierRule
from lint.inventory import KubeObject
from lint.report.model import Location


class Places(msgspec.Struct, frozen=True):
    """The objects behind the model's documents, by ``ref``, and the key
    path of a synthesized policy's body inside its template, by ``ref``."""

    objects: Sequence[KubeObject] = ()
    bases: Mapping[int, tuple[str | int, ...]] = msgspec.field(default_factory=dict)

    def _object(self, ref: int) -> KubeObject | None:
        return self.objects[ref] if 0 <= ref < len(self.objects) else None

    def document(self, ref: int) -> Location | None:
        """The file and line of the document."""
        obj = self._object(ref)
        return None if obj is None else location_of(obj)

    def _rule_path(self, ref: int, rule: TierRule) -> tuple[str | int, ...]:
        base = self.bases.get(ref)
        if base is not None and rule.path:
            return (*base, *rule.path[1:])
        return rule.path

    def rule(self, ref: int, rule: TierRule) -> Location | None:
        """The file and line of one of the document's rules."""
        obj = self._object(ref)
        if obj is None:
            return None
        path = self._rule_path(ref, rule)
        return precise_location(obj, path) if path else location_of(obj)

    def rule_name(self, ref: int, rule: TierRule) -> str | None:
        """The rule's own ``name`` field, when it has one."""
        obj = self._object(ref)
        if obj is None:
            return None
        value = obj.value
        for key in self._rule_path(ref, rule):
            if isinstance(key, int) and isinstance(value, list) and 0 <= key < len(value):
                value = value[key]
            elif isinstance(key, str) and isinstance(value, dict):
                value = value.get(key)
            else:
                return None
        name = value.get("name") if isinstance(value, dict) else None
        return name if isinstance(name, str) else None


def places_of(ctx: CheckContext, tiers: TierInput) -> Places:
    """The places of ``tiers``'s documents, from reach's judgement of the
    path that built it (see the module docstring)."""
    for _, asked in ctx.memo.reach.values():
        built = getattr(asked, "built", None)
        model = getattr(asked, "model", None) or getattr(built, "input", None)
        if model is tiers:
            offered = getattr(asked, "offered", ())
            bases = getattr(asked, "bases", {})
            return Places(tuple(each.obj for each in offered), dict(bases))
    return Places()
