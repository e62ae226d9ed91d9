"""One label view for both decisions (issue 25): a pod label known present
with an unknown value (a claimed pod's ``claim-uid``, ``sandbox-name-hash``)
answers ``unknown`` in the union's matcher and in reach's, never "does not
select" in one of them (CLUSTER-POLICIES §2.3, §2.4, §11)."""

from __future__ import annotations

from typing import Any

import pytest

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.controller import CLAIM_UID_LABEL, SANDBOX_NAME_HASH_LABEL
from lint.decision.model import Tri
from lint.decision.reach.common import match_strict
from lint.decision.reach.model import UNKNOWN, pod_label_view
from lint.decision.selectors import match_selector, unknown_value_keys

CLAIMED = {
    "app": "agent",
    SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE,
    CLAIM_UID_LABEL: UNKNOWN_LABEL_VALUE,
}


def _expression(key: str, operator: str, *values: str) -> dict[str, Any]:
    expression: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        expression["values"] = list(values)
    return {"matchExpressions": [expression]}


def test_the_claim_uid_selector_is_unknown_in_both_decisions() -> None:
    """The claim-era controller policy selects ``claim-uid: <uid>``; offline
    the uid is unknown, so neither decision may say it does not select."""
    selector = {"matchLabels": {CLAIM_UID_LABEL: "0b4c-uid"}}
    assert match_selector(selector, CLAIMED, cilium=False) is Tri.UNKNOWN
    assert match_strict(selector, pod_label_view(CLAIMED)) is Tri.UNKNOWN


def test_the_view_holds_every_unknown_valued_label() -> None:
    view = pod_label_view(CLAIMED)
    assert unknown_value_keys(CLAIMED) == {SANDBOX_NAME_HASH_LABEL, CLAIM_UID_LABEL}
    assert view.lookup(CLAIM_UID_LABEL) is UNKNOWN
    assert view.lookup(SANDBOX_NAME_HASH_LABEL) is UNKNOWN
    assert view.lookup("app") == "agent"
    assert view.is_present(CLAIM_UID_LABEL) is True


@pytest.mark.parametrize(
    "selector",
    [
        {"matchLabels": {CLAIM_UID_LABEL: "x"}},
        {"matchLabels": {CLAIM_UID_LABEL: "x", "app": "agent"}},
        {"matchLabels": {CLAIM_UID_LABEL: "x", "app": "other"}},
        {"matchLabels": {"app": "agent"}},
        _expression(CLAIM_UID_LABEL, "Exists"),
        _expression(CLAIM_UID_LABEL, "DoesNotExist"),
        _expression(CLAIM_UID_LABEL, "In", "x", "y"),
        _expression(CLAIM_UID_LABEL, "NotIn", "x"),
        _expression(SANDBOX_NAME_HASH_LABEL, "In", "abcd1234"),
        _expression("team", "DoesNotExist"),
        _expression("team", "In", "ml"),
        {},
    ],
)
def test_both_matchers_agree_on_a_claimed_pod(selector: dict[str, Any]) -> None:
    union = match_selector(selector, CLAIMED, cilium=False)
    assert match_strict(selector, pod_label_view(CLAIMED)) is union
