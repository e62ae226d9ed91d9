"""``expect`` under ``host: none`` (issue 17): the named object must exist,
select the pod, enforce egress and stay inside the declared intent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.checks.scenario_runner import run_cli

DECLARATION = """\
version: 1
defaultNamespace: shop
sandboxes:
  - workload: {kind: Pod, name: worker}
    expect: {kind: NetworkPolicy, name: worker-egress}
    egress:
      allow:
        - to: [{ipBlock: {cidr: 10.0.0.0/8}}]
          ports: [{protocol: TCP, port: 443}]
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: shop, labels: {app: worker}}
spec: {containers: [{name: a, image: x}]}
"""


def _policy(selector: str, egress: str, types: str = "[Egress]") -> str:
    return f"""\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: worker-egress, namespace: shop}}
spec:
  podSelector: {selector}
  policyTypes: {types}
  egress: {egress}
"""


def _check(tmp_path: Path, manifests: str) -> dict[str, Any]:
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION, encoding="utf-8")
    (tmp_path / "manifests.yaml").write_text(manifests, encoding="utf-8")
    outcome = run_cli(["check", ".", "--format", "json"], tmp_path)
    report: dict[str, Any] = json.loads(outcome.stdout)
    return report


INSIDE = "[{to: [{ipBlock: {cidr: 10.1.0.0/16}}], ports: [{port: 443}]}]"


def test_an_expected_object_inside_the_intent_matches(tmp_path: Path) -> None:
    report = _check(tmp_path, POD + _policy("{matchLabels: {app: worker}}", INSIDE))
    [sandbox] = report["sandboxes"]
    assert sandbox["egress"]["named"]["result"] == "match"
    assert sandbox["egress"]["expected"] == {"kind": "NetworkPolicy", "name": "worker-egress"}
    assert report["findings"] == []


def test_a_missing_expected_object_is_found_at_the_declaration(tmp_path: Path) -> None:
    report = _check(tmp_path, POD)
    named = report["sandboxes"][0]["egress"]["named"]
    assert named["result"] == "missing"
    finding = next(f for f in report["findings"] if f["ruleId"] == "named-policy-missing")
    assert (finding["file"], finding["line"]) == (".egress-lint.yaml", 4)


@pytest.mark.parametrize(
    ("policy", "field", "line"),
    [
        (_policy("{matchLabels: {app: other}}", INSIDE), "selector", 10),
        (_policy("{matchLabels: {app: worker}}", INSIDE, "[Ingress]"), "policyTypes", 11),
        (
            _policy("{matchLabels: {app: worker}}", "[{to: [{ipBlock: {cidr: 0.0.0.0/0}}]}]"),
            "egress",
            12,
        ),
    ],
)
def test_an_expected_object_that_does_not_bound_the_pod_mismatches(
    tmp_path: Path, policy: str, field: str, line: int
) -> None:
    report = _check(tmp_path, POD + policy)
    named = report["sandboxes"][0]["egress"]["named"]
    assert (named["result"], named["field"]) == ("mismatch", field)
    finding = next(f for f in report["findings"] if f["ruleId"] == "named-policy-mismatch")
    assert (finding["file"], finding["line"]) == ("manifests.yaml", line)


def test_an_external_workload_takes_its_pod_labels_from_the_entry(tmp_path: Path) -> None:
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: shop\nsandboxes:\n"
        "  - workload: {kind: StatefulSet, name: db}\n    external: true\n"
        "    podLabels: {app: db}\n    egress: {allow: []}\n",
        encoding="utf-8",
    )
    (tmp_path / "manifests.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        "metadata: {name: db-egress, namespace: shop}\n"
        "spec: {podSelector: {matchLabels: {app: db}}, policyTypes: [Egress]}\n",
        encoding="utf-8",
    )
    outcome = run_cli(["check", ".", "--format", "json"], tmp_path)
    report = json.loads(outcome.stdout)
    [sandbox] = report["sandboxes"]
    assert sandbox["podLabels"] == {"app": "db"}
    # A workload's verdict is reach's, which lists the policies it examined
    # (issue 25); no union is reported.
    assert sandbox["egress"]["union"] is None
    assert sandbox["egress"]["reach"]["examined"][0]["verdict"] == "within"
    assert report["findings"] == [] and outcome.exit_code == 0
