"""Which golden entries issue 14 changed on purpose; each carries a ``why``
in ``digests.json`` naming the issue (``test_golden``).

Issue 14 changes every output but ``generate``'s: the JSON report gains the
``controller`` object and the text report its header line, every pod of a
SandboxTemplate carries ``agents.x-k8s.io/sandbox-name-hash``, and the rule
catalog gains four rules. Its own new scenarios were recorded new, so they
carry no why.
"""

from __future__ import annotations

ISSUE_14_SCENARIOS: tuple[str, ...] = (
    "claim-only",
    "controller-v0.2.0",
    "controller-v0.4.6",
    "controller-v0.5.0",
    "controller-v0.5.6",
    "controller-version-unknown",
    "duplicate-template",
    "foreign-template",
    "name-hash-exists",
    "path-not-declared",
    "warm-idle",
)
"""Scenarios issue 14 added: recorded new."""


WORKLOAD_SCENARIOS: tuple[str, ...] = ("workload-deployment",)
"""Scenarios of a declared workload (issue 17): its pods are not the
controller's, so explain, which states no controller, is unchanged."""


def in_issue_14_scenario(key: str) -> bool:
    return any(f"scenarios/{name} $" in key for name in ISSUE_14_SCENARIOS)


def issue_14_changed(key: str) -> bool:
    """Whether issue 14 changed the output of the golden entry ``key``."""
    if " $ generate " in key or in_issue_14_scenario(key):
        return False
    workload = any(f"scenarios/{name} $" in key for name in WORKLOAD_SCENARIOS)
    return not (workload and " $ explain " in key)


RECORDED_NEW_SCENARIOS: tuple[str, ...] = (
    "ingress-cidr-group",
    "reach-calico-service-account",
    "reach-claim-secondary-network",
)
"""Scenarios added after the changes above, for issue 12's remaining gaps
(ServiceAccounts read for Calico, a claim's annotations, ingress CIDR
groups): recorded new, so no earlier issue's rule covers them."""


def in_recorded_new_scenario(key: str) -> bool:
    return any(f"scenarios/{name} $" in key for name in RECORDED_NEW_SCENARIOS)
