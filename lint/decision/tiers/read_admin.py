"""AdminNetworkPolicy, BaselineAdminNetworkPolicy and ClusterNetworkPolicy as
the tier model reads them (CLUSTER-POLICIES.md §12.2, §12.2.1, §12.2.2,
§12.3.1-§12.3.3; the readers of §3.1-§3.3, §3.4.1, §4.1-§4.5).

The reading itself is ``lint.decision.reach.admin`` and
``lint.decision.reach.cluster_network_policy`` (the document shape, the
subject, ``ports``, ``protocols`` and the ``to`` peers); this module turns
what they read into what each rule matches:

- an AdminNetworkPolicy sits in the Admin slot, ordered by ``priority``;
  its actions are Allow, Deny, Pass;
- the BaselineAdminNetworkPolicy sits in the Baseline slot with no order;
  its actions are Allow, Deny;
- a ClusterNetworkPolicy sits in the slot its ``tier`` names, ordered by
  ``priority``; its actions are Accept (read as Allow), Deny, Pass;
- peers: ``networks`` is an address test for every owner; ``pods`` and
  ``namespaces`` are a ``PodSet`` that never matches a node; ``nodes``
  matches only nodes (certainly for the empty selector); ``domainNames``
  match by name;
- an action that cannot be read is every action of the kind.

Every document has its own tie class: two of equal priority always tie
(NPA-PRI, §12.3.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from msgspec.structs import replace

from lint.decision.model import Everything, Tri
from lint.decision.reach.admin import (
    ANP_FLAVOUR,
    BANP_FLAVOUR,
    Flavour,
    Shape,
    SubjectSelectors,
    read_shape,
    read_wanted_peers,
    selectors_select,
    subject_selectors,
    subject_text,
)
from lint.decision.reach.cluster_network_policy import TIERS, flavour_of, tier_of
from lint.decision.reach.common import object_name
from lint.decision.reach.model import ReachCandidate
from lint.decision.tiers.model import (
    UNREADABLE_PORTS,
    Action,
    PeerMatch,
    Ports,
    Slot,
    TierRule,
    unreadable_peer,
)
from lint.decision.tiers.reading import (
    Read,
    ReadContext,
    ports_of_port_set,
    shell,
    tri,
    unreadable_document,
    wanted_peer_match,
)
from lint.decision.values import JSON, compact_json, is_integer
from lint.kinds import (
    ADMIN_NETWORK_POLICY,
    BASELINE_ADMIN_NETWORK_POLICY,
    CLUSTER_NETWORK_POLICY,
    Kind,
)

ACTION_WORDS: Final[Mapping[str, Action]] = {
    "Allow": Action.ALLOW,
    "Accept": Action.ALLOW,
    "Deny": Action.DENY,
    "Pass": Action.PASS,
}


def _actions_of(flavour: Flavour) -> frozenset[Action]:
    return frozenset(ACTION_WORDS[word] for word in flavour.actions)


def read_anp(candidate: ReachCandidate, context: ReadContext) -> Read:
    return _read(candidate, context, ADMIN_NETWORK_POLICY, ANP_FLAVOUR, Slot.ADMIN)


def read_banp(candidate: ReachCandidate, context: ReadContext) -> Read:
    return _read(candidate, context, BASELINE_ADMIN_NETWORK_POLICY, BANP_FLAVOUR, Slot.BASELINE)


def read_cnp(candidate: ReachCandidate, context: ReadContext) -> Read:
    tier = tier_of(candidate.raw)
    # A tier that cannot be read: the document is unreadable, placed first.
    slot = Slot.BASELINE if tier == "Baseline" and tier in TIERS else Slot.ADMIN
    return _read(candidate, context, CLUSTER_NETWORK_POLICY, flavour_of(tier), slot)


def _read(
    candidate: ReachCandidate, context: ReadContext, kind: Kind, flavour: Flavour, slot: Slot
) -> Read:
    """The object's document for the pod: only the subject depends on the
    pod and its namespace, so the document is kept for the run per object,
    subject and credit (``ReadContext.remembered_everywhere``)."""
    shape, selectors = context.remembered_everywhere(
        (candidate.raw,),
        ("admin-shape", flavour.unreadable_tier),
        lambda: _shape(candidate.raw, flavour.unreadable_tier),
    )
    subject = (
        Tri.UNKNOWN
        if isinstance(shape, str)
        else selectors_select(selectors, context.namespace_view, context.pod)
    )
    credit = context.credit(kind.key)
    flavoured = (kind.key, flavour.group, flavour.actions, flavour.peer_fields, slot)
    return context.remembered_everywhere(
        (candidate.raw,),
        ("admin-document", candidate.position, *flavoured, credit, subject),
        lambda: _document(candidate, context, kind, flavour, slot, shape, subject),
    )


def _shape(raw: JSON, unreadable_tier: str | None) -> tuple[Shape | str, SubjectSelectors]:
    """The object's shape and its subject's selectors, read once for every
    pod (only matching them reads the pod)."""
    shape = read_shape(raw, unreadable_tier)
    return shape, None if isinstance(shape, str) else subject_selectors(shape.subject)


def _document(
    candidate: ReachCandidate,
    context: ReadContext,
    kind: Kind,
    flavour: Flavour,
    slot: Slot,
    shape: Shape | str,
    subject: Tri,
) -> Read:
    name = object_name(candidate.raw, candidate.position)
    ordered = kind is not BASELINE_ADMIN_NETWORK_POLICY
    base = shell(
        kind.key,
        name,
        None,
        slot,
        None,
        f"{kind.key}/{name}",
        context.credit(kind.key),
        candidate.position,
    )
    actions = _actions_of(flavour)
    if isinstance(shape, str):
        return Read(documents=(unreadable_document(base, shape, ("spec",), actions),))
    priority: JSON = shape.spec.get("priority")
    if ordered and (not is_integer(priority) or priority < 0):
        detail = f"`spec.priority` {compact_json(priority)} is not a non-negative integer"
        return Read(documents=(unreadable_document(base, detail, ("spec",), actions),))
    egress = shape.egress or []
    document = replace(
        base,
        order=float(priority) if ordered else None,
        subject=subject,
        types=tri(bool(egress)),
        rules=context.remembered_everywhere(
            (candidate.raw,),
            ("admin-rules", kind.key, flavour.group, flavour.actions, flavour.peer_fields),
            lambda: tuple(admin_rule(rule, index, flavour) for index, rule in enumerate(egress)),
        ),
        subject_why=(
            f"{subject_text(shape.subject)} cannot be matched offline"
            if subject is Tri.UNKNOWN
            else None
        ),
    )
    return Read(documents=(document,))


def admin_rule(rule: JSON, index: int, flavour: Flavour) -> TierRule:
    """One egress rule as what it matches (§12.2)."""
    path: tuple[str | int, ...] = ("spec", "egress", index)
    every = _actions_of(flavour)
    if not isinstance(rule, dict):
        return TierRule(every, UNREADABLE_PORTS, (unreadable_peer(),), index, path, _text(index))
    name = rule.get("name")
    text = _text(index, name if isinstance(name, str) else None)
    word = rule.get("action")
    actions = (
        frozenset({ACTION_WORDS[word]})
        if isinstance(word, str) and word in flavour.actions
        else every
    )
    return TierRule(actions, _ports(rule, flavour), _peers(rule, flavour), index, path, text)


def _text(index: int, name: str | None = None) -> str:
    return f"egress rule {index}" + (f" ({compact_json(name)})" if name else "")


def _ports(rule: Mapping[str, JSON], flavour: Flavour) -> Ports:
    read = flavour.read_ports(rule)
    if isinstance(read, str):
        return UNREADABLE_PORTS
    ports, named = read
    return ports_of_port_set(ports, named)


def _peers(rule: Mapping[str, JSON], flavour: Flavour) -> tuple[PeerMatch, ...] | None:
    read = read_wanted_peers(rule, flavour.peer_fields)
    if isinstance(read, str):
        return (unreadable_peer(read),)
    if isinstance(read, Everything):
        return None
    return tuple(wanted_peer_match(peer, admin=True) for peer in read)
