"""Credit: which kinds the cluster is taken to enforce (CLUSTER-POLICIES.md §12.4).

A Deny counts, and an Allow is certain, only for a kind the cluster is
known to enforce. The manifests give two pieces of evidence:

- CALICO: some Calico ``GlobalNetworkPolicy``, ``NetworkPolicy`` or ``Tier``
  is in the manifests (Calico's kinds only exist where Calico installed them);
- CILIUM-R: the run says the cluster may be Cilium, or some
  ``CiliumNetworkPolicy`` or ``CiliumClusterwideNetworkPolicy`` is there.

The declaration file's top-level ``cluster: {enforces: [...]}`` decides
credit alone when present: a listed kind is credited, an unlisted one is
not, and the evidence is not consulted for credit. Without it: core
NetworkPolicy and the Cilium kinds are credited; the Calico kinds only when
CALICO holds without CILIUM-R; the network-policy API's kinds never (their
definitions can be installed where the CNI does not implement them).

The evidence still decides which form the NetworkPolicy slot takes
(``TierInput.calico_form``, ``cilium_r``). Pure: plain data in and out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

from lint.decision.model import Tri
from lint.decision.reach.model import ReachCandidate
from lint.decision.tiers.reading import Credit
from lint.kinds import (
    CALICO_GLOBAL_NETWORK_POLICY,
    CALICO_NETWORK_POLICY,
    CALICO_TIER,
    CILIUM_CLUSTERWIDE_NETWORK_POLICY,
    CILIUM_NETWORK_POLICY,
    ENFORCEABLE,
    identify,
)

CALICO_EVIDENCE: Final = (CALICO_GLOBAL_NETWORK_POLICY, CALICO_NETWORK_POLICY, CALICO_TIER)
CILIUM_EVIDENCE: Final = (CILIUM_NETWORK_POLICY, CILIUM_CLUSTERWIDE_NETWORK_POLICY)
API_WORDS: Final = ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy")


class Evidence(msgspec.Struct, frozen=True):
    """CALICO and CILIUM-R."""

    calico: bool = False
    cilium_r: bool = False


def manifest_evidence(candidates: Iterable[ReachCandidate], cilium: bool = False) -> Evidence:
    """The evidence of the objects given (every object of the manifests, or
    at least every policy and Tier); ``cilium``: the run's own Cilium flag."""
    kinds = {identify(candidate.api_version, candidate.kind) for candidate in candidates}
    return Evidence(
        calico=any(kind in kinds for kind in CALICO_EVIDENCE),
        cilium_r=cilium or any(kind in kinds for kind in CILIUM_EVIDENCE),
    )


def credits(evidence: Evidence, enforces: frozenset[str] | None) -> dict[str, Credit]:
    """The credit of each kind, by ``Kind.key`` (core NetworkPolicy, not
    listed, is always credited)."""
    found: dict[str, Credit] = {}
    for word, kinds in ENFORCEABLE.items():
        credit = _credit(word, evidence, enforces)
        for kind in kinds:
            found[kind.key] = credit
    return found


def _credit(word: str, evidence: Evidence, enforces: frozenset[str] | None) -> Credit:
    if enforces is not None:
        if word in enforces:
            return Credit(Tri.YES, f"the declaration's `cluster.enforces` lists {word}")
        return Credit(
            Tri.UNKNOWN,
            f"the declaration's `cluster.enforces` does not list {word}, so the cluster may "
            "not enforce it",
        )
    if word in API_WORDS:
        return Credit(
            Tri.UNKNOWN,
            f"nothing says the cluster enforces {word} (its definition can be installed where "
            f"the network plugin does not implement it); list {word} in the declaration's "
            "`cluster.enforces` to count it",
        )
    if word == "Calico" and evidence.cilium_r:
        return Credit(
            Tri.UNKNOWN,
            "the manifests hold both Calico and Cilium policies, so which network plugin "
            "enforces Calico's kinds is unknown; list Calico (or not) in the declaration's "
            "`cluster.enforces` to decide it",
        )
    return Credit(Tri.YES)
