"""Every check of DESIGN §3 on a scenario fixture: targeted assertions on
the facts SEMANTICS.md decides, plus the whole JSON report against the
reviewed expected.json of the scenario."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.checks.scenario_runner import SCENARIOS, normalise, run_cli, run_scenario

EXTRA_ARGS: dict[str, tuple[str, ...]] = {
    "read-cilium-always": ("--read-cilium", "always"),
    "reach-cilium-policy-never": ("--read-cilium", "always"),
}
SCENARIO_NAMES = sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir())


def _only(report: dict[str, Any], path: str = "direct") -> dict[str, Any]:
    matches = [s for s in report["sandboxes"] if s["path"] == path]
    assert len(matches) == 1, matches
    return matches[0]


def _rule_ids(report: dict[str, Any]) -> list[str]:
    return [f["ruleId"] for f in report["findings"]]


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_report_matches_expected(name: str) -> None:
    expected = json.loads((SCENARIOS / name / "expected.json").read_text(encoding="utf-8"))
    outcome = run_scenario(name, *EXTRA_ARGS.get(name, ()))
    assert outcome.exit_code == expected["exitCode"]
    assert normalise(outcome.report) == expected["report"]


def test_named_missing_points_at_the_declaration() -> None:
    outcome = run_scenario("named-missing")
    sandbox = _only(outcome.report)
    assert sandbox["egress"]["named"]["result"] == "missing"
    assert sandbox["egress"]["union"]["refusal"] is None
    finding = outcome.report["findings"][0]
    assert (finding["ruleId"], finding["file"], finding["line"]) == (
        "named-policy-missing",
        ".egress-lint.yaml",
        4,
    )
    assert outcome.exit_code == 1


def test_named_mismatch_names_the_field_and_its_line() -> None:
    outcome = run_scenario("named-mismatch")
    named = _only(outcome.report)["egress"]["named"]
    assert (named["result"], named["field"]) == ("mismatch", "egress")
    finding = outcome.report["findings"][0]
    assert (finding["ruleId"], finding["file"], finding["line"]) == (
        "named-policy-mismatch",
        "manifests.yaml",
        15,
    )


def test_enable_default_deny_false_leaves_no_enforcing_policy() -> None:
    outcome = run_scenario("no-enforcing")
    union = _only(outcome.report)["egress"]["union"]
    assert union["refusal"] == "no-enforcing-policy"
    assert [e["verdict"] for e in union["examined"]] == ["not-egress-scoped"]
    assert "'static'" in union["summary"]


def test_named_port_is_not_evaluable_at_its_rule() -> None:
    outcome = run_scenario("not-evaluable")
    union = _only(outcome.report)["egress"]["union"]
    assert union["refusal"] == "not-evaluable"
    verdicts = {e["name"]: e["verdict"] for e in union["examined"]}
    assert verdicts == {"task-egress": "within", "web-out": "not-evaluable"}
    finding = outcome.report["findings"][0]
    assert (finding["ruleId"], finding["line"]) == ("egress-not-evaluable", 30)


def test_match_pattern_in_another_policy_widens() -> None:
    union = _only(run_scenario("cilium-widens").report)["egress"]["union"]
    assert union["refusal"] == "policy-widens-egress"
    assert "CiliumNetworkPolicy/github-wildcard" in union["summary"]
    assert "*.github.com" in union["summary"]


def test_clusterwide_policy_is_a_candidate_under_cilium() -> None:
    union = _only(run_scenario("clusterwide").report)["egress"]["union"]
    assert union["refusal"] == "policy-widens-egress"
    widening = [e for e in union["examined"] if e["verdict"] == "widens-egress"]
    assert [(e["kind"], e["name"], e["namespace"]) for e in widening] == [
        ("CiliumClusterwideNetworkPolicy", "allow-world", None)
    ]


def test_cilium_policies_are_read_under_core_only_when_asked() -> None:
    plain = run_scenario("read-cilium-always")
    egress = _only(plain.report)["egress"]
    assert [e["kind"] for e in egress["union"]["examined"]] == ["NetworkPolicy"]
    assert egress["union"]["refusal"] is None
    # The host does not read it, but a Cilium cluster enforces it (CLUSTER-POLICIES §11).
    assert egress["reach"]["refusal"] == "policy-widens-egress"
    assert _rule_ids(plain.report) == ["egress-reach-widens"]
    assert plain.exit_code == 1
    always = run_scenario("read-cilium-always", "--read-cilium", "always")
    assert always.exit_code == 1
    always_egress = _only(always.report)["egress"]
    assert always_egress["union"]["refusal"] == "policy-widens-egress"
    # Read by the union, which reports the culprit; reach agrees and adds no
    # second finding.
    assert always_egress["reach"]["refusal"] == "policy-widens-egress"
    assert _rule_ids(always.report) == ["egress-policy-widens"]


def test_controller_default_policy_widens_only_the_pooled_path() -> None:
    report = run_scenario("pooled-controller").report
    assert [s["path"] for s in report["sandboxes"]] == ["direct", "pooled", "warm"]
    assert _only(report, "direct")["egress"]["union"]["refusal"] is None
    pooled = _only(report, "pooled")
    assert pooled["podLabels"]["agents.x-k8s.io/sandbox-template-ref-hash"] == "f448886c"
    union = pooled["egress"]["union"]
    assert union["refusal"] == "policy-widens-egress"
    synthesized = [e for e in union["examined"] if e["origin"] == "synthesized"]
    assert [(e["name"], e["verdict"]) for e in synthesized] == [
        ("task-network-policy", "widens-egress")
    ]


def _reach_finding(name: str) -> tuple[str, str, int]:
    outcome = run_scenario(name)
    assert outcome.exit_code == 1
    reach = [f for f in outcome.report["findings"] if f["ruleId"].startswith("egress-reach-")]
    assert len(reach) == 1, outcome.report["findings"]
    return reach[0]["ruleId"], reach[0]["file"], reach[0]["line"]


def test_admin_network_policy_moves_from_the_union_to_reach() -> None:
    egress = _only(run_scenario("admin-network-policy").report)["egress"]
    assert egress["union"]["refusal"] is None
    assert [e["kind"] for e in egress["union"]["examined"]] == ["NetworkPolicy"]
    # Nothing says the cluster enforces the kind: its Allow may let out.
    assert egress["reach"]["refusal"] == "not-evaluable"
    assert "AdminNetworkPolicy/cluster-egress" in egress["reach"]["summary"]
    assert "cluster.enforces" in egress["reach"]["summary"]
    assert _reach_finding("admin-network-policy") == (
        "egress-reach-not-evaluable",
        "manifests.yaml",
        23,
    )


def test_a_declared_enforced_admin_allow_widens_at_its_rule(tmp_path: Path) -> None:
    """With ``cluster.enforces`` listing the kind, the Allow counts for
    certain: a widening at the Allow rule's line, not the object's."""
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "admin-network-policy", tree)
    declaration = tree / ".egress-lint.yaml"
    declaration.write_text(declaration.read_text() + "cluster: {enforces: [AdminNetworkPolicy]}\n")
    result = CliRunner().invoke(main, ["check", str(tree), "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["sandboxes"][0]["egress"]["reach"]["refusal"] == "policy-widens-egress"
    assert [(f["ruleId"], f["line"]) for f in report["findings"]] == [("egress-reach-widens", 31)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Each silent pass of issue 12, now a reach refusal at the culprit's line.
        # Not declared enforced: the Allow may let out.
        ("reach-cluster-network-policy", ("egress-reach-not-evaluable", "manifests.yaml", 23)),
        ("reach-calico-global-policy", ("egress-reach-widens", "manifests.yaml", 30)),
        ("reach-cilium-under-core", ("egress-reach-widens", "manifests.yaml", 30)),
        ("reach-antrea-cluster-policy", ("egress-reach-not-evaluable", "manifests.yaml", 23)),
        ("reach-egress-firewall", ("egress-reach-not-evaluable", "manifests.yaml", 23)),
        ("reach-secondary-network", ("egress-reach-not-evaluable", "manifests.yaml", 8)),
        ("reach-cidr-group", ("egress-reach-widens", "manifests.yaml", 36)),
        ("reach-kubeovn-subnet", ("egress-reach-not-evaluable", "manifests.yaml", 23)),
    ],
)
def test_each_silent_pass_is_a_reach_refusal_at_its_culprit(
    name: str, expected: tuple[str, str, int]
) -> None:
    assert _reach_finding(name) == expected
    egress = _only(run_scenario(name).report)["egress"]
    assert egress["union"]["refusal"] is None
    assert egress["reach"]["refusal"] in ("policy-widens-egress", "not-evaluable")


@pytest.mark.parametrize(
    "name", ["reach-anp-ingress-only", "reach-anp-other-namespace", "reach-baseline-excused"]
)
def test_admin_policies_that_cannot_let_the_pod_out_refuse_nothing(name: str) -> None:
    outcome = run_scenario(name)
    egress = _only(outcome.report)["egress"]
    assert egress["reach"]["refusal"] is None
    assert [e["verdict"] for e in egress["reach"]["examined"]] != []
    assert outcome.report["findings"] == []
    assert outcome.exit_code == 0


def test_baseline_is_excused_when_a_network_policy_isolates_the_pod() -> None:
    examined = _only(run_scenario("reach-baseline-excused").report)["egress"]["reach"]["examined"]
    (entry,) = [e for e in examined if e["kind"] == "BaselineAdminNetworkPolicy"]
    assert (entry["kind"], entry["verdict"]) == ("BaselineAdminNetworkPolicy", "within")
    assert entry["detail"]  # an excused entry says why (§11 Q6)


def test_two_policies_of_one_name_are_both_judged_whatever_the_file_order() -> None:
    outcome = run_scenario("duplicate-policy")
    union = _only(outcome.report)["egress"]["union"]
    assert [(e["name"], e["verdict"]) for e in union["examined"] if e["name"] == "extra"] == [
        ("extra", "widens-egress"),
        ("extra", "within"),
    ]
    assert union["refusal"] == "policy-widens-egress"
    duplicate = [f for f in outcome.report["findings"] if f["ruleId"] == "duplicate-object"]
    assert len(duplicate) == 1
    assert "a-wide.yaml:1" in duplicate[0]["message"]
    assert "manifests.yaml:23" in duplicate[0]["message"]
    assert outcome.exit_code == 1


def test_ingress_reach_fails_closed_on_an_admin_ingress_allow() -> None:
    outcome = run_scenario("reach-ingress-anp")
    ingress = _only(outcome.report)["ingress"]
    assert ingress["refusal"] is None  # the reference's decision is untouched
    assert ingress["reach"]["refusal"] == "not-evaluable"
    assert [(f["ruleId"], f["line"]) for f in outcome.report["findings"]] == [
        ("ingress-not-evaluable", 39)
    ]


def test_namespace_manifest_wins_over_the_declared_labels() -> None:
    outcome = run_scenario("namespace-labels")
    assert _rule_ids(outcome.report) == ["namespace-labels-disagree"]
    reach = _only(outcome.report)["egress"]["reach"]
    assert [(e["name"], e["verdict"]) for e in reach["examined"] if e["name"] == "team-other"] == [
        ("team-other", "does-not-select")
    ]
    assert outcome.exit_code == 0


def test_staged_calico_policies_are_skipped_with_their_place() -> None:
    reach = _only(run_scenario("reach-calico-staged").report)["egress"]["reach"]
    assert reach["refusal"] is None
    assert [(s["kind"], s["name"], s["line"]) for s in reach["skipped"]] == [
        ("StagedGlobalNetworkPolicy.projectcalico.org", "trial", 23)
    ]


def test_wide_open_ingress_on_the_agent_port() -> None:
    outcome = run_scenario("ingress-port-open")
    ingress = _only(outcome.report)["ingress"]
    assert (ingress["agentPort"], ingress["refusal"]) == (1024, "port-open")
    assert "agent-port-open" in _rule_ids(outcome.report)


def test_no_ingress_policy_leaves_the_port_uncovered() -> None:
    ingress = _only(run_scenario("ingress-no-covering").report)["ingress"]
    assert ingress["refusal"] == "no-covering-policy"


def test_profile_key_outside_allowed_label_domains() -> None:
    outcome = run_scenario("label-domains")
    sandbox = _only(outcome.report)
    assert sandbox["egress"]["named"]["result"] == "match"  # §17.1: absent egress equals []
    assert _rule_ids(outcome.report) == ["label-domain-not-allowed"]


def test_missing_fence_binding() -> None:
    outcome = run_scenario("fence-missing")
    findings = [f for f in outcome.report["findings"] if f["ruleId"] == "admission-fence-missing"]
    assert len(findings) == 1
    assert "namzu-per-sandbox-egress-binding" in findings[0]["message"]


def test_undeclared_claim_profile_is_a_warning() -> None:
    outcome = run_scenario("claim-profile")
    findings = outcome.report["findings"]
    general = [(f["ruleId"], f["level"]) for f in findings if f["sandbox"] is None]
    assert general == [("claim-profile-undeclared", "warning")]
    # Issue 14: the pool's idle pods carry no label the host's claim adds,
    # so nothing enforces their egress; that error is the warm path's own.
    assert [f["sandbox"]["path"] for f in findings if f["sandbox"] is not None] == ["warm"]


def test_template_not_found_unless_external() -> None:
    report = run_scenario("template-not-found").report
    missing = [f for f in report["findings"] if f["ruleId"] == "template-not-found"]
    assert len(missing) == 1 and "typo-task" in missing[0]["message"]


def test_no_declaration_file_applies_deny_all_core() -> None:
    """Issue 25: without a declaration file the template is `host: none`:
    judged on the pooled path (a Sandbox names no template, so nobody
    creates its pods directly), with no named object and no union. Its pods
    carry no namzu label, so the namzu-style policy selects none of them."""
    outcome = run_scenario("defaults")
    report = outcome.report
    assert report["defaultsApplied"] is True
    sandbox = _only(report, "pooled")
    assert (sandbox["egress"]["policyKind"], sandbox["egress"]["engine"]) == ("deny-all", "core")
    assert sandbox["host"] == "none"
    assert (sandbox["egress"]["expected"], sandbox["egress"]["named"]) == (None, None)
    assert sandbox["egress"]["union"] is None and sandbox["ingress"] is None
    assert sandbox["egress"]["reach"]["refusal"] == "no-enforcing-policy"
    assert [e["verdict"] for e in sandbox["egress"]["reach"]["examined"]] == ["does-not-select"]
    assert _rule_ids(report) == ["no-enforcing-egress-policy", "template-undeclared"]
    assert outcome.exit_code == 1


def test_unparseable_policy_document_fails_closed() -> None:
    outcome = run_scenario("parse-error")
    assert outcome.report["parseErrors"], outcome.report
    assert outcome.report["parseErrors"][0]["file"] == "manifests.yaml"
    assert _only(outcome.report)["egress"]["union"]["refusal"] == "not-evaluable"
    assert outcome.exit_code == 1


def test_allow_intent_finds_only_the_controller_policy_on_the_pooled_path() -> None:
    """Issue 17: three narrow policies, each inside the declared `allow`, are
    `within`; the one finding is the controller's policy, at the template."""
    outcome = run_scenario("allow-chart")
    pooled = _only(outcome.report, "pooled")
    # Issue 25: under `host: none` nobody creates the template's Sandboxes
    # directly, so only the pool's paths are judged, and reach is the verdict.
    assert {s["path"] for s in outcome.report["sandboxes"]} == {"pooled", "warm"}
    assert pooled["host"] == "none"
    # Issue 14: every pod the controller makes carries sandbox-name-hash.
    assert pooled["podLabels"] == {
        "app.kubernetes.io/name": "agent-runner",
        "agents.x-k8s.io/sandbox-name-hash": "(unknown)",
        "agents.x-k8s.io/sandbox-template-ref-hash": pooled["podLabels"][
            "agents.x-k8s.io/sandbox-template-ref-hash"
        ],
    }
    assert pooled["egress"]["policyKind"] == "allow"
    assert (pooled["egress"]["expected"], pooled["egress"]["named"]) == (None, None)
    assert pooled["egress"]["union"] is None
    verdicts = {e["name"]: e["verdict"] for e in pooled["egress"]["reach"]["examined"]}
    assert verdicts == {
        "runner-dns": "within",
        "runner-otel": "within",
        "runner-storage": "within",
        "runner-network-policy": "widens-egress",
    }
    # The pool's idle pods (the warm path, issue 14) carry the hash label too.
    # One culprit, one finding, listing both paths (issue 13).
    findings = outcome.report["findings"]
    assert [(f["ruleId"], f["line"], f["sandbox"]["path"]) for f in findings] == [
        ("egress-policy-widens", 5, "pooled"),
    ]
    assert [a["path"] for a in findings[0]["affected"]] == ["pooled", "warm"]
    # No named object to fall back to under host: none.
    assert all("named-object-only" not in f["remedy"] for f in findings)


def test_allow_intent_with_an_unmanaged_template_is_clean() -> None:
    outcome = run_scenario("allow-chart-unmanaged")
    assert outcome.exit_code == 0
    assert outcome.report["findings"] == []
    assert [s["path"] for s in outcome.report["sandboxes"]] == ["pooled", "warm"]


def test_workload_declaration_reads_the_deployments_pod_labels() -> None:
    outcome = run_scenario("workload-deployment")
    sandbox = _only(outcome.report)
    assert sandbox["workload"] == {"kind": "Deployment", "name": "api"}
    assert sandbox["podLabels"] == {"app": "api", "tier": "backend"}
    assert sandbox["egress"]["expected"] == {"kind": "NetworkPolicy", "name": "api-egress"}
    assert sandbox["egress"]["named"]["result"] == "match"
    # A workload has no namzu host: reach is its verdict (issue 25).
    assert sandbox["egress"]["union"] is None
    verdicts = {e["name"]: e["verdict"] for e in sandbox["egress"]["reach"]["examined"]}
    assert verdicts == {
        "api-egress": "within",
        "backend-https-out": "widens-egress",
        "default-deny-egress": "within",
        "frontend-out": "does-not-select",
    }
    assert _rule_ids(outcome.report) == ["egress-policy-widens"]


def test_a_cidr_group_reference_resolves_to_the_groups_cidrs() -> None:
    outcome = run_scenario("reach-cidr-group", "--read-cilium", "always")
    union = _only(outcome.report)["egress"]["union"]
    assert union["refusal"] == "policy-widens-egress"
    assert 'of CiliumCIDRGroup "partners"' in union["summary"]


def test_cilium_enforcement_turned_off_fails_closed_only_on_a_cilium_cluster() -> None:
    outcome = run_scenario("reach-cilium-policy-never", "--read-cilium", "always")
    reach = _only(outcome.report)["egress"]["reach"]
    assert reach["refusal"] == "not-evaluable"
    assert "enable-policy: never" in reach["summary"]
    assert outcome.exit_code == 1
    assert run_scenario("reach-cilium-policy-never").exit_code == 0


def test_the_chart_case_names_the_template_and_each_widening_policy() -> None:
    """Issue 13: a Managed template without a networkPolicy block, beside
    narrow in-cluster allow rules wider than the declared egress: the
    controller's policy is a finding on the template's `spec` line naming
    the policy and `networkPolicyManagement: Unmanaged`; each widening
    manifest policy is its own finding at its own rule's line."""
    outcome = run_scenario("controller-default-chart")
    assert outcome.exit_code == 1
    findings = outcome.report["findings"]
    by_culprit = {f["culprit"]["name"]: f for f in findings}
    assert set(by_culprit) == {"runner-network-policy", "runner-otel", "runner-storage"}
    controller = by_culprit["runner-network-policy"]
    assert (controller["file"], controller["line"]) == ("manifests.yaml", 4)
    assert controller["culprit"]["origin"] == "synthesized"
    assert "will write NetworkPolicy/runner-network-policy" in controller["message"]
    assert "selecting its pooled pods" in controller["message"]
    assert "networkPolicyManagement: Unmanaged" in controller["remedy"]
    assert "spec:\n  networkPolicy:\n" in controller["remedyYaml"]
    assert "kube-system" in controller["remedyYaml"] and "0.0.0.0/0" not in controller["remedyYaml"]
    assert [a["path"] for a in controller["affected"]] == ["pooled", "warm"]
    assert (by_culprit["runner-otel"]["line"], by_culprit["runner-storage"]["line"]) == (38, 51)
    # Under `host: none` nobody creates the template's Sandboxes directly:
    # the pool's paths only (issue 25).
    for name in ("runner-otel", "runner-storage"):
        assert [a["path"] for a in by_culprit[name]["affected"]] == ["pooled", "warm"]
        assert "spec.egress[0]" in by_culprit[name]["message"]
    # Reach, the verdict of a pod no namzu host makes, names its first culprit.
    pooled = _only(outcome.report, "pooled")
    assert pooled["egress"]["union"] is None
    assert pooled["egress"]["reach"]["refusal"] == "policy-widens-egress"


def test_policy_types_are_read_as_the_api_server_stores_them() -> None:
    """Issue 25: no policyTypes with ``egress: []`` is stored as ``[Ingress]``
    and isolates nothing; ``policyTypes: []`` with ``egress: [{}]`` is stored
    as ``[Ingress, Egress]`` and lets everything out. Both decisions agree."""
    outcome = run_scenario("stored-policy-types")
    by_template = {s["template"]: s["egress"] for s in outcome.report["sandboxes"]}
    unisolated, widened = by_template["unisolated"], by_template["widened"]
    for decision in ("union", "reach"):
        assert unisolated[decision]["refusal"] == "no-enforcing-policy"
        assert widened[decision]["refusal"] == "policy-widens-egress"
    verdicts = {e["name"]: e["verdict"] for e in unisolated["union"]["examined"]}
    assert verdicts["no-policy-types"] == "not-egress-scoped"
    verdicts = {e["name"]: e["verdict"] for e in widened["union"]["examined"]}
    assert verdicts["empty-policy-types"] == "widens-egress"
    assert outcome.exit_code == 1


def test_without_a_declaration_a_plain_agent_sandbox_tree_is_host_none() -> None:
    """Issue 25: no declaration file on a plain agent-sandbox tree. Each
    template is judged as ``host: none`` with ``deny-all``: no
    ``named-policy-missing`` for ``<template>-egress`` (only the namzu host
    reads that object), no union, no agent-port check; the pooled and warm
    paths the pool and claim make possible, never the host's direct path,
    and the controller's policy judged there."""
    outcome = run_scenario("no-declaration-agent-sandbox")
    report = outcome.report
    assert report["defaultsApplied"] is True
    rules = _rule_ids(report)
    assert "named-policy-missing" not in rules
    assert rules.count("template-undeclared") == 2
    paths = sorted((s["template"], s["path"]) for s in report["sandboxes"])
    assert paths == [
        ("browser", "pooled"),
        ("python-runtime", "pooled"),
        ("python-runtime", "warm"),
    ]
    for sandbox in report["sandboxes"]:
        assert sandbox["host"] == "none"
        assert sandbox["egress"]["union"] is None
        assert sandbox["egress"]["named"] is None
        assert sandbox["ingress"] is None
        assert "sandbox.namzu.ai/template" not in sandbox["podLabels"]
    by_template = {s["template"]: s for s in report["sandboxes"] if s["path"] == "pooled"}
    assert by_template["python-runtime"]["egress"]["reach"]["refusal"] is None
    browser = by_template["browser"]["egress"]["reach"]
    assert browser["refusal"] == "policy-widens-egress"
    # Reach, the verdict, lists the controller's policy it judged.
    verdicts = {e["name"]: e["verdict"] for e in browser["examined"]}
    assert verdicts["browser-network-policy"] == "widens-egress"
    widening = [f for f in report["findings"] if f["ruleId"] == "egress-policy-widens"]
    assert [(f["file"], f["line"]) for f in widening] == [("manifests.yaml", 46)]
    assert outcome.exit_code == 1


def test_a_host_none_template_used_only_through_claims_is_judged_pooled() -> None:
    """Issue 25: a ``host: none`` template named only by a SandboxClaim is
    checked on the claimed (pooled) path, where the controller's default
    policy is judged; ``paths: [pooled]`` draws no warning about the host
    creating Sandboxes directly."""
    outcome = run_scenario("claim-only-host-none")
    report = outcome.report
    paths = sorted((s["template"], s["path"], s.get("claim")) for s in report["sandboxes"])
    assert paths == [("batch", "pooled", None), ("runner", "pooled", "job-1")]
    assert "path-not-declared" not in _rule_ids(report)
    runner = next(s for s in report["sandboxes"] if s["template"] == "runner")
    assert runner["egress"]["union"] is None
    reach = runner["egress"]["reach"]
    assert reach["refusal"] == "policy-widens-egress"
    verdicts = {e["name"]: e["verdict"] for e in reach["examined"]}
    assert verdicts == {
        "sandboxes-default-deny": "within",
        "runner-network-policy": "widens-egress",
    }
    assert [(f["ruleId"], f["line"]) for f in report["findings"]] == [("egress-policy-widens", 4)]
    assert outcome.exit_code == 1


def _examined(report: dict[str, Any]) -> list[tuple[str, str]]:
    reach = _only(report)["egress"]["reach"]
    return [(item["name"], item["verdict"]) for item in reach["examined"]]


@pytest.mark.parametrize(
    ("name", "policy", "edit"),
    [
        # Issue 28: `*.org` is not inside the declared `*.debian.org`.
        ("allow-hosts-pattern", "builder-egress", ('"*.debian.org"', '"*.org"')),
        # Issue 28: without SCTP on 53, ANY on 53 is no longer covered.
        ("cilium-any-covered", "builder-dns", ("- {protocol: SCTP, port: 53}", "")),
    ],
)
def test_host_none_cluster_forms_cover_and_stop_covering(
    name: str, policy: str, edit: tuple[str, str], tmp_path: Path
) -> None:
    outcome = run_scenario(name)
    assert outcome.exit_code == 0
    assert _examined(outcome.report) == [(policy, "within")]
    copy = tmp_path / name
    shutil.copytree(SCENARIOS / name, copy)
    for file in (copy / "manifests.yaml", copy / ".egress-lint.yaml"):
        text = file.read_text(encoding="utf-8")
        file.write_text(text.replace(*edit), encoding="utf-8")
    widened = run_cli(["check", ".", "--format", "json"], copy)
    assert widened.exit_code == 1
    assert _rule_ids(widened.report) == ["egress-policy-widens"]
    assert _examined(widened.report) == [(policy, "widens-egress")]


def _to_json(
    scenario: str, destination: str, cwd: Path | None = None
) -> tuple[int, dict[str, Any]]:
    where = cwd or SCENARIOS / scenario
    args = ["explain", ".", "--template", "task", "--path", "pooled", "--to", destination]
    outcome = run_cli([*args, "--format", "json"], where)
    return outcome.exit_code, json.loads(outcome.stdout)["to"]


@pytest.mark.parametrize(
    ("scenario", "deciding"),
    [
        # An ANP Deny shadows the NetworkPolicy's later allow of 8.8.8.8.
        ("anp-deny-shadows-allow", "kube-admin: AdminNetworkPolicy/deny-out"),
        # A Pass hands the pod to the baseline, whose Deny drops it.
        ("banp-pass-deny", "kube-baseline: BaselineAdminNetworkPolicy/default"),
        # Only a Calico GlobalNetworkPolicy isolates the pod: no core policy.
        ("calico-only-isolated", "default: end of tier: Deny"),
    ],
)
def test_the_tiers_deny_what_no_network_policy_does(scenario: str, deciding: str) -> None:
    outcome = run_scenario(scenario)
    assert outcome.exit_code == 0
    assert outcome.report["findings"] == []
    (sandbox,) = outcome.report["sandboxes"]
    assert sandbox["egress"]["reach"]["refusal"] is None
    status, to = _to_json(scenario, "8.8.8.8:443")
    assert status == 0
    assert to["outsideVerdict"] == "denied"
    assert any(rule.startswith(deciding) for rule in to["decidingRules"]), to["decidingRules"]


def test_an_anp_deny_not_declared_enforced_cannot_be_relied_on(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "anp-deny-shadows-allow", tree)
    declaration = tree / ".egress-lint.yaml"
    declaration.write_text(
        declaration.read_text().replace("cluster: {enforces: [AdminNetworkPolicy]}\n", "")
    )
    result = CliRunner().invoke(main, ["check", str(tree), "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["sandboxes"][0]["egress"]["reach"]["refusal"] == "not-evaluable"
    status, to = _to_json("", "8.8.8.8:443", tree)
    assert status == 1
    assert to["outsideVerdict"] == "undecided"
