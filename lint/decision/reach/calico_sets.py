"""The Calico network-set check for the reach decision (CLUSTER-POLICIES.md §5.9.2).

An allowed selector scope pinned to one namespace also selects the
NetworkSets there whose labels it matches: their nets and domains are
judged as the rule's own. Moved out of ``calico`` unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from lint.decision.cidr import parse_cidr
from lint.decision.model import (
    CidrPeer,
    RuleVerdict,
    SelectorPeer,
    Tri,
)
from lint.decision.reach.calico_selector import (
    AllNode,
    KeyState,
    Node,
    evaluate,
)
from lint.decision.reach.common import (
    object_name,
)
from lint.decision.reach.model import (
    NAMESPACE_NAME_LABEL,
    DomainPeer,
    ReachCandidate,
    UnreadablePeer,
    WantedPeer,
    WantedPeers,
)
from lint.decision.values import JSON, UNREADABLE, compact_json, read_list

if TYPE_CHECKING:
    from lint.decision.reach.calico_rules import RuleContext, Scope, WantedPorts

NETWORK_SET_KIND: Final = "NetworkSet"


# --- The network-set check (§5.9.2) ------------------------------------------------------


def _pinned_namespace(peer: SelectorPeer) -> str | None:
    selector = peer.namespace_selector
    if not isinstance(selector, dict) or set(selector) != {"matchLabels"}:
        return None
    labels = selector["matchLabels"]
    if not isinstance(labels, dict) or set(labels) != {NAMESPACE_NAME_LABEL}:
        return None
    name = labels[NAMESPACE_NAME_LABEL]
    return name if isinstance(name, str) else None


def _set_in(candidate: ReachCandidate, namespace: str) -> bool:
    """Whether a NetworkSet may be in ``namespace``. One whose namespace is
    not known (neither defaulted by WIRING nor stated) may be anywhere."""
    if candidate.kind != NETWORK_SET_KIND:
        return False
    if candidate.namespace is not None:
        return candidate.namespace == namespace
    metadata = candidate.raw.get("metadata") if isinstance(candidate.raw, dict) else None
    stated = metadata.get("namespace") if isinstance(metadata, dict) else None
    return not isinstance(stated, str) or not stated or stated == namespace


def _set_selected(raw: JSON, pod_part: Node | None) -> bool:
    """The pod part matches the set's labels with yes or unknown."""
    if pod_part is None or isinstance(pod_part, AllNode):
        return True
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    labels = metadata.get("labels", {}) if isinstance(metadata, dict) else {}
    if labels is None:
        labels = {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        return True
    known: dict[str, str] = labels
    return evaluate(pod_part, lambda key: known.get(key, KeyState.ABSENT)) is not Tri.NO


def _set_peers(raw: JSON) -> list[WantedPeer]:
    name = object_name(raw, 0)
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return [UnreadablePeer(f"NetworkSet {name}: `spec` is not an object")]
    peers: list[WantedPeer] = []
    nets = read_list(spec, "nets")
    if nets is UNREADABLE:
        return [UnreadablePeer(f"NetworkSet {name}: `spec.nets` is not a list")]
    for net in nets or []:
        cidr = parse_cidr(net)
        if cidr is None:
            peers.append(
                UnreadablePeer(
                    f"NetworkSet {name}: `spec.nets` entry {compact_json(net)} is not a CIDR"
                )
            )
            continue
        peers.append(CidrPeer(cidr, (), f"`spec.nets` entry {compact_json(net)}"))
    domains = read_list(spec, "allowedEgressDomains")
    if domains is UNREADABLE:
        return [*peers, UnreadablePeer(f"NetworkSet {name}: `allowedEgressDomains` is not a list")]
    peers += [DomainPeer(entry, compact_json(entry)) for entry in domains or []]
    return peers


def _network_set_verdict(
    scope: Scope,
    ports: WantedPorts,
    index: int,
    context: RuleContext,
    judge: Callable[[WantedPeers], RuleVerdict],
) -> RuleVerdict:
    """§5.9.2: an allowed scope pinned to one namespace also selects the
    NetworkSets there; each of their nets and domains is judged."""
    namespace = _pinned_namespace(scope.peer)
    if namespace is None:
        return RuleVerdict(Tri.NO, index=index)
    found: list[RuleVerdict] = []
    for network_set in _sets_in(context.network_sets, namespace):
        if not _set_selected(network_set.raw, scope.pod_part):
            continue
        verdict = judge(tuple(_set_peers(network_set.raw)))
        if verdict.outcome is not Tri.NO:
            name = object_name(network_set.raw, network_set.position)
            detail = (
                f"the destination {scope.peer.text} also selects NetworkSet {namespace}/{name}: "
                f"{verdict.detail}"
            )
            found.append(RuleVerdict(verdict.outcome, detail, index))
    # A widening set decides before an undecided one, whatever the order of the sets.
    widening = [verdict for verdict in found if verdict.outcome is Tri.YES]
    return (widening or found or [RuleVerdict(Tri.NO, index=index)])[0]


def _sets_in(network_sets: tuple[ReachCandidate, ...], namespace: str) -> list[ReachCandidate]:
    """The namespace's NetworkSet manifests, by name, so that details do not
    depend on the order in which the sets were found."""
    return sorted(
        (candidate for candidate in network_sets if _set_in(candidate, namespace)),
        key=lambda candidate: object_name(candidate.raw, candidate.position),
    )
