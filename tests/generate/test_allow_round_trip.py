"""Issue 17's round trip: what ``generate`` writes for an ``allow`` intent
(or a policy kind under ``host: none``) checks clean against the same
declaration, for a template under either host and for a workload, with and
without ``allowHosts``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.checks.scenario_runner import run_cli

TEMPLATE = """\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: runner, namespace: agents}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate:
    metadata: {labels: {app: runner}}
    spec: {containers: [{name: a, image: x}]}
"""
DEPLOYMENT = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: agents}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: nightly}}
        spec: {containers: [{name: a, image: x}], restartPolicy: Never}
"""
RULES = """\
      allow:
        - to:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
              podSelector: {matchLabels: {k8s-app: kube-dns}}
          ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]
        - to: [{ipBlock: {cidr: 10.20.0.0/16, except: [10.20.5.0/24]}}]
          ports: [{port: 9000, endPort: 9100}]
"""
HOSTS = """\
      engine: cilium
      allowHosts: [api.example.com, {host: objects.example.com, ports: [443]}]
"""

CASES = {
    "namzu template": (TEMPLATE, "  - template: runner\n    egress:\n" + RULES, 1),
    "host none template": (
        TEMPLATE,
        "  - template: runner\n    host: none\n    egress:\n" + RULES,
        1,
    ),
    "host none, no egress at all": (
        TEMPLATE,
        "  - template: runner\n    host: none\n    egress: {allow: []}\n",
        1,
    ),
    "cronjob with hosts": (
        DEPLOYMENT,
        "  - workload: {kind: CronJob, name: nightly}\n    egress:\n" + RULES + HOSTS,
        2,
    ),
    "cronjob with a policy kind": (
        DEPLOYMENT,
        "  - workload: {kind: CronJob, name: nightly}\n    egress:\n"
        "      policy: {kind: public-internet, exceptCidrs: [203.0.113.0/24]}\n",
        1,
    ),
    # A rule with no `to` (every destination on its ports): the cluster's
    # reach bounds it by its ports, so it stays inside (issue 25).
    "workload, a rule without to": (
        DEPLOYMENT,
        "  - workload: {kind: CronJob, name: nightly}\n    egress:\n"
        "      allow: [{ports: [{protocol: TCP, port: 443}]}]\n",
        1,
    ),
    "namzu template with hosts": (
        TEMPLATE,
        "  - template: runner\n    egress:\n" + RULES + HOSTS,
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_objects_check_clean(tmp_path: Path, case: str) -> None:
    manifests, entries, written = CASES[case]
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: agents\nsandboxes:\n"
        + entries.replace("    egress:", "    ingress: unverified\n    egress:", 1),
        encoding="utf-8",
    )
    (tmp_path / "manifests.yaml").write_text(manifests, encoding="utf-8")
    generated = run_cli(["generate", ".", "--out", "generated"], tmp_path)
    assert generated.exit_code == 0, generated.stderr
    files = sorted((tmp_path / "generated").rglob("*.yaml"))
    assert len(files) == written
    checked = run_cli(["check", ".", "--format", "json"], tmp_path)
    report = json.loads(checked.stdout)
    # The public-internet allowance takes in the NAT64 prefixes: an advisory
    # about the intent (issue 15), which the translation copies; nothing else.
    advisories = [f for f in report["findings"] if f["ruleId"] == "nat-prefix-reaches-private"]
    assert len(advisories) == ("public-internet" in entries)
    rest = [f for f in report["findings"] if f not in advisories]
    assert rest == [], rest
    assert checked.exit_code == 0
    for sandbox in report["sandboxes"]:
        # Without a namzu host, reach is the verdict and lists every policy
        # the union would read (issue 25).
        decision = sandbox["egress"]["union"] or sandbox["egress"]["reach"]
        verdicts = {e["name"]: e["verdict"] for e in decision["examined"]}
        assert set(verdicts.values()) == {"within"}, verdicts


def test_a_generated_policy_selects_the_workloads_own_pods(tmp_path: Path) -> None:
    manifests, entries, _ = CASES["cronjob with hosts"]
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: agents\nsandboxes:\n" + entries, encoding="utf-8"
    )
    (tmp_path / "manifests.yaml").write_text(manifests, encoding="utf-8")
    outcome = run_cli(["generate", ".", "--stdout"], tmp_path)
    assert outcome.exit_code == 0, outcome.stderr
    assert "# Declared at .egress-lint.yaml:4 (sandboxes[0]): CronJob nightly." in outcome.stdout
    assert outcome.stdout.count("name: nightly-egress") == 2
    assert outcome.stdout.count("app: nightly") == 2
    assert "sandbox.namzu.ai/template" not in outcome.stdout
