"""Issue 25, item 5: ``explain`` presents the judgement ``check`` makes of
the path, takes everything ``check`` takes, and its ``--to`` headline is
the cluster's verdict. Each case runs the command line on a scenario
fixture."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests.checks.scenario_runner import SCENARIOS, Outcome, run_cli


def _explain(scenario: str, *args: str) -> Outcome:
    return run_cli(["explain", *args], SCENARIOS / scenario)


def _to(scenario: str, destination: str, *args: str) -> tuple[int, dict[str, Any]]:
    outcome = _explain(
        scenario, ".", "--template", "task", "--to", destination, "--format", "json", *args
    )
    assert outcome.exit_code in (0, 1), outcome.stderr
    to: dict[str, Any] = json.loads(outcome.stdout)["to"]
    return outcome.exit_code, to


def _check(scenario: str, *args: str) -> Outcome:
    return run_cli(["check", ".", "--format", "json", *args], SCENARIOS / scenario)


# --- CIDR groups ---------------------------------------------------------------------


@pytest.mark.parametrize("read_cilium", ["auto", "always"])
def test_a_cidr_group_rule_is_resolved_as_check_resolves_it(read_cilium: str) -> None:
    assert _check("explain-cidr-group", "--read-cilium", read_cilium).exit_code == 0
    flag = ("--read-cilium", read_cilium)
    status, to = _to("explain-cidr-group", "8.8.8.8:443", *flag)
    # Outside every group: denied, never "cannot be read".
    assert (status, to["verdict"]) == (0, "denied")
    assert "cannot be read" not in json.dumps(to)
    status, to = _to("explain-cidr-group", "192.0.2.10:443", *flag)
    # A Cilium CIDR rule may not match a pod's or node's address: certainly
    # allowed only for an address no pod or node holds.
    assert (status, to["verdict"], to["allowance"]["inside"]) == (0, "unknown", True)
    assert to["outsideVerdict"] == "allowed"
    assert any(
        line.startswith("default: CiliumNetworkPolicy/to-partners egress rule 0 (allow) at ")
        for line in to["decidingRules"]
    )
    admitted = {(h["name"], h["destination"]) for h in to["admittedBy"]}
    assert ("to-partners", "192.0.2.0/25") in admitted


def test_a_missing_cidr_group_may_reach_anything(tmp_path: Any) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "explain-cidr-group", copy)
    manifests = copy / "manifests.yaml"
    manifests.write_text(
        manifests.read_text(encoding="utf-8").replace(
            "cidrGroupRef: partners", "cidrGroupRef: gone"
        ),
        encoding="utf-8",
    )
    outcome = run_cli(["explain", ".", "--template", "task", "--to", "8.8.8.8:443"], copy)
    assert outcome.exit_code == 1
    assert "To 8.8.8.8:443: unknown" in outcome.stdout
    # The allowance line is check's reach over the destination's points.
    assert "may let out 8.8.8.8/32 on TCP 443" in outcome.stdout


# --- the headline --------------------------------------------------------------------


def test_the_headline_is_the_clusters_verdict_and_the_host_follows() -> None:
    outcome = _explain(
        "reach-calico-global-policy", ".", "--template", "task", "--to", "8.8.8.8:443"
    )
    assert outcome.exit_code == 1
    lines = outcome.stdout.splitlines()
    at = lines.index("To 8.8.8.8:443: allowed")
    assert lines[at + 1 : at + 3] == [
        "  decided by default: GlobalNetworkPolicy.projectcalico.org/allow-out egress",
        "      rule 0 (allow) at manifests.yaml:23",
    ]
    assert "  the namzu host's own verdict: denied" in lines[at + 1 : at + 5]
    # Each slot's deciding rule, listed with its document's file and line.
    assert (
        "deciding rules, tier by tier: kube-admin: no rule matched (pass) default: "
        "GlobalNetworkPolicy.projectcalico.org/allow-out egress rule 0 (allow) at "
        "manifests.yaml:23 allowance:" in " ".join(outcome.stdout.split())
    )
    status, to = _to("reach-calico-global-policy", "8.8.8.8:443")
    assert (status, to["verdict"], to["hostVerdict"]) == (1, "allowed", "denied")
    assert "NetworkPolicy/task-egress" in to["hostReason"]
    assert to["reason"] == (
        "decided by default: GlobalNetworkPolicy.projectcalico.org/allow-out egress rule 0 "
        "(allow) at manifests.yaml:23"
    )
    (admit,) = to["reachAdmittedBy"]
    assert (admit["name"], admit["rule"], admit["certain"]) == ("allow-out", 0, True)


def test_a_host_none_sandbox_has_no_host_line() -> None:
    outcome = _explain("explain-unisolated", ".", "--template", "task", "--to", "8.8.8.8:443")
    assert outcome.exit_code == 1
    assert "host's own verdict" not in outcome.stdout
    status, to = _to("explain-unisolated", "8.8.8.8:443")
    assert (status, to["verdict"], to["hostVerdict"], to["hostReason"]) == (
        1,
        "allowed",
        None,
        None,
    )


def test_a_pod_nothing_isolates_reaches_every_destination() -> None:
    outcome = _explain("explain-unisolated", ".", "--template", "task")
    assert outcome.exit_code == 0
    listing = outcome.stdout.split("What the selecting policies let out, by destination:\n")[1]
    assert listing.startswith(
        "  every destination: no policy puts the pod in egress default-deny, so it\n"
        "      reaches every destination\n"
    )
    assert "nothing" not in listing
    # No declaration: the template is judged as host none, so reach is the verdict.
    egress = _check("explain-unisolated").report["sandboxes"][0]["egress"]
    assert egress["union"] is None
    refusal = egress["reach"]["refusal"]
    assert refusal == "no-enforcing-policy"


def test_an_isolated_pod_with_no_rule_reaches_nothing(tmp_path: Any) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "explain-unisolated", copy)
    manifests = copy / "manifests.yaml"
    manifests.write_text(
        manifests.read_text(encoding="utf-8").replace("[Ingress]", "[Ingress, Egress]"),
        encoding="utf-8",
    )
    outcome = run_cli(["explain", ".", "--template", "task"], copy)
    assert "  nothing: no rule of a selecting policy admits any destination" in outcome.stdout
    assert "every destination" not in outcome.stdout


def test_an_egress_deny_of_everything_is_denied_and_kept_in_step_with_check() -> None:
    # check weighs the egressDeny rule: the pod is isolated, nothing refused.
    check = _check("cilium-egress-deny-all")
    assert check.exit_code == 0
    assert check.report["findings"] == []
    status, to = _to("cilium-egress-deny-all", "8.8.8.8:443")
    assert to["verdict"] == "denied"
    assert to["outsideVerdict"] == "denied"
    assert to["reason"] == (
        "decided by default: CiliumNetworkPolicy/lockdown egressDeny rule 0 (deny) "
        "at manifests.yaml:28"
    )
    assert [(h["name"], h["field"]) for h in to["deniedBy"]] == [("lockdown", "egressDeny")]
    assert status == 0
    assert to["allowance"]["routes"] == []


def test_the_headline_of_a_pod_nothing_isolates_says_every_destination() -> None:
    outcome = _explain("explain-unisolated", ".", "--template", "task", "--to", "8.8.8.8:443")
    lines = outcome.stdout.splitlines()
    at = lines.index("To 8.8.8.8:443: allowed")
    headline = " ".join(line.strip() for line in lines[at + 1 : at + 3])
    assert headline == (
        "nothing isolates the pod in any tier and no rule denies it anything, so it "
        "reaches every destination (the cluster's default allow)"
    )
    assert "nothing admits" not in outcome.stdout


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        # An AdminNetworkPolicy Deny before the NetworkPolicy that allows it.
        (
            "anp-deny-shadows-allow",
            'decided by kube-admin: AdminNetworkPolicy/deny-out egress rule 0 ("deny-all") '
            "(deny) at manifests.yaml:14",
        ),
        # A Pass into a BaselineAdminNetworkPolicy Deny.
        (
            "banp-pass-deny",
            'decided by kube-admin: AdminNetworkPolicy/pass-out egress rule 0 ("pass-all") '
            "(pass) at manifests.yaml:13; default: not isolated (pass); kube-baseline: "
            'BaselineAdminNetworkPolicy/default egress rule 0 ("deny-all") (deny) '
            "at manifests.yaml:26",
        ),
        # A Calico GlobalNetworkPolicy isolates a pod no NetworkPolicy does.
        ("calico-only-isolated", "decided by default: end of tier: Deny (deny)"),
    ],
)
def test_a_cluster_tier_deny_makes_the_headline_denied(scenario: str, reason: str) -> None:
    # The old per-NetworkPolicy headline said "allowed" for each of these.
    status, to = _to(scenario, "8.8.8.8:443")
    assert (status, to["verdict"], to["reason"]) == (0, "denied", reason)
    assert to["allowance"]["outside"] is False


def test_without_reach_the_headline_says_the_clusters_verdict_is_not_judged() -> None:
    # `verify: named-object-only`: check judges no reach, so there is no
    # model of the tiers; the headline says so instead of guessing from the
    # NetworkPolicies, and the host's own verdict follows.
    outcome = _explain("ingress-cidr-group", ".", "--template", "task", "--to", "8.8.8.8:443")
    assert outcome.exit_code == 0
    lines = outcome.stdout.splitlines()
    at = lines.index("To 8.8.8.8:443: unknown")
    assert lines[at + 1].startswith(
        "  not judged: the declaration says verify: named-object-only, so check judges no"
    )
    assert "  the namzu host's own verdict: denied" in lines[at + 2 : at + 4]
    status, to = _to("ingress-cidr-group", "8.8.8.8:443")
    assert (status, to["verdict"], to["hostVerdict"]) == (0, "unknown", "denied")
    assert (to["outsideVerdict"], to["decidingRules"], to["reachAdmittedBy"]) == (None, [], [])


def test_a_default_tier_pass_lands_in_the_profile() -> None:
    check = _check("calico-default-tier-pass")
    assert [f["ruleId"] for f in check.report["findings"]] == ["egress-reach-widens"]
    status, to = _to("calico-default-tier-pass", "8.8.8.8:443")
    assert (status, to["verdict"], to["hostVerdict"]) == (1, "allowed", "denied")
    assert to["allowance"]["outside"] is True
    (admit,) = to["reachAdmittedBy"]
    assert (admit["name"], admit["rule"], admit["certain"]) == ("pass-all", 0, True)
    assert "default allow" in admit["why"]
    assert to["reason"].startswith(
        "decided by default: GlobalNetworkPolicy.projectcalico.org/pass-all egress rule 0 (pass)"
    )
    assert to["reason"].endswith("default-allow: default allow: nothing bounds it (allow)")


def test_a_pass_in_a_tier_before_default_is_free(tmp_path: Any) -> None:
    # A tier ordered before `default` hands the destination on to the
    # default tier, where the NetworkPolicy isolation denies it: reach
    # judges the policy within, and the headline stays denied, naming both.
    copy = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "calico-default-tier-pass", copy)
    manifests = copy / "manifests.yaml"
    manifests.write_text(
        manifests.read_text(encoding="utf-8").replace(
            "  order: 10\n", "  tier: platform\n  order: 10\n"
        )
        + "---\napiVersion: projectcalico.org/v3\nkind: Tier\nmetadata: {name: platform}\n"
        "spec: {order: 100}\n",
        encoding="utf-8",
    )
    outcome = run_cli(
        ["explain", ".", "--template", "task", "--to", "8.8.8.8:443", "--format", "json"], copy
    )
    assert outcome.exit_code == 0
    to = json.loads(outcome.stdout)["to"]
    assert (to["verdict"], to["allowance"]["outside"]) == ("denied", False)
    assert to["reachAdmittedBy"] == []
    assert to["reason"].startswith(
        "decided by platform: GlobalNetworkPolicy.projectcalico.org/pass-all egress rule 0 (pass)"
    )
    assert to["reason"].endswith("; default: end of tier: Deny (deny)")


# --- workloads -----------------------------------------------------------------------


@pytest.mark.parametrize("workload", ["Deployment/api", "deployment/api"])
def test_workload_names_a_declared_workload(workload: str) -> None:
    by_kind = _explain("workload-deployment", ".", "--workload", workload, "--format", "json")
    by_name = _explain("workload-deployment", ".", "--template", "api", "--format", "json")
    assert by_kind.exit_code == by_name.exit_code == 0
    assert by_kind.stdout == by_name.stdout
    assert json.loads(by_kind.stdout)["sandbox"]["workload"] == {
        "kind": "Deployment",
        "name": "api",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--workload", "Deployment/nope"), "no workload Deployment/nope is declared"),
        (("--workload", "StatefulSet/api"), "declared workloads: Deployment/api (shop)"),
        (("--workload", "api"), "give KIND/NAME"),
        (("--workload", "Deployment/api", "--template", "api"), "give one of --template"),
        ((), "give one of --template"),
    ],
)
def test_workload_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    outcome = _explain("workload-deployment", ".", *args)
    assert outcome.exit_code == 2
    assert message in outcome.stderr
    assert outcome.stdout == ""


# --- renders: ------------------------------------------------------------------------


@pytest.fixture
def kustomize() -> None:
    if shutil.which("kustomize") is None and shutil.which("kubectl") is None:
        pytest.skip("neither kustomize nor kubectl is on the PATH")


@pytest.mark.usefixtures("kustomize")
def test_renders_environments_are_explained_as_check_renders_them() -> None:
    dev = _explain(
        "explain-renders", "--template", "task", "--environment", "dev", "--to", "8.8.8.8:443"
    )
    assert dev.exit_code == 1, dev.stderr
    assert "  rendered for the renders: environment dev\n" in dev.stdout
    text = " ".join(dev.stdout.split())
    assert "<kustomize build deploy/dev (dev)>" in text
    assert "default: NetworkPolicy/task-debug-egress egress rule 0 (allow) at" in text
    prod = _explain(
        "explain-renders",
        "--template",
        "task",
        "--environment",
        "prod",
        "--to",
        "8.8.8.8:443",
        "--format",
        "json",
    )
    assert prod.exit_code == 0, prod.stderr
    explained = json.loads(prod.stdout)
    assert explained["to"]["verdict"] == "denied"
    files = {p["file"] for p in explained["policies"]}
    assert files == {"<kustomize build deploy/prod (prod)>"}


@pytest.mark.usefixtures("kustomize")
def test_the_one_environment_that_renders_the_sandbox_needs_no_flag() -> None:
    helper = _explain("explain-renders", "--template", "helper", "--format", "json")
    assert helper.exit_code == 0, helper.stderr
    explained = json.loads(helper.stdout)
    assert explained["sandbox"]["declaredAt"].startswith(".egress-lint.yaml:")
    assert explained["sandbox"]["environment"] == "tools"
    assert explained["union"]["refusal"] == "no-enforcing-policy"


@pytest.mark.usefixtures("kustomize")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--template", "task"), "in several renders: environments (prod, dev); pick one"),
        (("--template", "task", "--environment", "nope"), "no renders: environment 'nope'"),
        ((".", "--template", "task", "--environment", "dev"), "--environment picks one"),
    ],
)
def test_renders_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    outcome = _explain("explain-renders", *args)
    assert outcome.exit_code == 2
    assert message in outcome.stderr
