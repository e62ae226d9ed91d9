"""Which policies of a namespace can select a pod, found without visiting the
others (SEMANTICS §5.3, §5.4, §6.2, §6.3; DESIGN §7).

A policy's selection reads the pod's labels only through its selectors. For
most selectors, ``match_selector`` answers ``no`` whenever the pod lacks one
label it requires: a ``matchLabels`` pair, or the key of an ``Exists`` or
``In`` expression. This module finds, for each policy and direction, those
requirements, and indexes the policies of a scope by them: exact label
values, keys that must exist, and selectors that can match anything (or
whose reading cannot be settled without judging).

The index is conservative. A policy it leaves out for a pod is one for which
``selection.selects_nothing`` is true: every document readable, none
selecting the pod. Everything else, an unknown outcome included, is a
policy that can select.

How the requirements are read, in ``match_selector``'s own order (the first
decisive outcome wins):

- ``matchLabels`` pairs in JavaScript key order: a pair whose Cilium key has
  another source than ``k8s`` or ``any`` answers unknown for every pod, so
  only the pairs before it are requirements;
- then each expression: a well-formed ``Exists`` or ``In`` (with readable
  values) requires its key; a well-formed ``DoesNotExist`` or ``NotIn``
  requires nothing but never answers unknown, so reading goes on; anything
  else may answer unknown, and reading stops.

A label whose value is unknown (``UNKNOWN_LABEL_VALUE``) satisfies every
requirement on its key: ``match_selector`` never answers ``no`` through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lint.decision.constants import CORE_KIND, UNKNOWN_LABEL_VALUE
from lint.decision.egress_documents import identity_labels
from lint.decision.model import Candidate, Subject
from lint.decision.policy_shape import Direction, read_cilium_shape, read_core_shape, spec_entries
from lint.decision.selectors import map_cilium_key, selector_parts
from lint.decision.values import ABSENT, JSON, UNREADABLE, Absent, is_object, js_items, read_list

Requirement = tuple[str, str | None]
"""A label the pod must carry: (key, value), or (key, None) for the key alone."""
Requirements = tuple[Requirement, ...]
"""What one selector requires, all of it; empty when it can select any pod."""


def selector_requirements(selector: JSON | Absent, *, cilium: bool) -> Requirements:
    """The labels a pod must carry for ``match_selector`` not to answer
    ``no``. Empty for a selector that selects everything, cannot be read, or
    whose first requirement can answer unknown."""
    parts = None if selector is ABSENT else selector_parts(selector)
    if parts is None:
        return ()
    match_labels, expressions = parts
    required: list[Requirement] = []
    for key, wanted in js_items(match_labels or {}):
        mapped = _mapped(key, cilium)
        if mapped is None:
            return tuple(required)
        required.append((mapped, wanted))
    for expression in expressions or []:
        requirement = _expression_requirement(expression, cilium)
        if requirement is _STOP:
            break
        if requirement is not None:
            required.append(requirement)  # type: ignore[arg-type]
    return tuple(required)


_STOP = object()


def _mapped(key: object, cilium: bool) -> str | None:
    if not isinstance(key, str):
        return None
    return map_cilium_key(key) if cilium else key


def _expression_requirement(expression: JSON, cilium: bool) -> object:
    """The requirement of one expression; None when it requires nothing and
    never answers unknown; ``_STOP`` when it may answer unknown."""
    if not is_object(expression):
        return _STOP
    key = expression.get("key")
    if not isinstance(key, str) or key == "":
        return _STOP
    mapped = _mapped(key, cilium)
    if mapped is None:
        return _STOP
    operator = expression.get("operator")
    if operator == "Exists":
        return (mapped, None)
    if operator == "DoesNotExist":
        return None
    if operator not in ("In", "NotIn"):
        return _STOP
    values = read_list(expression, "values")
    if values is None or values is UNREADABLE:
        return _STOP
    return (mapped, None) if operator == "In" else None


def candidate_requirements(candidate: Candidate, direction: Direction) -> list[Requirements] | None:
    """One entry per document of the candidate that can select a pod, each
    what that document's selector requires; a pod satisfying none of them
    is selected by none. None when the candidate must be judged for every
    pod: a document is unreadable, or a selector can select any pod.

    Mirrors ``selection.selects_nothing``: the same shape checks in the same
    order. A Cilium spec with a ``nodeSelector`` selects no pod."""
    return directed_requirements(candidate)[direction]


DirectedRequirements = dict[Direction, list[Requirements] | None]
"""``candidate_requirements`` in each direction."""

_DIRECTIONS: tuple[Direction, ...] = ("egress", "ingress")


def directed_requirements(candidate: Candidate) -> DirectedRequirements:
    """``candidate_requirements`` in both directions at once: only the shape
    checks depend on the direction, so each selector is read once. Either
    way a direction with an unreadable document or a selector that can
    select any pod is None, whichever is met first."""
    raw = candidate.raw
    if not isinstance(raw, dict) or candidate.unreadable is not None:
        return dict.fromkeys(_DIRECTIONS)
    if candidate.kind == CORE_KIND:
        spec = raw.get("spec")
        selector = spec.get("podSelector", ABSENT) if isinstance(spec, dict) else ABSENT
        required = selector_requirements(selector, cilium=False)
        if not required:  # it can select any pod, in both directions
            return dict.fromkeys(_DIRECTIONS)
        # Each direction is settled by its own shape checks alone.
        egress = not isinstance(read_core_shape(raw, "egress"), str)
        ingress = not isinstance(read_core_shape(raw, "ingress"), str)
        return {
            "egress": [required] if egress else None,
            "ingress": [required] if ingress else None,
        }
    entries = spec_entries(raw)
    if isinstance(entries, str):
        return dict.fromkeys(_DIRECTIONS)
    documents: DirectedRequirements = {d: [] for d in _DIRECTIONS}
    for spec, spec_index in entries:
        if not isinstance(spec, dict):
            return dict.fromkeys(_DIRECTIONS)
        if "nodeSelector" in spec:
            continue
        required = selector_requirements(spec.get("endpointSelector", ABSENT), cilium=True)
        for direction, listed in documents.items():
            if listed is None:
                continue
            if not required or isinstance(read_cilium_shape(spec, direction, spec_index), str):
                documents[direction] = None
            else:
                listed.append(required)
    return documents


def satisfies(labels: Mapping[str, str], required: Requirements) -> bool:
    """Whether ``labels`` carry every requirement (a label of unknown value
    carries any value of its key)."""
    for key, value in required:
        if key not in labels:
            return False
        if value is not None and labels[key] not in (value, UNKNOWN_LABEL_VALUE):
            return False
    return True


@dataclass
class SelectionIndex:
    """The candidates of one scope and direction, by what they require.

    ``always`` are visited for every pod; the others sit under their
    documents' first requirement, by exact value or by key alone."""

    always: list[int] = field(default_factory=list)
    exact: dict[str, dict[str, list[tuple[int, Requirements]]]] = field(default_factory=dict)
    present: dict[str, list[tuple[int, Requirements]]] = field(default_factory=dict)

    def add(self, index: int, documents: Sequence[Requirements] | None) -> None:
        if documents is None:
            self.always.append(index)
            return
        for required in documents:
            key, value = required[0]
            if value is None:
                self.present.setdefault(key, []).append((index, required))
            else:
                self.exact.setdefault(key, {}).setdefault(value, []).append((index, required))

    def selecting(self, labels: Mapping[str, str]) -> set[int]:
        """The candidates that can select a pod with ``labels``: every one
        not in this set selects nothing (``selects_nothing``)."""
        found = set(self.always)
        for key, value in labels.items():
            by_value = self.exact.get(key)
            if by_value is not None:
                if value == UNKNOWN_LABEL_VALUE:
                    hits: Iterable[tuple[int, Requirements]] = (
                        hit for listed in by_value.values() for hit in listed
                    )
                else:
                    hits = by_value.get(value, ())
                found.update(i for i, required in hits if satisfies(labels, required))
            keyed = self.present.get(key)
            if keyed is not None:
                found.update(i for i, required in keyed if satisfies(labels, required))
        return found


@dataclass
class ScopeSelection:
    """A scope's two indexes: core candidates match the pod's labels, Cilium
    ones its identity labels (§5.4), which add the namespace."""

    core: SelectionIndex
    cilium: SelectionIndex

    def selecting(self, subject: Subject) -> set[int]:
        found = self.core.selecting(subject.labels)
        if self.cilium.always or self.cilium.exact or self.cilium.present:
            found |= self.cilium.selecting(identity_labels(subject))
        return found


def selection_index(
    candidates: Sequence[Candidate], requirements: Sequence[list[Requirements] | None]
) -> ScopeSelection:
    """Index ``candidates`` (by their position in the sequence), given each
    one's ``candidate_requirements`` in the direction judged."""
    scope = ScopeSelection(SelectionIndex(), SelectionIndex())
    for position, (candidate, required) in enumerate(zip(candidates, requirements, strict=True)):
        index = scope.core if candidate.kind == CORE_KIND else scope.cilium
        index.add(position, required)
    return scope
