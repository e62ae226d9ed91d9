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


ISSUE_27_NO_CITATIONS: frozenset[str] = frozenset(
    {
        "bench:. $ check . --format sarif",
        "bench:. $ check . --format text",
        "corpus:. $ check corpus --format sarif",
        "fixtures:demo $ check . --format sarif",
        "fixtures:demo $ check . --format text",
        "fixtures:demo $ rules",
        "fixtures:demo $ rules --format json",
        "fixtures:helm/rendered $ check . --format sarif",
        "fixtures:helm/rendered $ check . --format text",
        "fixtures:scenarios/admin-network-policy $ check . --format sarif",
        "fixtures:scenarios/admin-network-policy $ check . --format text",
        "fixtures:scenarios/allow-chart $ check . --format sarif",
        "fixtures:scenarios/allow-chart $ check . --format text",
        "fixtures:scenarios/allow-chart-unmanaged $ check . --format sarif",
        "fixtures:scenarios/allow-chart-unmanaged $ check . --format text",
        "fixtures:scenarios/calico-default-tier-pass $ check . --format sarif",
        "fixtures:scenarios/calico-default-tier-pass $ check . --format text",
        "fixtures:scenarios/cilium-egress-deny-all $ check . --format sarif",
        "fixtures:scenarios/cilium-egress-deny-all $ check . --format text",
        "fixtures:scenarios/cilium-widens $ check . --format sarif",
        "fixtures:scenarios/cilium-widens $ check . --format text",
        "fixtures:scenarios/claim-only $ check . --format sarif",
        "fixtures:scenarios/claim-only $ check . --format text",
        "fixtures:scenarios/claim-only-host-none $ check . --format sarif",
        "fixtures:scenarios/claim-only-host-none $ check . --format text",
        "fixtures:scenarios/claim-profile $ check . --format sarif",
        "fixtures:scenarios/claim-profile $ check . --format text",
        "fixtures:scenarios/clusterwide $ check . --format sarif",
        "fixtures:scenarios/clusterwide $ check . --format text",
        "fixtures:scenarios/controller-conflict $ check . --format sarif",
        "fixtures:scenarios/controller-conflict $ check . --format text",
        "fixtures:scenarios/controller-default-chart $ check . --format sarif",
        "fixtures:scenarios/controller-default-chart $ check . --format text",
        "fixtures:scenarios/controller-v0.2.0 $ check . --format sarif",
        "fixtures:scenarios/controller-v0.4.6 $ check . --format sarif",
        "fixtures:scenarios/controller-v0.5.0 $ check . --format sarif",
        "fixtures:scenarios/controller-v0.5.6 $ check . --format sarif",
        "fixtures:scenarios/controller-version-unknown $ check . --format json",
        "fixtures:scenarios/controller-version-unknown $ check . --format json --read-cilium always",
        "fixtures:scenarios/controller-version-unknown $ check . --format sarif",
        "fixtures:scenarios/controller-version-unknown $ check . --format text",
        "fixtures:scenarios/declaration-note $ check . --format json",
        "fixtures:scenarios/declaration-note $ check . --format json --read-cilium always",
        "fixtures:scenarios/declaration-note $ check . --format sarif",
        "fixtures:scenarios/declaration-note $ check . --format text",
        "fixtures:scenarios/defaults $ check . --format sarif",
        "fixtures:scenarios/defaults $ check . --format text",
        "fixtures:scenarios/duplicate-key $ check . --format sarif",
        "fixtures:scenarios/duplicate-key $ check . --format text",
        "fixtures:scenarios/duplicate-policy $ check . --format sarif",
        "fixtures:scenarios/duplicate-policy $ check . --format text",
        "fixtures:scenarios/duplicate-template $ check . --format sarif",
        "fixtures:scenarios/duplicate-template $ check . --format text",
        "fixtures:scenarios/explain-cidr-group $ check . --format sarif",
        "fixtures:scenarios/explain-cidr-group $ check . --format text",
        "fixtures:scenarios/explain-renders $ check . --format sarif",
        "fixtures:scenarios/explain-renders $ check . --format text",
        "fixtures:scenarios/explain-unisolated $ check . --format sarif",
        "fixtures:scenarios/explain-unisolated $ check . --format text",
        "fixtures:scenarios/fence-missing $ check . --format sarif",
        "fixtures:scenarios/fence-missing $ check . --format text",
        "fixtures:scenarios/foreign-template $ check . --format sarif",
        "fixtures:scenarios/foreign-template $ check . --format text",
        "fixtures:scenarios/host-accepts-network-may-not $ check . --format sarif",
        "fixtures:scenarios/host-accepts-network-may-not $ check . --format text",
        "fixtures:scenarios/ingress-cidr-group $ check . --format sarif",
        "fixtures:scenarios/ingress-cidr-group $ check . --format text",
        "fixtures:scenarios/ingress-no-covering $ check . --format sarif",
        "fixtures:scenarios/ingress-no-covering $ check . --format text",
        "fixtures:scenarios/ingress-not-evaluable $ check . --format sarif",
        "fixtures:scenarios/ingress-not-evaluable $ check . --format text",
        "fixtures:scenarios/ingress-port-open $ check . --format sarif",
        "fixtures:scenarios/ingress-port-open $ check . --format text",
        "fixtures:scenarios/label-domains $ check . --format sarif",
        "fixtures:scenarios/label-domains $ check . --format text",
        "fixtures:scenarios/name-hash-exists $ check . --format sarif",
        "fixtures:scenarios/name-hash-exists $ check . --format text",
        "fixtures:scenarios/named-mismatch $ check . --format sarif",
        "fixtures:scenarios/named-mismatch $ check . --format text",
        "fixtures:scenarios/named-missing $ check . --format sarif",
        "fixtures:scenarios/named-missing $ check . --format text",
        "fixtures:scenarios/namespace-labels $ check . --format sarif",
        "fixtures:scenarios/namespace-labels $ check . --format text",
        "fixtures:scenarios/no-declaration-agent-sandbox $ check . --format sarif",
        "fixtures:scenarios/no-declaration-agent-sandbox $ check . --format text",
        "fixtures:scenarios/no-enforcing $ check . --format sarif",
        "fixtures:scenarios/no-enforcing $ check . --format text",
        "fixtures:scenarios/not-evaluable $ check . --format sarif",
        "fixtures:scenarios/not-evaluable $ check . --format text",
        "fixtures:scenarios/parse-error $ check . --format sarif",
        "fixtures:scenarios/parse-error $ check . --format text",
        "fixtures:scenarios/path-not-declared $ check . --format sarif",
        "fixtures:scenarios/path-not-declared $ check . --format text",
        "fixtures:scenarios/pooled-controller $ check . --format sarif",
        "fixtures:scenarios/pooled-controller $ check . --format text",
        "fixtures:scenarios/reach-anp-ingress-only $ check . --format sarif",
        "fixtures:scenarios/reach-anp-ingress-only $ check . --format text",
        "fixtures:scenarios/reach-anp-other-namespace $ check . --format sarif",
        "fixtures:scenarios/reach-anp-other-namespace $ check . --format text",
        "fixtures:scenarios/reach-antrea-cluster-policy $ check . --format sarif",
        "fixtures:scenarios/reach-antrea-cluster-policy $ check . --format text",
        "fixtures:scenarios/reach-baseline-excused $ check . --format sarif",
        "fixtures:scenarios/reach-baseline-excused $ check . --format text",
        "fixtures:scenarios/reach-calico-global-policy $ check . --format sarif",
        "fixtures:scenarios/reach-calico-global-policy $ check . --format text",
        "fixtures:scenarios/reach-calico-service-account $ check . --format sarif",
        "fixtures:scenarios/reach-calico-service-account $ check . --format text",
        "fixtures:scenarios/reach-calico-staged $ check . --format sarif",
        "fixtures:scenarios/reach-calico-staged $ check . --format text",
        "fixtures:scenarios/reach-cidr-group $ check . --format sarif",
        "fixtures:scenarios/reach-cidr-group $ check . --format text",
        "fixtures:scenarios/reach-cilium-policy-never $ check . --format sarif",
        "fixtures:scenarios/reach-cilium-policy-never $ check . --format text",
        "fixtures:scenarios/reach-cilium-under-core $ check . --format sarif",
        "fixtures:scenarios/reach-cilium-under-core $ check . --format text",
        "fixtures:scenarios/reach-claim-secondary-network $ check . --format sarif",
        "fixtures:scenarios/reach-claim-secondary-network $ check . --format text",
        "fixtures:scenarios/reach-cluster-network-policy $ check . --format sarif",
        "fixtures:scenarios/reach-cluster-network-policy $ check . --format text",
        "fixtures:scenarios/reach-egress-firewall $ check . --format sarif",
        "fixtures:scenarios/reach-egress-firewall $ check . --format text",
        "fixtures:scenarios/reach-ingress-anp $ check . --format sarif",
        "fixtures:scenarios/reach-ingress-anp $ check . --format text",
        "fixtures:scenarios/reach-kubeovn-subnet $ check . --format sarif",
        "fixtures:scenarios/reach-kubeovn-subnet $ check . --format text",
        "fixtures:scenarios/reach-secondary-network $ check . --format sarif",
        "fixtures:scenarios/reach-secondary-network $ check . --format text",
        "fixtures:scenarios/read-cilium-always $ check . --format sarif",
        "fixtures:scenarios/read-cilium-always $ check . --format text",
        "fixtures:scenarios/stored-policy-types $ check . --format sarif",
        "fixtures:scenarios/stored-policy-types $ check . --format text",
        "fixtures:scenarios/suppression-malformed $ check . --format sarif",
        "fixtures:scenarios/suppression-malformed $ check . --format text",
        "fixtures:scenarios/template-not-found $ check . --format sarif",
        "fixtures:scenarios/template-not-found $ check . --format text",
        "fixtures:scenarios/template-undeclared $ check . --format sarif",
        "fixtures:scenarios/template-undeclared $ check . --format text",
        "fixtures:scenarios/unnamed-policy $ check . --format sarif",
        "fixtures:scenarios/unnamed-policy $ check . --format text",
        "fixtures:scenarios/warm-idle $ check . --format sarif",
        "fixtures:scenarios/warm-idle $ check . --format text",
        "fixtures:scenarios/workload-deployment $ check . --format sarif",
        "fixtures:scenarios/workload-deployment $ check . --format text",
    }
)
"""Issue 27 (nothing printed cites a document users lack): every output that
carried the controller line's section sign, a rule description naming a
specification, or a declaration note citing one."""


ISSUE_28_SCENARIOS: tuple[str, ...] = (
    "agent-sandbox-invalid",
    "controller-statefulset-v0.1.0",
    "controller-versions-disagree",
)
"""Scenarios issue 28 (the controller wherever it runs, agent-sandbox objects
against their CRDs) added: recorded new, so their entries carry no why."""


def issue_28_changed(key: str) -> bool:
    """Issue 28 adds three rules (``controller-versions-disagree``,
    ``agent-sandbox-invalid``, ``agent-sandbox-unknown-field``), so the rule
    catalog of every SARIF report and the ``rules`` listing change. No other
    output does: no earlier tree runs the controller outside a Deployment,
    declares a version the manifests contradict, or holds an agent-sandbox
    object its CRD refuses (the two scenarios whose v1beta1 claims named a
    template directly now say v1alpha1, which no output shows)."""
    if any(f"scenarios/{name} $" in key for name in ISSUE_28_SCENARIOS):
        return False
    command = key.split(" $ ", 1)[1]
    return command.startswith("rules") or (
        command.startswith("check ") and "--format sarif" in command
    )
