"""C§2 shared readers: the strict selector (§2.2), label views (§2.3),
three-valued matching (§2.4), the allow-like rule (§2.5), domain entries
(§2.6), the document verdict (§2.7) and display names (§2.8)."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.controller import SANDBOX_NAME_HASH_LABEL
from lint.decision.model import (
    EgressVerdict,
    Everything,
    FqdnGrant,
    PortRange,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.peers import ipblock_peer
from lint.decision.reach.common import (
    JudgedRule,
    NewKindFacts,
    combine,
    display_kind,
    judge_allow_like,
    judge_domain_entry,
    match_strict,
    new_kind_verdict,
    normalise_domain,
    object_name,
    read_strict_selector,
)
from lint.decision.reach.model import (
    UNKNOWN,
    DomainPeer,
    LabelView,
    NodesPeer,
    UnreadablePeer,
    known_labels,
    namespace_label_view,
    partial_labels,
    pod_label_view,
)
from lint.decision.values import ABSENT
from tests.decision.reach.scenario import allowance

# --- §2.2 readability -------------------------------------------------------------------

UNREADABLE_SELECTORS: list[tuple[str, Any]] = [
    ("null", None),
    ("list", []),
    ("string", "app=agent"),
    ("v0.1.x namespaceSelector key", {"namespaceSelector": {}}),
    ("v0.1.x sameLabels key", {"sameLabels": ["team"]}),
    ("unknown key beside matchLabels", {"matchLabels": {}, "extra": 1}),
    ("matchLabels null", {"matchLabels": None}),
    ("matchLabels list", {"matchLabels": []}),
    ("matchLabels non-string value", {"matchLabels": {"a": 1}}),
    ("matchLabels null value", {"matchLabels": {"a": None}}),
    ("matchExpressions null", {"matchExpressions": None}),
    ("matchExpressions object", {"matchExpressions": {}}),
    ("expression not an object", {"matchExpressions": ["a"]}),
    ("expression extra key", {"matchExpressions": [{"key": "a", "operator": "Exists", "x": 1}]}),
    ("key missing", {"matchExpressions": [{"operator": "Exists"}]}),
    ("key empty", {"matchExpressions": [{"key": "", "operator": "Exists"}]}),
    ("key not a string", {"matchExpressions": [{"key": 1, "operator": "Exists"}]}),
    ("operator lowercase", {"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]}),
    ("operator missing", {"matchExpressions": [{"key": "a"}]}),
    ("In without values", {"matchExpressions": [{"key": "a", "operator": "In"}]}),
    ("In with empty values", {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}),
    (
        "NotIn with a number",
        {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": [1]}]},
    ),
    ("In with values null", {"matchExpressions": [{"key": "a", "operator": "In", "values": None}]}),
]


@pytest.mark.parametrize(
    ("case", "selector"), UNREADABLE_SELECTORS, ids=[c for c, _ in UNREADABLE_SELECTORS]
)
def test_unreadable_selectors(case: str, selector: Any) -> None:
    """§2.2 items 1-4: each gives a reason, and matches as unknown at once (§2.4)."""
    assert isinstance(read_strict_selector(selector), str)
    assert match_strict(selector, known_labels({"a": "x"})) is Tri.UNKNOWN


def test_exists_ignores_values() -> None:
    """§2.2 item 4: for Exists and DoesNotExist `values` is ignored."""
    selector = {"matchExpressions": [{"key": "a", "operator": "Exists", "values": "junk"}]}
    assert not isinstance(read_strict_selector(selector), str)
    assert match_strict(selector, known_labels({"a": "x"})) is Tri.YES


@pytest.mark.parametrize(
    "selector",
    [
        {},
        {"matchLabels": {}},
        {"matchExpressions": []},
        {"matchLabels": {}, "matchExpressions": []},
    ],
)
def test_empty_selector_selects_everything(selector: Any) -> None:
    read = read_strict_selector(selector)
    assert not isinstance(read, str) and read.is_empty
    assert match_strict(selector, partial_labels()) is Tri.YES


# --- §2.3 views ---------------------------------------------------------------------------------


def test_label_views() -> None:
    pod = pod_label_view({"app": "agent", SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE})
    assert pod.lookup("app") == "agent"
    assert pod.lookup(SANDBOX_NAME_HASH_LABEL) is UNKNOWN
    assert pod.is_present(SANDBOX_NAME_HASH_LABEL) is True
    assert pod.lookup("other") is ABSENT
    partial = namespace_label_view("sbx", None)
    assert partial.lookup("kubernetes.io/metadata.name") == "sbx"
    assert partial.lookup("team") is UNKNOWN
    known = namespace_label_view("sbx", {"team": "ml", "kubernetes.io/metadata.name": "forged"})
    assert known.lookup("kubernetes.io/metadata.name") == "sbx"
    assert known.lookup("team") == "ml" and known.lookup("x") is ABSENT


# --- §2.4 the table -----------------------------------------------------------------------------

VIEW = LabelView({"k": "v"}, frozenset({"h"}), complete=True)
PARTIAL = LabelView({"k": "v"}, frozenset(), complete=False)


def _expr(operator: str, key: str = "k", values: list[str] | None = None) -> dict[str, Any]:
    expression: dict[str, Any] = {"key": key, "operator": operator}
    if values is not None:
        expression["values"] = values
    return {"matchExpressions": [expression]}


# (requirement, value equal / listed, other value, known absent); an unknown
# key and a key with an unknown value are `unknown` for all three.
TABLE: list[tuple[str, Any, Tri, Tri, Tri]] = [
    ("matchLabels", lambda k: {"matchLabels": {k: "v"}}, Tri.YES, Tri.NO, Tri.NO),
    ("In", lambda k: _expr("In", k, ["v", "w"]), Tri.YES, Tri.NO, Tri.NO),
    ("NotIn", lambda k: _expr("NotIn", k, ["v"]), Tri.NO, Tri.YES, Tri.YES),
]


@pytest.mark.parametrize(
    ("name", "build", "present", "mismatch", "absent"), TABLE, ids=[row[0] for row in TABLE]
)
def test_valued_requirements(
    name: str, build: Any, present: Tri, mismatch: Tri, absent: Tri
) -> None:
    """§2.4: matchLabels, In and NotIn in each column; a key with an unknown
    value (§11, sandbox-name-hash) is unknown for all three."""
    assert match_strict(build("k"), VIEW) is present
    assert match_strict(build("k"), LabelView({"k": "other"})) is mismatch
    assert match_strict(build("k"), LabelView({})) is absent
    assert match_strict(build("z"), PARTIAL) is Tri.UNKNOWN
    assert match_strict(build("h"), VIEW) is Tri.UNKNOWN


@pytest.mark.parametrize(
    ("operator", "present", "absent"),
    [("Exists", Tri.YES, Tri.NO), ("DoesNotExist", Tri.NO, Tri.YES)],
)
def test_presence_requirements(operator: str, present: Tri, absent: Tri) -> None:
    """§2.4 and §11: Exists/DoesNotExist are decided by a key known present
    with an unknown value, and unknown only for an unknown key."""
    assert match_strict(_expr(operator), VIEW) is present
    assert match_strict(_expr(operator, "h"), VIEW) is present
    assert match_strict(_expr(operator, "nope"), VIEW) is absent
    assert match_strict(_expr(operator, "z"), PARTIAL) is Tri.UNKNOWN


def test_no_beats_unknown_whatever_the_order() -> None:
    """§2.4: `no` if any requirement is `no`, else `unknown`; no evaluation order."""
    unknown_first = {
        "matchLabels": {"z": "1"},
        "matchExpressions": [{"key": "k", "operator": "DoesNotExist"}],
    }
    assert match_strict(unknown_first, PARTIAL) is Tri.NO
    assert combine(Tri.UNKNOWN, Tri.NO) is Tri.NO
    assert combine(Tri.YES, Tri.UNKNOWN) is Tri.UNKNOWN
    assert combine(Tri.YES, Tri.YES) is Tri.YES
    assert combine() is Tri.YES


# --- §2.5 the allow-like rule --------------------------------------------------------------------

D = allowance("D")
A = allowance("A")
N = allowance("N")
SN = allowance("SN")
WORLD = ipblock_peer({"cidr": "0.0.0.0/0"})
HOLE = ipblock_peer({"cidr": "10.0.0.0/8"})
KUBE_SYSTEM = SelectorPeer(
    {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}, {}, "ks"
)
DNS53 = (PortRange("UDP", 53), PortRange("TCP", 53))
assert WORLD is not None and HOLE is not None


def test_step1_permits_nothing_decides_first() -> None:
    verdict = judge_allow_like((KUBE_SYSTEM,), DNS53, N, action="Accept", index=3)
    assert verdict.outcome is Tri.YES and verdict.index == 3
    assert "no-network" in (verdict.detail or "") and "Accept" in (verdict.detail or "")


def test_step2_no_destination() -> None:
    assert judge_allow_like(Everything(), "all", A).outcome is Tri.NO
    verdict = judge_allow_like(Everything(), (PortRange("TCP", 443),), D)
    assert verdict.outcome is Tri.YES
    assert "names no destination" in (verdict.detail or "") and "TCP 443" in (verdict.detail or "")


def test_step3a_nodes() -> None:
    assert judge_allow_like((NodesPeer("n"),), "all", A).outcome is Tri.NO
    verdict = judge_allow_like((NodesPeer("n"),), "all", D)
    assert verdict.outcome is Tri.UNKNOWN and "node addresses" in (verdict.detail or "")


def test_step3b_domain_entries_go_through_2_6() -> None:
    assert judge_allow_like((DomainPeer("evil.example", "p"),), "all", D).outcome is Tri.YES
    assert judge_allow_like((DomainPeer(7, "p"),), "all", A).outcome is Tri.UNKNOWN


def test_step3c_resolver_without_dns_name_restriction() -> None:
    verdict = judge_allow_like((KUBE_SYSTEM,), DNS53, SN)
    assert verdict.outcome is Tri.YES and "DNS-name" in (verdict.detail or "")
    # Without narrowing the same peer is inside a deny-all allowance.
    assert judge_allow_like((KUBE_SYSTEM,), DNS53, D).outcome is Tri.NO


def test_step3d_not_allowed_names_wide_open() -> None:
    wide = judge_allow_like((WORLD,), "all", D)
    assert wide.outcome is Tri.YES and (wide.detail or "").startswith("wide-open peer")
    narrow = judge_allow_like((HOLE,), "all", D)
    assert narrow.outcome is Tri.YES and not (narrow.detail or "").startswith("wide-open")
    assert "'deny-all'" in (narrow.detail or "")


def test_step3_peers_are_judged_in_order() -> None:
    unreadable = UnreadablePeer("bad peer")
    assert judge_allow_like((WORLD, unreadable), "all", D).outcome is Tri.YES
    assert judge_allow_like((unreadable, WORLD), "all", D).outcome is Tri.UNKNOWN
    assert judge_allow_like((KUBE_SYSTEM, WORLD), DNS53, D).outcome is Tri.YES


def test_step4_inside() -> None:
    assert judge_allow_like((KUBE_SYSTEM,), DNS53, D).outcome is Tri.NO
    assert judge_allow_like((), "all", D).outcome is Tri.NO


def test_permits_everything_is_honoured_for_every_peer() -> None:
    """§2.5: S§16 Q1 is not copied: allow-all passes FQDN-like peers too."""
    peers = (WORLD, NodesPeer("n"), DomainPeer("evil.example", "p"))
    assert judge_allow_like(peers, "all", A).outcome is Tri.NO


def test_note_and_named_port_are_in_the_detail() -> None:
    verdict = judge_allow_like((WORLD,), "all", D, named_port=True, note="the Pass lands")
    assert "named port, read as every port and protocol" in (verdict.detail or "")
    assert (verdict.detail or "").endswith("; the Pass lands")


# --- §2.6 domain entries ------------------------------------------------------------------------

S = allowance("S")
TLS_ONLY = replace(S, fqdns=(FqdnGrant("api.github.com", (PortRange("TCP", 443),)),))
TCP443 = (PortRange("TCP", 443),)


def test_domain_step1_non_string_even_under_allow_all() -> None:
    verdict = judge_domain_entry(None, TCP443, A)
    assert verdict is not None and verdict.outcome is Tri.UNKNOWN
    assert "not a string" in (verdict.detail or "")


def test_domain_step2_allow_all() -> None:
    assert judge_domain_entry("*.evil.example", TCP443, A) is None


def test_domain_step3_normalises_ascii_case_and_one_dot() -> None:
    assert normalise_domain("API.GitHub.com.") == "api.github.com"
    assert normalise_domain("a..") == "a."
    assert normalise_domain("\u0130.example") == "\u0130.example"
    inside = judge_domain_entry("API.GitHub.COM.", TCP443, S)
    assert inside is not None and inside.outcome is Tri.UNKNOWN
    twice = judge_domain_entry("api.github.com..", TCP443, S)
    assert twice is not None and twice.outcome is Tri.YES


def test_domain_step4_wildcard() -> None:
    verdict = judge_domain_entry("*.github.com", TCP443, S)
    assert verdict is not None and verdict.outcome is Tri.YES
    assert "exact names only" in (verdict.detail or "")


def test_domain_step5_ports_and_names() -> None:
    assert (judge_domain_entry("evil.example", TCP443, S) or RuleVerdict(Tri.NO)).outcome is Tri.YES
    udp = judge_domain_entry("api.github.com", (PortRange("UDP", 53),), TLS_ONLY)
    assert udp is not None and udp.outcome is Tri.YES


def test_domain_step6_in_the_allowance_is_still_unknown() -> None:
    verdict = judge_domain_entry("api.github.com", TCP443, TLS_ONLY)
    assert verdict is not None and verdict.outcome is Tri.UNKNOWN
    assert "kube-dns in every namespace" in (verdict.detail or "")


# --- §2.7 the document verdict ----------------------------------------------------------------

YES_RULE = JudgedRule(RuleVerdict(Tri.YES, "opens", 1), "wide")
UNKNOWN_RULE = JudgedRule(RuleVerdict(Tri.UNKNOWN, "unclear", 0))
NO_RULE = JudgedRule(RuleVerdict(Tri.NO, None, 2))


def _facts(**fields: Any) -> NewKindFacts:
    base: dict[str, Any] = {
        "unreadable": None,
        "selects": Tri.YES,
        "egress_governed": True,
        "rules": (NO_RULE,),
    }
    base.update(fields)
    return NewKindFacts(**base)


STEPS: list[tuple[str, NewKindFacts, EgressVerdict, str | None]] = [
    (
        "1 unreadable beats everything",
        _facts(unreadable="bad", selects=Tri.NO),
        EgressVerdict.NOT_EVALUABLE,
        "bad",
    ),
    (
        "2 does not select",
        _facts(selects=Tri.NO, egress_governed=False),
        EgressVerdict.DOES_NOT_SELECT,
        None,
    ),
    (
        "3 no egress rules",
        _facts(egress_governed=False, excuse="x"),
        EgressVerdict.NOT_EGRESS_SCOPED,
        "no egress",
    ),
    (
        "4 excused",
        _facts(excuse="excused: iso", rules=(YES_RULE,)),
        EgressVerdict.WITHIN,
        "excused: iso",
    ),
    (
        "5 widens",
        _facts(rules=(UNKNOWN_RULE, YES_RULE)),
        EgressVerdict.WIDENS_EGRESS,
        'egress rule 1 ("wide"): opens',
    ),
    (
        "6 unknown subject",
        _facts(selects=Tri.UNKNOWN, rules=(YES_RULE,), subject_text="its subject S"),
        EgressVerdict.NOT_EVALUABLE,
        "its subject S cannot be matched offline",
    ),
    (
        "7 unknown rule",
        _facts(rules=(NO_RULE, UNKNOWN_RULE)),
        EgressVerdict.NOT_EVALUABLE,
        "egress rule 0: unclear",
    ),
    ("8 within", _facts(), EgressVerdict.WITHIN, None),
    ("8 unknown subject, rules all false", _facts(selects=Tri.UNKNOWN), EgressVerdict.WITHIN, None),
]


@pytest.mark.parametrize(("step", "facts", "verdict", "detail"), STEPS, ids=[s for s, *_ in STEPS])
def test_document_verdict_steps(
    step: str, facts: NewKindFacts, verdict: EgressVerdict, detail: str | None
) -> None:
    decided = new_kind_verdict(facts)
    assert decided.verdict is verdict
    if detail is None:
        assert decided.detail is None
    else:
        assert decided.detail is not None and detail in decided.detail


def test_deciding_rule_is_returned() -> None:
    assert new_kind_verdict(_facts(rules=(UNKNOWN_RULE, YES_RULE))).rule is YES_RULE
    assert new_kind_verdict(_facts(rules=(UNKNOWN_RULE,))).rule is UNKNOWN_RULE
    assert new_kind_verdict(_facts()).rule is None


# --- §2.8 names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "shown"),
    [
        ("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy", "AdminNetworkPolicy"),
        ("networking.k8s.io/v1", "NetworkPolicy", "NetworkPolicy"),
        ("cilium.io/v2", "CiliumNetworkPolicy", "CiliumNetworkPolicy"),
        ("v1", "ConfigMap", "ConfigMap"),
        ("projectcalico.org/v3", "GlobalNetworkPolicy", "GlobalNetworkPolicy.projectcalico.org"),
        ("crd.projectcalico.org/v1", "NetworkPolicy", "NetworkPolicy.projectcalico.org"),
        ("crd.antrea.io/v1beta1", "ClusterNetworkPolicy", "ClusterNetworkPolicy.crd.antrea.io"),
        ("k8s.ovn.org/v1", "EgressFirewall", "EgressFirewall.k8s.ovn.org"),
    ],
)
def test_display_kind(api_version: str, kind: str, shown: str) -> None:
    assert display_kind(api_version, kind) == shown


def test_object_name() -> None:
    assert object_name({"metadata": {"name": "a"}}, 3) == "a"
    assert object_name({"metadata": {"name": ""}}, 3) == "(unnamed #3)"
    assert object_name([], 1) == "(unnamed #1)"
