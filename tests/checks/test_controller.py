"""The agent-sandbox controller as deployed (issue 14; AGENT-SANDBOX §6, §8):
its version and where it came from, the paths and pod labels it implies,
the upgrade hazard, collisions, duplicates and other vendors' templates."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lint.checks import sandbox_checks as runner
from lint.checks.controller import running_controllers
from lint.decision.constants import TEMPLATE_LABEL, UNKNOWN_LABEL_VALUE
from lint.decision.controller import (
    CLAIM_UID_LABEL,
    SANDBOX_NAME_HASH_LABEL,
    TEMPLATE_HASH_LABEL,
    WARM_POOL_LABEL,
    claim_policy,
    controller_policy,
)
from lint.decision.controller_versions import (
    COLUMNS,
    NEWEST,
    column_for,
    facts_for,
    parse_version,
)
from lint.decision.model import Tri
from lint.decision.selectors import match_selector
from lint.inventory import build_inventory
from lint.loading import load
from tests.checks.scenario_runner import SCENARIOS, run_cli, run_scenario

TEMPLATE: dict[str, Any] = {
    "metadata": {"name": "task"},
    "spec": {
        "podTemplate": {
            "metadata": {"labels": {"app": "a", TEMPLATE_HASH_LABEL: "forged"}},
            "spec": {},
        }
    },
}


def _path(report: dict[str, Any], path: str, claim: str | None = None) -> dict[str, Any]:
    found = [s for s in report["sandboxes"] if s["path"] == path and s.get("claim") == claim]
    assert len(found) == 1, [(s["path"], s.get("claim")) for s in report["sandboxes"]]
    return found[0]


def _synthesized(sandbox: dict[str, Any]) -> list[tuple[str, str]]:
    examined = sandbox["egress"]["union"]["examined"]
    return [(e["name"], e["verdict"]) for e in examined if e["origin"] == "synthesized"]


# --- §8 as data ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("v0.1.0", "up to v0.2.0"),
        ("v0.2.0", "up to v0.2.0"),
        ("0.2.1", "v0.2.1 - v0.4.6"),
        ("v0.3.10.post1", "v0.2.1 - v0.4.6"),
        ("v0.4.6", "v0.2.1 - v0.4.6"),
        ("v0.5.0", "v0.5.0 - v0.5.1"),
        ("v0.5.1", "v0.5.0 - v0.5.1"),
        ("v0.5.2", NEWEST.title),
        ("v0.5.6", NEWEST.title),
    ],
)
def test_each_version_falls_in_its_column(text: str, title: str) -> None:
    facts = facts_for(text)
    assert facts is not None and facts.column.title == title


@pytest.mark.parametrize("text", ["latest", "main", "v1.0.2", "v0.6.0", ""])
def test_a_version_past_or_outside_the_columns_matches_none(text: str) -> None:
    assert facts_for(text) is None


def test_refusal_to_overwrite_starts_inside_a_column() -> None:
    assert not (facts_for("v0.5.0") or pytest.fail()).refuses_overwrite
    assert (facts_for("v0.5.1") or pytest.fail()).refuses_overwrite
    assert not (facts_for("v0.4.6") or pytest.fail()).refuses_overwrite


def test_columns_are_contiguous_and_ordered() -> None:
    assert parse_version("v0.5.2-rc.1") == (0, 5, 2)
    for earlier, later in itertools.pairwise(COLUMNS):
        assert earlier.last < later.first
        assert column_for(earlier.last) is earlier and column_for(later.first) is later


def test_default_policy_follows_the_column() -> None:
    old = controller_policy(TEMPLATE, "ns", COLUMNS[1]) or pytest.fail()
    peer = old["spec"]["ingress"][0]["from"][0]
    assert peer == {"podSelector": {"matchLabels": {"app": "sandbox-router"}}}
    assert old["spec"]["egress"][0]["to"][1]["ipBlock"]["except"] == ["fc00::/7"]
    new = controller_policy(TEMPLATE, "ns", NEWEST) or pytest.fail()
    assert "namespaceSelector" in new["spec"]["ingress"][0]["from"][0]
    assert new["spec"]["egress"][0]["to"][1]["ipBlock"]["except"] == ["fc00::/7", "fe80::/10"]
    assert controller_policy(TEMPLATE, "ns", COLUMNS[0]) is None


def test_claim_era_writes_one_policy_per_claim_only_with_a_block() -> None:
    assert claim_policy(TEMPLATE, "c1", "ns") is None
    with_block = {**TEMPLATE, "spec": {**TEMPLATE["spec"], "networkPolicy": {"egress": []}}}
    policy = claim_policy(with_block, "c1", "ns") or pytest.fail()
    assert policy["metadata"]["name"] == "c1-network-policy"
    assert list(policy["spec"]["podSelector"]["matchLabels"]) == [CLAIM_UID_LABEL]
    unmanaged = {
        **with_block,
        "spec": {**with_block["spec"], "networkPolicyManagement": "Unmanaged"},
    }
    # Up to v0.2.0 the field does not exist: Unmanaged changes nothing.
    assert claim_policy(unmanaged, "c1", "ns") is not None


# --- a label present with an unknown value (CLUSTER-POLICIES §11) --------------------------

UNKNOWN = {SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE, "app": "a"}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ({"matchExpressions": [{"key": SANDBOX_NAME_HASH_LABEL, "operator": "Exists"}]}, Tri.YES),
        (
            {"matchExpressions": [{"key": SANDBOX_NAME_HASH_LABEL, "operator": "DoesNotExist"}]},
            Tri.NO,
        ),
        ({"matchLabels": {SANDBOX_NAME_HASH_LABEL: "abcd1234"}}, Tri.UNKNOWN),
        ({"matchLabels": {SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE}}, Tri.UNKNOWN),
        (
            {
                "matchExpressions": [
                    {"key": SANDBOX_NAME_HASH_LABEL, "operator": "In", "values": ["x"]}
                ]
            },
            Tri.UNKNOWN,
        ),
        (
            {
                "matchExpressions": [
                    {"key": SANDBOX_NAME_HASH_LABEL, "operator": "NotIn", "values": ["x"]}
                ]
            },
            Tri.UNKNOWN,
        ),
        # Another requirement that fails decides, whatever the value.
        ({"matchLabels": {SANDBOX_NAME_HASH_LABEL: "abcd1234", "app": "b"}}, Tri.NO),
    ],
)
def test_unknown_value_matches_only_on_existence(selector: Any, expected: Tri) -> None:
    assert match_selector(selector, UNKNOWN, cilium=False) is expected


def test_name_hash_exists_selector_selects_and_widens() -> None:
    outcome = run_scenario("name-hash-exists")
    sandbox = _path(outcome.report, "direct")
    assert sandbox["podLabels"][SANDBOX_NAME_HASH_LABEL] == UNKNOWN_LABEL_VALUE
    union = sandbox["egress"]["union"]
    assert union["refusal"] == "policy-widens-egress"
    assert "every-sandbox-out" in union["summary"]
    assert outcome.exit_code == 1


# --- paths and pod labels (AGENT-SANDBOX §6.2) ---------------------------------------------


def test_pooled_and_warm_labels_follow_the_newest_column() -> None:
    report = run_scenario("pooled-controller").report
    direct, pooled, warm = (_path(report, p)["podLabels"] for p in ("direct", "pooled", "warm"))
    assert direct == {TEMPLATE_LABEL: "task", SANDBOX_NAME_HASH_LABEL: UNKNOWN_LABEL_VALUE}
    assert pooled == {**direct, TEMPLATE_HASH_LABEL: "f448886c"}
    # An unclaimed pool pod carries no label the host's claim adds.
    assert TEMPLATE_LABEL not in warm
    assert warm[TEMPLATE_HASH_LABEL] == "f448886c"
    assert warm[WARM_POOL_LABEL] == "70bfe8e1"  # NameHash("task-pool"), computed by hand
    assert warm[SANDBOX_NAME_HASH_LABEL] == UNKNOWN_LABEL_VALUE


def test_a_claim_without_a_pool_makes_the_pooled_path() -> None:
    outcome = run_scenario("claim-only")
    assert [(s["path"], s.get("claim")) for s in outcome.report["sandboxes"]] == [
        ("direct", None),
        ("pooled", "job-1"),
    ]
    pooled = _path(outcome.report, "pooled", "job-1")
    assert _synthesized(pooled) == [("task-network-policy", "widens-egress")]
    assert outcome.report["findings"][0]["sandbox"]["claim"] == "job-1"


def test_claim_labels_are_judged_apart_and_named() -> None:
    report = run_scenario("claim-profile").report
    claimed = _path(report, "pooled", "research-1")
    assert claimed["podLabels"]["sandbox.namzu.ai/egress-profile"] == "internet"
    assert "sandbox.namzu.ai/egress-profile" not in _path(report, "pooled")["podLabels"]


def test_an_idle_pool_pod_of_an_unmanaged_template_has_no_enforcing_policy() -> None:
    outcome = run_scenario("warm-idle")
    assert _path(outcome.report, "pooled")["egress"]["union"]["refusal"] is None
    warm = _path(outcome.report, "warm")
    assert warm["egress"]["union"]["refusal"] == "no-enforcing-policy"
    assert [(f["ruleId"], f["sandbox"]["path"]) for f in outcome.report["findings"]] == [
        ("no-enforcing-egress-policy", "warm")
    ]


def test_declaring_fewer_paths_than_the_manifests_imply_warns() -> None:
    outcome = run_scenario("path-not-declared")
    assert [s["path"] for s in outcome.report["sandboxes"]] == ["direct"]
    messages = [f["message"] for f in outcome.report["findings"]]
    assert len(messages) == 2
    assert "pooled path" in messages[0] and "SandboxWarmPool 'task-pool'" in messages[0]
    assert "warm path" in messages[1] and "unclaimed" in messages[1]


# --- the version and its source -------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "pooled", "warning"),
    [
        # Up to v0.2.0: no default policy at all.
        ("v0.2.0", [], True),
        # v0.2.1-v0.4.6: the default selects only what writes the hash itself.
        ("v0.4.6", [("task-network-policy", "does-not-select")], True),
        # v0.5.0-v0.5.1: the hash is stripped from every pod (#1044).
        ("v0.5.0", [("task-network-policy", "does-not-select")], True),
        # v0.5.2+: every pooled pod carries it.
        ("v0.5.6", [("task-network-policy", "widens-egress")], False),
    ],
)
def test_each_version_column_gives_its_verdict(
    version: str, pooled: list[tuple[str, str]], warning: bool
) -> None:
    outcome = run_scenario(f"controller-{version}")
    report = outcome.report
    assert report["controller"]["version"] == version
    assert report["controller"]["source"] == "image-tag"
    assert (report["controller"]["file"], report["controller"]["line"]) == ("manifests.yaml", 11)
    assert _synthesized(_path(report, "pooled")) == pooled
    upgrade = [f for f in report["findings"] if f["ruleId"] == "controller-upgrade-widens"]
    assert bool(upgrade) is warning
    assert _path(report, "direct")["egress"]["union"]["refusal"] is None


def test_done_when_v0_5_0_warns_of_the_v0_5_2_upgrade_and_v0_5_6_refuses() -> None:
    old = run_scenario("controller-v0.5.0")
    # The idle pool pod is selected by nothing at v0.5.0: its own refusal.
    assert old.exit_code == 1
    assert _path(old.report, "warm")["egress"]["union"]["refusal"] == "no-enforcing-policy"
    warnings = [f for f in old.report["findings"] if f["sandbox"]["path"] == "pooled"]
    assert [f["ruleId"] for f in warnings] == ["controller-upgrade-widens"]
    assert "from v0.5.0 to v0.5.2" in warnings[0]["message"]
    assert '"cidr":"0.0.0.0/0"' in warnings[0]["message"]
    text = run_cli(["check", "."], SCENARIOS / "controller-v0.5.0").stdout
    assert text.startswith(
        "agent-sandbox controller v0.5.0 (from the image tag at manifests.yaml:11)\n"
    )
    new = run_scenario("controller-v0.5.6")
    assert new.exit_code == 1
    refused = [f for f in new.report["findings"] if f["sandbox"]["path"] == "pooled"]
    # At the SandboxTemplate, which holds the controller policy's rules.
    assert [(f["ruleId"], f["line"]) for f in refused] == [("egress-policy-widens", 16)]


def test_the_flag_beats_the_manifests_which_beat_the_declaration(tmp_path: Path) -> None:
    """Issue 28: the controller the manifests run is what the cluster gets, so
    its version comes before agentSandbox.version, which a warning names."""
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-v0.5.0", tree)
    flagged = run_cli(
        ["check", ".", "--format", "json", "--controller-version", "v0.5.6"], tree
    ).report
    assert (flagged["controller"]["version"], flagged["controller"]["source"]) == ("v0.5.6", "flag")
    assert "controller-versions-disagree" not in [f["ruleId"] for f in flagged["findings"]]
    declaration = tree / ".egress-lint.yaml"
    declaration.write_text(
        declaration.read_text(encoding="utf-8") + "agentSandbox: {version: v0.5.2}\n",
        encoding="utf-8",
    )
    declared = run_cli(["check", ".", "--format", "json"], tree).report
    assert declared["controller"] == {
        "version": "v0.5.0",
        "column": "v0.5.0 - v0.5.1",
        "source": "image-tag",
        "file": "manifests.yaml",
        "line": 11,
    }
    disagree = [f for f in declared["findings"] if f["ruleId"] == "controller-versions-disagree"]
    assert [(f["file"], f["line"], f["level"]) for f in disagree] == [
        (".egress-lint.yaml", 7, "warning")
    ]
    assert "agentSandbox.version is v0.5.2" in disagree[0]["message"]
    running = "controller v0.5.0 (Deployment agent-sandbox-system/agent-sandbox-controller at "
    assert running + "manifests.yaml:11)" in disagree[0]["message"]
    # Without the controller in the manifests, the declaration gives the version.
    manifests = tree / "manifests.yaml"
    manifests.write_text(manifests.read_text(encoding="utf-8").split("---\n", 1)[1])
    alone = run_cli(["check", ".", "--format", "json"], tree).report
    assert alone["controller"] == {
        "version": "v0.5.2",
        "column": NEWEST.title,
        "source": "declaration",
        "file": ".egress-lint.yaml",
        "line": 7,
    }


def test_a_declaration_naming_the_version_the_manifests_run_is_no_finding(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-v0.5.0", tree)
    declaration = tree / ".egress-lint.yaml"
    declaration.write_text(
        declaration.read_text(encoding="utf-8") + "agentSandbox: {version: '0.5.0'}\n",
        encoding="utf-8",
    )
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert report["controller"]["source"] == "image-tag"
    assert "controller-versions-disagree" not in [f["ruleId"] for f in report["findings"]]


def test_without_any_source_the_newest_column_is_assumed_and_said() -> None:
    report = run_scenario("pooled-controller").report
    assert report["controller"] == {
        "version": "v0.5.2+",
        "column": NEWEST.title,
        "source": "default",
        "file": None,
        "line": None,
    }


def test_a_tag_matching_no_column_warns_and_uses_the_newest() -> None:
    report = run_scenario("controller-version-unknown").report
    unknown = [f for f in report["findings"] if f["ruleId"] == "controller-version-unknown"]
    assert [(f["file"], f["line"]) for f in unknown] == [("manifests.yaml", 11)]
    assert "'v1.0.2'" in unknown[0]["message"]
    assert _synthesized(_path(report, "pooled")) == [("task-network-policy", "widens-egress")]


# --- collisions, duplicates and other vendors -------------------------------------------------


def test_a_declared_name_equal_to_the_controller_policy_is_a_declaration_error(
    tmp_path: Path,
) -> None:
    shutil.copy(SCENARIOS / "pooled-controller" / "manifests.yaml", tmp_path)
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: sbx\nsandboxes:\n  - template: task\n"
        "    egress:\n      policy: {kind: deny-all}\n"
        "      networkPolicyName: task-network-policy\n",
        encoding="utf-8",
    )
    outcome = run_cli(["check", "."], tmp_path)
    assert outcome.exit_code == 2
    assert ".egress-lint.yaml:7: sandboxes[0].egress.networkPolicyName" in outcome.stderr
    assert "Unmanaged" in outcome.stderr and "refusing" not in outcome.stderr
    assert "refuses to update a policy it does not own" in outcome.stderr
    # An Unmanaged template gets no controller policy: no collision.
    manifests = tmp_path / "manifests.yaml"
    manifests.write_text(
        manifests.read_text(encoding="utf-8").replace(
            "spec:\n  podTemplate", "spec:\n  networkPolicyManagement: Unmanaged\n  podTemplate", 1
        ),
        encoding="utf-8",
    )
    assert run_cli(["check", "."], tmp_path).exit_code != 2


@pytest.mark.parametrize("order", [("a-managed.yaml", "b-unmanaged.yaml"), ("b", "a")])
def test_duplicate_templates_are_all_judged_whatever_the_order(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    source = SCENARIOS / "duplicate-template"
    shutil.copytree(source, tmp_path / "tree")
    tree = tmp_path / "tree"
    if order == ("b", "a"):
        # The Managed copy read last instead of first.
        (tree / "a-managed.yaml").rename(tree / "z-managed.yaml")
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert _synthesized(_path(report, "pooled")) == [("task-network-policy", "widens-egress")]
    duplicates = [f for f in report["findings"] if f["ruleId"] == "duplicate-object"]
    assert len(duplicates) == 1 and "SandboxTemplate sbx/task" in duplicates[0]["message"]


def test_another_groups_sandbox_template_is_counted_and_skipped() -> None:
    outcome = run_scenario("foreign-template")
    assert outcome.exit_code == 0
    notes = [f for f in outcome.report["findings"] if f["ruleId"] == "foreign-sandbox-template"]
    assert [(f["level"], f["line"]) for f in notes] == [("note", 23)]
    assert "sandbox.example.com" in notes[0]["message"]
    assert [f["ruleId"] for f in outcome.report["findings"]] == ["foreign-sandbox-template"]


def test_a_selector_on_the_name_hash_value_fails_closed(tmp_path: Path) -> None:
    shutil.copytree(SCENARIOS / "name-hash-exists", tmp_path / "tree")
    manifests = tmp_path / "tree" / "manifests.yaml"
    manifests.write_text(
        manifests.read_text(encoding="utf-8").replace(
            "matchExpressions:\n      - {key: agents.x-k8s.io/sandbox-name-hash, operator: Exists}",
            "matchLabels: {agents.x-k8s.io/sandbox-name-hash: 1a2b3c4d}",
        ),
        encoding="utf-8",
    )
    report = run_cli(["check", ".", "--format", "json"], tmp_path / "tree").report
    union = _path(report, "direct")["egress"]["union"]
    assert union["refusal"] == "not-evaluable"
    verdicts = {e["name"]: e["verdict"] for e in union["examined"]}
    assert verdicts["every-sandbox-out"] == "not-evaluable"


def test_allowed_label_domains_exist_only_from_v0_5_0() -> None:
    new = run_scenario("label-domains").report
    assert "label-domain-not-allowed" in [f["ruleId"] for f in new["findings"]]
    old = run_scenario("label-domains", "--controller-version", "v0.4.6").report
    assert "label-domain-not-allowed" not in [f["ruleId"] for f in old["findings"]]


def test_controller_images_of_different_tags_assume_the_newest(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-v0.5.0", tree)
    text = (tree / "manifests.yaml").read_text(encoding="utf-8")
    deployment = text.split("---\n", 1)[0].replace(":v0.5.0", ":v0.4.6")
    (tree / "other.yaml").write_text(deployment, encoding="utf-8")
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert report["controller"]["source"] == "default"
    disagree = [f for f in report["findings"] if f["ruleId"] == "controller-versions-disagree"]
    assert len(disagree) == 1 and disagree[0]["level"] == "warning"
    assert (disagree[0]["file"], disagree[0]["line"]) == ("manifests.yaml", 11)
    message = disagree[0]["message"]
    assert (
        "v0.5.0 (Deployment agent-sandbox-system/agent-sandbox-controller at manifests.yaml:11)"
        in message
    )
    assert (
        "v0.4.6 (Deployment agent-sandbox-system/agent-sandbox-controller at other.yaml:11)"
        in message
    )
    assert "controller-version-unknown" not in [f["ruleId"] for f in report["findings"]]


def test_controllers_of_one_version_written_two_ways_agree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-v0.5.0", tree)
    text = (tree / "manifests.yaml").read_text(encoding="utf-8")
    deployment = text.split("---\n", 1)[0].replace(":v0.5.0", ":0.5.0")
    (tree / "other.yaml").write_text(deployment.replace("Deployment", "DaemonSet"))
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert (report["controller"]["version"], report["controller"]["source"]) == (
        "v0.5.0",
        "image-tag",
    )
    assert "controller-versions-disagree" not in [f["ruleId"] for f in report["findings"]]


def test_the_disagreeing_controllers_scenario_names_both() -> None:
    outcome = run_scenario("controller-versions-disagree")
    assert outcome.report["controller"]["source"] == "default"
    [finding] = outcome.report["findings"]
    assert (finding["ruleId"], finding["line"]) == ("controller-versions-disagree", 15)
    assert (
        "v0.5.0 (StatefulSet agent-sandbox-system/agent-sandbox-controller at"
        in (finding["message"])
    )
    assert (
        "v0.4.6 (Pod agent-sandbox-system/agent-sandbox-controller-old at manifests.yaml:22)"
        in (finding["message"])
    )


# --- the controller wherever it runs (issue 28) ------------------------------------------------


def test_done_when_a_v0_1_0_statefulset_writes_no_policy_and_the_pod_is_unbounded() -> None:
    outcome = run_scenario("controller-statefulset-v0.1.0")
    report = outcome.report
    assert report["controller"] == {
        "version": "v0.1.0",
        "column": "up to v0.2.0",
        "source": "image-tag",
        "file": "manifests.yaml",
        "line": 22,
    }
    for path in ("pooled", "warm"):
        reach = _path(report, path)["egress"]["reach"]
        assert reach["refusal"] == "no-enforcing-policy"
        assert reach["examined"] == []  # no controller-written policy at v0.1.0
    rules = [(f["ruleId"], f["sandbox"]["path"]) for f in report["findings"]]
    assert rules == [
        ("no-enforcing-egress-policy", "pooled"),
        ("no-enforcing-egress-policy", "warm"),
    ]
    assert outcome.exit_code == 1
    text = run_cli(["check", "."], SCENARIOS / "controller-statefulset-v0.1.0").stdout
    assert text.startswith(
        "agent-sandbox controller v0.1.0 (from the image tag at manifests.yaml:22)"
    )


def test_without_the_statefulset_the_newest_controller_writes_its_default(tmp_path: Path) -> None:
    """The contrast issue 28 reported: read from Deployments only, the v0.1.0
    StatefulSet was missed and a controller-written policy was reported."""
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-statefulset-v0.1.0", tree)
    manifests = tree / "manifests.yaml"
    manifests.write_text(manifests.read_text(encoding="utf-8").split("---\n", 1)[1])
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert report["controller"]["source"] == "default"
    assert [f["ruleId"] for f in report["findings"]] == ["egress-policy-widens"]


@pytest.mark.parametrize(
    ("kind", "pod"),
    [
        ("Deployment", ("spec", "template")),
        ("StatefulSet", ("spec", "template")),
        ("DaemonSet", ("spec", "template")),
        ("Pod", ()),
    ],
)
def test_a_digest_pinned_controller_takes_its_version_label(
    tmp_path: Path, kind: str, pod: tuple[str, ...]
) -> None:
    """An image pinned by digest says no version; the workload's
    app.kubernetes.io/version label (here on its pod template) does."""
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-statefulset-v0.1.0", tree)
    manifests = tree / "manifests.yaml"
    rest = manifests.read_text(encoding="utf-8").split("---\n", 1)[1]
    image = "registry.k8s.io/agent-sandbox/agent-sandbox-controller@sha256:" + "0" * 64
    pod_body: dict[str, Any] = {
        "metadata": {"labels": {"app.kubernetes.io/version": "0.1.0"}},
        "spec": {"containers": [{"name": "c", "image": image}]},
    }
    metadata = {"name": "ctl", "namespace": "agent-sandbox-system"}
    if pod:  # the label on the pod template, the workload's own metadata without it
        workload = {"apiVersion": "apps/v1", "kind": kind, "metadata": metadata}
        workload["spec"] = {"template": pod_body}
    else:  # a Pod is its own template
        pod_body["metadata"].update(metadata)
        workload = {"apiVersion": "v1", "kind": kind, **pod_body}
    document = json.dumps(workload)
    manifests.write_text(document + "\n---\n" + rest, encoding="utf-8")
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert report["controller"] == {
        "version": "0.1.0",
        "column": "up to v0.2.0",
        "source": "version-label",
        "file": "manifests.yaml",
        "line": 1,
    }
    text = run_cli(["check", "."], tree).stdout
    assert " ".join(text.split("\n\n", 1)[0].split()) == (
        "agent-sandbox controller 0.1.0 (from the app.kubernetes.io/version label at "
        "manifests.yaml:1)"
    )


def test_a_tag_that_is_no_version_yields_to_the_declaration(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "controller-statefulset-v0.1.0", tree)
    manifests = tree / "manifests.yaml"
    manifests.write_text(manifests.read_text(encoding="utf-8").replace(":v0.1.0", ":latest"))
    alone = run_cli(["check", ".", "--format", "json"], tree).report
    assert (alone["controller"]["version"], alone["controller"]["source"]) == (
        "latest",
        "image-tag",
    )
    assert "controller-version-unknown" in [f["ruleId"] for f in alone["findings"]]
    declaration = tree / ".egress-lint.yaml"
    declaration.write_text(
        declaration.read_text(encoding="utf-8") + "agentSandbox: {version: v0.1.0}\n",
        encoding="utf-8",
    )
    declared = run_cli(["check", ".", "--format", "json"], tree).report
    assert (declared["controller"]["version"], declared["controller"]["source"]) == (
        "v0.1.0",
        "declaration",
    )
    rules = {f["ruleId"] for f in declared["findings"]}
    assert not rules & {"controller-version-unknown", "controller-versions-disagree"}


def test_other_and_unreadable_deployments_are_skipped_unreported(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SCENARIOS / "pooled-controller", tree)
    (tree / "apps.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
        "spec: {template: {spec: {containers: [{name: w, image: nginx:1}]}}}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: agent-sandbox-controller}\n"
        "spec: {{ .Values.spec }}\n",
        encoding="utf-8",
    )
    report = run_cli(["check", ".", "--format", "json"], tree).report
    assert report["parseErrors"] == []
    assert report["controller"]["source"] == "default"


def test_only_a_path_with_a_decision_not_refused_yet_is_judged_under_newer_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The upgrade hazard is a decision refused later that is not refused
    now: the warm path, refused now (and without ingress), is judged once;
    direct and pooled, open now, again under v0.5.2, where pooled widens."""
    judged: list[tuple[str, str]] = []
    original = runner._check_variant

    def recording(ctx: Any, facts: Any, declared: Any, variant: Any) -> Any:
        judged.append((facts.version, variant.path))
        return original(ctx, facts, declared, variant)

    monkeypatch.setattr(runner, "_check_variant", recording)
    outcome = run_scenario("controller-v0.5.0")
    assert sorted(judged) == [
        ("v0.5.0", "direct"),
        ("v0.5.0", "pooled"),
        ("v0.5.0", "warm"),
        ("v0.5.2", "direct"),
        ("v0.5.2", "pooled"),
    ]
    hazards = [f["sandbox"]["path"] for f in outcome.report["findings"]]
    assert hazards.count("pooled") == 1 and "controller-upgrade-widens" in {
        f["ruleId"] for f in outcome.report["findings"]
    }


@pytest.mark.parametrize(
    ("kind", "pod"),
    [
        ("Deployment", "spec:\n  template:\n    spec:\n"),
        ("StatefulSet", "spec:\n  template:\n    spec:\n"),
        ("DaemonSet", "spec:\n  template:\n    spec:\n"),
        ("ReplicaSet", "spec:\n  template:\n    spec:\n"),
        ("Job", "spec:\n  template:\n    spec:\n"),
        ("CronJob", "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"),
        ("Pod", "spec:\n"),
    ],
)
def test_every_workload_kind_running_the_controller_gives_its_tag(
    tmp_path: Path, kind: str, pod: str
) -> None:
    """The tag is read where each kind keeps its pod, and located at the image line."""
    indent = " " * (len(pod.splitlines()[-1]) - len(pod.splitlines()[-1].lstrip()) + 2)
    text = (
        f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: c, namespace: ns}}\n{pod}"
        f"{indent}containers:\n{indent}  - name: sidecar\n{indent}    image: nginx:1\n"
        f"{indent}  - name: m\n{indent}    image: reg.io/x/agent-sandbox-controller:v0.4.6\n"
    )
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    inventory = build_inventory(load([str(tmp_path / "m.yaml")]).documents, "default")
    [running] = running_controllers(inventory)
    assert (running.version, running.source, running.workload) == (
        "v0.4.6",
        "image-tag",
        f"{kind} ns/c",
    )
    assert running.location.line == len(text.splitlines())
