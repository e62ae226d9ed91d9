"""The reach decision (CLUSTER-POLICIES.md §1.5, §11): can the pod, in a real
cluster, get out of its allowance?

Reach judges the union's documents as the union does, plus every document of
CLUSTER-POLICIES §3 to §7, and refuses with the union's three refusals by
S§11.3 precedence. Pure: plain data in, frozen results out.

Modules: ``model`` (types), ``common`` (§2 shared readers), ``admin``
(§3 ANP/BANP), ``cluster_network_policy`` (§4), ``calico`` (§5),
``cidr_groups`` (§6.3), ``catch_all`` (§7 and pod conditions), ``ingress``
(§8), ``procedure`` (§1.5).
"""

from __future__ import annotations

from typing import Final

from lint.decision.reach.admin import admin_documents
from lint.decision.reach.calico import calico_documents, calico_tier_documents
from lint.decision.reach.catch_all import catch_all_documents, pod_condition_documents
from lint.decision.reach.cluster_network_policy import cluster_network_policy_documents
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDecision,
    ReachDocument,
    ReachSubject,
    Skipped,
)
from lint.decision.reach.procedure import decide_reach, order_documents

CALICO_API_VERSIONS: Final = ("projectcalico.org/v3", "crd.projectcalico.org/v1")
CALICO_POLICY_KINDS: Final = (
    "GlobalNetworkPolicy",
    "NetworkPolicy",
    "StagedGlobalNetworkPolicy",
    "StagedNetworkPolicy",
    "StagedKubernetesNetworkPolicy",
)


def reach_outcome(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[tuple[ReachDocument, ...], tuple[Skipped, ...]]:
    """One candidate's judged documents and skipped entries, by (apiVersion,
    kind): §3, §4, §5 (Calico, via ``calico``), §7; nothing for data-only
    and old kinds."""
    if candidate.api_version in CALICO_API_VERSIONS:
        if candidate.kind not in CALICO_POLICY_KINDS:
            return (), ()
        judged = calico_documents(candidate, subject, data)
        return ((), (judged,)) if isinstance(judged, Skipped) else (judged, ())
    for reader in (admin_documents, cluster_network_policy_documents):
        documents = reader(candidate, subject, data)
        if documents:
            return documents, ()
    return catch_all_documents(candidate, subject), ()


def reach_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """The judged documents of one candidate; () for kinds reach does not
    handle (and for skipped Calico objects: see ``reach_outcome``)."""
    return reach_outcome(candidate, subject, data)[0]


def subject_documents(subject: ReachSubject, data: ReachData) -> tuple[ReachDocument, ...]:
    """The documents of a path rather than of an object: the §7 pod
    conditions and the Calico Tier check (§5.11)."""
    return (*pod_condition_documents(subject), *calico_tier_documents(data, subject))


__all__ = [
    "ReachDecision",
    "decide_reach",
    "order_documents",
    "reach_documents",
    "reach_outcome",
    "subject_documents",
]
