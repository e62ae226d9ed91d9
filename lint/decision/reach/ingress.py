"""The minimal fail-closed ingress rule of reach (CLUSTER-POLICIES.md §8, §11 Q5).

So that the agent-port decision (S§13) does not pass silently: a new-kind
document from §3-§4 whose subject match is `yes` or `unknown` and which has
an ingress rule whose action is `Allow`, `Accept` or `Pass` is
`not-evaluable` for ingress, until ingress semantics are specified. An
ingress rule that cannot be read counts the same way (fail closed). Every §7
document is `not-evaluable` for ingress too. This feeds `ingress.reach`,
never the reference's own ingress decision.

The Calico kinds' ingress (§8, `Allow` or `Pass`) belongs with §5 (calico.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from lint.decision.model import IngressRefusal, IngressVerdict, Tri
from lint.decision.reach import admin, cluster_network_policy
from lint.decision.reach.admin import read_shape, subject_selects
from lint.decision.reach.calico import calico_ingress_documents, is_calico
from lint.decision.reach.catch_all import catch_all_documents, pod_condition_documents
from lint.decision.reach.common import display_kind, object_name
from lint.decision.reach.model import (
    Group,
    ReachCandidate,
    ReachData,
    ReachDecision,
    ReachDocument,
    ReachSubject,
)
from lint.decision.reach.procedure import order_documents
from lint.decision.values import JSON, UNREADABLE, compact_json, read_list

ALLOW_LIKE_ACTIONS: Final = ("Allow", "Accept", "Pass")
DENY: Final = "Deny"
NO_ALLOWING_INGRESS: Final = "it has no Allow, Accept or Pass ingress rule"


def _group_of(candidate: ReachCandidate) -> tuple[Group, str | None] | None:
    """(group, the CNP tier problem) for the kinds §8 reads; None otherwise."""
    if candidate.api_version == admin.API_VERSION:
        if candidate.kind == admin.ANP_KIND:
            return "admin", None
        if candidate.kind == admin.BANP_KIND:
            return "baseline", None
        return None
    if (
        candidate.api_version == cluster_network_policy.API_VERSION
        and candidate.kind == cluster_network_policy.KIND
    ):
        tier = cluster_network_policy.tier_of(candidate.raw)
        problem = (
            None
            if isinstance(tier, str) and tier in cluster_network_policy.TIERS
            else f"`spec.tier` {compact_json(tier)} is not one of Admin, Baseline"
        )
        return ("baseline" if tier == "Baseline" else "admin"), problem
    return None


def ingress_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """§8 for one candidate: its ingress document (ANP, BANP, CNP, and
    Calico's through its own reader), or the §7 document re-read for
    ingress; () for any other kind."""
    if is_calico(candidate.api_version):
        return calico_ingress_documents(candidate, subject, data)
    known = _group_of(candidate)
    if known is None:
        return tuple(_as_ingress(document) for document in catch_all_documents(candidate, subject))
    group, tier_problem = known
    kind = display_kind(candidate.api_version, candidate.kind)
    name = object_name(candidate.raw, candidate.position)

    def document(
        verdict: IngressVerdict, detail: str | None, index: int | None = None
    ) -> ReachDocument:
        path: tuple[str | int, ...] = () if index is None else ("spec", "ingress", index)
        return ReachDocument(kind, name, verdict, detail, index, path, group)

    shape = read_shape(candidate.raw, tier_problem)
    if isinstance(shape, str):
        return (document(IngressVerdict.NOT_EVALUABLE, shape),)
    selects = subject_selects(shape.subject, data.namespace_view(subject.namespace), subject.pod)
    if selects is Tri.NO:
        return (document(IngressVerdict.DOES_NOT_SELECT, None),)
    rules = read_list(shape.spec, "ingress")
    if rules is UNREADABLE:
        return (document(IngressVerdict.NOT_EVALUABLE, "`spec.ingress` is not a list of rules"),)
    for index, rule in enumerate(rules or []):
        problem = _allowing_rule(rule)
        if problem is not None:
            detail = (
                f"{kind}/{name} ingress rule {index} {problem}; ingress through cluster-tier "
                "policies is not specified yet, so the agent port's exposure cannot be decided"
            )
            return (document(IngressVerdict.NOT_EVALUABLE, detail, index),)
    return (document(IngressVerdict.NOT_INGRESS_SCOPED, NO_ALLOWING_INGRESS),)


def _allowing_rule(rule: JSON) -> str | None:
    """Why an ingress rule may let traffic in, or None for a Deny rule."""
    if not isinstance(rule, Mapping):
        return "is not an object"
    action = rule.get("action")
    if action == DENY:
        return None
    if isinstance(action, str) and action in ALLOW_LIKE_ACTIONS:
        return f"has the action {action}"
    return f"has the action {compact_json(action)}, which cannot be read"


def _as_ingress(document: ReachDocument) -> ReachDocument:
    return ReachDocument(
        document.kind,
        document.name,
        IngressVerdict.NOT_EVALUABLE,
        document.detail,
        document.rule_index,
        document.rule_path,
        document.group,
    )


def ingress_pod_condition_documents(subject: ReachSubject) -> tuple[ReachDocument, ...]:
    """The §7 pod conditions, `not-evaluable` for ingress as well."""
    return tuple(_as_ingress(document) for document in pod_condition_documents(subject))


def decide_ingress_reach(documents: Sequence[ReachDocument]) -> ReachDecision:
    """`ingress.reach`: `not-evaluable` naming the first undecided document
    (documents sorted as egress reach sorts them), else no refusal."""
    ordered = order_documents(documents)
    undecided = next((d for d in ordered if d.verdict == IngressVerdict.NOT_EVALUABLE), None)
    if undecided is None:
        return ReachDecision(None, None, ordered)
    summary = undecided_for_ingress(undecided.kind, undecided.name, undecided.detail)
    return ReachDecision(IngressRefusal.NOT_EVALUABLE, summary, ordered, culprit=undecided)


def undecided_for_ingress(kind: str, name: str, detail: str | None) -> str:
    """What one undecided document means for `ingress.reach` (§8)."""
    return (
        f"{kind}/{name} cannot be evaluated for ingress: "
        f"{detail}; the agent port's reach cannot be decided from the objects"
    )
