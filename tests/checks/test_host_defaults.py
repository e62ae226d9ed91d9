"""Defaults that fit the user's host (issue 25, item 6): without a namzu
host, only the paths a template's pods can take are judged, and the namzu
host's own checks (profiles on claims) do not apply."""

from __future__ import annotations

from pathlib import Path

from lint.checks.runner import CheckOptions, run_check
from lint.decision.constants import DEFAULT_PROFILE_LABEL
from lint.intake import take_in
from lint.inventory import Namespace
from lint.sandboxes import WITHOUT_HOST, implied_paths

TEMPLATE = """\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: task, namespace: sbx}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {spec: {containers: [{name: a, image: x}]}}
"""
CLAIM = f"""\
---
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxClaim
metadata: {{name: job-1, namespace: sbx}}
spec:
  sandboxTemplateRef: {{name: task}}
  additionalPodMetadata:
    labels: {{{DEFAULT_PROFILE_LABEL}: research}}
"""


def _namespace(tmp_path: Path, text: str) -> Namespace:
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    return take_in(CheckOptions(paths=(str(tmp_path),))).inventory.namespace("sbx")


def test_the_direct_path_is_the_namzu_hosts_own(tmp_path: Path) -> None:
    namespace = _namespace(tmp_path, TEMPLATE)
    assert list(implied_paths(namespace, "task")) == ["direct"]
    assert implied_paths(namespace, "task", "none") == {"pooled": WITHOUT_HOST}


def test_a_claimed_template_without_a_host_is_pooled_only(tmp_path: Path) -> None:
    namespace = _namespace(tmp_path, TEMPLATE + CLAIM)
    assert list(implied_paths(namespace, "task")) == ["direct", "pooled"]
    paths = implied_paths(namespace, "task", "none")
    assert list(paths) == ["pooled"]
    assert "SandboxClaim 'job-1'" in paths["pooled"]


def test_without_a_declaration_a_claims_profile_label_is_no_finding(tmp_path: Path) -> None:
    """The profile label is the namzu host's: without a declaration file no
    template is the host's, so a claim carrying one is not flagged."""
    (tmp_path / "m.yaml").write_text(TEMPLATE + CLAIM, encoding="utf-8")
    report = run_check(CheckOptions(paths=(str(tmp_path),)))
    assert report.defaults_applied
    assert "claim-profile-undeclared" not in {f.rule_id for f in report.findings}
    assert "named-policy-missing" not in {f.rule_id for f in report.findings}
    assert [(s.ref.path, s.host) for s in report.sandboxes] == [("pooled", "none")]
    # Declared for the namzu host, the same claim's profile is a finding.
    config = tmp_path / ".egress-lint.yaml"
    config.write_text(
        "version: 1\nsandboxes:\n  - template: task\n    namespace: sbx\n"
        "    egress: {policy: {kind: deny-all}}\n",
        encoding="utf-8",
    )
    declared = run_check(CheckOptions(paths=(str(tmp_path),), config=config))
    assert "claim-profile-undeclared" in {f.rule_id for f in declared.findings}
