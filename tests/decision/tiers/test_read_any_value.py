"""Every reader takes any value without raising: a field of the wrong type,
a list where an object belongs, null anywhere. What it cannot read becomes
an unreadable document, an unreadable part (``M``), or nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.model import Tri
from tests.decision.tiers.objects import (
    ALL2,
    KDNS,
    anp,
    banp,
    build,
    calico_np,
    cilium_np,
    cnp,
    core_np,
    gnp,
    tier,
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 70000),
    st.sampled_from(["", "TCP", "ANY", "all()", "10.0.0.0/8", "::/0", "x", "53", "a:b", "Pass"]),
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "to",
                    "ports",
                    "port",
                    "protocol",
                    "action",
                    "destination",
                    "nets",
                    "selector",
                    "matchLabels",
                    "toPorts",
                    "toCIDR",
                    "toEndpoints",
                    "networks",
                    "pods",
                    "namespaces",
                    "ipBlock",
                    "cidr",
                    "except",
                    "endPort",
                    "egress",
                    "notProtocol",
                    "namespaceSelector",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)

SHAPES: list[Callable[[Any], dict[str, Any]]] = [
    lambda v: core_np({"podSelector": {}, "policyTypes": ["Egress"], "egress": [v]}),
    core_np,
    lambda v: cilium_np({"egress": [v], "egressDeny": [v]}),
    lambda v: cilium_np(v) if isinstance(v, dict) else cilium_np({"egress": v}),
    lambda v: anp("a", 1, [v, {"action": "Allow", "to": [KDNS]}]),
    lambda v: banp([v, {"action": "Deny", **ALL2}]),
    lambda v: cnp("c", "Baseline", 1, [v]),
    lambda v: gnp("g", {"selector": "all()", "egress": [v]}),
    lambda v: calico_np("n", {"egress": v}),
    lambda v: tier("t", v) if isinstance(v, dict) else tier("t", {"order": v}),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(SHAPES))), JSONISH)
def test_no_reader_raises(shape: int, value: Any) -> None:
    built = build([SHAPES[shape](value)], "D").input
    for document in built.documents:
        assert document.subject in (Tri.YES, Tri.NO, Tri.UNKNOWN)
        for rule in (*document.rules, *document.deny_rules):
            assert rule.actions
            assert rule.peers is None or all(peer.text is not None for peer in rule.peers)
