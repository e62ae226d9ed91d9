"""The value types of the reach decision (CLUSTER-POLICIES.md §1.5, §2.3, §2.7, §11).

Reach is the second egress decision: "can the pod, in a real cluster, get
out of its allowance?". It judges the union's documents as the union does,
plus every cluster-tier and CNI-specific document. These frozen types are
what crosses between the readers, the procedure and the thin layers around
them; they hold plain data only.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Final, Literal, TypeAlias

import msgspec

from lint.decision.model import (
    Allowance,
    Everything,
    Examined,
    Peer,
    Refusal,
    Verdict,
)
from lint.decision.selectors import unknown_value_keys
from lint.decision.values import ABSENT, JSON, Absent


class _UnknownValue(Enum):
    UNKNOWN = "unknown"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _UnknownValue.UNKNOWN
"""A label lookup whose answer the manifests cannot give (§2.3, §11)."""

UnknownValue: TypeAlias = _UnknownValue
LabelValue: TypeAlias = str | UnknownValue | Absent
"""What a label view knows about one key: its value, UNKNOWN, or ABSENT."""

NAMESPACE_NAME_LABEL: Final = "kubernetes.io/metadata.name"
"""The label the API server sets to a namespace's own name (§2.3)."""


class LabelView(msgspec.Struct, frozen=True):
    """What is known about one object's labels (§2.3, §11).

    ``values`` are keys known present with their value; ``unknown_value``
    keys are known present with a value nobody can tell. With ``complete``
    every other key is known absent; without it (a *partial* view) every
    other key is unknown.
    """

    values: Mapping[str, str] = msgspec.field(default_factory=dict)
    unknown_value: frozenset[str] = frozenset()
    complete: bool = True

    def lookup(self, key: str) -> LabelValue:
        """The key's value, UNKNOWN, or ABSENT (known absent)."""
        if key in self.values:
            return self.values[key]
        if key in self.unknown_value or not self.complete:
            return UNKNOWN
        return ABSENT

    def is_present(self, key: str) -> bool | UnknownValue:
        """True known present, False known absent, UNKNOWN otherwise."""
        if key in self.values or key in self.unknown_value:
            return True
        return False if self.complete else UNKNOWN

    def value_unknown(self, key: str) -> bool:
        """Whether the key is known present with a value nobody can tell."""
        return key in self.unknown_value


def known_labels(
    labels: Mapping[str, str], unknown_value: frozenset[str] = frozenset()
) -> LabelView:
    """A complete view: every key not given is known absent."""
    return LabelView(dict(labels), unknown_value, complete=True)


def partial_labels(labels: Mapping[str, str] | None = None) -> LabelView:
    """A partial view: only the given keys are known, every other is unknown."""
    return LabelView(dict(labels or {}), frozenset(), complete=False)


def pod_label_view(labels: Mapping[str, str]) -> LabelView:
    """The pod labels of an acquisition path (§2.3), with every label the
    path gives an unknown value (the controller's ``sandbox-name-hash``, a
    claimed pod's ``claim-uid``, §11) known present with an unknown value:
    the same keys the union's matcher treats so (``unknown_value_keys``),
    so a selector on such a value is ``unknown`` in both decisions."""
    unknown = unknown_value_keys(labels)
    known = {key: value for key, value in labels.items() if key not in unknown}
    return LabelView(known, unknown, complete=True)


def namespace_label_view(namespace: str, labels: Mapping[str, str] | None) -> LabelView:
    """§2.3 namespace labels: ``labels`` from exactly one readable Namespace
    manifest (or the declaration's ``namespaces:``) gives a complete view;
    None gives the partial view. Either way ``kubernetes.io/metadata.name``
    is the namespace's own name, which the API server enforces."""
    if labels is None:
        return partial_labels({NAMESPACE_NAME_LABEL: namespace})
    return known_labels({**labels, NAMESPACE_NAME_LABEL: namespace})


# --- What reach is offered ----------------------------------------------------------


class ReachCandidate(msgspec.Struct, frozen=True):
    """One object offered to reach. ``api_version`` and ``kind`` are exactly
    as written (§2.1 matches both exactly); ``raw`` may be anything (an
    unreadable list entry); ``position`` is the index among its kind's
    name-sorted list, for ``(unnamed #i)``. ``namespace`` is the object's
    namespace as defaulted by WIRING (DESIGN §2.1); None means "read
    ``metadata.namespace``", and a namespaced object with none is taken to
    be in the sandbox namespace (the fail-closed reading)."""

    api_version: str
    kind: str
    raw: JSON
    position: int = 0
    namespace: str | None = None
    unreadable: str | None = None
    """Why the object cannot be known at all, when it cannot (the union's
    ``Candidate.unreadable``: a policy the controller writes from a template
    it cannot read). The tier model reads it as an unreadable document."""

    def namespace_or(self, default: str) -> str:
        """The object's namespace, or ``default`` when it names none."""
        if self.namespace is not None:
            return self.namespace
        metadata = self.raw.get("metadata") if isinstance(self.raw, dict) else None
        stated = metadata.get("namespace") if isinstance(metadata, dict) else None
        return stated if isinstance(stated, str) and stated else default


class ReachData(msgspec.Struct, frozen=True):
    """Data-only kinds, already gathered. ``namespace_labels`` and
    ``service_accounts`` hold the views WIRING built (§2.3); a missing entry
    reads as the partial view."""

    namespace_labels: Mapping[str, LabelView] = msgspec.field(default_factory=dict)
    service_accounts: Mapping[tuple[str, str], LabelView] = msgspec.field(default_factory=dict)
    cidr_groups: tuple[ReachCandidate, ...] = ()
    calico_tiers: tuple[ReachCandidate, ...] = ()
    network_sets: tuple[ReachCandidate, ...] = ()

    def namespace_view(self, namespace: str) -> LabelView:
        """§2.3: the namespace's view, partial when nothing states its labels."""
        view = self.namespace_labels.get(namespace)
        return view if view is not None else namespace_label_view(namespace, None)

    def service_account_view(self, namespace: str, name: str) -> LabelView:
        """§2.3: the service account's view, partial without a manifest."""
        view = self.service_accounts.get((namespace, name))
        return view if view is not None else partial_labels()


class ReachSubject(msgspec.Struct, frozen=True):
    """One declaration and acquisition path, as reach sees it.

    ``iso`` is §1.3 (some readable core NetworkPolicy selects the pod and
    enforces egress), and ``iso_policy`` names that policy for the baseline
    excuse's detail (§3.5). ``cilium`` is §1.4. ``pod_template`` is the
    template's ``spec.podTemplate`` as plain JSON, for the pod conditions of
    §7; ``pod_annotations`` are extra pod annotations of the path (a
    claim's ``additionalPodMetadata.annotations``)."""

    namespace: str
    pod: LabelView
    service_account: str
    allowance: Allowance
    iso: bool
    cilium: bool
    iso_policy: str | None = None
    pod_template: JSON = None
    pod_annotations: Mapping[str, JSON] = msgspec.field(default_factory=dict)


# --- Wanted peers (§0.2, §2.5) ------------------------------------------------------


class NodesPeer(msgspec.Struct, frozen=True):
    """The ``nodes`` peer: node addresses cannot be known offline (§2.5 step 3a).
    ``empty``: the selector is empty, so it names every node (§12.2.2)."""

    text: str
    empty: bool = False


class DomainPeer(msgspec.Struct, frozen=True):
    """One domain entry of a ``domainNames`` list (§2.6); ``entry`` is raw."""

    entry: JSON
    text: str


class UnreadablePeer(msgspec.Struct, frozen=True):
    """A peer that cannot be read; it is ``unknown`` at its turn (§2.5 step 3)."""

    detail: str


WantedPeer: TypeAlias = Peer | NodesPeer | DomainPeer | UnreadablePeer
WantedPeers: TypeAlias = Everything | tuple[WantedPeer, ...]
"""``Everything`` when the rule names no destination, else its peers in order."""


# --- Results ---------------------------------------------------------------------------

Group: TypeAlias = Literal["admin", "calico", "baseline", "other"]
GROUP_ORDER: Final[tuple[Group, ...]] = ("admin", "calico", "baseline", "other")
"""§1.5: D_admin, D_calico, D_base, D_other."""


class ReachDocument(msgspec.Struct, frozen=True):
    """One judged new-kind document, with what a report needs (§2.7, §2.8).

    ``kind`` is the display kind of §2.8. ``rule_index`` is the deciding
    rule's index in its egress (or ingress) list, and ``rule_path`` its JSON
    path inside the object, ``()`` when no rule decided. ``excused`` marks a
    §2.7 step 4 document. ``verdict`` is an EgressVerdict for ``egress.reach``
    and an IngressVerdict for the §8 ``ingress.reach`` documents."""

    kind: str
    name: str
    verdict: Verdict
    detail: str | None
    rule_index: int | None
    rule_path: tuple[str | int, ...]
    group: Group
    excused: bool = False


class Skipped(msgspec.Struct, frozen=True):
    """An object reach does not judge: staged, or host endpoints only (§11 Q6)."""

    kind: str
    name: str
    reason: str


ReachEntry: TypeAlias = Examined | ReachDocument
"""An entry beyond the union's: a Cilium document read only by reach, or a
new-kind document."""


class ReachDecision(msgspec.Struct, frozen=True):
    """The reach decision (§1.5, §11). ``documents`` are the entries beyond
    the union's, in procedure order: the Cilium documents read only by reach,
    then the new-kind documents by group. ``culprit`` is the entry the
    refusal names (None without a refusal, or when the culprit is a union
    document, which the union reports itself, or for no-enforcing-policy)."""

    refusal: Refusal | None
    summary: str | None
    documents: tuple[ReachEntry, ...]
    skipped: tuple[Skipped, ...] = ()
    culprit: ReachEntry | None = None
    culprit_in_union: bool = False
