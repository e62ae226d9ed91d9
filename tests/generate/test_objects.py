"""Which objects generate writes, and the data behind them: the baseline's
shape (SEMANTICS §13), the fence and its binding (§15.2), the RBAC (§15.3),
and refusals when two declarations would need one object to differ."""

from __future__ import annotations

import pytest

from lint.decision.constants import kube_dns_rule
from lint.generate.baseline import baseline_dns, baseline_policy
from lint.generate.command import GenerateOptions, render_all
from lint.generate.objects import GenerateError
from tests.generate.conftest import Generate
from tests.generate.variants import HEAD, VARIANTS


def _kinds(generate: Generate, text: str) -> list[tuple[str, str | None, str]]:
    return [(r.obj.kind, r.obj.namespace, r.obj.name) for r in generate(text)]


def _manifest(generate: Generate, text: str, kind: str, name: str) -> dict:
    found = [r.obj.manifest for r in generate(text) if (r.obj.kind, r.obj.name) == (kind, name)]
    assert len(found) == 1
    return found[0]


def _entry(template: str, extra: str = "", namespace: str | None = None) -> str:
    where = f", namespace: {namespace}" if namespace else ""
    return f"  - {{template: {template}, external: true{where}, {extra}}}\n"


STATIC = "egress: {engine: cilium, policy: {kind: static, allowedHosts: [a.example]}"


def _per_sandbox(fence: str, binding: str = "") -> str:
    named = f", admissionPolicyBindingName: {binding}" if binding else ""
    return f"{STATIC}, perSandbox: {{engine: cilium, admissionPolicyName: {fence}{named}}}}}"


def test_one_entry_gives_its_egress_policy_then_the_baseline(generate: Generate) -> None:
    assert _kinds(generate, VARIANTS["deny-all"]) == [
        ("NetworkPolicy", "namzu-sandboxes", "namzu-task-egress"),
        ("NetworkPolicy", "namzu-sandboxes", "namzu-sandbox-baseline"),
    ]


def test_the_baseline_is_the_reference_shape_without_its_placeholder() -> None:
    """§13: selects every templated pod, Ingress and Egress, the host on the
    agent port, kube-dns on UDP/TCP 53, and no 203.0.113.0/24 rule."""
    policy = baseline_policy("ns", [1024], keep_dns=True)
    assert policy["metadata"] == {"name": "namzu-sandbox-baseline", "namespace": "ns"}
    spec = policy["spec"]
    assert spec["podSelector"] == {
        "matchExpressions": [{"key": "sandbox.namzu.ai/template", "operator": "Exists"}]
    }
    assert spec["policyTypes"] == ["Ingress", "Egress"]
    assert spec["ingress"] == [
        {
            "from": [{"podSelector": {"matchLabels": {"namzu.ai/component": "host"}}}],
            "ports": [{"protocol": "TCP", "port": 1024}],
        }
    ]
    assert spec["egress"] == [kube_dns_rule()]
    assert "203.0.113.0/24" not in str(policy)


@pytest.mark.parametrize(
    ("egresses", "keep", "reason"),
    [
        ([{"policy": {"kind": "deny-all"}}], True, None),
        ([{"policy": {"kind": "public-internet"}}, {"policy": {"kind": "allow-all"}}], True, None),
        (
            [{"policy": {"kind": "deny-all"}}, {"policy": {"kind": "no-network"}}],
            False,
            "no-network",
        ),
        (
            [
                {
                    "engine": "cilium",
                    "policy": {"kind": "static"},
                    "ciliumNarrowing": {"dnsNames": True},
                }
            ],
            False,
            "dnsNames",
        ),
        (
            [
                {
                    "engine": "cilium",
                    "policy": {"kind": "static"},
                    "ciliumNarrowing": {"dnsNames": {}},
                }
            ],
            False,
            "dnsNames",
        ),
        # dnsNames false, or a narrowing that is not active, narrows nothing (§1.3).
        (
            [
                {
                    "engine": "cilium",
                    "policy": {"kind": "static"},
                    "ciliumNarrowing": {"dnsNames": False, "ports": [443]},
                }
            ],
            True,
            None,
        ),
        (
            [
                {
                    "engine": "cilium",
                    "policy": {"kind": "static"},
                    "ciliumNarrowing": {"tlsPorts": [443]},
                }
            ],
            True,
            None,
        ),
        # Per-sandbox narrowing shapes the host's own policies, not the baseline's judge.
        (
            [
                {
                    "engine": "cilium",
                    "policy": {"kind": "static"},
                    "perSandbox": {"narrowing": {"dnsNames": True}},
                }
            ],
            True,
            None,
        ),
    ],
)
def test_the_baseline_keeps_kube_dns_only_where_every_declaration_allows_it(
    egresses: list[dict], keep: bool, reason: str | None
) -> None:
    verdict = baseline_dns(egresses)
    assert (verdict.keep, verdict.reason) == (keep, reason)


def test_the_baseline_lists_every_agent_port_once_in_order(generate: Generate) -> None:
    text = HEAD + (
        _entry("a", "egress: {policy: {kind: deny-all}}, ingress: {agentPort: 2048}")
        + _entry("b", "egress: {policy: {kind: deny-all}}")
        + _entry("c", "egress: {policy: {kind: deny-all}}, ingress: {agentPort: 1024}")
        + _entry("d", "egress: {policy: {kind: deny-all}}, ingress: {agentPort: 3000}")
    )
    spec = _manifest(generate, text, "NetworkPolicy", "namzu-sandbox-baseline")["spec"]
    ports = spec["ingress"][0]["ports"]
    assert ports == [{"protocol": "TCP", "port": p} for p in (1024, 2048, 3000)]


def test_no_baseline_where_no_declaration_checks_the_agent_port(generate: Generate) -> None:
    kinds = _kinds(generate, VARIANTS["unverified-ingress"])
    assert kinds == [("NetworkPolicy", "namzu-sandboxes", "namzu-task-egress")]


def test_one_baseline_per_namespace(generate: Generate) -> None:
    baselines = [
        k for k in _kinds(generate, VARIANTS["namespaces"]) if k[2] == "namzu-sandbox-baseline"
    ]
    assert [namespace for _, namespace, _ in baselines] == ["namzu-sandboxes", "team-b", "team-c"]


def test_per_sandbox_gives_the_fence_its_binding_and_the_host_rbac(generate: Generate) -> None:
    assert _kinds(generate, VARIANTS["per-sandbox"]) == [
        ("CiliumNetworkPolicy", "namzu-sandboxes", "namzu-task-egress"),
        ("NetworkPolicy", "namzu-sandboxes", "namzu-sandbox-baseline"),
        ("ValidatingAdmissionPolicy", None, "namzu-per-sandbox-egress"),
        ("ValidatingAdmissionPolicyBinding", None, "namzu-per-sandbox-egress-binding"),
        ("Role", "namzu-sandboxes", "namzu-sandbox-host-per-sandbox-egress"),
        ("RoleBinding", "namzu-sandboxes", "namzu-sandbox-host-per-sandbox-egress"),
        ("ClusterRole", None, "namzu-sandbox-host-admission-fence-read"),
        ("ClusterRoleBinding", None, "namzu-sandbox-host-admission-fence-read"),
    ]


def test_the_fence_follows_the_declaration(generate: Generate) -> None:
    """§15.2: the binding policy name, Deny, the sandbox namespace, the
    host's username, and the configured label key in validation 4."""
    text = VARIANTS["per-sandbox"]
    policy = _manifest(generate, text, "ValidatingAdmissionPolicy", "namzu-per-sandbox-egress")
    spec = policy["spec"]
    assert spec["failurePolicy"] == "Fail"
    assert spec["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": ["cilium.io"],
            "apiVersions": ["v2"],
            "operations": ["CREATE", "UPDATE", "DELETE"],
            "resources": ["ciliumnetworkpolicies"],
        }
    ]
    assert spec["matchConditions"][0]["expression"] == (
        'request.userInfo.username == "system:serviceaccount:namzu-sandboxes:namzu-sandbox-host"'
    )
    assert [v["name"] for v in spec["variables"]] == [
        "target",
        "writing",
        "owners",
        "spec",
        "egress",
        "selector",
    ]
    assert len(spec["validations"]) == 7
    assert all(v["reason"] == "Forbidden" for v in spec["validations"])
    assert '"sandbox.users.io/per-sandbox"' in spec["validations"][3]["expression"]
    assert "sandbox.namzu.ai/per-sandbox-egress" not in str(spec)
    binding = _manifest(
        generate, text, "ValidatingAdmissionPolicyBinding", "namzu-per-sandbox-egress-binding"
    )
    assert binding["spec"] == {
        "policyName": "namzu-per-sandbox-egress",
        "validationActions": ["Deny"],
        "matchResources": {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "namzu-sandboxes"}}
        },
    }


def test_a_named_binding_replaces_the_default_name(generate: Generate) -> None:
    kinds = _kinds(generate, VARIANTS["namespaces"])
    assert ("ValidatingAdmissionPolicyBinding", None, "team-c-fence-bound") in kinds
    assert ("ValidatingAdmissionPolicyBinding", None, "team-b-fence-binding") in kinds


def test_the_rbac_grants_what_section_15_3_lists(generate: Generate) -> None:
    text = VARIANTS["namespaces"]
    roles = [r.obj.manifest for r in generate(text) if r.obj.kind == "Role"]
    assert [role["metadata"]["namespace"] for role in roles] == ["team-b", "team-c"]
    assert roles[0]["rules"] == [
        {
            "apiGroups": ["cilium.io"],
            "resources": ["ciliumnetworkpolicies"],
            "verbs": ["create", "patch", "delete"],
        }
    ]
    reader = _manifest(generate, text, "ClusterRole", "namzu-sandbox-host-admission-fence-read")
    assert [(r["resources"], r["resourceNames"], r["verbs"]) for r in reader["rules"]] == [
        (["validatingadmissionpolicies"], ["team-b-fence", "team-c-fence"], ["get"]),
        (
            ["validatingadmissionpolicybindings"],
            ["team-b-fence-binding", "team-c-fence-bound"],
            ["get"],
        ),
    ]
    binding = _manifest(
        generate, text, "ClusterRoleBinding", "namzu-sandbox-host-admission-fence-read"
    )
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "namzu-sandbox-host", "namespace": ns}
        for ns in ("team-b", "team-c")
    ]


def test_two_entries_sharing_a_fence_in_one_namespace_share_one_object(generate: Generate) -> None:
    text = HEAD + _entry("a", _per_sandbox("fence")) + _entry("b", _per_sandbox("fence"))
    rendered = generate(text)
    fences = [r for r in rendered if r.obj.kind == "ValidatingAdmissionPolicy"]
    assert len(fences) == 1
    assert [s.template for s in fences[0].obj.sources] == ["a", "b"]


@pytest.mark.parametrize(
    "entries",
    [
        # One fence name cannot fence two namespaces: the username and the
        # binding's namespace differ.
        _entry("a", _per_sandbox("fence")) + _entry("b", _per_sandbox("fence"), namespace="other"),
        # An egress policy may not take the baseline's name.
        _entry(
            "a", "egress: {networkPolicyName: namzu-sandbox-baseline, policy: {kind: deny-all}}"
        ),
    ],
)
def test_two_different_objects_under_one_name_are_refused(generate: Generate, entries: str) -> None:
    with pytest.raises(GenerateError, match="would be generated twice with different content"):
        generate(HEAD + entries)


def test_generating_is_deterministic(generate: Generate) -> None:
    first = [r.text for r in generate(VARIANTS["namespaces"])]
    assert first == [r.text for r in render_all(GenerateOptions(config=None))]
