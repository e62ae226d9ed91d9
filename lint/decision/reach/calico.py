"""Calico policies and tiers for the reach decision (CLUSTER-POLICIES.md §5).

Reads ``GlobalNetworkPolicy`` and ``NetworkPolicy`` in both the
``projectcalico.org/v3`` and ``crd.projectcalico.org/v1`` forms, identically,
and judges each as one new-kind document (§2.7): selection (§5.5), ``types``
(§5.6), the later-tier excuse (§5.10) and the egress rules (§5.7-§5.9), in
the order of §5.14. Staged kinds (§5.12) and host-endpoint-only policies
(§5.13) become ``Skipped``. ``Tier`` objects only supply orders (§5.2),
except a ``default`` Tier that passes, which is its own document and turns
DEFTIER off (§5.11).

The selector language is :mod:`lint.decision.reach.calico_selector` (§5.3);
the Calico label views (§5.4) are built here over the views of §2.3.

A namespaced object (``NetworkPolicy``, ``StagedNetworkPolicy``,
``StagedKubernetesNetworkPolicy``) counts only in the sandbox namespace: its
namespace is the one WIRING defaulted (``ReachCandidate.namespace``), else
its ``metadata.namespace``, else the sandbox's (the fail-closed reading).
A NetworkSet whose namespace is not known is taken to be in every namespace.

§8 for Calico (an ``Allow`` or ``Pass`` ingress rule in a policy that may
select the pod makes ``ingress.reach`` undecided) is here too:
``calico_ingress_documents``.

Pure: plain data in, frozen results out. The wording of details is ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from lint.decision.defaulting import calico_governs_egress
from lint.decision.model import (
    EgressVerdict,
    IngressVerdict,
    Tri,
)
from lint.decision.reach.calico_rules import (
    ACTIONS,
    GLOBAL_SCOPE,
    Destination,
    RuleContext,
    Scope,
    Undecided,
    WantedPorts,
    calico_rule_verdict,
    read_destination,
    read_wanted_ports,
    translate_scope,
)
from lint.decision.reach.calico_tiers import (
    BUILT_IN_TIER_ORDERS,
    DEFAULT_TIER,
    DEFAULT_TIER_ORDER,
    GROUP,
    Position,
    calico_tier_documents,
    deftier,
    tier_position,
)
from lint.decision.reach.calico_views import (
    GLOBAL_POLICY,
    CalicoViews,
    Selection,
    _selection,
    calico_selects,
    calico_views,
)
from lint.decision.reach.common import (
    JudgedRule,
    NewKindFacts,
    NewKindVerdict,
    display_kind,
    new_kind_verdict,
    object_name,
)
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    ReachDocument,
    ReachSubject,
    Skipped,
)
from lint.decision.values import JSON, UNREADABLE, compact_json, read_list

CALICO_API_VERSIONS: Final = ("projectcalico.org/v3", "crd.projectcalico.org/v1")
NAMESPACED_POLICY: Final = "NetworkPolicy"
POLICY_KINDS: Final = (GLOBAL_POLICY, NAMESPACED_POLICY)
STAGED_KINDS: Final = (
    "StagedGlobalNetworkPolicy",
    "StagedNetworkPolicy",
    "StagedKubernetesNetworkPolicy",
)
TIER_KIND: Final = "Tier"
NETWORK_SET_KIND: Final = "NetworkSet"

STAGED_REASON: Final = "staged, not enforced"
HOST_ENDPOINT_REASON: Final = "host endpoints only"
TYPES: Final = ("Ingress", "Egress")


def is_calico(api_version: str) -> bool:
    return api_version in CALICO_API_VERSIONS


# --- Documents (§5.6, §5.10, §5.13, §5.14) ----------------------------------------------


class ReadPolicy(msgspec.Struct, frozen=True):
    """A Calico policy object that passed §5.14 step 1."""

    spec: Mapping[str, JSON]
    tier: str
    types: tuple[str, ...] | None
    egress: list[JSON]
    host_endpoint_field: str | None


def _read_policy(raw: JSON, is_global: bool) -> ReadPolicy | str:
    """§5.14 step 1: the object, or its unreadable detail."""
    if not isinstance(raw, dict):
        return "the list entry is not a policy object"
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return f"`spec` {compact_json(spec)} is not an object"
    tier = spec.get("tier")
    if tier is not None and not isinstance(tier, str):
        return f"`spec.tier` {compact_json(tier)} is not a string"
    types = read_list(spec, "types")
    if types is UNREADABLE or any(entry not in TYPES for entry in types or []):
        return f"`spec.types` {compact_json(spec.get('types'))} is not a list of Ingress, Egress"
    host_field = None
    if is_global:
        for field in ("doNotTrack", "preDNAT"):
            value = spec.get(field)
            if value is not None and not isinstance(value, bool):
                return f"`spec.{field}` {compact_json(value)} is not a boolean"
            if value is True and host_field is None:
                host_field = field
    egress = read_list(spec, "egress")
    if egress is UNREADABLE:
        return "`spec.egress` is not a list of rules"
    return ReadPolicy(
        spec,
        tier or DEFAULT_TIER,
        None if types is None else tuple(types),
        egress or [],
        host_field,
    )


def governs_egress(policy: ReadPolicy) -> bool:
    """§5.6, as stored (``defaulting``): ``types`` when given; else exactly
    when ``egress`` is non-empty."""
    return calico_governs_egress(policy.types, policy.egress)


def _excuse(position: Position, subject: ReachSubject, has_deftier: bool) -> str | None:
    """§5.10: a policy in a tier after ``default`` only sees traffic that a
    default-tier Pass handed on, and every such Pass is judged."""
    if position is not Position.AFTER or not subject.iso or not has_deftier:
        return None
    isolating = (
        f"the NetworkPolicy {subject.iso_policy}" if subject.iso_policy else "a NetworkPolicy"
    )
    return (
        f"excused: its tier comes after `default`, {isolating} isolates the pod and the "
        "default tier ends in Deny, so this tier only sees traffic a default-tier Pass "
        "rule handed on, and every such Pass is judged as an allow rule"
    )


NAMESPACED_KINDS: Final = (
    NAMESPACED_POLICY,
    "StagedNetworkPolicy",
    "StagedKubernetesNetworkPolicy",
)


def _in_scope(candidate: ReachCandidate, subject: ReachSubject) -> bool:
    """A cluster-scoped kind always; a namespaced one in the sandbox namespace."""
    if candidate.kind not in NAMESPACED_KINDS:
        return True
    return candidate.namespace_or(subject.namespace) == subject.namespace


def calico_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...] | Skipped:
    """§5.14 for one Calico object: its document, ``Skipped`` for staged
    and host-endpoint-only policies, or () for anything else (a Tier, a
    network set, another group's kind, a NetworkPolicy of another namespace)."""
    kind = candidate.kind
    if not is_calico(candidate.api_version) or kind not in (*POLICY_KINDS, *STAGED_KINDS):
        return ()
    if not _in_scope(candidate, subject):
        return ()
    shown = display_kind(candidate.api_version, kind)
    name = object_name(candidate.raw, candidate.position)
    is_global = kind in (GLOBAL_POLICY, "StagedGlobalNetworkPolicy")
    policy = _read_policy(candidate.raw, is_global)
    if isinstance(policy, str):
        return (_document(shown, name, new_kind_verdict(_unreadable(policy))),)
    if kind in STAGED_KINDS:
        return Skipped(shown, name, STAGED_REASON)
    if policy.host_endpoint_field is not None:
        return Skipped(shown, name, f"{HOST_ENDPOINT_REASON} (`{policy.host_endpoint_field}`)")
    return (_document(shown, name, _judge_policy(policy, is_global, subject, data)),)


def _unreadable(detail: str) -> NewKindFacts:
    return NewKindFacts(unreadable=detail, selects=Tri.UNKNOWN, egress_governed=False)


def _judge_policy(
    policy: ReadPolicy, is_global: bool, subject: ReachSubject, data: ReachData
) -> NewKindVerdict:
    selection = _selection(policy.spec, is_global, calico_views(subject, data))
    position = tier_position(policy.tier, data)
    has_deftier = deftier(data)
    governed = governs_egress(policy) and bool(policy.egress)
    excuse = _excuse(position, subject, has_deftier)
    rules: tuple[JudgedRule, ...] = ()
    if selection.outcome is not Tri.NO and governed and excuse is None:
        context = RuleContext(
            allowance=subject.allowance,
            position=position,
            iso=subject.iso,
            deftier=has_deftier,
            namespace=None if is_global else subject.namespace,
            network_sets=data.network_sets,
        )
        rules = tuple(
            _judged_rule(rule, index, context) for index, rule in enumerate(policy.egress)
        )
    return new_kind_verdict(
        NewKindFacts(
            unreadable=None,
            selects=selection.outcome,
            egress_governed=governed,
            rules=rules,
            excuse=excuse,
            subject_text=selection.text,
        )
    )


def _judged_rule(rule: JSON, index: int, context: RuleContext) -> JudgedRule:
    # A Calico rule has no name (its `metadata` holds annotations only).
    return JudgedRule(calico_rule_verdict(rule, index, context), None, ("spec", "egress", index))


def _document(kind: str, name: str, verdict: NewKindVerdict) -> ReachDocument:
    rule = verdict.rule
    return ReachDocument(
        kind=kind,
        name=name,
        verdict=verdict.verdict,
        detail=verdict.detail,
        rule_index=None if rule is None else rule.verdict.index,
        rule_path=() if rule is None else rule.path,
        group=GROUP,
        excused=verdict.verdict is EgressVerdict.WITHIN and verdict.detail is not None,
    )


# --- Ingress (§8) -----------------------------------------------------------------------

INGRESS_ALLOWING: Final = ("Allow", "Pass")


def governs_ingress(policy: ReadPolicy) -> bool:
    """Calico's ``types`` default includes Ingress whenever ``types`` is absent."""
    return not policy.types or "Ingress" in policy.types


def calico_ingress_documents(
    candidate: ReachCandidate, subject: ReachSubject, data: ReachData
) -> tuple[ReachDocument, ...]:
    """§8 for one Calico policy: ``not-evaluable`` for ingress when it may
    select the pod (``yes`` or ``unknown``) and has an ``Allow`` or ``Pass``
    ingress rule (or one that cannot be read); () for staged,
    host-endpoint-only and non-policy objects."""
    kind = candidate.kind
    if not is_calico(candidate.api_version) or kind not in POLICY_KINDS:
        return ()
    if not _in_scope(candidate, subject):
        return ()
    shown = display_kind(candidate.api_version, kind)
    name = object_name(candidate.raw, candidate.position)

    def document(
        verdict: IngressVerdict, detail: str | None, index: int | None = None
    ) -> ReachDocument:
        path: tuple[str | int, ...] = () if index is None else ("spec", "ingress", index)
        return ReachDocument(shown, name, verdict, detail, index, path, GROUP)

    is_global = kind == GLOBAL_POLICY
    policy = _read_policy(candidate.raw, is_global)
    if isinstance(policy, str):
        return (document(IngressVerdict.NOT_EVALUABLE, policy),)
    if policy.host_endpoint_field is not None:
        return ()
    if _selection(policy.spec, is_global, calico_views(subject, data)).outcome is Tri.NO:
        return (document(IngressVerdict.DOES_NOT_SELECT, None),)
    rules = read_list(policy.spec, "ingress")
    if rules is UNREADABLE:
        return (document(IngressVerdict.NOT_EVALUABLE, "`spec.ingress` is not a list of rules"),)
    if governs_ingress(policy):
        for index, rule in enumerate(rules or []):
            problem = _ingress_problem(rule)
            if problem is not None:
                detail = (
                    f"{shown}/{name} ingress rule {index} {problem}; ingress through Calico "
                    "policies is not specified yet, so the agent port's exposure cannot be decided"
                )
                return (document(IngressVerdict.NOT_EVALUABLE, detail, index),)
    return (document(IngressVerdict.NOT_INGRESS_SCOPED, "it has no Allow or Pass ingress rule"),)


def _ingress_problem(rule: JSON) -> str | None:
    if not isinstance(rule, dict):
        return "is not an object"
    action = rule.get("action")
    if isinstance(action, str) and action in INGRESS_ALLOWING:
        return f"has the action {action}"
    if isinstance(action, str) and action in ACTIONS:
        return None
    return f"has the action {compact_json(action)}, which cannot be read"


# The readers' own checks, for ``reach.selection`` (which must agree with them).
in_scope = _in_scope
read_policy = _read_policy
selection = _selection

__all__ = [
    "ACTIONS",
    "BUILT_IN_TIER_ORDERS",
    "DEFAULT_TIER",
    "DEFAULT_TIER_ORDER",
    "GLOBAL_POLICY",
    "GLOBAL_SCOPE",
    "GROUP",
    "NAMESPACED_POLICY",
    "POLICY_KINDS",
    "CalicoViews",
    "Destination",
    "Position",
    "Scope",
    "Selection",
    "Undecided",
    "WantedPorts",
    "calico_documents",
    "calico_ingress_documents",
    "calico_selects",
    "calico_tier_documents",
    "calico_views",
    "deftier",
    "in_scope",
    "is_calico",
    "read_destination",
    "read_policy",
    "read_wanted_ports",
    "selection",
    "tier_position",
    "translate_scope",
]
