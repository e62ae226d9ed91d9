"""Readings kept by the questions they asked of the pod's labels
(``ReadMemo.traced``): a pod whose labels answer those questions alike
shares the reading, any other pod is read afresh, and the tier model's
input is the one reading without a memo gives, for any sequence of pods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.reach.model import (
    UNKNOWN,
    LabelView,
    ReachData,
    partial_labels,
    pod_label_view,
)
from lint.decision.tiers.build import FEWEST_KEPT, PathFacts, build_tier_input
from lint.decision.tiers.reading import ReadMemo
from lint.decision.values import ABSENT
from tests.decision.tiers.objects import (
    CODES,
    NAMESPACE,
    anp,
    calico_np,
    candidates,
    cilium_np,
    core_np,
    gnp,
)

ALLOWANCE = CODES["Dn"].allowance
HELD = object()


def _app(view: LabelView) -> object:
    return ("read", view.lookup("app"))


def _counted(read: Callable[[LabelView], object]) -> tuple[list[LabelView], Any]:
    """``read``, and the views it was called with."""
    calls: list[LabelView] = []

    def counting(view: LabelView) -> object:
        calls.append(view)
        return read(view)

    return calls, counting


def test_pods_that_answer_alike_share_one_reading() -> None:
    memo, (calls, read) = ReadMemo(), _counted(_app)
    token = memo.token(HELD, "context")
    first = memo.traced(HELD, token, pod_label_view({"app": "a", "x": "1"}), read)
    second = memo.traced(HELD, token, pod_label_view({"app": "a", "x": "2"}), read)
    assert first is second and first == ("read", "a") and len(calls) == 1
    other = memo.traced(HELD, token, pod_label_view({"app": "b", "x": "1"}), read)
    assert other == ("read", "b") and len(calls) == 2
    # Known absent and unknown are two more answers; a key not known at all
    # and a key known present with an unknown value both look up as UNKNOWN,
    # so a reading that only looked the key up serves both.
    assert memo.traced(HELD, token, pod_label_view({}), read) == ("read", ABSENT)
    assert memo.traced(HELD, token, partial_labels({}), read) == ("read", UNKNOWN)
    assert len(calls) == 4
    unknown = LabelView({}, frozenset({"app"}))
    assert memo.traced(HELD, token, unknown, read) == ("read", UNKNOWN)
    assert len(calls) == 4


def test_a_reading_that_asks_nothing_serves_every_pod() -> None:
    memo, (calls, read) = ReadMemo(), _counted(lambda view: "same")
    token = memo.token(HELD, "context")
    for labels in ({"app": "a"}, {"app": "b"}, {}):
        assert memo.traced(HELD, token, pod_label_view(labels), read) == "same"
    assert len(calls) == 1


def _branching(view: LabelView) -> object:
    if view.lookup("app") == "a":
        return ("a", view.is_present("tier"))
    return ("other", view.value_unknown("hash"))


def test_a_branch_s_questions_are_their_own_set() -> None:
    memo, (calls, read) = ReadMemo(), _counted(_branching)
    token = memo.token(HELD, "context")
    pods = [
        ({"app": "a", "tier": "1"}, ("a", True)),
        ({"app": "a"}, ("a", False)),
        ({"app": "a", "tier": "2"}, ("a", True)),
        ({"app": "b"}, ("other", False)),
        ({"app": "b", "tier": "1"}, ("other", False)),
        ({"app": "c"}, ("other", False)),
    ]
    for labels, expected in pods:
        assert memo.traced(HELD, token, pod_label_view(labels), read) == expected
    # Read afresh: the first pod, app=a with no tier, app=b, and app=c (its
    # app answers both sets of questions otherwise). Kept: the second app=a
    # with a tier, and app=b with a tier (the app=b reading never asked).
    assert len(calls) == 4
    # A hash of a value nobody can tell answers the app=b questions otherwise.
    hashed = LabelView({"app": "b"}, frozenset({"hash"}))
    assert memo.traced(HELD, token, hashed, read) == ("other", True)
    assert len(calls) == 5


def test_other_objects_and_contexts_are_read_apart() -> None:
    memo, (calls, read) = ReadMemo(), _counted(_app)
    pod = pod_label_view({"app": "a"})
    one, two = object(), object()
    memo.traced(one, memo.token(HELD, "context"), pod, read)
    memo.traced(two, memo.token(HELD, "context"), pod, read)
    memo.traced(one, memo.token(HELD, "another context"), pod, read)
    memo.traced(one, memo.token(object(), "context"), pod, read)
    assert len(calls) == 4
    memo.traced(one, memo.token(HELD, "context"), pod, read)
    assert len(calls) == 4


_VALUES = {"app": ["a", "b"], "tier": ["web", "db"], "x": ["1"]}
_LABELS = st.dictionaries(st.sampled_from(sorted(_VALUES)), st.sampled_from(["a", "b", "web", "1"]))
_POLICIES = [
    core_np({"podSelector": {"matchLabels": {"app": "a"}}, "egress": [{}]}, name="np-a"),
    core_np(
        {
            "podSelector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
            "policyTypes": ["Egress"],
        },
        name="np-tier",
    ),
    core_np({"podSelector": {}, "egress": [{"to": [{"podSelector": {}}]}]}, name="np-all"),
    anp(
        "anp",
        5,
        [{"name": "d", "action": "Deny", "to": [{"networks": ["10.0.0.0/8"]}]}],
        {"pods": {"namespaceSelector": {}, "podSelector": {"matchLabels": {"tier": "web"}}}},
    ),
    cilium_np(
        {"endpointSelector": {"matchLabels": {"app": "b"}}, "egress": [{"toEndpoints": [{}]}]}
    ),
    calico_np("calico", {"selector": "app == 'a' && !has(x)", "egress": [{"action": "Allow"}]}),
    gnp("global", {"selector": "has(tier)", "order": 5, "egress": [{"action": "Deny"}]}),
    # Enough more for the readings to be kept (``FEWEST_KEPT``).
    *(
        core_np({"podSelector": {"matchLabels": {"x": "1"}}, "egress": [{}]}, name=f"x{i}")
        for i in range(FEWEST_KEPT)
    ),
]


@settings(max_examples=60, deadline=None)
@given(st.lists(_LABELS, min_size=1, max_size=6), st.booleans())
def test_the_input_is_the_one_read_without_a_memo_for_any_pods(
    pods: list[dict[str, str]], hashed: bool
) -> None:
    # One namespace's objects and data, read for each pod in turn, as the
    # check reads them: the same objects, so readings may be shared.
    memo = ReadMemo(ReadMemo())
    objects: list[dict[str, Any]] = list(_POLICIES)
    offered, data = candidates(objects), ReachData()
    for drawn in pods:
        # A label the controller gives a value nobody can tell.
        labels = {**drawn, "agents.x-k8s.io/sandbox-name-hash": "h"} if hashed else drawn
        facts = PathFacts(NAMESPACE, pod_label_view(labels))
        kept = build_tier_input(offered, data, facts, ALLOWANCE, memo=memo)
        fresh = build_tier_input(candidates(objects), ReachData(), facts, ALLOWANCE)
        assert kept == fresh
