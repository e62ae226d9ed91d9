"""Objects read as the API server stores them (SEMANTICS §5.3, CLUSTER-POLICIES
§5.6): the defaulting a field gets on admission, applied before any decision
reads it.

Both decisions (the union and reach, through the documents they share), the
ingress check, ``explain`` and the named comparison read a policy's
direction switch through this module, so a manifest means one thing
wherever it is read:

- a NetworkPolicy whose ``policyTypes`` is absent, null or empty is stored
  with ``[Ingress]``, plus ``Egress`` only when ``spec.egress`` holds at
  least one rule (kubernetes/kubernetes ``pkg/apis/networking/v1/defaults.go``);
- a Calico policy whose ``types`` is absent or empty governs egress exactly
  when ``egress`` holds at least one rule (Calico's ``Types`` defaulting).

Other defaults the readers already apply where they read the field: a port's
protocol is TCP when absent (core NetworkPolicy, AdminNetworkPolicy and
BaselineAdminNetworkPolicy ports), a namespace carries
``kubernetes.io/metadata.name``, a pod without a service account runs as
``default``, and an empty egress list is stored as absent.
"""

from __future__ import annotations

from collections.abc import Sequence

from lint.decision.values import JSON

INGRESS: str = "Ingress"
EGRESS: str = "Egress"


def stored_policy_types(
    policy_types: Sequence[JSON] | None, egress: Sequence[JSON] | None
) -> tuple[JSON, ...]:
    """A NetworkPolicy's ``policyTypes`` as stored: as written when it is a
    non-empty list; otherwise ``Ingress``, and ``Egress`` only when
    ``egress`` (as read by the list reader: None for absent or null) holds a
    rule. An entry that is not a known string is kept: it never matches."""
    if policy_types:
        return tuple(policy_types)
    return (INGRESS, EGRESS) if egress else (INGRESS,)


def enforces(
    direction: str, policy_types: list[JSON] | None, egress: Sequence[JSON] | None
) -> bool:
    """Whether the stored NetworkPolicy enforces ``direction`` (``egress``
    or ``ingress``): the exact, case-sensitive type name is listed.
    ``policy_types`` is a list as read (a text would match a name inside
    it), or None."""
    wanted = EGRESS if direction == "egress" else INGRESS
    if policy_types:
        # ``stored_policy_types`` without its tuple: every policy of a
        # namespace is asked this in each direction.
        return wanted in policy_types
    return wanted == INGRESS or bool(egress)


def calico_governs_egress(types: Sequence[JSON] | None, egress: Sequence[JSON] | None) -> bool:
    """A Calico policy's ``types`` as stored, asked about egress: the list
    when non-empty, else egress is governed exactly when it has a rule."""
    if types:
        return EGRESS in types
    return bool(egress)
