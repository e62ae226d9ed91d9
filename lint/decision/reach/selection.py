"""Which reach candidates select nothing, decided from their subject alone,
for reuse (CLUSTER-POLICIES.md §2.7, §3.2, §3.3, §4, §5.5, §5.14, §8).

A readable AdminNetworkPolicy, BaselineAdminNetworkPolicy, ClusterNetworkPolicy
or Calico policy whose subject does not select the pod gives one
``does-not-select`` document for egress and one for ingress, and each names
only the object: its kind, name and group. ``selects_nothing`` says when that
is so, with the same checks, in the same order, as the readers
(``admin.judge_document``, ``calico.calico_documents`` and their ingress
twins). A caller may then reuse those documents for every pod the object
does not select.

The subject reads the pod's labels only through the keys it names.
``mentioned_keys`` over-approximates them: every string of a Kubernetes
subject selector, every label-like word of a Calico selector. Two pods
that agree on those keys, in one namespace and with one service account,
get the same answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from lint.decision.model import Tri
from lint.decision.reach import admin, calico, cluster_network_policy
from lint.decision.reach.model import ReachCandidate, ReachData, ReachSubject
from lint.decision.values import JSON, compact_json

_CALICO_WORD: Final = re.compile(r"[A-Za-z0-9_./-]+")
_CALICO_SELECTORS: Final = ("selector", "namespaceSelector", "serviceAccountSelector")


def _admin_tier_problem(candidate: ReachCandidate) -> str | bool | None:
    """The tier problem the reader gives the shape, or False when the
    candidate is not one of the §3, §4 kinds."""
    if candidate.api_version == admin.API_VERSION:
        return None if candidate.kind in (admin.ANP_KIND, admin.BANP_KIND) else False
    if (
        candidate.api_version == cluster_network_policy.API_VERSION
        and candidate.kind == cluster_network_policy.KIND
    ):
        tier = cluster_network_policy.tier_of(candidate.raw)
        if isinstance(tier, str) and tier in cluster_network_policy.TIERS:
            return None
        return f"`spec.tier` {compact_json(tier)} is not one of Admin, Baseline"
    return False


def _is_calico_policy(candidate: ReachCandidate) -> bool:
    return calico.is_calico(candidate.api_version) and candidate.kind in calico.POLICY_KINDS


def selects_nothing(candidate: ReachCandidate, subject: ReachSubject, data: ReachData) -> bool:
    """True when both readers give the candidate exactly one
    ``does-not-select`` document for the pod: readable, in scope, not
    host-endpoint-only, and a subject that answers ``no``. False otherwise,
    including every kind these readers do not judge."""
    problem = _admin_tier_problem(candidate)
    if problem is not False:
        shape = admin.read_shape(candidate.raw, problem if isinstance(problem, str) else None)
        if isinstance(shape, str):
            return False
        namespace = data.namespace_view(subject.namespace)
        return admin.subject_selects(shape.subject, namespace, subject.pod) is Tri.NO
    if not _is_calico_policy(candidate) or not calico.in_scope(candidate, subject):
        return False
    is_global = candidate.kind == calico.GLOBAL_POLICY
    policy = calico.read_policy(candidate.raw, is_global)
    if isinstance(policy, str) or policy.host_endpoint_field is not None:
        return False
    views = calico.calico_views(subject, data)
    return calico.selection(policy.spec, is_global, views).outcome is Tri.NO


def mentioned_keys(candidate: ReachCandidate) -> frozenset[str] | None:
    """Every pod label key the candidate's subject can read (and more); None
    for a candidate ``selects_nothing`` never answers True for."""
    raw = candidate.raw
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return None
    if _admin_tier_problem(candidate) is not False:
        return frozenset(_strings(spec.get("subject")))
    if not _is_calico_policy(candidate):
        return None
    words: set[str] = set()
    for field in _CALICO_SELECTORS:
        text = spec.get(field)
        if isinstance(text, str):
            words.update(_CALICO_WORD.findall(text))
    return frozenset(words)


def _strings(value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
