"""Calico label views and policy selection for the reach decision
(CLUSTER-POLICIES.md §5.4, §5.5).

The three views Calico matches a policy's selectors against (the workload
endpoint, its namespace, its service account), built over the views of §2.3,
and the selection of a policy (``selector``, a GNP's ``namespaceSelector``,
``serviceAccountSelector``) over them. Moved out of ``calico`` unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from lint.decision.model import (
    Tri,
)
from lint.decision.reach.calico_selector import (
    KeyState,
    LabelValue,
    SelectorError,
    evaluate,
    parse_selector,
    uses_global,
)
from lint.decision.reach.common import (
    combine,
)
from lint.decision.reach.model import (
    LabelView,
    ReachCandidate,
    ReachData,
    ReachSubject,
)
from lint.decision.values import ABSENT, JSON, compact_json

# §5.4: labels Calico adds to a workload endpoint, and its profile prefixes.
GLOBAL_POLICY: Final = "GlobalNetworkPolicy"
CALICO_NAME_LABEL: Final = "projectcalico.org/name"
NAMESPACE_PREFIX: Final = "pcns."
SERVICE_ACCOUNT_PREFIX: Final = "pcsa."
RESERVED_POD_PART_PREFIXES: Final = ("projectcalico.org/", NAMESPACE_PREFIX, SERVICE_ACCOUNT_PREFIX)

_DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)
_PORT_RANGE: Final = re.compile(r"([0-9]+):([0-9]+)", re.ASCII)


# --- Label views (§5.4) ----------------------------------------------------------------


def _state(view: LabelView, key: str) -> LabelValue:
    """A §2.3 view's answer in the selector language's terms."""
    value = view.lookup(key)
    if isinstance(value, str):
        return value
    if value is ABSENT:
        return KeyState.ABSENT
    return KeyState.PRESENT if view.is_present(key) is True else KeyState.UNKNOWN


def _merge(pod: LabelValue, added: LabelValue) -> LabelValue:
    """A key Calico adds that the pod may also carry: which wins is NOT
    VERIFIED, so a collision leaves the key present with an unknown value."""
    if pod is KeyState.ABSENT or pod == added:
        return added
    if pod is KeyState.UNKNOWN and added is KeyState.UNKNOWN:
        return KeyState.UNKNOWN
    if pod is KeyState.UNKNOWN and added is KeyState.ABSENT:
        return KeyState.UNKNOWN
    if added is KeyState.ABSENT:
        return pod
    return KeyState.PRESENT


class CalicoViews(msgspec.Struct, frozen=True):
    """The three §5.4 views, as lookups for the selector language."""

    namespace: str
    service_account: str
    pod: LabelView
    namespace_labels: LabelView
    service_account_labels: LabelView

    def endpoint(self, key: str) -> LabelValue:
        """The pod's labels plus what Calico adds to its workload endpoint."""
        added = self._added(key)
        pod = _state(self.pod, key)
        return pod if added is None else _merge(pod, added)

    def _added(self, key: str) -> LabelValue | None:
        fixed = {
            "projectcalico.org/namespace": self.namespace,
            "projectcalico.org/orchestrator": "k8s",
            "projectcalico.org/serviceaccount": self.service_account,
        }
        if key in fixed:
            return fixed[key]
        if key.startswith(NAMESPACE_PREFIX):
            return self.namespace_view(key.removeprefix(NAMESPACE_PREFIX))
        if key.startswith(SERVICE_ACCOUNT_PREFIX):
            return self.service_account_view(key.removeprefix(SERVICE_ACCOUNT_PREFIX))
        return None

    def namespace_view(self, key: str) -> LabelValue:
        """The namespace's labels plus ``projectcalico.org/name``."""
        if key == CALICO_NAME_LABEL:
            return self.namespace
        return _state(self.namespace_labels, key)

    def service_account_view(self, key: str) -> LabelValue:
        """The service account's labels plus ``projectcalico.org/name``."""
        if key == CALICO_NAME_LABEL:
            return self.service_account
        return _state(self.service_account_labels, key)


def calico_views(subject: ReachSubject, data: ReachData) -> CalicoViews:
    return CalicoViews(
        namespace=subject.namespace,
        service_account=subject.service_account,
        pod=subject.pod,
        namespace_labels=data.namespace_view(subject.namespace),
        service_account_labels=data.service_account_view(
            subject.namespace, subject.service_account
        ),
    )


# --- Selection (§5.5) -------------------------------------------------------------------


class SelectorPart(msgspec.Struct, frozen=True):
    """One selection field's outcome; ``problem`` says why it is unknown
    when it cannot be read."""

    field: str
    raw: JSON
    outcome: Tri
    problem: str | None = None


def _selection_part(
    spec: Mapping[str, JSON], field: str, lookup: Callable[[str], LabelValue]
) -> SelectorPart | None:
    """A selector field over a view; None when it is absent or empty (and
    so does not restrict)."""
    raw = spec.get(field)
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        return SelectorPart(field, raw, Tri.UNKNOWN, "it is not a string")
    node = parse_selector(raw)
    if isinstance(node, SelectorError):
        return SelectorPart(field, raw, Tri.UNKNOWN, f"it does not parse: {node.reason}")
    if uses_global(node):
        return SelectorPart(field, raw, Tri.UNKNOWN, "global() has no meaning there")
    return SelectorPart(field, raw, evaluate(node, lookup))


class Selection(msgspec.Struct, frozen=True):
    outcome: Tri
    text: str


def calico_selects(candidate: ReachCandidate, subject: ReachSubject, data: ReachData) -> Tri:
    """§5.5 for one Calico policy object (``unknown`` when it cannot be
    read); for callers such as the ingress check of §8."""
    spec = candidate.raw.get("spec") if isinstance(candidate.raw, dict) else None
    if not isinstance(spec, dict):
        return Tri.UNKNOWN
    return _selection(spec, candidate.kind == GLOBAL_POLICY, calico_views(subject, data)).outcome


def _selection(spec: Mapping[str, JSON], is_global: bool, views: CalicoViews) -> Selection:
    """§5.5: ``selector`` over the endpoint view, and for a GNP
    ``namespaceSelector`` over the namespace view, and
    ``serviceAccountSelector`` over the service-account view, joined as §2.4."""
    fields: list[tuple[str, Callable[[str], LabelValue]]] = [("selector", views.endpoint)]
    if is_global:
        fields.append(("namespaceSelector", views.namespace_view))
    fields.append(("serviceAccountSelector", views.service_account_view))
    parts = [part for name, lookup in fields if (part := _selection_part(spec, name, lookup))]
    outcome = combine(*(part.outcome for part in parts))
    unknown = [part for part in parts if part.outcome is Tri.UNKNOWN]
    return Selection(outcome, _describe_unknown_parts(unknown))


def _describe_unknown_parts(parts: list[SelectorPart]) -> str:
    if not parts:
        return "its selector"
    described = []
    for part in parts:
        text = f"`{part.field}` {compact_json(part.raw)}"
        described.append(f"{text} ({part.problem})" if part.problem else text)
    return "the subject (" + "; ".join(described) + ")"
