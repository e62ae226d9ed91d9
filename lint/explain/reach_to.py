"""``explain --to DEST`` through the cluster policies reach judges
(CLUSTER-POLICIES §3.4, §4.6, §5.7-§5.9): the allow rules of Admin-tier
and Calico policies that admit the destination, named by object, rule and
line.

An Admin-tier ``Allow`` (v1alpha1) or ``Accept`` (v1alpha2) is final: no
NetworkPolicy can take back what it admits (§1.1). A Calico ``Allow`` ends
evaluation for the packet in its tier, ahead of the NetworkPolicies of the
default tier. Each rule is read with reach's own readers and matched with
explain's (``lint.explain.matching``), ports included: a rule on other
ports never admits the destination; an address is matched against
``networks``, ``nets`` less ``notNets`` exactly; a selector peer whose
addresses cannot be known offline *may* admit it. A Calico rule is not
weighed against earlier Deny rules of its tier: the answer names it as a
rule that admits the destination, which is what a reviewer must check.
A Calico ``Pass`` in the ``default`` tier skips that tier's end-of-tier
Deny and lands in the namespace profile, which allows everything: reach
counts it as an allow rule, and so does this answer (issue 25).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from lint.checks.context import precise_location
from lint.checks.reach_candidates import Offered
from lint.decision.cidr import parse_cidr
from lint.decision.defaulting import calico_governs_egress
from lint.decision.model import Cidr, CidrPeer, EgressVerdict, Everything, PortSet, SelectorPeer
from lint.decision.ports import describe_ports
from lint.decision.reach import admin, calico, cluster_network_policy
from lint.decision.reach.common import display_kind, object_name
from lint.decision.reach.model import DomainPeer, NodesPeer, UnreadablePeer, WantedPeer
from lint.decision.values import JSON
from lint.explain.destination import Destination
from lint.explain.grants import Block, EveryDestination, Fqdn, Grant, Opaque, Pods, Target
from lint.explain.matching import Match, Reach, match_grant
from lint.report.model import ExaminedEntry, Location

_ADMIN_RULES: Final = {
    (admin.API_VERSION, admin.ANP_KIND): ("Allow", admin.ANP_PEER_FIELDS, admin.read_anp_ports),
    (cluster_network_policy.API_VERSION, cluster_network_policy.KIND): (
        "Accept",
        admin.ANP_PEER_FIELDS,
        cluster_network_policy.read_protocols,
    ),
}
_CALICO_SCOPED: Final = (
    "it also selects endpoints by label, whose addresses cannot be known offline"
)
_CALICO_NEGATED: Final = "it has a `not` match ({fields}), which is not weighed here"


@dataclass(frozen=True, slots=True)
class AdminAdmit:
    """One allow rule of a cluster policy that admits (``certain``) or may
    admit the destination. ``verdict`` is reach's verdict of its document."""

    kind: str
    name: str
    rule: int
    rule_name: str | None
    location: Location
    ports: str = "every port"
    certain: bool = True
    why: str | None = None
    verdict: str | None = None

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.name} egress rule {self.rule}"

    @property
    def text(self) -> str:
        named = f' ("{self.rule_name}")' if self.rule_name else ""
        where = f"{self.location.file}:{self.location.line}"
        if self.certain:
            admits = "admits it" if self.why is None else f"admits it: {self.why}"
        else:
            admits = f"may admit it: {self.why}"
        return f"{self.label}{named} on {self.ports}, {admits} ({where})"


def admin_admits(
    offered: Sequence[Offered], examined: Sequence[ExaminedEntry], destination: Destination
) -> tuple[AdminAdmit, ...]:
    """The Admin-tier and Calico allow rules of policies that may select
    the pod and (may) admit ``destination``, in reach's order."""
    verdicts = {(e.kind, e.name): e.verdict for e in examined}
    found: list[AdminAdmit] = []
    for item in offered:
        candidate = item.candidate
        raw = candidate.raw
        spec = raw.get("spec") if isinstance(raw, dict) else None
        if not isinstance(spec, dict):
            continue
        shown = display_kind(candidate.api_version, candidate.kind)
        verdict = verdicts.get((shown, object_name(raw, candidate.position)))
        if verdict == EgressVerdict.DOES_NOT_SELECT:
            continue
        rules = spec.get("egress")
        for index, rule, match, ports in _matching_rules(item, spec, rules, destination):
            location = precise_location(item.obj, ("spec", "egress", index))
            name = rule.get("name")
            found.append(
                AdminAdmit(
                    item.obj.kind if shown == candidate.kind else shown,
                    item.obj.display_name,
                    index,
                    name if isinstance(name, str) else None,
                    location,
                    describe_ports(ports) if ports else "unknown ports",
                    match.reach is Reach.YES,
                    match.why,
                    verdict,
                )
            )
    return tuple(found)


_Matched = tuple[int, Mapping[str, JSON], Match, PortSet]


def _matching_rules(
    item: Offered, spec: Mapping[str, JSON], rules: JSON, destination: Destination
) -> Iterator[_Matched]:
    candidate = item.candidate
    if not isinstance(rules, list):
        return
    admin_kind = _ADMIN_RULES.get((candidate.api_version, candidate.kind))
    if admin_kind is not None:
        if spec.get("tier", "Admin") not in ("Admin", None):
            return
        action, fields, read_ports = admin_kind
        for index, rule in enumerate(rules):
            if isinstance(rule, dict) and rule.get("action") == action:
                yield from _admin_rule(index, rule, fields, read_ports, destination)
        return
    if calico.is_calico(candidate.api_version) and candidate.kind in calico.POLICY_KINDS:
        if not _calico_governs(spec, rules):
            return
        namespaced = candidate.kind == calico.NAMESPACED_POLICY
        in_default = spec.get("tier", "default") in ("default", None)
        for index, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            if rule.get("action") == "Allow":
                yield from _calico_rule(index, rule, namespaced, destination)
            elif rule.get("action") == "Pass":
                for matched in _calico_rule(index, rule, namespaced, destination):
                    yield _passed(matched, in_default=in_default)


def _admin_rule(
    index: int,
    rule: Mapping[str, JSON],
    fields: tuple[str, ...],
    read_ports: admin.PortsReader,
    destination: Destination,
) -> Iterator[_Matched]:
    ports = read_ports(rule)
    peers = admin.read_wanted_peers(rule, fields)
    if isinstance(ports, str) or isinstance(peers, str):
        why = ports if isinstance(ports, str) else str(peers)
        yield index, rule, Match(Reach.MAYBE, f"the rule cannot be read: {why}"), ()
        return
    targets = [EveryDestination()] if isinstance(peers, Everything) else map(_target, peers)
    best = _best((Grant(target, ports[0]) for target in targets), destination)
    if best is not None:
        yield index, rule, *best


def _calico_governs(spec: Mapping[str, JSON], rules: JSON) -> bool:
    """§5.6 and §5.13: egress rules count when the policy governs egress and
    is not for host endpoints only (a namespaced policy is offered only in
    the sandbox's namespace)."""
    types = spec.get("types")
    listed = rules if isinstance(rules, list) else None
    governed = calico_governs_egress(types if isinstance(types, list) else None, listed)
    host_only = any(spec.get(field) is True for field in ("doNotTrack", "preDNAT"))
    return governed and not host_only


def _calico_rule(
    index: int, rule: Mapping[str, JSON], namespaced: bool, destination: Destination
) -> Iterator[_Matched]:
    read = calico.read_destination(rule, namespaced)
    raw_destination = rule.get("destination")
    wanted = calico.read_wanted_ports(rule, raw_destination)
    if isinstance(read, calico.Undecided) or isinstance(wanted, str):
        why = read.detail if isinstance(read, calico.Undecided) else wanted
        yield index, rule, Match(Reach.MAYBE, f"the rule cannot be read: {why}"), ()
        return
    targets: list[Target] = [Block(peer, block_raw(peer)) for peer in read.cidrs]
    if not read.cidrs:
        targets = list(_everything_but(read.not_nets)) if read.not_nets else [EveryDestination()]
    best = _best((Grant(target, wanted.ports) for target in targets), destination)
    if best is None:
        return
    match, ports = best
    negated = [
        f"`{field}`"
        for field, holder in (
            ("notProtocol", rule),
            ("notPorts", raw_destination),
            ("notSelector", raw_destination),
        )
        if isinstance(holder, dict) and holder.get(field) is not None
    ]
    if match.reach is not Reach.MAYBE and read.scoped:
        match = Match(Reach.MAYBE, _CALICO_SCOPED)
    elif match.reach is not Reach.MAYBE and negated:
        match = Match(Reach.MAYBE, _CALICO_NEGATED.format(fields=", ".join(negated)))
    yield index, rule, match, ports


_PASS_IN_DEFAULT: Final = (
    "a Pass in the `default` tier skips the NetworkPolicy isolation, and the namespace "
    "profile then allows everything"
)
_PASS_ELSEWHERE: Final = (
    "a Pass hands it to the later tiers and the namespace profile, which may allow it"
)


def _passed(matched: _Matched, *, in_default: bool) -> _Matched:
    """A Calico ``Pass`` rule that matches the destination: in the
    ``default`` tier it skips the tier's end-of-tier Deny, so the profile
    lets the destination out (reach judges such a Pass as an allow rule);
    in another tier what comes after is not weighed here, so it may."""
    index, rule, match, ports = matched
    if match.reach is Reach.NO:
        return matched
    if in_default and match.reach is Reach.YES:
        return index, rule, Match(Reach.YES, _PASS_IN_DEFAULT), ports
    why = _PASS_IN_DEFAULT if in_default else _PASS_ELSEWHERE
    return index, rule, Match(Reach.MAYBE, f"{match.why}; {why}" if match.why else why), ports


def _everything_but(not_nets: tuple[str, ...]) -> Iterator[Target]:
    """§5.9: ``notNets`` alone is every address of each family but those."""
    for text in ("0.0.0.0/0", "::/0"):
        cidr = parse_cidr(text)
        assert cidr is not None
        holes = [hole for entry in not_nets if (hole := parse_cidr(entry)) is not None]
        peer = CidrPeer(cidr, tuple(h for h in holes if h.family == cidr.family), text)
        yield Block(peer, block_raw(peer))


def block_raw(peer: CidrPeer) -> dict[str, JSON]:
    """The ``{cidr, except}`` form explain describes a block by."""
    raw: dict[str, JSON] = {"cidr": _cidr_text(peer.cidr)}
    if peer.excepts:
        raw["except"] = [_cidr_text(hole) for hole in peer.excepts]
    return raw


def _cidr_text(cidr: Cidr) -> str:
    if cidr.family == 4:
        return str(ipaddress.IPv4Network((cidr.base, cidr.prefix)))
    return str(ipaddress.IPv6Network((cidr.base, cidr.prefix)))


def _target(peer: WantedPeer) -> Target:
    match peer:
        case Everything():
            return EveryDestination()
        case CidrPeer():
            return Block(peer, block_raw(peer))
        case SelectorPeer():
            return Pods(peer)
        case DomainPeer(entry=entry) if isinstance(entry, str):
            if entry.startswith("*."):
                return Fqdn(None, entry)
            return Fqdn(entry, None)
        case NodesPeer():
            return Opaque("it selects nodes by label, whose addresses cannot be known offline")
        case UnreadablePeer(detail=detail):
            return Opaque(detail)
        case _:
            return Opaque(f"a peer that cannot be read: {peer}")


_STRENGTH: Final = {Reach.YES: 0, Reach.PART: 1, Reach.MAYBE: 2}


def _best(grants: Iterable[Grant], destination: Destination) -> tuple[Match, PortSet] | None:
    """The strongest match among one rule's grants (YES, then PART, then
    MAYBE); None when none reaches the destination."""
    found: tuple[Match, PortSet] | None = None
    for grant in grants:
        match = match_grant(grant, destination)
        if match.reach is Reach.NO:
            continue
        if found is None or _STRENGTH[match.reach] < _STRENGTH[found[0].reach]:
            found = (match, grant.ports)
    return found
