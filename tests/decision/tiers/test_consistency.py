"""Reach and explain ask one model: the consistency of the two questions.

- ``explain --to DEST`` exits 1 only when reach refuses, and the culprit it
  names is one reach reports;
- reach refuses exactly when explaining every address (and every name an
  FQDN rule names) exits 1;
- explain's verdict agrees with single points of ``DEST``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lint.decision.model import Allowance, CidrPeer, Destination, EgressRefusal, NamedRef, Tri
from lint.decision.tiers.cells import AddressQuery, NameQuery, Query
from lint.decision.tiers.evaluate import build_plan, evaluate
from lint.decision.tiers.match import PointProbe, applies
from lint.decision.tiers.model import Action, Protocol, Slot, TierInput, Undecidable
from lint.decision.tiers.points import NODE, OUT, POD, Point
from lint.decision.tiers.questions import ALLOWED, DENIED, explain, reach
from tests.decision.tiers.build import ALLOW, N, base, cidr, document, fqdn, networks, rule
from tests.decision.tiers.strategies import CIDRS, PORT_POOL, tier_inputs

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
V4 = AddressQuery(4, 0, (1 << 32) - 1)
V6 = AddressQuery(6, 0, (1 << 128) - 1)


@st.composite
def destinations(draw: Any) -> AddressQuery:
    block = cidr(draw(st.sampled_from(CIDRS)))
    size = 1 << ((32 if block.family == 4 else 128) - block.prefix)
    if draw(st.booleans()):
        return AddressQuery(block.family, block.base, block.base + size - 1)
    address = draw(st.sampled_from([block.base, block.base + size - 1]))
    protocol = draw(st.sampled_from([Protocol.TCP, Protocol.UDP, Protocol.SCTP]))
    return AddressQuery(block.family, address, address, protocol, draw(st.sampled_from(PORT_POOL)))


def _names(tier_input: TierInput) -> tuple[list[str], bool]:
    """The names of reach's name points: those the FQDN rules of the
    documents that may apply to the pod write. A document that certainly
    does not apply (no subject, no egress, no credit) never matches a
    point, so its rules' names are no points of reach's."""
    exact, wild = [], False
    for each in tier_input.documents:
        if applies(each) is Tri.NO:
            continue
        for written in (*each.rules, *each.deny_rules):
            for peer in written.peers or ():
                for name in peer.names or ():
                    if name.startswith("*."):
                        wild = True
                    else:
                        exact.append(name)
    return sorted(set(exact)), wild


@SETTINGS
@given(tier_inputs(), destinations())
def test_explain_exits_1_only_where_reach_refuses_with_the_same_culprit(
    tier_input: TierInput, dest: AddressQuery
) -> None:
    whole = reach(tier_input)
    answer = explain(tier_input, (dest,))
    if answer.exit_status == 1:
        assert whole.refusal is not None
        assert answer.allowance == "outside"
    if answer.reach.refusal is EgressRefusal.POLICY_WIDENS_EGRESS:
        assert answer.reach.document is not None and answer.reach.rule is not None
        assert (answer.reach.document, answer.reach.rule.index) in whole.culprits


NOT_APPLYING_NAME = base(
    "Dn",
    # Governs no egress: its name is no point of reach's, so it is not asked.
    document("NetworkPolicy", "d0", Slot.ADMIN, [rule(ALLOW, [fqdn("api.example.com")])], types=N),
    document("NetworkPolicy", "d0", Slot.ADMIN, [rule(ALLOW, [networks("0.0.0.0/0")])]),
    undecidable=[Undecidable("Antrea", "x", "not modelled")],
    allowance_of=Allowance(
        (Destination(CidrPeer(cidr("0.0.0.0/0"), (), "0.0.0.0/0"), "all"),),
        (),
        "all",
        False,
        False,
        "deny-all",
        NamedRef("NetworkPolicy", "x"),
    ),
)
"""Found by this property: asked about the name of a rule that cannot
apply, explain names the wide rule (a name may resolve to any address),
while reach, which has no such name point, refuses for the undecidable
object's IPv6."""


@SETTINGS
@example(NOT_APPLYING_NAME)
@given(tier_inputs())
def test_reach_refuses_exactly_when_every_destination_exits_1(tier_input: TierInput) -> None:
    names, wild = _names(tier_input)
    queries: tuple[Query, ...] = (V4, V6, *(NameQuery(n, None) for n in names))
    whole = reach(tier_input)
    answer = explain(tier_input, queries)
    if answer.exit_status == 1:
        assert whole.refusal is not None
    if not wild:
        assert (answer.exit_status == 1) == (whole.refusal is not None), whole.summary
        assert answer.reach.refusal == whole.refusal


@SETTINGS
@given(tier_inputs(), destinations(), st.data())
def test_explain_verdict_holds_on_single_points(
    tier_input: TierInput, dest: AddressQuery, data: Any
) -> None:
    answer = explain(tier_input, (dest,))
    address = data.draw(st.sampled_from([dest.low, dest.high]))
    protocol = dest.protocol or data.draw(st.sampled_from(list(Protocol)))
    port = dest.port
    if port is None and protocol in (Protocol.TCP, Protocol.UDP, Protocol.SCTP):
        port = data.draw(st.sampled_from(PORT_POOL))
    if protocol is Protocol.OTHER:
        port = 47
    owner = data.draw(st.sampled_from([OUT, POD, NODE]))
    labels = data.draw(st.sampled_from([{}, {"app": "a"}, {"k8s-app": "kube-dns"}]))
    namespace = {"kubernetes.io/metadata.name": data.draw(st.sampled_from(["sbx", "kube-system"]))}
    point = Point(dest.family, address, owner, protocol, port, namespace, labels, owner == NODE)
    results = evaluate(build_plan(tier_input), PointProbe(point)).results
    if answer.verdict == ALLOWED:
        assert results == {Action.ALLOW}
    if answer.verdict == DENIED:
        assert results == {Action.DENY}
    if owner == OUT and answer.outside_verdict == DENIED:
        assert results == {Action.DENY}
