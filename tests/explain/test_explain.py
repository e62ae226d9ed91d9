"""``egress-lint explain`` end to end: the demo's widening policy is named
as what admits the metadata address, and nothing does once it is gone;
explain agrees with check on every examined policy; uncertainty is said,
not guessed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from lint.cli.explain import explain_command
from tests.checks.scenario_runner import DEMO, run_cli


@click.group()
def cli() -> None:
    """A local group: the lead registers the command on the real one."""


cli.add_command(explain_command)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["explain", *args], catch_exceptions=False)


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--format", "json")
    # 1: a --to destination let out beyond the allowance (issue 13).
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of fixtures/demo as the current directory."""
    copy = tmp_path / "demo"
    shutil.copytree(DEMO, copy)
    monkeypatch.chdir(copy)
    return copy


def test_the_widening_policy_is_named_as_what_admits_the_metadata_address(demo: Path) -> None:
    result = run(".", "--template", "namzu-task", "--to", "169.254.169.254:80/TCP")
    assert result.exit_code == 1  # let out beyond the deny-all allowance
    # The cluster's verdict: an ipBlock may not match a pod's or node's
    # address, so only an address no pod or node holds is certainly allowed.
    assert "To 169.254.169.254:80/TCP: unknown" in result.stdout
    assert "  for an address no pod or node holds: allowed" in result.stdout
    assert (
        "NetworkPolicy/allow-instance-metadata egress rule 0 (widening-policy.yaml:15): "
        "169.254.169.254/32 on TCP 80" in " ".join(result.stdout.split())
    )


def test_without_the_widening_policy_nothing_admits_it(demo: Path) -> None:
    (demo / "widening-policy.yaml").unlink()
    result = run(".", "--template", "namzu-task", "--to", "169.254.169.254:80/TCP")
    assert result.exit_code == 0
    assert "To 169.254.169.254:80/TCP: denied" in result.stdout
    assert "decided by default: isolated, no rule allows it (deny):" in result.stdout
    to = run_json(".", "--template", "namzu-task", "--to", "169.254.169.254:80/TCP")["to"]
    assert (to["verdict"], to["admittedBy"], to["undecided"]) == ("denied", [], [])


def test_json_names_policy_rule_file_and_line(demo: Path) -> None:
    to = run_json(".", "--template", "namzu-task", "--to", "169.254.169.254:80/TCP")["to"]
    assert (to["verdict"], to["outsideVerdict"]) == ("unknown", "allowed")
    assert (
        "default: NetworkPolicy/allow-instance-metadata egress rule 0 (allow) "
        "at widening-policy.yaml:3" in to["decidingRules"]
    )
    (hit,) = to["admittedBy"]
    assert {k: hit[k] for k in ("kind", "name", "field", "rule", "file", "line")} == {
        "kind": "NetworkPolicy",
        "name": "allow-instance-metadata",
        "field": "egress",
        "rule": 0,
        "file": "widening-policy.yaml",
        "line": 15,
    }


@pytest.mark.parametrize(
    ("template", "path"),
    [("namzu-task", "direct"), ("namzu-build", "direct"), ("namzu-build", "pooled")],
)
def test_explain_and_check_agree_on_every_examined_policy(
    demo: Path, template: str, path: str
) -> None:
    report = run_cli(["check", ".", "--format", "json"], demo).report
    (sandbox,) = [s for s in report["sandboxes"] if (s["template"], s["path"]) == (template, path)]
    checked = [
        (e["kind"], e["name"], e["verdict"], e["detail"])
        for e in sandbox["egress"]["union"]["examined"]
    ]
    explained = run_json(".", "--template", template, "--path", path)
    assert [
        (p["kind"], p["name"], p["verdict"], p["detail"]) for p in explained["policies"]
    ] == checked
    assert explained["union"]["refusal"] == sandbox["egress"]["union"]["refusal"]
    assert explained["sandbox"]["podLabels"] == sandbox["podLabels"]


def test_the_listing_groups_what_each_policy_lets_out_by_destination(demo: Path) -> None:
    explained = run_json(".", "--template", "namzu-task")
    destinations = {
        d["destination"]: [(g["name"], g["ports"]) for g in d["grants"]]
        for d in explained["destinations"]
    }
    assert destinations == {
        "169.254.169.254/32": [("allow-instance-metadata", "TCP 80")],
        "pods {k8s-app=kube-dns} in namespaces {kubernetes.io/metadata.name=kube-system}": [
            ("namzu-sandbox-baseline", "UDP 53, TCP 53")
        ],
        "every pod in namespaces {kubernetes.io/metadata.name=kube-system}": [
            ("namzu-task-egress", "UDP 53, TCP 53")
        ],
    }
    text = run(".", "--template", "namzu-task").stdout
    assert "Policies that may select the pod (3 of 3 examined):" in text
    assert "What the selecting policies let out, by destination:" in text


def test_the_pooled_path_includes_the_controllers_policy(demo: Path) -> None:
    explained = run_json(".", "--template", "namzu-build", "--path", "pooled")
    synthesized = [p for p in explained["policies"] if p["origin"] == "synthesized"]
    assert [(p["name"], p["file"]) for p in synthesized] == [
        ("namzu-build-network-policy", "templates.yaml")
    ]
    # The rule is located in the SandboxTemplate's networkPolicy block.
    assert synthesized[0]["rules"][0]["line"] == 39


@pytest.mark.parametrize(
    ("to", "verdict", "phrase"),
    [
        ("api.github.com:443", "allowed", "host api.github.com on every port"),
        ("files.pypi.org:443", "allowed", "hosts matching *.pypi.org"),
        ("a.b.pypi.org:443", "denied", "isolated, no rule allows it"),
        ("10.96.0.10:53/UDP", "unknown", "cannot be resolved offline"),
        ("8.8.8.8:443", "unknown", "whatever api.github.com resolves to"),
    ],
)
def test_hostnames_and_addresses_under_a_cilium_allowlist(
    demo: Path, to: str, verdict: str, phrase: str
) -> None:
    result = run(".", "--template", "namzu-build", "--to", to)
    assert f"To {to}: {verdict}" in result.stdout
    assert phrase in result.stdout


def _tree(root: Path, declarations: str, manifests: str) -> None:
    (root / ".egress-lint.yaml").write_text(declarations, encoding="utf-8")
    (root / "manifests.yaml").write_text(manifests, encoding="utf-8")


DECLARED = "version: 1\ndefaultNamespace: ns\nsandboxes:\n  - {template: t, external: true, egress: {policy: {kind: deny-all}}}\n"
CILIUM_DECLARED = (
    "version: 1\ndefaultNamespace: ns\nsandboxes:\n"
    "  - {template: t, external: true, egress: {engine: cilium, policy: {kind: static, allowedHosts: [a.example]}}}\n"
)


def test_a_pod_no_policy_isolates_reaches_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, DECLARED, "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n")
    to = run_json(".", "--template", "t", "--to", "203.0.113.9:25")["to"]
    assert to["verdict"] == "allowed"
    assert "nothing isolates the pod" in to["reason"]
    assert "reaches every destination" in to["reason"]


def test_a_policy_that_cannot_be_read_makes_the_answer_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    manifests = (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        "metadata: {name: broken, namespace: ns}\nspec: null\n"
    )
    _tree(tmp_path, DECLARED, manifests)
    to = run_json(".", "--template", "t", "--to", "203.0.113.9:25")["to"]
    # Read or not, it cannot deny: if it does not isolate the pod, nothing
    # does, and the cluster's default allow lets the destination out.
    assert to["verdict"] == "allowed"
    assert "NetworkPolicy/broken the document (allow) at manifests.yaml:1" in to["reason"]
    assert to["unreadablePolicies"] == ["NetworkPolicy/broken"]


def test_a_selector_that_cannot_be_evaluated_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    manifests = (
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: odd, namespace: ns}\n"
        "spec:\n  endpointSelector: {matchLabels: {'reserved:host': ''}}\n"
        "  egress: [{toCIDR: [203.0.113.0/24]}]\n"
    )
    _tree(tmp_path, CILIUM_DECLARED, manifests)
    to = run_json(".", "--template", "t", "--to", "203.0.113.9:25")["to"]
    assert to["verdict"] == "unknown"
    assert "CiliumNetworkPolicy/odd: its endpointSelector" in to["reason"]


def test_an_egress_deny_rule_wins_over_an_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    manifests = (
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: open, namespace: ns}\n"
        "spec:\n  endpointSelector: {}\n  egress: [{toCIDR: [0.0.0.0/0]}]\n"
        "  egressDeny: [{toCIDR: [169.254.169.254/32]}]\n"
    )
    _tree(tmp_path, CILIUM_DECLARED, manifests)
    to = run_json(".", "--template", "t", "--to", "169.254.169.254:80")["to"]
    # A Cilium CIDR deny does not cover a pod's or node's address there.
    assert (to["verdict"], to["outsideVerdict"]) == ("unknown", "denied")
    assert "default: CiliumNetworkPolicy/open egressDeny rule 0 (deny)" in to["reason"]
    assert [(h["name"], h["field"]) for h in to["deniedBy"]] == [("open", "egressDeny")]
    other = run_json(".", "--template", "t", "--to", "8.8.8.8:53/UDP")["to"]
    assert (other["verdict"], other["outsideVerdict"]) == ("unknown", "allowed")


def test_read_cilium_always_widens_the_candidates(demo: Path) -> None:
    names = [
        p["name"]
        for p in run_json(".", "--template", "namzu-task", "--read-cilium", "always")["policies"]
    ]
    assert "namzu-build-egress" in names
    assert "namzu-build-egress" not in [
        p["name"] for p in run_json(".", "--template", "namzu-task")["policies"]
    ]


def test_without_a_declaration_file_the_default_intent_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(
        "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
        "metadata: {name: t, namespace: ns}\nspec: {podTemplate: {spec: {containers: []}}}\n",
        encoding="utf-8",
    )
    explained = run_json(".", "--template", "t")
    assert explained["egress"]["policyKind"] == "deny-all"
    assert explained["sandbox"]["declaredAt"] == "t.yaml:1 (no declaration file: default deny-all)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--template", "nope"), "declares no sandbox for template 'nope'"),
        (("--template", "namzu-task", "--profile", "p"), "has no declaration with profile 'p'"),
        (("--template", "namzu-task", "--to", "nowhere"), "needs a port"),
        (("--template", "namzu-task", "--path", "sideways"), "sideways"),
    ],
)
def test_usage_errors_exit_2(demo: Path, args: tuple[str, ...], message: str) -> None:
    result = run(".", *args)
    assert result.exit_code == 2
    assert message in result.stderr + result.stdout


def test_namespace_picks_among_declarations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    declarations = (
        "version: 1\nsandboxes:\n"
        "  - {template: t, namespace: a, external: true, egress: {policy: {kind: deny-all}}}\n"
        "  - {template: t, namespace: b, external: true, egress: {policy: {kind: no-network}}}\n"
    )
    _tree(tmp_path, declarations, "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    ambiguous = run(".", "--template", "t")
    assert ambiguous.exit_code == 2
    assert "declared in several namespaces (a, b)" in ambiguous.stderr
    assert (
        run_json(".", "--template", "t", "--namespace", "b")["egress"]["policyKind"] == "no-network"
    )
    missing = run(".", "--template", "t", "--namespace", "c")
    assert missing.exit_code == 2
    assert "in namespace 'c'" in missing.stderr
