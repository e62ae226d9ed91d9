"""C§6.3: resolving `toCIDRSet` entries through CiliumCIDRGroups, with the
data of C§9 rows 51-55, and the promise that a plain `cidr` entry is judged
exactly as the union judges it today."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.egress_rules import cilium_rule_verdict
from lint.decision.model import Tri
from lint.decision.reach.cidr_groups import (
    ResolvedBlock,
    Unresolved,
    judge_cidr_set_entry,
    resolve_cidr_set_entry,
    resolved_cidrs,
)
from lint.decision.reach.model import ReachCandidate
from tests.decision.reach.scenario import allowance


def group(
    name: Any, cidrs: Any, labels: Any = None, api_version: str = "cilium.io/v2"
) -> ReachCandidate:
    metadata: dict[str, Any] = {"name": name}
    if labels is not None:
        metadata["labels"] = labels
    raw = {"apiVersion": api_version, "kind": "CiliumCIDRGroup", "metadata": metadata}
    if cidrs is not ...:
        raw["spec"] = {"externalCIDRs": cidrs}
    return ReachCandidate(api_version, "CiliumCIDRGroup", raw)


CORP = group("corp", ["192.0.2.0/24"])
PC = allowance("PC")


# --- C§9 rows 51-55, at the resolution level ----------------------------------------------------

ROW_DATA: list[tuple[int, Any, list[ReachCandidate], tuple[str, ...] | str, Tri | None]] = [
    (51, {"cidrGroupRef": "corp"}, [CORP], ("192.0.2.0/24",), None),
    (
        52,
        {"cidrGroupRef": "corp"},
        [group("corp", ["192.0.2.0/24", "10.1.0.0/16"])],
        ("192.0.2.0/24", "10.1.0.0/16"),
        Tri.YES,
    ),
    (53, {"cidrGroupRef": "corp"}, [], "not in the manifests", Tri.UNKNOWN),
    (
        54,
        {"cidrGroupSelector": {"matchLabels": {"role": "vpn"}}},
        [group("vpn-1", ["10.48.0.0/24"], {"role": "vpn"}), CORP],
        ("10.48.0.0/24",),
        Tri.YES,
    ),
    (55, {"cidrGroupSelector": {}}, [CORP], ("0.0.0.0/0", "::/0"), Tri.YES),
]


@pytest.mark.parametrize(
    ("row", "entry", "groups", "cidrs", "outcome"), ROW_DATA, ids=[f"row{r}" for r, *_ in ROW_DATA]
)
def test_rows_51_to_55_resolution(
    row: int,
    entry: Any,
    groups: list[ReachCandidate],
    cidrs: tuple[str, ...] | str,
    outcome: Tri | None,
) -> None:
    resolved = resolved_cidrs(entry, groups)
    if isinstance(cidrs, str):
        assert isinstance(resolved, Unresolved) and cidrs in resolved.detail
    else:
        assert resolved == cidrs
    verdict = judge_cidr_set_entry(entry, groups, "all", PC, index=0)
    assert (None if verdict is None else verdict.outcome) is outcome


# --- each step ------------------------------------------------------------------------------------

UNRESOLVED: list[tuple[str, Any, list[ReachCandidate], str]] = [
    ("1 not an object", "corp", [CORP], "not an object"),
    ("2 nothing named", {"except": ["10.0.0.0/8"]}, [CORP], "names no CIDR and no group"),
    ("2 null counts as absent", {"cidr": None, "cidrGroupRef": None}, [CORP], "names no CIDR"),
    ("4 reference not a string", {"cidrGroupRef": ["corp"]}, [CORP], "not a string"),
    ("4 reference is exact", {"cidrGroupRef": "Corp"}, [CORP], "not in the manifests"),
    ("4 externalCIDRs absent", {"cidrGroupRef": "corp"}, [group("corp", ...)], "externalCIDRs"),
    (
        "4 externalCIDRs not a list",
        {"cidrGroupRef": "corp"},
        [group("corp", "10.0.0.0/8")],
        "externalCIDRs",
    ),
    (
        "5 unreadable selector",
        {"cidrGroupSelector": {"matchLabels": {"a": 1}}},
        [CORP],
        "cannot be read",
    ),
    (
        "5 label-source prefix in matchLabels",
        {"cidrGroupSelector": {"matchLabels": {"cidrgroup:role": "vpn"}}},
        [CORP],
        "label-source prefix",
    ),
    (
        "5 label-source prefix in an expression",
        {"cidrGroupSelector": {"matchExpressions": [{"key": "k8s:x", "operator": "Exists"}]}},
        [CORP],
        "label-source prefix",
    ),
    (
        "5 no group matches",
        {"cidrGroupSelector": {"matchLabels": {"role": "vpn"}}},
        [CORP],
        "matches no CiliumCIDRGroup",
    ),
    (
        "5 unreadable group labels",
        {"cidrGroupSelector": {"matchLabels": {"role": "vpn"}}},
        [group("odd", ["10.0.0.0/8"], {"role": 1})],
        "cannot be read",
    ),
    ("6 empty externalCIDRs", {"cidrGroupRef": "corp"}, [group("corp", [])], "yields no CIDR"),
    (
        "a failing group spoils the entry",
        {"cidr": "192.0.2.0/24", "cidrGroupRef": "nope"},
        [CORP],
        "not in",
    ),
]


@pytest.mark.parametrize(
    ("case", "entry", "groups", "detail"), UNRESOLVED, ids=[c for c, *_ in UNRESOLVED]
)
def test_unresolved_entries_fail_closed(
    case: str, entry: Any, groups: list[ReachCandidate], detail: str
) -> None:
    resolved = resolve_cidr_set_entry(entry, groups)
    assert isinstance(resolved, Unresolved) and detail in resolved.detail
    verdict = judge_cidr_set_entry(entry, groups, "all", allowance("A"))
    assert verdict is not None and verdict.outcome is Tri.UNKNOWN, "even under allow-all"


def test_both_versions_and_duplicates_are_read() -> None:
    """§6.1 both versions; §6.3 step 4 every manifest of that name."""
    groups = [
        group("corp", ["192.0.2.0/24"]),
        group("corp", ["198.51.100.0/24"], api_version="cilium.io/v2alpha1"),
    ]
    assert resolved_cidrs({"cidrGroupRef": "corp"}, groups) == ("192.0.2.0/24", "198.51.100.0/24")


def test_other_kinds_are_not_groups() -> None:
    impostor = ReachCandidate(
        "cilium.io/v2",
        "CiliumNetworkPolicy",
        {"metadata": {"name": "corp"}, "spec": {"externalCIDRs": ["0.0.0.0/0"]}},
    )
    assert isinstance(resolve_cidr_set_entry({"cidrGroupRef": "corp"}, [impostor]), Unresolved)


def test_several_fields_are_unioned_in_order() -> None:
    """§6.3 step 2: cidr first (with its except), then the groups' CIDRs."""
    entry = {"cidr": "203.0.113.0/24", "except": ["203.0.113.0/28"], "cidrGroupRef": "corp"}
    assert resolve_cidr_set_entry(entry, [CORP]) == (
        ResolvedBlock({"cidr": "203.0.113.0/24", "except": ["203.0.113.0/28"]}),
        ResolvedBlock({"cidr": "192.0.2.0/24"}, ("corp",), 'of CiliumCIDRGroup "corp"'),
    )


def test_group_cidrs_ignore_the_entry_except() -> None:
    """§6.3 step 7: `except` with a group reference is ignored (the wider reading)."""
    entry = {"cidrGroupRef": "wide", "except": ["10.0.0.0/8"]}
    verdict = judge_cidr_set_entry(entry, [group("wide", ["10.0.0.0/8"])], "all", PC)
    assert verdict is not None and verdict.outcome is Tri.YES
    assert (
        verdict.detail is not None and '"wide"' in verdict.detail and "10.0.0.0/8" in verdict.detail
    )


def test_selector_matches_by_labels() -> None:
    groups = [
        group("a", ["192.0.2.0/24"], {"role": "vpn", "env": "prod"}),
        group("b", ["198.51.100.0/24"], {"role": "vpn"}),
        group("c", ["10.0.0.0/8"]),
    ]
    selector = {
        "cidrGroupSelector": {
            "matchExpressions": [{"key": "env", "operator": "DoesNotExist"}],
            "matchLabels": {"role": "vpn"},
        }
    }
    assert resolved_cidrs(selector, groups) == ("198.51.100.0/24",)


def test_an_unparseable_group_cidr_is_unknown() -> None:
    verdict = judge_cidr_set_entry(
        {"cidrGroupRef": "corp"}, [group("corp", ["not-a-cidr"])], "all", PC
    )
    assert verdict is not None and verdict.outcome is Tri.UNKNOWN
    assert verdict.detail is not None and "corp" in verdict.detail


# --- a plain cidr entry is judged exactly as the union does ---------------------------------------

_cidr_entry = st.fixed_dictionaries(
    {
        "cidr": st.sampled_from(
            ["0.0.0.0/0", "192.0.2.0/24", "10.1.0.0/16", "::/0", "2001:db8::/32", "bad", 5]
        )
    },
    optional={"except": st.lists(st.sampled_from(["10.0.0.0/8", "192.0.2.0/28", "x"]), max_size=2)},
)


@settings(max_examples=120, deadline=None)
@given(_cidr_entry, st.sampled_from(["D", "P", "PC", "S", "A", "N"]))
def test_plain_cidr_entries_keep_the_union_verdict(entry: dict[str, Any], code: str) -> None:
    """WIRING replaces the union's set-entry step with ``judge_cidr_set_entry``;
    for an entry with only ``cidr`` (and ``except``) verdict and detail stay
    byte-identical."""
    allowed = allowance(code)
    if allowed.permits_nothing:
        return  # The union decides before reading the rule (S§10.2 step 1).
    rule = {"toCIDRSet": [entry]}
    union = cilium_rule_verdict(rule, 4, allowed)
    ours = judge_cidr_set_entry(entry, [CORP], "all", allowed, index=4)
    if ours is None:
        assert union.outcome is Tri.NO
    else:
        assert (ours.outcome, ours.detail, ours.index) == (union.outcome, union.detail, union.index)
