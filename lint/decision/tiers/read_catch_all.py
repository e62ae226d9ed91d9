"""Kinds recognised only to fail closed, and pod conditions, as the tier model
reads them (CLUSTER-POLICIES.md §7, §12.7).

Each §7 object (Antrea, MultiNetworkPolicy, EgressFirewall, an unknown
version of the network-policy API, a Kube-OVN Subnet with ACLs, Cilium's
``enable-policy: never``) and each §7 pod condition (secondary networks,
``hostNetwork``) is an ``Undecidable``: it adds ``allow`` to every point's
verdict and is that point's undecided document. The reading is
``lint.decision.reach.catch_all``'s.
"""

from __future__ import annotations

from collections.abc import Iterable

from lint.decision.reach.catch_all import caught_documents, pod_conditions
from lint.decision.reach.model import ReachCandidate, ReachDocument
from lint.decision.tiers.model import Undecidable
from lint.decision.tiers.reading import Read, ReadContext

PATH_REF = -1
"""The ``ref`` of a pod condition: it comes from the path, not an object."""


def _undecidable(documents: Iterable[ReachDocument], ref: int) -> tuple[Undecidable, ...]:
    return tuple(
        Undecidable(document.kind, document.name, document.detail or "", ref, document.rule_path)
        for document in documents
    )


def read_catch_all(candidate: ReachCandidate, context: ReadContext) -> Read:
    """One §7 object (nothing for a kind §7 lets pass, or another
    namespace's namespaced object)."""
    documents = caught_documents(candidate, context.namespace, context.cilium_r)
    return Read(undecidable=_undecidable(documents, candidate.position))


def pod_condition_undecidables(context: ReadContext) -> tuple[Undecidable, ...]:
    """The §7 pod conditions of the path."""
    return _undecidable(pod_conditions(context.pod_template, context.pod_annotations), PATH_REF)
