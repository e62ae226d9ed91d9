"""One sandbox's effective egress: every policy ``check`` would examine for
it, with its verdict, and what each selecting policy's rules let out.

Nothing is decided twice: the path's pod, candidates, documents, verdicts
and reach come from ``lint.checks.sandbox_checks.judge_path``, the one judgement
``check`` makes of every acquisition path, so explain and check always
agree on which policies select the pod and how each is judged. Explain
only reads each selecting policy's rules again, to say what they let out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from lint.checks.candidates import Placeholder, Sourced
from lint.checks.context import CheckContext, precise_location
from lint.checks.egress import judge_union
from lint.checks.reach import reach_data_of
from lint.checks.sandbox_checks import judge_path
from lint.decision.constants import CILIUM_KIND, CLUSTERWIDE_KIND, CORE_KIND
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.model import Candidate, PolicyDocument, Translation, Tri
from lint.decision.reach.model import ReachCandidate
from lint.decision.tiers.model import TierInput
from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox
from lint.explain.grants import RuleGrants, cilium_rule_grants, core_rule_grants
from lint.report.model import DecisionReport, ExaminedEntry, Location, ReachReport
from lint.sandboxes import Path, declared_paths


class RuleView(msgspec.Struct, frozen=True):
    """One rule of a selecting policy. ``deny`` marks a Cilium egressDeny rule."""

    index: int
    deny: bool
    location: Location | None
    read: RuleGrants


class PolicyView(msgspec.Struct, frozen=True):
    """One examined policy document, as ``check`` judged it, with its rules
    when it may select the pod. ``ignored`` says why rules are not counted."""

    entry: ExaminedEntry
    document: PolicyDocument
    rules: tuple[RuleView, ...]
    ignored: str | None = None

    @property
    def label(self) -> str:
        return f"{self.entry.kind}/{self.entry.name}"

    @property
    def selects(self) -> Tri:
        return Tri.UNKNOWN if self.document.unreadable is not None else self.document.selects

    @property
    def certain(self) -> bool:
        """Readable and certainly selecting the pod."""
        return self.selects is Tri.YES


class Explanation(msgspec.Struct, frozen=True):
    """Everything explain reports about one sandbox and path."""

    chosen: DeclaredSandbox
    path: Path
    labels: Mapping[str, str]
    translation: Translation
    decision: DecisionReport
    """The union decision, as ``check`` reports it (its ``examined`` too)."""
    policies: tuple[PolicyView, ...]
    cilium_read: bool
    cilium_skipped: int = 0
    """Cilium objects that exist but are not candidates under engine core."""
    reach: ReachReport | None = None
    """The reach decision (CLUSTER-POLICIES §11), as ``check`` reports it."""
    environment: str | None = None
    """The ``renders:`` environment the manifests were rendered for, if any."""
    tiers: TierInput | None = None
    """The exact tier model's input check's reach judged the path by:
    ``explain --to`` asks it the destination's question."""
    reach_policies: tuple[PolicyView, ...] = ()
    """The Cilium policies reach reads under engine core, which the union
    does not: the cluster may enforce them (CLUSTER-POLICIES §11)."""

    @property
    def cluster_policies(self) -> tuple[PolicyView, ...]:
        """Every policy of the NetworkPolicy tier the cluster may enforce."""
        return self.policies + self.reach_policies


def explain(
    chosen: DeclaredSandbox,
    ctx: CheckContext,
    *,
    path: Path | None,
    facts: ControllerFacts = DEFAULT_FACTS,
) -> Explanation:
    """Present the chosen sandbox on one acquisition path (the first of its
    paths unless ``path`` is given), as ``check`` judges it: the path's pod,
    candidates, documents, verdicts and reach come from ``judge_path``, the
    function ``check`` runs for every path; nothing is judged here."""
    namespace = ctx.inventory.namespace(chosen.namespace)
    walked = path or declared_paths(chosen, namespace)[0]
    judged_path = judge_path(ctx, facts, chosen, walked)
    given, judgement = judged_path.given, judged_path.egress
    decision, judged = judgement.report.union, judgement.union
    if decision is None or judged is None:
        # `verify: named-object-only`: check judges no union, but explain
        # still lists what the union would examine, judged as check would.
        decision, judged, _ = judge_union(ctx, given, judgement.allowance)
    groups = reach_data_of(ctx).cidr_groups
    every = judged.entries()
    policies = tuple(_policy_view(j.entry, j.examined.document, j.origin, groups) for j in every)
    with_cilium = chosen.engine == "cilium" or ctx.read_cilium == "always"
    skipped = 0
    if not with_cilium:
        skipped = len(namespace.of_kind(CILIUM_KIND))
        skipped += len(ctx.inventory.cluster_objects(CLUSTERWIDE_KIND))
    return Explanation(
        chosen,
        walked,
        given.subject.labels,
        chosen.translation,
        decision,
        policies,
        with_cilium,
        skipped,
        judgement.report.reach,
        reach_policies=tuple(
            _policy_view(j.entry, j.examined.document, j.origin, groups)
            for j in judgement.cilium_under_core.entries()
        ),
        tiers=judgement.tiers,
    )


def _policy_view(
    entry: ExaminedEntry,
    document: PolicyDocument,
    origin: Sourced | Placeholder,
    groups: Sequence[ReachCandidate],
) -> PolicyView:
    if isinstance(origin, Placeholder) or document.unreadable is not None:
        return PolicyView(entry, document, ())
    if document.selects is Tri.NO:
        return PolicyView(entry, document, ())
    spec = _spec_of(origin.candidate, document)
    if not isinstance(spec, dict):
        return PolicyView(entry, document, ())
    base = origin.base if document.spec_index is None else ("specs", document.spec_index)
    if document.kind == CORE_KIND:
        if not document.enforces:
            return PolicyView(entry, document, (), _NOT_EGRESS)
        rules = _rules(origin, base, spec, "egress", (), deny=False)
        return PolicyView(entry, document, rules)
    rules = _rules(origin, base, spec, "egress", groups, deny=False)
    rules += _rules(origin, base, spec, "egressDeny", groups, deny=True)
    return PolicyView(entry, document, rules)


_NOT_EGRESS = "its policyTypes leave out Egress, so the API server ignores its egress rules"


def _spec_of(candidate: Candidate, document: PolicyDocument) -> JSON:
    raw = candidate.raw
    if not isinstance(raw, dict):
        return None
    if document.spec_index is None:
        return raw.get("spec")
    specs = raw.get("specs")
    return specs[document.spec_index] if isinstance(specs, list) else None


def _rules(
    origin: Sourced,
    base: tuple[str | int, ...],
    spec: dict[str, JSON],
    key: str,
    groups: Sequence[ReachCandidate],
    *,
    deny: bool,
) -> tuple[RuleView, ...]:
    rules = spec.get(key)
    if not isinstance(rules, list):
        return ()
    views = []
    for index, rule in enumerate(rules):
        if origin.candidate.kind == CORE_KIND:
            read = core_rule_grants(rule)
        else:
            clusterwide = origin.candidate.clusterwide
            read = cilium_rule_grants(rule, clusterwide=clusterwide, cidr_groups=groups)
        location = precise_location(origin.obj, (*base, key, index))
        views.append(RuleView(index, deny, location, read))
    return tuple(views)
