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


ISSUE_25_SCENARIOS: tuple[str, ...] = (
    "claim-only-host-none",
    "no-declaration-agent-sandbox",
    "stored-policy-types",
)
"""Scenarios issue 25 added (item 3's defaulting, item 6's host defaults):
recorded new."""

ISSUE_25_UNDECLARED: tuple[str, ...] = (
    "defaults",
    "reach-calico-service-account",
    "reach-claim-secondary-network",
)
"""Fixture trees without a declaration file: their templates are judged as
``host: none`` (issue 25), so every check, explain and generate output of
them changes, as on the corpus, which has no declaration file either."""

ISSUE_25_HOST_NONE: dict[str, tuple[str, ...]] = {
    "allow-chart": ("json", "text"),
    "allow-chart-unmanaged": ("json", "text"),
    "controller-default-chart": ("json", "sarif", "text"),
    "workload-deployment": ("json",),
}
"""Declared ``host: none`` trees, and the check formats issue 25 changes in
each: the JSON always (``union`` null, reach lists every document); the
text where a template's direct path is no longer judged; the SARIF where a
finding listed that path among the paths it affects."""

ISSUE_25_RECORDED_NEW: frozenset[str] = frozenset(
    [
        *(
            f"fixtures:scenarios/{name} $ explain . --template task --namespace sbx "
            f"--path pooled{tail}"
            for name in ("defaults", "reach-calico-service-account")
            for tail in (
                " --format json",
                " --format text",
                " --to 1.1.1.1:443 --format json",
                " --to 10.0.0.10:53/UDP --format json",
                " --to api.github.com:443 --format json",
            )
        ),
        *(
            f"corpus:. $ explain corpus --template {template} --namespace default "
            f"--path pooled{tail}"
            for template in (
                "firecracker-runtime-template",
                "internal-llm-template",
                "late-bind-template",
            )
            for tail in (
                " --format json",
                " --format text",
                " --to 1.1.1.1:443 --format json",
                " --to 10.0.0.10:53/UDP --format json",
                " --to api.github.com:443 --format json",
            )
        ),
    ]
)
"""Explain cases issue 25 brings in on existing trees: the golden suite
explains the first sandboxes ``check`` reports, and without the direct
paths of undeclared templates those are pooled paths and other templates.
Recorded new, so no earlier issue's rule covers them."""


def issue_25_changed(key: str) -> bool:
    """Whether issue 25 changed the output of the golden entry ``key``: every
    output of a tree without a declaration file (its explain cases on the
    direct path are gone), and the named check formats of the declared
    ``host: none`` trees. No other output changes: the API server's
    defaulting (item 3) changes no object of an earlier tree, and the label
    view of reach (a label present with an unknown value) decides nothing
    differently on them."""
    if key in ISSUE_25_RECORDED_NEW:
        return False
    tree, command = key.split(" $ ", 1)
    if tree == "corpus:.":
        return True
    name = tree.removeprefix("fixtures:scenarios/")
    if name in ISSUE_25_UNDECLARED:
        return True
    formats = ISSUE_25_HOST_NONE.get(name)
    if formats is None or not command.startswith("check "):
        return False
    return any(command.startswith(f"check . --format {fmt}") for fmt in formats)
