"""``ingress.reach`` gives one finding per culprit (issue 13), each at its
own object, and the first reads as the decision's summary."""

from __future__ import annotations

from pathlib import Path

from lint.checks.runner import CheckOptions, run_check
from tests.checks.scenario_runner import SCENARIOS

MANIFESTS = (SCENARIOS / "reach-antrea-cluster-policy" / "manifests.yaml").read_text(
    encoding="utf-8"
)
SECOND = """
---
apiVersion: crd.antrea.io/v1beta1
kind: ClusterNetworkPolicy
metadata: {name: antrea-second}
spec:
  priority: 6
  appliedTo:
    - namespaceSelector: {}
  ingress:
    - action: Allow
"""


def test_every_undecided_object_gets_its_own_ingress_finding(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(MANIFESTS + SECOND, encoding="utf-8")
    # The namzu host's sandbox, whose agent port is checked: without a
    # declaration file a template is `host: none`, with none (issue 25).
    config = tmp_path / ".egress-lint.yaml"
    config.write_text(
        "version: 1\nsandboxes:\n  - template: task\n    namespace: sbx\n"
        "    egress: {policy: {kind: deny-all}}\n",
        encoding="utf-8",
    )
    report = run_check(CheckOptions(paths=(str(tmp_path),), config=config))
    findings = [f for f in report.findings if f.rule_id == "ingress-not-evaluable"]
    names = sorted(f.subject.name for f in findings if f.subject is not None)
    assert names == ["antrea-allow", "antrea-second"]
    assert len({f.location.line for f in findings}) == 2
    [sandbox] = report.sandboxes
    assert sandbox.ingress is not None and sandbox.ingress.reach is not None
    summary = sandbox.ingress.reach.summary
    assert summary is not None and any(f.message == summary for f in findings)
