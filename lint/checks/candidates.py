"""Which policies a decision examines, and where each came from
(SEMANTICS §5.1 and §17.3, DESIGN §3 item 3)."""

from __future__ import annotations

import bisect
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import msgspec
from msgspec.structs import replace

from lint.decision.controller import claim_policy, controller_policy, management_problem
from lint.decision.controller_versions import DEFAULT_FACTS, ControllerFacts
from lint.decision.model import Candidate, PolicyDocument, Tri
from lint.declarations.entries import DeclaredSandbox
from lint.inventory import Inventory, KubeObject, Namespace
from lint.kinds import (
    CILIUM_CLUSTERWIDE_NETWORK_POLICY,
    CILIUM_NETWORK_POLICY,
    NETWORK_POLICY,
    SANDBOX_TEMPLATE,
    UNION_POLICY_KINDS,
)
from lint.loading import LoadProblem
from lint.report.model import Location, Origin
from lint.sandboxes import claims_naming

NP: Final = NETWORK_POLICY.name
CNP: Final = CILIUM_NETWORK_POLICY.name
CCNP: Final = CILIUM_CLUSTERWIDE_NETWORK_POLICY.name


class Sourced(msgspec.Struct, frozen=True):
    """A candidate with the object it came from. ``base`` is the key path of
    the policy body inside that object's document: ``("spec",)`` for a
    manifest, ``("spec", "networkPolicy")`` for a synthesized controller
    policy, whose rules live in the SandboxTemplate."""

    candidate: Candidate
    origin: Origin
    obj: KubeObject
    base: tuple[str | int, ...]


class Placeholder(msgspec.Struct, frozen=True):
    """A document that fails closed without being read: a policy that could
    not be parsed, or a Helm chart or Kustomize directory that was not
    rendered (``render``: its ``render-needed`` finding speaks for it)."""

    document: PolicyDocument
    location: Location
    render: bool = False


def _name_key(obj: KubeObject) -> tuple[bool, bytes]:
    # API servers list by name; objects without a name cannot be applied
    # and are kept after the named ones, in load order.
    return (obj.name is None, (obj.name or "").encode())


def by_name(objects: Iterable[KubeObject]) -> list[KubeObject]:
    """Every object in API-server list order. Two objects of one name are
    both kept: which one the cluster holds depends on the order they are
    applied, so both are judged and the wider verdict stands
    (``duplicate-object`` reports the pair). Copies of one name are ordered
    by their content, so neither file nor document order decides which one
    a refusal names first."""
    ordered = sorted(objects, key=_name_key)
    names = [obj.name for obj in ordered if obj.name is not None]
    if len(names) == len(set(names)):
        return ordered
    copied = {name for name, count in Counter(names).items() if count > 1}
    # Only copies need their content to order them; the sort is stable, so
    # every other object keeps its place.
    return sorted(ordered, key=lambda obj: (*_name_key(obj), _content_key(obj, copied)))


def _content_key(obj: KubeObject, copied: set[str]) -> str:
    # Unnamed objects keep load order: their `(unnamed #i)` names are positions.
    if obj.name is None or obj.name not in copied:
        return ""
    return json.dumps(obj.value, sort_keys=True, ensure_ascii=False, default=str)


def _synthesized(
    template: KubeObject, namespace: Namespace, facts: ControllerFacts
) -> list[Sourced]:
    """The policies the controller will write for the template, placed at
    the template's document (AGENT-SANDBOX §4, §8): one per template, or,
    for the claim-era controller, one per claim of the template. Their
    rules live under ``spec.networkPolicy`` there."""
    column = facts.column
    if column.policy_writer == "claim":
        claims = [claim.display_name for claim in claims_naming(namespace, template.name or "")]
        manifests = [claim_policy(template.value, claim, namespace.name) for claim in claims]
    else:
        manifests = [controller_policy(template.value, namespace.name, column)]
    problem = management_problem(template.value, column)
    return [
        Sourced(
            Candidate(NP, manifest, 0, unreadable=problem),
            "synthesized",
            KubeObject(NP, manifest["metadata"]["name"], namespace.name, template.document),
            ("spec", "networkPolicy"),
        )
        for manifest in manifests
        if manifest is not None
    ]


def controller_templates(namespace: Namespace, template: KubeObject | None) -> list[KubeObject]:
    """Every SandboxTemplate of the template's name in its namespace: two
    copies are both judged, so which one is applied last never decides
    (``duplicate-object`` reports them)."""
    if template is None or template.name is None:
        return [template] if template is not None else []
    return namespace.named_all(SANDBOX_TEMPLATE.name, template.name) or [template]


def synthesized_candidates(
    namespace: Namespace,
    template: KubeObject | None,
    pooled: bool,
    facts: ControllerFacts = DEFAULT_FACTS,
) -> list[Sourced]:
    """The controller's policies for the template when ``pooled`` (the
    path's pods can carry the label they select on, AGENT-SANDBOX §4, §8),
    else none."""
    return [
        item
        for copy in (controller_templates(namespace, template) if pooled else [])
        for item in _synthesized(copy, namespace, facts)
    ]


def with_synthesized(namespace: Namespace, synthesized: Sequence[Sourced]) -> list[Sourced]:
    """The namespace's NetworkPolicies by name, with ``synthesized`` among
    them in name order."""
    return [
        manifest_at(obj, position) if item is None else synthesized_at(item, position)
        for position, (obj, item) in enumerate(merged_by_name(namespace, synthesized))
    ]


def merged_by_name(
    namespace: Namespace, synthesized: Sequence[Sourced]
) -> list[tuple[KubeObject, Sourced | None]]:
    """The namespace's NetworkPolicies by name (each with None) and
    ``synthesized`` among them in name order, after the manifests of an
    equal name. The manifests are in that order already (``by_name``): each
    synthesized policy is put in at its place, found by halving, instead of
    sorting the namespace again (a pooled path asks this for each of its
    templates)."""
    objects = namespace.ordered(NP, by_name)
    merged: list[tuple[KubeObject, Sourced | None]] = []
    at = 0
    for item in sorted(synthesized, key=_synthesized_key):
        stop = bisect.bisect_right(objects, _name_key(item.obj), at, key=_name_key)
        merged += [(obj, None) for obj in objects[at:stop]]
        merged.append((item.obj, item))
        at = stop
    merged += [(obj, None) for obj in objects[at:]]
    return merged


def _synthesized_key(item: Sourced) -> tuple[bool, bytes]:
    return _name_key(item.obj)


def manifest_at(obj: KubeObject, position: int) -> Sourced:
    """A manifest NetworkPolicy at its place among the namespace's."""
    return Sourced(Candidate(NP, obj.value, position), "manifest", obj, ("spec",))


def synthesized_at(item: Sourced, position: int) -> Sourced:
    """A synthesized policy at its place among the namespace's."""
    return replace(item, candidate=replace(item.candidate, position=position))


def cilium_candidates(namespace: Namespace, inventory: Inventory) -> list[Sourced]:
    """The namespace's CiliumNetworkPolicies, then every clusterwide one (§17.3)."""
    result = [
        Sourced(Candidate(CNP, obj.value, position), "manifest", obj, ("spec",))
        for position, obj in enumerate(namespace.ordered(CNP, by_name))
    ]
    clusterwide = by_name(inventory.cluster_objects(CCNP))
    result.extend(
        Sourced(Candidate(CCNP, obj.value, position, clusterwide=True), "manifest", obj, ("spec",))
        for position, obj in enumerate(clusterwide)
    )
    return result


def unparsed_placeholders(
    problems: Sequence[LoadProblem], namespace: str, kinds: frozenset[str] = UNION_POLICY_KINDS
) -> list[Placeholder]:
    """A document that might be a policy of one of ``kinds`` and could not be
    parsed fails closed for its namespace, or for every namespace when its
    own is unknown."""
    placeholders = []
    # Sorted, so the refusal names the same document whatever the file order.
    for problem in sorted(problems, key=lambda p: (p.file, p.line, p.message)):
        if problem.severity != "error" or problem.suspect_kind not in kinds:
            continue
        if problem.suspect_namespace not in (None, namespace):
            continue
        location = Location(problem.file, problem.line)
        if problem.render is not None:
            placeholders.append(_unrendered(problem, location))
            continue
        name = f"(unparsed {problem.file}:{problem.line})"
        detail = (
            f"the document at {problem.file}:{problem.line} could not be parsed: {problem.message}"
        )
        document = PolicyDocument(
            problem.suspect_kind or NP, name, Tri.UNKNOWN, False, unreadable=detail
        )
        placeholders.append(Placeholder(document, location))
    return placeholders


UNRENDERED_KINDS: Final[Mapping[str, str]] = {"helm": "HelmChart", "kustomize": "Kustomization"}
"""How an unrendered directory is listed among the examined policies: as
what it is, never as a policy it might hold."""


_UNRENDERED_DETAILS: Final[Mapping[str, str]] = {
    "helm": "a Helm chart that was not rendered: the policies it holds are not known",
    "kustomize": "a Kustomize directory that was not built: the policies it holds are not known",
}


def _unrendered(problem: LoadProblem, location: Location) -> Placeholder:
    """A Helm chart or Kustomize directory that was not rendered: listed as
    itself, by its directory, and failing closed."""
    directory = problem.file.rpartition("/")[0] or "."
    tool = problem.render or "helm"
    detail = _UNRENDERED_DETAILS[tool]
    kind = UNRENDERED_KINDS[tool]
    document = PolicyDocument(kind, directory, Tri.UNKNOWN, False, unreadable=detail)
    return Placeholder(document, location, render=True)


def location_of(obj: KubeObject) -> Location:
    document = obj.document
    return _located(document.file, document.line, document.source)


def declared_location(declared: DeclaredSandbox) -> Location:
    """Where a sandbox was declared: its entry, or the template a default
    was made for (located as that template is)."""
    return _located(declared.file, declared.line, declared.source)


def _located(file: str, line: int, source: str | None) -> Location:
    return Location(file, line, source, 1 if source else None)
