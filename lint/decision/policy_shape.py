"""The structure both decisions read from a policy object before judging
any rule (SEMANTICS §5.3, §5.4, §13.1): a core ``spec`` with its lists, and
the Cilium spec documents with their default-deny switch.

Egress and ingress read the same shape; only the field names differ
(``egress``/``egressDeny`` or ``ingress``/``ingressDeny``). A string result
is always the detail of an unreadable document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec

from lint.decision.values import JSON, UNREADABLE, read_list

Direction = Literal["egress", "ingress"]


class CoreShape(msgspec.Struct, frozen=True):
    """A core NetworkPolicy's readable parts (§5.3 checks 2-4)."""

    spec: Mapping[str, JSON]
    policy_types: list[JSON] | None
    rules: list[JSON] | None


def read_core_shape(raw: Mapping[str, JSON], direction: Direction) -> CoreShape | str:
    """§5.3 checks 2-4 (§13.1 with ``spec.ingress`` as the last one)."""
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return "`spec` is not an object"
    # The list reader (``read_list``) written out: every policy of a
    # namespace is read here in each direction.
    policy_types = spec.get("policyTypes")
    if policy_types is not None and not isinstance(policy_types, list):
        return "`spec.policyTypes` is not a list"
    rules = spec.get(direction)
    if rules is not None and not isinstance(rules, list):
        return f"`spec.{direction}` is not a list of rules"
    return CoreShape(spec, policy_types, rules)


SpecEntry = tuple[JSON, int | None]


def spec_entries(raw: Mapping[str, JSON]) -> list[SpecEntry] | str:
    """§5.4 steps 2-3: ``(spec, None)`` first when present and not null,
    then ``(specs[i], i)``. An unreadable ``specs`` drops the ``spec``
    document too: the object is one unreadable document."""
    specs = read_list(raw, "specs")
    if specs is UNREADABLE:
        return "`specs` is not a list of rule specs"
    spec = raw.get("spec")
    entries: list[SpecEntry] = [] if spec is None else [(spec, None)]
    entries += [(entry, position) for position, entry in enumerate(specs or [])]
    if not entries:
        return "it has neither a `spec` nor a `specs` list"
    return entries


def where(field: str, spec_index: int | None) -> str:
    """Name a field of one spec document, and the ``specs`` entry it sits in."""
    if spec_index is None:
        return f"`spec.{field}`"
    return f"`spec.{field}` (in `specs[{spec_index}]`)"


def not_an_object(spec_index: int | None) -> str:
    """§5.4 step 4.1."""
    place = "`spec`" if spec_index is None else f"`specs[{spec_index}]`"
    return f"a rule spec is not an object ({place})"


class CiliumShape(msgspec.Struct, frozen=True):
    """One Cilium spec document's readable parts (§5.4 steps 4.3-4.6)."""

    rules: list[JSON]
    enforces: bool


def read_cilium_shape(
    spec: Mapping[str, JSON], direction: Direction, spec_index: int | None
) -> CiliumShape | str:
    """§5.4 steps 4.3-4.6 for one direction: the rule and deny lists must be
    lists, the direction is enforced when either is present (empty counts),
    and ``enableDefaultDeny`` (null included) must be an object whose
    direction flag, when present, is a boolean; ``false`` turns it off."""
    rules = read_list(spec, direction)
    if rules is UNREADABLE:
        return f"{where(direction, spec_index)} is not a list of rules"
    deny_field = f"{direction}Deny"
    deny = read_list(spec, deny_field)
    if deny is UNREADABLE:
        return f"{where(deny_field, spec_index)} is not a list of rules"
    enforces = _default_deny(spec, direction, rules is not None or deny is not None, spec_index)
    if isinstance(enforces, str):
        return enforces
    return CiliumShape(rules or [], enforces)


def _default_deny(
    spec: Mapping[str, JSON], direction: Direction, declared: bool, spec_index: int | None
) -> bool | str:
    if "enableDefaultDeny" not in spec:
        return declared
    default_deny = spec["enableDefaultDeny"]
    if not isinstance(default_deny, dict):
        return f"{where('enableDefaultDeny', spec_index)} is not an object"
    if direction not in default_deny:
        return declared
    flag = default_deny[direction]
    if not isinstance(flag, bool):
        return f"{where(f'enableDefaultDeny.{direction}', spec_index)} is not a boolean"
    return declared and flag
