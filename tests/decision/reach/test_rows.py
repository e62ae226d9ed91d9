"""Every worked example of CLUSTER-POLICIES §9 that CORE owns (rows 1-34 and
51-60): the objects, the pod labels and the allowance in; each document's
verdict and the reach refusal out. Rows 35-50 (Calico) live with calico.py.

Rows 51-55 are about a CiliumNetworkPolicy (an old kind, judged by the
union's Cilium reader) whose `toCIDRSet` names CiliumCIDRGroups. The union's
reader does not take the groups yet (WIRING wires
``cidr_groups.judge_cidr_set_entry`` into it), so these rows build the
document the wired reader will build: the union's own reading of the object
for selection and enforcement, with each `toCIDRSet` rule judged by
``judge_cidr_set_entry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from msgspec.structs import replace

from lint.decision.egress_documents import egress_documents
from lint.decision.model import Candidate, PolicyDocument, RuleVerdict, Subject, Tri
from lint.decision.ports import CiliumPortsError, read_cilium_ports
from lint.decision.reach.cidr_groups import judge_cidr_set_entry
from tests.decision.reach.scenario import (
    DNSPORTS1,
    DNSPROTO2,
    KDNS,
    NAMESPACE,
    POD_LABELS,
    Scenario,
    allowance,
    anp,
    banp,
    candidate,
    cnp,
    run,
    translation,
    without_named_object,
)

ALL_NS: dict[str, Any] = {"namespaces": {}}
TO_WORLD: list[Any] = [{"networks": ["0.0.0.0/0"]}]
ML: dict[str, Any] = {"namespaces": {"matchLabels": {"team": "ml"}}}


def _anp_allow(to: list[Any], **extra: Any) -> dict[str, Any]:
    return {"action": "Allow", "to": to, **extra}


ROW1 = anp({"priority": 10, "subject": ALL_NS, "egress": [_anp_allow(TO_WORLD)]})
ROW3 = anp({"priority": 10, "subject": ALL_NS, "egress": [_anp_allow([KDNS], ports=DNSPORTS1)]})
ROW5 = anp({"subject": ML, "egress": [_anp_allow(TO_WORLD)]})
ROW8 = anp({"subject": ALL_NS, "egress": [{"action": "Pass", "to": TO_WORLD}]})
ROW10 = anp({"subject": ALL_NS, "egress": [_anp_allow([{"nodes": {}}])]})
ROW13 = anp(
    {
        "subject": ALL_NS,
        "egress": [
            _anp_allow(
                [{"domainNames": ["api.github.com"]}],
                ports=[{"portNumber": {"protocol": "TCP", "port": 443}}],
            )
        ],
    }
)


def _domain(name: str) -> dict[str, Any]:
    row = anp(ROW13["spec"])
    row["spec"] = {**ROW13["spec"]}
    row["spec"]["egress"] = [{**ROW13["spec"]["egress"][0], "to": [{"domainNames": [name]}]}]
    return row


ROW21 = banp({"subject": ALL_NS, "egress": [_anp_allow(TO_WORLD)]})


def _cnp_admin(rule: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return cnp({"tier": "Admin", "priority": 5, "subject": ALL_NS, "egress": [rule], **spec})


ROW25 = _cnp_admin({"action": "Accept", "to": TO_WORLD})


def _with_action(raw: dict[str, Any], action: str) -> dict[str, Any]:
    spec = {**raw["spec"], "egress": [{**raw["spec"]["egress"][0], "action": action}]}
    return {**raw, "spec": spec}


def _with_spec(raw: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {**raw, "spec": {**raw["spec"], **spec}}


def _row60() -> list[dict[str, Any]]:
    first = {**ROW1, "metadata": {"name": "a"}}
    second = {**ROW5, "metadata": {"name": "b"}}
    return [second, first]  # given out of order on purpose


# --- rows 51-55: a CiliumNetworkPolicy whose toCIDRSet names groups --------------------------


def _cilium_policy(entries: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": "corp-egress", "namespace": NAMESPACE},
        "spec": {"endpointSelector": {}, "egress": [{"toCIDRSet": entries}]},
    }


def _group(name: str, cidrs: list[str], labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels is not None:
        metadata["labels"] = dict(labels)
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumCIDRGroup",
        "metadata": metadata,
        "spec": {"externalCIDRs": cidrs},
    }


def resolved_cilium_document(
    raw: dict[str, Any], groups: Sequence[dict[str, Any]], code: str
) -> PolicyDocument:
    """The document the union's Cilium reader gives once WIRING passes the
    groups: its own selection and enforcement, and each rule's `toCIDRSet`
    entries judged by ``judge_cidr_set_entry`` (S§10.2 step 7 with §6.3)."""
    tr = translation(code)
    allowed = allowance(code)
    (document,) = egress_documents(
        Candidate("CiliumNetworkPolicy", raw, 0), Subject(NAMESPACE, POD_LABELS), allowed, tr
    )
    group_candidates = [candidate(group, i) for i, group in enumerate(groups)]
    rules: list[RuleVerdict] = []
    for index, rule in enumerate(raw["spec"]["egress"]):
        ports = read_cilium_ports(rule)
        assert not isinstance(ports, CiliumPortsError)
        verdicts = (
            judge_cidr_set_entry(entry, group_candidates, ports, allowed, index=index)
            for entry in rule["toCIDRSet"]
        )
        rules.append(next((v for v in verdicts if v is not None), RuleVerdict(Tri.NO, None, index)))
    return replace(document, rules=tuple(rules))


def _cidr_row(entries: list[Any], groups: list[dict[str, Any]]) -> Scenario:
    raw = _cilium_policy(entries)
    return Scenario("PC", old=[resolved_cilium_document(raw, groups, "PC")], cidr_groups=groups)


CORP = _group("corp", ["192.0.2.0/24"])
REF_CORP = [{"cidrGroupRef": "corp"}]
VPN_1 = _group("vpn-1", ["10.48.0.0/24"], {"role": "vpn"})

# (row, scenario, expected {kind/name: verdict} of the documents beyond the named object, refusal)
ROWS: list[tuple[int, Scenario, dict[str, str], str | None]] = [
    (1, Scenario("D", [ROW1]), {"AdminNetworkPolicy/x": "widens-egress"}, "policy-widens-egress"),
    (2, Scenario("D", [_with_action(ROW1, "Deny")]), {"AdminNetworkPolicy/x": "within"}, None),
    (3, Scenario("D", [ROW3]), {"AdminNetworkPolicy/x": "within"}, None),
    (4, Scenario("SN", [ROW3]), {"AdminNetworkPolicy/x": "widens-egress"}, "policy-widens-egress"),
    (5, Scenario("D", [ROW5]), {"AdminNetworkPolicy/x": "not-evaluable"}, "not-evaluable"),
    (
        6,
        Scenario("D", [ROW5], namespace_labels={"team": "web"}),
        {"AdminNetworkPolicy/x": "does-not-select"},
        None,
    ),
    (
        7,
        Scenario("D", [ROW5], namespace_labels={"team": "ml"}),
        {"AdminNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (8, Scenario("D", [ROW8]), {"AdminNetworkPolicy/x": "within"}, None),
    (9, Scenario("S", [ROW8]), {"AdminNetworkPolicy/x": "widens-egress"}, "policy-widens-egress"),
    (10, Scenario("D", [ROW10]), {"AdminNetworkPolicy/x": "not-evaluable"}, "not-evaluable"),
    (11, Scenario("A", [ROW10]), {"AdminNetworkPolicy/x": "within"}, None),
    (
        12,
        Scenario(
            "D",
            [
                anp(
                    {
                        "subject": ALL_NS,
                        "egress": [_anp_allow([KDNS], ports=[{"namedPort": "dns"}])],
                    }
                )
            ],
        ),
        {"AdminNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (13, Scenario("S", [ROW13]), {"AdminNetworkPolicy/x": "not-evaluable"}, "not-evaluable"),
    (
        14,
        Scenario("S", [_domain("*.github.com")]),
        {"AdminNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        15,
        Scenario("D", [_domain("evil.example")]),
        {"AdminNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        16,
        Scenario(
            "D", [anp({"subject": ALL_NS, "ingress": [{"action": "Allow", "from": [ALL_NS]}]})]
        ),
        {"AdminNetworkPolicy/x": "not-egress-scoped"},
        None,
    ),
    (
        17,
        Scenario("D", [anp({"subject": ML, "egress": [{"action": "Deny", "to": TO_WORLD}]})]),
        {"AdminNetworkPolicy/x": "within"},
        None,
    ),
    (
        18,
        Scenario(
            "D",
            [
                anp(
                    {
                        "subject": ALL_NS,
                        "egress": [_anp_allow([{"namespaces": {"namespaceSelector": {}}}])],
                    }
                )
            ],
        ),
        {"AdminNetworkPolicy/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        19,
        Scenario(
            "D",
            [
                anp(
                    {
                        "subject": {
                            "pods": {
                                "namespaceSelector": {},
                                "podSelector": {"matchLabels": {"app": "other"}},
                            }
                        },
                        "egress": [_anp_allow(TO_WORLD)],
                    }
                )
            ],
        ),
        {"AdminNetworkPolicy/x": "does-not-select"},
        None,
    ),
    (20, Scenario("N", [ROW3]), {"AdminNetworkPolicy/x": "widens-egress"}, "policy-widens-egress"),
    (21, Scenario("D", [ROW21]), {"BaselineAdminNetworkPolicy/default": "within"}, None),
    (
        22,
        Scenario("DC", [ROW21]),
        {"BaselineAdminNetworkPolicy/default": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        23,
        Scenario("S", [ROW21]),
        {"BaselineAdminNetworkPolicy/default": "widens-egress"},
        "policy-widens-egress",
    ),
    (24, Scenario("A", [ROW21]), {"BaselineAdminNetworkPolicy/default": "within"}, None),
    (
        25,
        Scenario("D", [ROW25]),
        {"ClusterNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        26,
        Scenario("D", [_with_action(ROW25, "Allow")]),
        {"ClusterNetworkPolicy/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        27,
        Scenario("D", [_with_spec(ROW25, tier="admin")]),
        {"ClusterNetworkPolicy/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        28,
        Scenario("D", [_cnp_admin({"action": "Accept", "to": [KDNS], "protocols": DNSPROTO2})]),
        {"ClusterNetworkPolicy/x": "within"},
        None,
    ),
    (
        29,
        Scenario(
            "P",
            [
                _cnp_admin(
                    {
                        "action": "Accept",
                        "to": [{"networks": ["10.0.0.0/8"]}],
                        "protocols": [{"tcp": {}}],
                    }
                )
            ],
        ),
        {"ClusterNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        30,
        Scenario(
            "P",
            [
                _cnp_admin(
                    {
                        "action": "Accept",
                        "to": [{"networks": ["8.8.8.8/32"]}],
                        "protocols": [{"udp": {"destinationPort": {"number": 53}}}],
                    }
                )
            ],
        ),
        {"ClusterNetworkPolicy/x": "within"},
        None,
    ),
    (
        31,
        Scenario("D", [_cnp_admin({"action": "Accept", "to": [KDNS], "ports": DNSPORTS1})]),
        {"ClusterNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        32,
        Scenario(
            "D", [_cnp_admin({"action": "Accept", "to": [KDNS], "protocols": [{"icmp": {}}]})]
        ),
        {"ClusterNetworkPolicy/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        33,
        Scenario(
            "D",
            [
                cnp(
                    {
                        "tier": "Baseline",
                        "priority": 1,
                        "subject": ALL_NS,
                        "egress": [{"action": "Accept", "to": TO_WORLD}],
                    }
                )
            ],
        ),
        {"ClusterNetworkPolicy/x": "within"},
        None,
    ),
    (
        34,
        Scenario(
            "DC",
            [
                cnp(
                    {
                        "tier": "Baseline",
                        "priority": 1,
                        "subject": ALL_NS,
                        "egress": [{"action": "Pass", "to": TO_WORLD}],
                    }
                )
            ],
        ),
        {"ClusterNetworkPolicy/x": "widens-egress"},
        "policy-widens-egress",
    ),
    (51, _cidr_row(REF_CORP, [CORP]), {"CiliumNetworkPolicy/corp-egress": "within"}, None),
    (
        52,
        _cidr_row(REF_CORP, [_group("corp", ["192.0.2.0/24", "10.1.0.0/16"])]),
        {"CiliumNetworkPolicy/corp-egress": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        53,
        _cidr_row(REF_CORP, []),
        {"CiliumNetworkPolicy/corp-egress": "not-evaluable"},
        "not-evaluable",
    ),
    (
        54,
        _cidr_row([{"cidrGroupSelector": {"matchLabels": {"role": "vpn"}}}], [VPN_1]),
        {"CiliumNetworkPolicy/corp-egress": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        55,
        _cidr_row([{"cidrGroupSelector": {}}], [CORP]),
        {"CiliumNetworkPolicy/corp-egress": "widens-egress"},
        "policy-widens-egress",
    ),
    (
        56,
        Scenario(
            "D",
            [
                {
                    "apiVersion": "crd.antrea.io/v1beta1",
                    "kind": "ClusterNetworkPolicy",
                    "metadata": {"name": "x"},
                    "spec": {"priority": 5, "tier": "securityops"},
                }
            ],
        ),
        {"ClusterNetworkPolicy.crd.antrea.io/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        57,
        Scenario(
            "D",
            pod_template={
                "metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": "macvlan-conf"}}
            },
        ),
        {"pod condition/annotation k8s.v1.cni.cncf.io/networks": "not-evaluable"},
        "not-evaluable",
    ),
    (
        58,
        Scenario(
            "D",
            [
                {
                    "apiVersion": "policy.networking.k8s.io/v1beta1",
                    "kind": "ClusterNetworkPolicy",
                    "metadata": {"name": "x"},
                    "spec": ROW25["spec"],
                }
            ],
        ),
        {"ClusterNetworkPolicy/x": "not-evaluable"},
        "not-evaluable",
    ),
    (
        59,
        Scenario(
            "D",
            [
                {
                    "apiVersion": "k8s.ovn.org/v1",
                    "kind": "EgressFirewall",
                    "metadata": {"name": "default", "namespace": NAMESPACE},
                    "spec": {"egress": [{"type": "Allow", "to": {"cidrSelector": "0.0.0.0/0"}}]},
                }
            ],
        ),
        {"EgressFirewall.k8s.ovn.org/default": "not-evaluable"},
        "not-evaluable",
    ),
    (
        60,
        Scenario("D", _row60()),
        {"AdminNetworkPolicy/a": "widens-egress", "AdminNetworkPolicy/b": "not-evaluable"},
        "policy-widens-egress",
    ),
]

ROW_IDS = [f"row{row}" for row, *_ in ROWS]


def _verdicts(scenario: Scenario) -> dict[str, str]:
    outcome = run(scenario)
    entries = [*outcome.union[1:], *outcome.decision.documents]
    return {f"{entry.kind}/{entry.name}": str(entry.verdict) for entry in entries}


@pytest.mark.parametrize(("row", "scenario", "verdicts", "refusal"), ROWS, ids=ROW_IDS)
def test_worked_example(
    row: int, scenario: Scenario, verdicts: dict[str, str], refusal: str | None
) -> None:
    """C§9: each row's document verdicts and reach refusal."""
    outcome = run(scenario)
    assert [str(entry.verdict) for entry in outcome.union[:1]] == ["within"], "named object"
    assert _verdicts(scenario) == verdicts
    decision = outcome.decision
    assert (None if decision.refusal is None else str(decision.refusal)) == refusal, (
        decision.summary
    )
    if refusal is not None:
        assert decision.summary is not None
        assert decision.culprit is not None
        culprit = f"{decision.culprit.kind}/{decision.culprit.name}"
        assert culprit in decision.summary


def test_row_60_names_the_widening_document() -> None:
    """Widening beats undecided (S§11.3), whatever order the objects come in."""
    decision = run(Scenario("D", _row60())).decision
    assert decision.culprit is not None
    assert (decision.culprit.kind, decision.culprit.name) == ("AdminNetworkPolicy", "a")
    assert decision.summary is not None and "AdminNetworkPolicy/a" in decision.summary
    assert [entry.name for entry in decision.documents] == ["a", "b"]


ISO = {"D": True, "DC": True, "P": True, "PC": True, "S": False, "SN": False, "A": True, "N": True}


@pytest.mark.parametrize("code", sorted(ISO))
def test_allowance_codes_have_the_tables_iso(code: str) -> None:
    """C§9's allowance table: the named object isolates the pod (ISO) exactly
    for the core NetworkPolicy translations."""
    outcome = run(Scenario(code))
    assert outcome.subject.iso is ISO[code]
    assert outcome.subject.cilium is (code in {"DC", "PC", "S", "SN"})


UNDECIDING = {"within", "does-not-select", "not-egress-scoped"}


@pytest.mark.parametrize(("row", "scenario", "verdicts", "refusal"), ROWS, ids=ROW_IDS)
def test_worked_example_without_the_named_object(
    row: int, scenario: Scenario, verdicts: dict[str, str], refusal: str | None
) -> None:
    """C§9's closing note: with the named object removed, new kinds never
    count as enforcing, so D, DC, P, PC and N give no-enforcing-policy even
    where every new-kind document is within; under A there is no refusal."""
    bare = without_named_object(scenario)
    decision = run(bare).decision
    if bare.old or any(str(e.verdict) not in UNDECIDING for e in decision.documents):
        # Rows 51-55 keep an enforcing Cilium document; a refusing new-kind
        # document decides before the enforcing count does.
        return
    expected = None if scenario.code == "A" else "no-enforcing-policy"
    assert (None if decision.refusal is None else str(decision.refusal)) == expected
