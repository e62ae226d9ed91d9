"""``explain --to DEST`` through the cluster policies reach judges
(CLUSTER-POLICIES §3.4, §4.6): the Admin-tier allow rules that admit the
destination, named by object, rule and line.

An Admin-tier ``Allow`` (v1alpha1) or ``Accept`` (v1alpha2) is final: no
NetworkPolicy can take back what it admits (§1.1), so it is the first thing
to show. The rule's peers are read with reach's own reader; a peer admits
the destination when it is every destination, a network containing the
address, or the destination's host name. Ports are not compared: the line
says "on the ports the rule names" and the rule's own line shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lint.checks.context import precise_location
from lint.checks.reach_candidates import Offered
from lint.decision.model import CidrPeer, Everything
from lint.decision.peers import peer_within
from lint.decision.reach import admin, cluster_network_policy
from lint.decision.reach.common import normalise_domain
from lint.decision.reach.model import DomainPeer
from lint.decision.values import JSON
from lint.explain.destination import Destination
from lint.report.model import ExaminedEntry, Location

_ALLOW_ACTIONS = {
    (admin.API_VERSION, admin.ANP_KIND): "Allow",
    (cluster_network_policy.API_VERSION, cluster_network_policy.KIND): "Accept",
}


@dataclass(frozen=True, slots=True)
class AdminAdmit:
    """One Admin-tier rule that admits the destination."""

    kind: str
    name: str
    rule: int
    rule_name: str | None
    location: Location

    @property
    def text(self) -> str:
        named = f' ("{self.rule_name}")' if self.rule_name else ""
        where = f"{self.location.file}:{self.location.line}"
        return (
            f"{self.kind}/{self.name} egress rule {self.rule}{named}, on the ports the "
            f"rule names ({where})"
        )


def admin_admits(
    offered: Sequence[Offered], examined: Sequence[ExaminedEntry], destination: Destination
) -> tuple[AdminAdmit, ...]:
    """The Admin-tier allow rules of policies that may select the pod and
    admit ``destination``, in reach's order."""
    quiet = {(e.kind, e.name) for e in examined if e.verdict == "does-not-select"}
    found: list[AdminAdmit] = []
    for item in offered:
        candidate = item.candidate
        action = _ALLOW_ACTIONS.get((candidate.api_version, candidate.kind))
        raw = candidate.raw
        if action is None or not isinstance(raw, dict) or (item.obj.kind, item.obj.name) in quiet:
            continue
        spec = raw.get("spec")
        if not isinstance(spec, dict) or spec.get("tier", "Admin") not in ("Admin", None):
            continue
        rules = spec.get("egress")
        for index, rule in enumerate(rules if isinstance(rules, list) else []):
            if (
                isinstance(rule, dict)
                and rule.get("action") == action
                and _admits(rule, destination)
            ):
                location = precise_location(item.obj, ("spec", "egress", index))
                name = rule.get("name")
                found.append(
                    AdminAdmit(
                        item.obj.kind,
                        item.obj.display_name,
                        index,
                        name if isinstance(name, str) else None,
                        location,
                    )
                )
    return tuple(found)


def _admits(rule: Mapping[str, JSON], destination: Destination) -> bool:
    peers = admin.read_wanted_peers(rule, admin.ANP_PEER_FIELDS)
    if isinstance(peers, str):
        return False
    if isinstance(peers, Everything):
        return True
    wanted = destination.peer
    for peer in peers:
        if isinstance(peer, Everything):
            return True
        if isinstance(peer, CidrPeer) and wanted is not None and peer_within(peer, wanted):
            return True
        if (
            isinstance(peer, DomainPeer)
            and destination.host is not None
            and isinstance(peer.entry, str)
            and normalise_domain(peer.entry) == normalise_domain(destination.host)
        ):
            return True
    return False
