"""The named-object comparison (SEMANTICS.md §12, with the §17.1 exception).

The translation names one object. Offline, the loader finds the object of
that kind, namespace and name; this module compares it with the translation,
field by field, and reports the first difference.
"""

from __future__ import annotations

from collections.abc import Callable

from lint.decision.constants import CILIUM_KIND, CORE_KIND
from lint.decision.defaulting import enforces
from lint.decision.model import NamedOutcome, NamedResult, Translation
from lint.decision.values import ABSENT, JSON, compact_json, deep_equal

MATCH = NamedResult(NamedOutcome.MATCH)

_COMPARED = (
    "this comparison reads only the selector, policyTypes (NetworkPolicy) and "
    "egress, so anything in specs would go unread"
)


def compare_named(obj: JSON | None, translation: Translation) -> NamedResult:
    """§12: compare the found object (None when not found) with the
    translation. Checks 0-5 run in order; the first failure is the result."""
    if obj is None:
        return _missing(translation)
    checks: tuple[Callable[[JSON, Translation], NamedResult | None], ...] = (
        _check_specs,
        _check_selector,
        _check_policy_types,
        _check_egress,
        _check_owner_references,
    )
    for check in checks:
        failure = check(obj, translation)
        if failure is not None:
            return failure
    return MATCH


def _missing(translation: Translation) -> NamedResult:
    """Check 0: the object exists."""
    detail = (
        f"no {translation.kind} named {translation.name!r} in namespace "
        f"{translation.namespace!r}; the sandbox host never creates this object "
        "itself, so the computed manifest must be applied"
    )
    return NamedResult(NamedOutcome.MISSING, None, detail)


def _field(container: JSON, key: str) -> JSON:
    """A field of an object, or ABSENT when the container is not an object."""
    return container.get(key, ABSENT) if isinstance(container, dict) else ABSENT


def _spec(obj: JSON) -> JSON:
    """§12: an absent or null spec reads as {}; a spec that is not an object
    is returned as is, so every field read from it is absent."""
    spec = _field(obj, "spec")
    return {} if spec is ABSENT or spec is None else spec


def _expected_spec(translation: Translation) -> JSON:
    return _spec(translation.manifest)


def _show(value: JSON) -> str:
    return "absent" if value is ABSENT else compact_json(value)


def _mismatch(field: str, detail: str) -> NamedResult:
    return NamedResult(NamedOutcome.MISMATCH, field, detail)


def _check_specs(obj: JSON, translation: Translation) -> NamedResult | None:
    """Check 1: no top-level ``specs`` (absent or null pass, ``[]`` does not)."""
    specs = _field(obj, "specs")
    if specs is ABSENT or specs is None:
        return None
    if translation.kind == CILIUM_KIND:
        where = "in a CiliumNetworkPolicy, rules in either spec or specs enforce"
    else:
        where = f"a {translation.kind} has no such field"
    detail = (
        f"specs is {compact_json(specs)}, but the translation never emits specs; "
        f"{where}; {_COMPARED}"
    )
    return _mismatch("specs", detail)


def _selector_field(translation: Translation) -> str:
    return "podSelector" if translation.kind == CORE_KIND else "endpointSelector"


def _check_selector(obj: JSON, translation: Translation) -> NamedResult | None:
    """Check 2: the pod or endpoint selector equals the translation's."""
    key = _selector_field(translation)
    actual = _field(_spec(obj), key)
    expected = _field(_expected_spec(translation), key)
    if deep_equal(actual, expected):
        return None
    detail = f"spec.{key} is {_show(actual)}, expected {_show(expected)}"
    return _mismatch("selector", detail)


def _check_policy_types(obj: JSON, translation: Translation) -> NamedResult | None:
    """Check 3 (NetworkPolicy only): policyTypes is a list holding ``Egress``."""
    if translation.kind != CORE_KIND:
        return None
    actual = _field(_spec(obj), "policyTypes")
    if isinstance(actual, list) and "Egress" in actual:
        return None
    if actual is ABSENT or actual is None or actual == []:
        # Read back as stored: the API server lists Egress itself when the
        # object has an egress rule (``defaulting``).
        egress = _field(_spec(obj), "egress")
        if enforces("egress", None, egress if isinstance(egress, list) else None):
            return None
    detail = (
        f"spec.policyTypes is {_show(actual)}; it must be a list containing "
        '"Egress", because without it spec.egress enforces nothing'
    )
    return _mismatch("policyTypes", detail)


def _check_egress(obj: JSON, translation: Translation) -> NamedResult | None:
    """Check 4: spec.egress equals the translation's. §17.1: an absent or
    null egress equals an expected ``[]`` (only ``no-network`` emits one),
    because an API server stores an empty egress as absent."""
    actual = _field(_spec(obj), "egress")
    expected = _field(_expected_spec(translation), "egress")
    if deep_equal(actual, expected):
        return None
    if (actual is ABSENT or actual is None) and expected == []:
        return None
    detail = f"spec.egress is {_show(actual)}, expected {_show(expected)}"
    return _mismatch("egress", detail)


def _check_owner_references(obj: JSON, translation: Translation) -> NamedResult | None:
    """Check 5 (only when the translation carries owner references, §15):
    every expected reference equals some entry of the object's. A value
    that is not a list counts as none."""
    expected = _field(_field(translation.manifest, "metadata"), "ownerReferences")
    if not isinstance(expected, list):
        return None
    actual = _field(_field(obj, "metadata"), "ownerReferences")
    present = actual if isinstance(actual, list) else []
    for wanted in expected:
        if not any(deep_equal(wanted, entry) for entry in present):
            detail = (
                f"metadata.ownerReferences is {_show(actual)}; it lacks the owner "
                f"reference {compact_json(wanted)}"
            )
            return _mismatch("ownerReferences", detail)
    return None
