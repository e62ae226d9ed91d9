"""One sandbox's effective egress: every policy ``check`` would examine for
it, with its verdict, and what each selecting policy's rules let out.

Nothing is decided twice: the candidates, documents and verdicts come from
the same functions ``check`` runs (``judged_entries``, ``egress_documents``,
``summarize_union``), so explain and check always agree on which policies
select the pod and how each is judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lint.checks.candidates import Placeholder, Sourced, declared_location
from lint.checks.context import CheckContext, ReadCilium, precise_location
from lint.checks.egress import EgressInput, egress_reach, union_context
from lint.checks.judging import Judging, Scope, judged_entries, with_controller
from lint.checks.reach_candidates import Offered, reach_candidates, reach_data
from lint.decision.allowance import build_allowance
from lint.decision.constants import CILIUM_KIND, CLUSTERWIDE_KIND, CORE_KIND
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.egress_documents import egress_documents
from lint.decision.model import Candidate, Decision, PolicyDocument, Subject, Translation, Tri
from lint.decision.union import examine, summarize_union
from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox
from lint.explain.grants import RuleGrants, cilium_rule_grants, core_rule_grants
from lint.explain.reach_to import AdminAdmit
from lint.inventory import Inventory
from lint.loading import LoadProblem
from lint.report.model import ExaminedEntry, Location, ReachReport, SandboxRef
from lint.sandboxes import (
    Path,
    declared_paths,
    pod_labels,
    pod_variants,
    sandbox_template,
    target_object,
)


@dataclass(frozen=True, slots=True)
class RuleView:
    """One rule of a selecting policy. ``deny`` marks a Cilium egressDeny rule."""

    index: int
    deny: bool
    location: Location | None
    read: RuleGrants


@dataclass(frozen=True, slots=True)
class PolicyView:
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


@dataclass(frozen=True)
class Explanation:
    """Everything explain reports about one sandbox and path."""

    chosen: DeclaredSandbox
    path: Path
    labels: Mapping[str, str]
    translation: Translation
    decision: Decision
    policies: tuple[PolicyView, ...]
    cilium_read: bool
    cilium_skipped: int = 0
    """Cilium objects that exist but are not candidates under engine core."""
    reach: ReachReport | None = None
    """The reach decision (CLUSTER-POLICIES §11), as ``check`` reports it."""
    reach_offered: tuple[Offered, ...] = ()
    admin_admits: tuple[AdminAdmit, ...] = ()
    """With ``--to``: the Admin-tier allow rules that admit the destination."""


def explain(
    chosen: DeclaredSandbox,
    inventory: Inventory,
    problems: Sequence[LoadProblem],
    *,
    path: Path | None,
    read_cilium: ReadCilium,
    namespace_labels: Mapping[str, Mapping[str, str]] | None = None,
    facts: ControllerFacts = DEFAULT_FACTS,
) -> Explanation:
    """Judge every candidate for the chosen sandbox on one acquisition path
    (the first of its paths unless ``path`` is given)."""
    namespace = inventory.namespace(chosen.namespace)
    template = sandbox_template(chosen, namespace)
    walked = path or declared_paths(chosen, namespace)[0]
    variant = pod_variants(walked, namespace, chosen.template)[0]
    labels = pod_labels(chosen, target_object(chosen, namespace), variant, facts.column)
    subject = Subject(chosen.namespace, labels)
    allowance = build_allowance(chosen.translation)
    with_cilium = chosen.engine == "cilium" or read_cilium == "always"
    controller = with_controller(walked, facts)
    scope = Scope(chosen.namespace, template, controller, with_cilium, facts=facts)

    cidr_groups = reach_data(inventory, namespace_labels or {}).cidr_groups

    def read(candidate: Candidate) -> list[PolicyDocument]:
        return egress_documents(candidate, subject, allowance, chosen.translation, cidr_groups)

    named = (chosen.translation.kind, chosen.translation.name)
    if not chosen.translation.named:
        named = ("", "")  # `host: none`: no document is exempt
    judging = Judging(read, examine, union_context(chosen.translation), "egress", subject, named)
    ctx = CheckContext(inventory, problems, read_cilium, namespace_labels=namespace_labels or {})
    judged = judged_entries(ctx, scope, labels, judging)
    every = judged.entries()
    decision = summarize_union([j.examined for j in every], allowance)
    ref = SandboxRef(chosen.namespace, chosen.template, chosen.profile, walked, variant.claim)
    at = declared_location(chosen)
    egress = EgressInput(ref, chosen, subject, template, at, facts, variant.claim_annotations)
    reach = None
    if chosen.union_verified:
        reach, _ = egress_reach(ctx, egress, allowance, judged)
    policies = tuple(_policy_view(j.entry, j.examined.document, j.origin) for j in every)
    skipped = 0
    if not with_cilium:
        skipped = len(namespace.of_kind(CILIUM_KIND))
        skipped += len(inventory.cluster_objects(CLUSTERWIDE_KIND))
    return Explanation(
        chosen,
        walked,
        labels,
        chosen.translation,
        decision,
        policies,
        with_cilium,
        skipped,
        reach,
        reach_candidates(inventory, chosen.namespace),
    )


def _policy_view(
    entry: ExaminedEntry, document: PolicyDocument, origin: Sourced | Placeholder
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
        rules = _rules(origin, base, spec, "egress", deny=False)
        return PolicyView(entry, document, rules)
    rules = _rules(origin, base, spec, "egress", deny=False)
    rules += _rules(origin, base, spec, "egressDeny", deny=True)
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
    origin: Sourced, base: tuple[str | int, ...], spec: dict[str, JSON], key: str, *, deny: bool
) -> tuple[RuleView, ...]:
    rules = spec.get(key)
    if not isinstance(rules, list):
        return ()
    views = []
    for index, rule in enumerate(rules):
        if origin.candidate.kind == CORE_KIND:
            read = core_rule_grants(rule)
        else:
            read = cilium_rule_grants(rule, clusterwide=origin.candidate.clusterwide)
        location = precise_location(origin.obj, (*base, key, index))
        views.append(RuleView(index, deny, location, read))
    return tuple(views)
