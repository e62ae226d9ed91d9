"""A SandboxClaim's ``additionalPodMetadata.annotations`` are on its pod
(AGENT-SANDBOX §6), so reach's pod conditions (CLUSTER-POLICIES §7) read
them, and a condition one adds is reported at the claim."""

from __future__ import annotations

from pathlib import Path

from lint.checks.runner import CheckOptions, run_check
from lint.report.model import Report
from tests.checks.scenario_runner import SCENARIOS

SCENARIO = SCENARIOS / "reach-claim-secondary-network"
MANIFESTS = (SCENARIO / "manifests.yaml").read_text(encoding="utf-8")
POOL = """
---
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxWarmPool
metadata: {name: pool, namespace: sbx}
spec:
  sandboxTemplateRef: {name: task}
"""


def _reach_refusals(report: Report) -> dict[str, str | None]:
    refusals = {}
    for sandbox in report.sandboxes:
        assert sandbox.egress.reach is not None
        refusals[sandbox.ref.path] = sandbox.egress.reach.decision.refusal
    return refusals


DECLARATION = """version: 1
sandboxes:
  - template: task
    namespace: sbx
    egress: {policy: {kind: deny-all}}
"""
"""The namzu host's sandbox, as the scenario's tree without a declaration
file read before issue 25 (which judges undeclared templates as `host:
none`): its direct path and the host's named policy too."""


def _check(tmp_path: Path, text: str) -> Report:
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    config = tmp_path / ".egress-lint.yaml"
    config.write_text(DECLARATION, encoding="utf-8")
    return run_check(CheckOptions(paths=(str(tmp_path),), config=config))


def test_the_claims_pod_fails_closed_and_the_templates_own_does_not(tmp_path: Path) -> None:
    report = _check(tmp_path, MANIFESTS)
    assert _reach_refusals(report) == {"direct": None, "pooled": "not-evaluable"}


def test_the_finding_is_at_the_claims_annotation(tmp_path: Path) -> None:
    report = _check(tmp_path, MANIFESTS)
    [finding] = [f for f in report.findings if f.rule_id == "egress-reach-not-evaluable"]
    line = MANIFESTS.splitlines().index("      k8s.v1.cni.cncf.io/networks: macvlan-conf") + 1
    assert finding.location.line == line
    assert finding.subject is not None and finding.subject.kind == "SandboxClaim"


def test_a_claim_adding_no_label_still_adds_its_annotation_beside_a_pool(
    tmp_path: Path,
) -> None:
    # With a pool, a claim that adds no label shares the host's pod shape.
    report = _check(tmp_path, MANIFESTS + POOL)
    assert _reach_refusals(report)["pooled"] == "not-evaluable"


def test_without_the_annotation_nothing_fails(tmp_path: Path) -> None:
    text = MANIFESTS.replace("      k8s.v1.cni.cncf.io/networks: macvlan-conf", "      a: b")
    assert set(_reach_refusals(_check(tmp_path, text)).values()) == {None}


def test_an_unreadable_network_policy_management_fails_the_pooled_path_closed(
    tmp_path: Path,
) -> None:
    # The API server refuses any other value; whether the controller writes
    # its policy is unknown, so the pooled path cannot pass on it.
    text = MANIFESTS.replace(
        "networkPolicyManagement: Unmanaged", "networkPolicyManagement: [Unmanaged]"
    ).replace("      k8s.v1.cni.cncf.io/networks: macvlan-conf", "      a: b")
    report = _check(tmp_path, text)
    unions = {s.ref.path: s.egress.union for s in report.sandboxes}
    assert unions["direct"] is not None and unions["direct"].refusal is None
    pooled = unions["pooled"]
    assert pooled is not None and pooled.refusal == "not-evaluable"
    assert any("networkPolicyManagement" in (e.detail or "") for e in pooled.examined)
    ingress = {s.ref.path: s.ingress for s in report.sandboxes}["pooled"]
    assert ingress is not None and ingress.decision.refusal == "not-evaluable"
