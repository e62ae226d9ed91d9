"""The union's context key: equal keys only for egress rules that read
alike, whatever way the key's text is written."""

from __future__ import annotations

import datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from lint.checks.egress import union_context
from lint.decision.model import Translation
from lint.decision.values import compact_json
from tests.decision.manifests import deny_all

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(["1", "\ud800", "é"]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["0", "1", "a", "b", "10"]), inner, max_size=3),
    ),
    max_leaves=8,
)


def _with_egress(egress: Any) -> Translation:
    translation = deny_all()
    manifest = {**translation.manifest, "spec": {"egress": egress}}
    return replace(translation, manifest=manifest)


@given(_value, _value)
def test_the_key_is_never_coarser_than_the_compact_text(left: Any, right: Any) -> None:
    # Egress rules whose compact texts differ may read differently: their
    # keys must differ too, or one would reuse the other's judgements.
    if compact_json(left) != compact_json(right):
        assert union_context(_with_egress(left)) != union_context(_with_egress(right))


@given(_value)
def test_equal_rules_give_equal_keys(value: Any) -> None:
    assert union_context(_with_egress(value)) == union_context(_with_egress(value))


def test_a_value_json_has_no_type_for_still_keys_by_its_compact_text() -> None:
    day = datetime.date(2026, 1, 2)
    key = union_context(_with_egress([{"to": day}]))
    assert key == union_context(_with_egress([{"to": day}]))
    assert key != union_context(_with_egress([{"to": "2026-01-02"}]))
    assert key != union_context(_with_egress([{"to": datetime.date(2026, 1, 3)}]))
