"""Every worked example of the exact tier model (CLUSTER-POLICIES §12.8, rows
1-47), from real objects through ``build_tier_input`` and then both
questions: reach (the refusal and the document it names) and ``explain
--to`` (the verdict, the outside verdict, the exit status)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.model import EgressRefusal, EgressVerdict
from lint.decision.tiers.cells import AddressQuery
from lint.decision.tiers.questions import ReachAnswer, explain, reach
from tests.decision.tiers.objects import (
    ALL2,
    ALL_ENFORCED,
    CODES,
    DNSPORTS1,
    KDNS,
    anp,
    ask,
    banp,
    build,
    calico_np,
    cilium_np,
    cnp,
    core_np,
    gnp,
    tier,
)
from tests.decision.tiers.worked import rows as hand_built_rows

WIDENS = EgressRefusal.POLICY_WIDENS_EGRESS
UNDECIDED = EgressRefusal.NOT_EVALUABLE
NO_ENFORCING = EgressRefusal.NO_ENFORCING_POLICY

P_EXCLUSIONS = CODES["P"].translation.manifest["spec"]["egress"][1]["to"][0]["ipBlock"]["except"]
HASH = "agents.x-k8s.io/sandbox-name-hash"


def deny(**rule: Any) -> dict[str, Any]:
    return {"action": "Deny", **rule}


def allow(**rule: Any) -> dict[str, Any]:
    return {"action": "Allow", **rule}


def networks(*cidrs: str) -> dict[str, Any]:
    return {"to": [{"networks": list(cidrs)}]}


def row1() -> list[Any]:
    return [anp("a", 10, [deny(**ALL2)]), anp("b", 20, [allow(**ALL2)])]


def row2(listed: list[str]) -> list[Any]:
    return [
        anp("a", 10, [deny(**networks(*listed))]),
        anp("b", 20, [allow(**networks("0.0.0.0/0"))]),
    ]


def row5() -> list[Any]:
    return [
        anp(
            "a",
            10,
            [
                deny(**networks("169.254.169.254/32")),
                allow(**networks("169.254.0.0/16"), ports=[{"portNumber": {"port": 80}}]),
            ],
        )
    ]


def row9() -> list[Any]:
    return [banp([deny(**ALL2)])]


def row10() -> list[Any]:
    return [banp([deny(**networks("0.0.0.0/0"))])]


def row13() -> list[Any]:
    return [
        anp("a", 10, [deny(**ALL2)]),
        anp("b", 10, [allow(**networks("8.8.8.8/32"), ports=[{"portNumber": {"port": 443}}])]),
    ]


def dns_rule(protocol: str) -> dict[str, Any]:
    return {
        "action": "Allow",
        "protocol": protocol,
        "destination": {
            "selector": "k8s-app == 'kube-dns'",
            "namespaceSelector": "projectcalico.org/name == 'kube-system'",
            "ports": [53],
        },
    }


def row17(selector: str = "all()") -> list[Any]:
    return [
        gnp(
            "dns-only",
            {
                "selector": selector,
                "types": ["Egress"],
                "egress": [dns_rule("UDP"), dns_rule("TCP")],
            },
        )
    ]


def row21(tier_spec: dict[str, Any]) -> list[Any]:
    rule = {
        "action": "Allow",
        "protocol": "TCP",
        "destination": {"nets": ["10.0.0.0/8"], "ports": [5432]},
    }
    return [
        tier("security", tier_spec),
        gnp(
            "security.db",
            {"tier": "security", "selector": "all()", "types": ["Egress"], "egress": [rule]},
        ),
    ]


def row24(deny_name: str, allow_name: str) -> list[Any]:
    https = {"action": "Allow", "protocol": "TCP", "destination": {"ports": [443]}}
    return [
        gnp(deny_name, {"order": 100, "selector": "all()", "egress": [{"action": "Deny"}]}),
        gnp(allow_name, {"order": 100, "selector": "all()", "egress": [https]}),
    ]


def row28() -> list[Any]:
    return [
        cilium_np({"egress": [{"toEntities": ["all"]}], "egressDeny": [{"toCIDR": ["10.0.0.0/8"]}]})
    ]


def row33() -> list[Any]:
    return [anp("a", 10, [deny(**ALL2)], subject={"namespaces": {"matchLabels": {"team": "ml"}}})]


def row36() -> list[Any]:
    return [banp([allow(**networks("0.0.0.0/0"))])]


@dataclass(frozen=True)
class Row:
    number: int
    objects: list[Any]
    code: str
    to: str
    reach: EgressRefusal | None
    explain: str
    outside: str | None = None
    culprit: str | None = None
    """The name of the document (or §7 object) reach names, when the row names it."""
    enforces: frozenset[str] | None = ALL_ENFORCED
    namespace_labels: dict[str, str] | None = None
    exit: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


EXIT_ONE = {3, 6, 10, 13, 18, 20, 22, 23, 25, 26, 28, 29, 32, 33, 37, 38, 40, 42, 43, 44, 45, 46}
"""The rows whose explain exits 1 (the row list closing the worked examples)."""


def _rows() -> list[Row]:
    rows = [
        Row(1, row1(), "D", "8.8.8.8:443/TCP", None, "denied"),
        Row(2, row2(P_EXCLUSIONS), "P", "169.254.169.254:80/TCP", None, "denied"),
        Row(3, row2(["10.0.0.0/8"]), "P", "172.16.0.1:443/TCP", WIDENS, "allowed", culprit="b"),
        Row(4, row2(["10.0.0.0/8"]), "P", "10.1.2.3:443/TCP", WIDENS, "denied", culprit="b"),
        Row(5, row5(), "P", "169.254.169.254:80/TCP", WIDENS, "denied", culprit="a"),
        Row(6, row5(), "P", "169.254.170.2:80/TCP", WIDENS, "allowed", culprit="a"),
        Row(
            7, [anp("a", 10, [{"action": "Pass", **ALL2}])], "D", "8.8.8.8:443/TCP", None, "denied"
        ),
        Row(
            8,
            [anp("a", 10, [{"action": "Pass", **ALL2}]), banp([deny(**ALL2)])],
            "Dn",
            "8.8.8.8:53/UDP",
            None,
            "denied",
        ),
        Row(9, row9(), "Dn", "8.8.8.8:53/UDP", None, "denied"),
        Row(10, row10(), "Dn", "[2001:db8::1]:443", NO_ENFORCING, "allowed"),
        Row(11, row10(), "Dn", "8.8.8.8:53/UDP", NO_ENFORCING, "denied"),
        Row(
            12,
            [
                anp("a", 10, [allow(to=[KDNS], ports=DNSPORTS1)]),
                anp("b", 20, [deny(**ALL2)]),
            ],
            "Dn",
            "10.96.0.10:53/UDP",
            None,
            "undecided",
            outside="denied",
        ),
        Row(13, row13(), "D", "8.8.8.8:443/TCP", UNDECIDED, "undecided"),
        Row(14, row13(), "D", "8.8.4.4:443/TCP", UNDECIDED, "denied"),
        Row(
            15,
            [anp("a", 10, [deny(**ALL2)]), anp("b", 10, [deny(**networks("1.1.1.1/32"))])],
            "Dn",
            "1.1.1.1:443/TCP",
            None,
            "denied",
        ),
        Row(
            16,
            [
                anp("a", 10, [allow(**networks("8.8.8.8/32"))]),
                anp("b", 10, [deny(**networks("8.8.8.8/32"))]),
            ],
            "P",
            "8.8.8.8:443/TCP",
            None,
            "undecided",
            extra={"allowance": "inside"},
        ),
        Row(17, row17(), "Dn", "8.8.8.8:443/TCP", None, "denied"),
        Row(18, row17("app == 'other'"), "Dn", "8.8.8.8:443/TCP", NO_ENFORCING, "allowed"),
        Row(
            19,
            [
                tier("platform", {"order": 100}),
                gnp(
                    "platform.pass",
                    {"tier": "platform", "selector": "all()", "egress": [{"action": "Pass"}]},
                ),
            ],
            "D",
            "8.8.8.8:443/TCP",
            None,
            "denied",
        ),
        Row(
            20,
            [gnp("pass", {"selector": "all()", "order": 10, "egress": [{"action": "Pass"}]})],
            "D",
            "8.8.8.8:443/TCP",
            WIDENS,
            "allowed",
            culprit="pass",
        ),
        Row(
            21,
            row21({"order": 500}),
            "Dn",
            "8.8.8.8:443/TCP",
            WIDENS,
            "denied",
            culprit="security.db",
        ),
        Row(
            22,
            row21({"order": 500}),
            "Dn",
            "10.1.2.3:5432/TCP",
            WIDENS,
            "allowed",
            culprit="security.db",
        ),
        Row(
            23,
            row21({"order": 500, "defaultAction": "Pass"}),
            "Dn",
            "8.8.8.8:443/TCP",
            WIDENS,
            "allowed",
            culprit="security.db",
        ),
        Row(24, row24("a-deny", "b-allow"), "D", "8.8.8.8:443/TCP", None, "denied"),
        Row(
            25,
            row24("b-deny", "a-allow"),
            "D",
            "8.8.8.8:443/TCP",
            WIDENS,
            "allowed",
            culprit="a-allow",
        ),
        Row(
            26,
            [
                gnp("x", {"order": 100, "selector": "all()", "egress": [{"action": "Deny"}]}),
                calico_np(
                    "y",
                    {
                        "order": 100,
                        "selector": "all()",
                        "egress": [
                            {"action": "Allow", "protocol": "TCP", "destination": {"ports": [443]}}
                        ],
                    },
                ),
            ],
            "D",
            "8.8.8.8:443/TCP",
            UNDECIDED,
            "undecided",
        ),
        Row(
            27,
            [
                cilium_np(
                    {"egress": [{"toEntities": ["world"]}], "egressDeny": [{"toEntities": ["all"]}]}
                )
            ],
            "DC",
            "1.1.1.1:443/TCP",
            None,
            "denied",
        ),
        Row(28, row28(), "PC", "10.1.2.3:443/TCP", WIDENS, "undecided", "denied", culprit="c"),
        Row(29, row28(), "PC", "10.0.0.0/7", WIDENS, "undecided", "partly-allowed", culprit="c"),
        Row(30, row28(), "PC", "8.8.8.8:443/TCP", WIDENS, "allowed", culprit="c"),
        Row(
            31,
            [
                cilium_np(
                    {
                        "egress": [
                            {
                                "toEndpoints": [
                                    {
                                        "matchLabels": {
                                            "io.kubernetes.pod.namespace": "kube-system",
                                            "k8s-app": "kube-dns",
                                        }
                                    }
                                ],
                                "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}],
                            }
                        ]
                    }
                )
            ],
            "R31",
            "10.96.0.10:53/SCTP",
            None,
            "undecided",
            "denied",
        ),
        Row(
            32,
            [
                core_np(
                    {
                        "podSelector": {},
                        "policyTypes": ["Egress"],
                        "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "b"}}}]}],
                    }
                )
            ],
            "D",
            "8.8.8.8:53/UDP",
            WIDENS,
            "undecided",
            "denied",
            culprit="np",
        ),
        Row(33, row33(), "Dn", "8.8.8.8:443/TCP", UNDECIDED, "undecided", culprit="a"),
        Row(34, row33(), "Dn", "8.8.8.8:443/TCP", None, "denied", namespace_labels={"team": "ml"}),
        Row(
            35,
            [
                anp(
                    "a",
                    10,
                    [deny(**ALL2)],
                    subject={
                        "pods": {
                            "namespaceSelector": {},
                            "podSelector": {
                                "matchExpressions": [{"key": HASH, "operator": "Exists"}]
                            },
                        }
                    },
                )
            ],
            "Dn",
            "8.8.8.8:443/TCP",
            None,
            "denied",
        ),
        Row(36, row36(), "D", "8.8.8.8:443/TCP", None, "denied"),
        Row(37, row36(), "DC", "8.8.8.8:443/TCP", UNDECIDED, "undecided", enforces=None),
        Row(
            38,
            [
                anp("a", 10, [deny(**ALL2)]),
                cilium_np({"endpointSelector": {"matchLabels": {"app": "other"}}}, name="other"),
            ],
            "Dn",
            "8.8.8.8:443/TCP",
            UNDECIDED,
            "undecided",
            enforces=None,
        ),
        Row(
            39,
            [
                cnp("admin-pass", "Admin", 5, [{"action": "Pass", **ALL2}]),
                cnp("baseline-deny", "Baseline", 1, [{"action": "Deny", **ALL2}]),
            ],
            "Dn",
            "8.8.8.8:443/TCP",
            None,
            "denied",
        ),
        Row(
            40,
            [
                cnp("first", "Baseline", 1, [{"action": "Pass", **ALL2}]),
                cnp("second", "Baseline", 2, [{"action": "Deny", **ALL2}]),
            ],
            "Dn",
            "8.8.8.8:443/TCP",
            WIDENS,
            "allowed",
            culprit="first",
        ),
        Row(
            41,
            [
                tier("platform", {"order": 100}),
                gnp(
                    "platform.block",
                    {
                        "tier": "platform",
                        "selector": "all()",
                        "egress": [{"action": "Deny", "destination": {"nets": ["8.8.8.8/32"]}}],
                    },
                ),
                anp("a", 10, [allow(**networks("8.8.8.8/32"))]),
            ],
            "D",
            "8.8.8.8:443/TCP",
            None,
            "denied",
        ),
        Row(
            42,
            [anp("a", 10, [allow(to=[KDNS], ports=[{"namedPort": "dns"}])])],
            "D",
            "10.96.0.10:8080/TCP",
            WIDENS,
            "undecided",
            "denied",
            culprit="a",
        ),
        Row(
            43,
            [
                gnp(
                    "either",
                    {
                        "selector": "all()",
                        "egress": [
                            {
                                "action": "Allow",
                                "destination": {
                                    "selector": "app == 'a' || app == 'b'",
                                    "namespaceSelector": "projectcalico.org/name == 'sbx'",
                                },
                            }
                        ],
                    },
                )
            ],
            "D",
            "8.8.8.8:443/TCP",
            UNDECIDED,
            "undecided",
            "denied",
        ),
        Row(
            44,
            [
                {
                    "apiVersion": "crd.antrea.io/v1beta1",
                    "kind": "ClusterNetworkPolicy",
                    "metadata": {"name": "antrea"},
                    "spec": {"priority": 1},
                }
            ],
            "D",
            "8.8.8.8:443/TCP",
            UNDECIDED,
            "undecided",
            culprit="antrea",
        ),
        Row(45, row9(), "Dn", "8.8.8.8:53/UDP", UNDECIDED, "undecided", enforces=None),
        Row(
            46,
            row1(),
            "D",
            "8.8.8.8:443/TCP",
            UNDECIDED,
            "undecided",
            culprit="b",
            enforces=None,
            extra={"allowance": "outside"},
        ),
        Row(47, row17(), "Dn", "8.8.8.8:443/TCP", None, "denied", enforces=None),
    ]
    return [Row(**{**row.__dict__, "exit": 1 if row.number in EXIT_ONE else 0}) for row in rows]


ROWS = _rows()


def test_every_row_is_here() -> None:
    assert [row.number for row in ROWS] == list(range(1, 48))


def _named(built_input: Any, answer: ReachAnswer) -> str | None:
    if answer.document is None:
        return None
    if answer.undecidable:
        return str(built_input.undecidable[answer.document].name)
    return str(built_input.documents[answer.document].name)


@pytest.mark.parametrize("row", ROWS, ids=[f"row{row.number}" for row in ROWS])
def test_row(row: Row) -> None:
    built = build(
        row.objects, row.code, enforces=row.enforces, namespace_labels=row.namespace_labels
    )
    reach_answer, explained = ask(built, row.to)
    assert reach_answer.refusal == row.reach, reach_answer.summary
    if row.culprit is not None:
        assert _named(built.input, reach_answer) == row.culprit, reach_answer.summary
    assert explained.verdict == row.explain
    # "out:" is given where the outside verdict differs; otherwise it is the same.
    assert explained.outside_verdict == (row.outside or row.explain)
    assert explained.exit_status == row.exit
    if "allowance" in row.extra:
        assert explained.allowance == row.extra["allowance"]
    # Explain never disagrees with reach: exit 1 only where reach refuses.
    if explained.exit_status == 1:
        assert reach_answer.refusal is not None


LISTED_FOR = {
    WIDENS: EgressVerdict.WIDENS_EGRESS,
    UNDECIDED: EgressVerdict.NOT_EVALUABLE,
}


@pytest.mark.parametrize("row", ROWS, ids=[f"row{row.number}" for row in ROWS])
def test_row_listed_verdicts(row: Row) -> None:
    """A passing row lists every document ``within`` (or out of play: not
    selecting, not governing egress); a refusing row lists the document it
    names with the matching verdict."""
    built = build(
        row.objects, row.code, enforces=row.enforces, namespace_labels=row.namespace_labels
    )
    answer, _ = ask(built, row.to)
    quiet = {EgressVerdict.WITHIN, EgressVerdict.DOES_NOT_SELECT, EgressVerdict.NOT_EGRESS_SCOPED}
    if answer.refusal is None:
        assert all(listed.verdict in quiet for listed in answer.listed), answer.listed
        return
    if answer.document is None or answer.refusal not in LISTED_FOR:
        return
    named = [
        listed
        for listed in answer.listed
        if listed.document == answer.document and listed.undecidable == answer.undecidable
    ]
    assert [listed.verdict for listed in named] == [LISTED_FOR[answer.refusal]]


# --- the two questions agree on generated objects of every kind (§12.6) ---------------


CIDRS = ["0.0.0.0/0", "8.8.8.8/32", "10.0.0.0/8", "::/0"]
DESTINATIONS = [
    "8.8.8.8:443/TCP",
    "10.1.2.3:53/UDP",
    "10.96.0.10:53/UDP",
    "[2001:db8::1]:443",
    "172.16.0.1:80/TCP",
]
EVERY_ADDRESS = (AddressQuery(4, 0, 2**32 - 1), AddressQuery(6, 0, 2**128 - 1))

ANP_ACTIONS = st.sampled_from(["Allow", "Deny", "Pass"])
TARGETS = st.sampled_from([None, *CIDRS, "kdns"])
PORTS = st.sampled_from([None, ("TCP", 443), ("UDP", 53)])


def _anp_rule(action: str, target: str | None, ports: tuple[str, int] | None) -> dict[str, Any]:
    rule: dict[str, Any] = {"action": action}
    if target == "kdns":
        rule["to"] = [KDNS]
    elif target is not None:
        rule["to"] = [{"networks": [target]}]
    if ports is not None:
        rule["ports"] = [{"portNumber": {"protocol": ports[0], "port": ports[1]}}]
    return rule


def _calico_rule(action: str, target: str | None, ports: tuple[str, int] | None) -> dict[str, Any]:
    rule: dict[str, Any] = {"action": action}
    destination: dict[str, Any] = {}
    if target == "kdns":
        destination["selector"] = "k8s-app == 'kube-dns'"
        destination["namespaceSelector"] = "projectcalico.org/name == 'kube-system'"
    elif target is not None:
        destination["nets"] = [target]
    if ports is not None:
        rule["protocol"] = ports[0]
        destination["ports"] = [ports[1]]
    if destination:
        rule["destination"] = destination
    return rule


def _core_rule(target: str | None, ports: tuple[str, int] | None) -> dict[str, Any]:
    rule: dict[str, Any] = {}
    if target == "kdns":
        rule["to"] = [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
        ]
    elif target is not None:
        rule["to"] = [{"ipBlock": {"cidr": target}}]
    if ports is not None:
        rule["ports"] = [{"protocol": ports[0], "port": ports[1]}]
    return rule


@st.composite
def an_object(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["anp", "banp", "cnp", "gnp", "core", "cilium"]))
    name = draw(st.sampled_from(["a", "b", "c"]))
    action, target, ports = draw(ANP_ACTIONS), draw(TARGETS), draw(PORTS)
    if kind == "anp":
        return anp(name, draw(st.sampled_from([10, 20])), [_anp_rule(action, target, ports)])
    if kind == "banp":
        return banp([_anp_rule("Deny" if action == "Pass" else action, target, ports)])
    if kind == "cnp":
        word = "Accept" if action == "Allow" else action
        tier_name = draw(st.sampled_from(["Admin", "Baseline"]))
        return cnp(name, tier_name, draw(st.sampled_from([1, 2])), [_anp_rule(word, target, None)])
    if kind == "gnp":
        spec: dict[str, Any] = {
            "selector": "all()",
            "egress": [_calico_rule(action, target, ports)],
        }
        if draw(st.booleans()):
            spec["order"] = 100
        return gnp(name, spec)
    if kind == "core":
        return core_np(
            {"podSelector": {}, "policyTypes": ["Egress"], "egress": [_core_rule(target, ports)]},
            name=name,
        )
    rule: dict[str, Any] = {}
    if target not in (None, "kdns"):
        rule["toCIDR"] = [target]
    elif target == "kdns":
        rule["toEntities"] = [draw(st.sampled_from(["world", "cluster", "all"]))]
    field = "egressDeny" if action == "Deny" else "egress"
    return cilium_np({field: [rule]}, name=name)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(an_object(), min_size=1, max_size=3),
    st.sampled_from(["D", "Dn", "P", "DC"]),
    st.sampled_from([None, ALL_ENFORCED]),
    st.sampled_from(DESTINATIONS),
)
def test_reach_and_explain_never_disagree(
    objects: list[dict[str, Any]], code: str, enforces: frozenset[str] | None, to: str
) -> None:
    built = build(objects, code, enforces=enforces)
    reach_answer, explained = ask(built, to)
    if explained.exit_status == 1:
        assert reach_answer.refusal is not None
    everything = explain(built.input, EVERY_ADDRESS)
    assert (everything.exit_status == 1) == (reach_answer.refusal is not None)


def _listed_kinds(tier_input: Any, answer: ReachAnswer) -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for item in answer.listed:
        if item.verdict is EgressVerdict.WITHIN:
            continue
        source = tier_input.undecidable if item.undecidable else tier_input.documents
        found[(source[item.document].kind, str(item.verdict))] += 1
    return found


HAND_BUILT = {row.number: row for row in hand_built_rows()}


@pytest.mark.parametrize("row", ROWS, ids=[f"row{row.number}" for row in ROWS])
def test_the_readers_agree_with_the_hand_built_inputs(row: Row) -> None:
    """The readers' input and the engine's hand-built one for the same row
    list the same verdicts, kind by kind, and refuse alike."""
    hand = HAND_BUILT[row.number]
    built = build(
        row.objects, row.code, enforces=row.enforces, namespace_labels=row.namespace_labels
    ).input
    mine, theirs = reach(built), reach(hand.input)
    assert mine.refusal == theirs.refusal
    assert _listed_kinds(built, mine) == _listed_kinds(hand.input, theirs)
