"""Reach and explain: refusals, listed verdicts, the parts they name."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from lint.decision.model import (
    Allowance,
    EgressRefusal,
    EgressVerdict,
    FqdnGrant,
)
from lint.decision.tiers.cells import AddressCell, NameQuery
from lint.decision.tiers.model import EVERY_PORT, Ports, PortSpan, Protocol
from lint.decision.tiers.questions import (
    ISOLATES_THE_POD,
    describe_addresses,
    explain,
    names_only,
    reach,
)
from tests.decision.tiers.build import (
    ALL2,
    ALLOW,
    DENY,
    M,
    N,
    anp,
    banp,
    base,
    cidr,
    cilium,
    core_np,
    fqdn,
    port,
    rule,
)
from tests.decision.tiers.worked import to


def test_addresses_are_described_as_few_cidrs() -> None:
    eights = cidr("8.8.8.0/24")
    cell = AddressCell(4, eights.base, eights.base + 255)
    assert describe_addresses([cell]) == "8.8.8.0/24"
    odd = AddressCell(4, eights.base + 1, eights.base + 4)
    assert describe_addresses([odd]) == "8.8.8.1/32, 8.8.8.2/31, 8.8.8.4/32"
    assert describe_addresses([AddressCell(6, 0, (1 << 128) - 1)]) == "IPv6"


def test_listed_verdicts() -> None:
    tier_input = base(
        "D",
        anp("gone", 10, rule(DENY, [ALL2]), subject=N),
        anp("quiet", 10, rule(DENY, [ALL2]), types=N),
        anp("wide", 20, rule(ALLOW, None, port("TCP", 443))),
    )
    answer = reach(tier_input)
    verdicts = [(item.verdict, item.detail) for item in answer.listed]
    assert verdicts[0] == (EgressVerdict.WITHIN, ISOLATES_THE_POD)
    assert verdicts[1][0] is EgressVerdict.DOES_NOT_SELECT
    assert verdicts[2][0] is EgressVerdict.NOT_EGRESS_SCOPED
    assert verdicts[3][0] is EgressVerdict.WIDENS_EGRESS
    assert "TCP 443" in (verdicts[3][1] or "")
    assert answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    assert answer.rule is not None and answer.rule.index == 0


def test_an_unreadable_document_is_listed_not_evaluable() -> None:
    broken = core_np("np", rule(frozenset({ALLOW}), None), subject=M, unreadable="spec is a list")
    answer = reach(base("D", broken))
    assert answer.listed[1].verdict is EgressVerdict.NOT_EVALUABLE
    assert answer.listed[1].detail == "spec is a list"
    assert answer.refusal is EgressRefusal.NOT_EVALUABLE


def test_only_icmp_reaching_the_default_allow_is_named() -> None:
    ported = Ports(
        spans=tuple(PortSpan(p, 1, 65535) for p in (Protocol.TCP, Protocol.UDP, Protocol.SCTP)),
        other=True,
    )
    answer = reach(base("Dn", banp(rule(DENY, [ALL2], ported))))
    assert answer.refusal is EgressRefusal.NO_ENFORCING_POLICY
    assert answer.part == "ICMP"
    assert EVERY_PORT.every


def _granted_api() -> Allowance:
    """Base allowance ``D`` with ``api.example.com`` granted on every port."""
    allowance = base("D").allowance
    return Allowance(
        allowance.destinations,
        (FqdnGrant("api.example.com", "all"),),
        "all",
        False,
        False,
        allowance.policy_kind,
        allowance.named_object,
    )


def test_a_name_destination_is_judged_on_name_points() -> None:
    granted = _granted_api()
    named = cilium("c", rule(ALLOW, [fqdn("api.example.com")], port("TCP", 443)))
    outside = explain(base("D", named, cilium_r=True), (NameQuery("api.example.com", port=443),))
    assert outside.verdict == "allowed"
    assert outside.exit_status == 1
    inside = explain(
        base("D", named, cilium_r=True, allowance_of=granted),
        (NameQuery("api.example.com", port=443),),
    )
    assert inside.allowance == "inside"
    assert inside.exit_status == 0
    assert outside.outside_verdict is None


def test_fqdn_peers_by_name_only() -> None:
    """With ``by_name``, an FQDN rule for an allowed name passes reach
    (without it, every address is undecided); explain's verdict for an
    address still shows the rule as possible, its exit status follows reach."""
    granted = _granted_api()
    named = cilium("c", rule(ALLOW, [fqdn("api.example.com")], port("TCP", 443)))
    tier_input = base("D", named, cilium_r=True, allowance_of=granted)
    assert reach(tier_input).refusal is EgressRefusal.NOT_EVALUABLE
    assert reach(tier_input, by_name=True).refusal is None
    address = explain(tier_input, to("8.8.8.8:443/TCP"), by_name=True)
    assert address.verdict == "undecided"
    assert address.exit_status == 0
    assert explain(tier_input, to("8.8.8.8:443/TCP")).exit_status == 1
    wider = cilium("c", rule(ALLOW, [fqdn("other.example.com")], port("TCP", 443)))
    answer = reach(base("D", wider, cilium_r=True, allowance_of=granted), by_name=True)
    assert answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    assert answer.part is not None and "other.example.com" in answer.part


def test_a_declared_pattern_holds_the_names_it_matches() -> None:
    """The translation's ``matchPattern`` entries count as declared names:
    a rule naming the same pattern stays inside, a wider one does not."""
    allowance = base("D").allowance
    granted = replace(allowance, fqdn_patterns=(FqdnGrant("*.pypi.org", "all"),))
    same = cilium("c", rule(ALLOW, [fqdn("*.pypi.org", one_label=True)]))
    assert reach(base("D", same, cilium_r=True, allowance_of=granted), by_name=True).refusal is None
    wider = cilium("c", rule(ALLOW, [fqdn("*.org", one_label=True)]))
    answer = reach(base("D", wider, cilium_r=True, allowance_of=granted), by_name=True)
    assert answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS


def test_a_star_is_one_label_for_cilium_and_one_or_more_for_the_network_policy_api() -> None:
    """Cilium's ``*.pypi.org`` matches ``a.pypi.org`` but not
    ``a.b.pypi.org``; the network-policy API's matches both. So an
    AdminNetworkPolicy naming the declared Cilium pattern still lets out the
    deeper names, and a Cilium rule naming it does not."""
    allowance = base("D").allowance
    granted = replace(allowance, fqdn_patterns=(FqdnGrant("*.pypi.org", "all"),))
    admin = anp("a", 1, rule(ALLOW, [fqdn("*.pypi.org")]))
    answer = reach(base("D", admin, allowance_of=granted), by_name=True)
    assert answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    assert answer.part is not None
    assert answer.part.startswith("names more than one label under pypi.org on every port")
    isolating = cilium("c", rule(ALLOW, [fqdn("*.pypi.org", one_label=True)]))
    for host, verdict in (("a.pypi.org", "allowed"), ("a.b.pypi.org", "denied")):
        query = (NameQuery(host, port=443),)
        found = explain(base("D", isolating, cilium_r=True, allowance_of=granted), query)
        assert found.verdict == verdict, (host, found.verdict)
    deeper = cilium("c", rule(ALLOW, [fqdn("*.b.pypi.org", one_label=True)]))
    answer = reach(base("D", deeper, cilium_r=True, allowance_of=granted), by_name=True)
    assert answer.refusal is EgressRefusal.POLICY_WIDENS_EGRESS
    assert answer.part is not None and answer.part.startswith("names matching *.b.pypi.org")


def test_explain_names_the_deciding_rule_per_slot() -> None:
    answer = explain(base("D", anp("a", 10, rule(DENY, [ALL2]))), to("8.8.8.8:443/TCP"))
    assert answer.verdict == "denied"
    (path,) = answer.paths
    (step,) = path.steps
    assert step.slot == "kube-admin" and step.document == 1 and step.rule is not None
    assert not answer.doubts


def test_an_undecided_destination_names_both_paths_and_the_undecided_documents() -> None:
    tied = base(
        "D",
        anp("a", 10, rule(DENY, [ALL2])),
        anp("b", 10, rule(ALLOW, [ALL2], port("TCP", 443))),
    )
    answer = explain(tied, to("8.8.8.8:443/TCP"))
    assert answer.verdict == "undecided"
    deciding = {(p.result.value, p.steps[0].document, p.steps[0].tie) for p in answer.paths}
    assert deciding == {("deny", 1, True), ("allow", 2, True)}
    assert {d.document for d in answer.doubts} == {1, 2}
    assert answer.reach.refusal is EgressRefusal.NOT_EVALUABLE


def test_names_only_with_a_memo_rewrites_each_rule_list_once() -> None:
    named = cilium("c", rule(ALLOW, [fqdn("api.example.com")], port("TCP", 443)))
    tier_input = base("D", named, cilium_r=True)
    memo: dict[int, Any] = {}
    first = names_only(tier_input, memo)
    again = names_only(tier_input, memo)
    assert first == names_only(tier_input)
    changed = [d for d in first.documents if d not in tier_input.documents]
    assert changed and all(
        a.rules is b.rules for a, b in zip(first.documents, again.documents, strict=True)
    )
