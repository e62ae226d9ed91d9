"""explain for issue 17's targets and intents: a workload, chosen by its
name with --template, and a host: none template with an allow intent."""

from __future__ import annotations

import json

from tests.checks.scenario_runner import SCENARIOS, run_cli


def _explain(scenario: str, *args: str) -> str:
    outcome = run_cli(["explain", ".", *args], SCENARIOS / scenario)
    assert outcome.exit_code == 0, outcome.stderr
    return outcome.stdout


def test_a_workload_is_explained_with_its_pod_template_labels() -> None:
    text = _explain("workload-deployment", "--template", "api")
    assert text.startswith("Sandbox Deployment api in shop, path direct\n")
    assert "expects NetworkPolicy/api-egress" in text
    assert "pod labels: app=api, tier=backend" in text
    assert "NetworkPolicy/backend-https-out: widens-egress" in text
    document = json.loads(_explain("workload-deployment", "--template", "api", "--format", "json"))
    assert document["sandbox"]["workload"] == {"kind": "Deployment", "name": "api"}
    assert document["sandbox"]["host"] == "none"
    assert document["egress"]["policyKind"] == "allow"


def test_a_host_none_template_expects_no_object_and_has_no_namzu_label() -> None:
    document = json.loads(
        _explain(
            "allow-chart",
            "--template",
            "runner",
            "--path",
            "pooled",
            "--to",
            "169.254.169.254:80",
            "--format",
            "json",
        )
    )
    assert document["egress"]["expected"] is None
    # The controller's policy excepts link-local, and the allow names no address.
    assert (document["to"]["verdict"], document["to"]["admittedBy"]) == ("denied", [])
    assert "app.kubernetes.io/name" in document["sandbox"]["podLabels"]
    assert "sandbox.namzu.ai/template" not in document["sandbox"]["podLabels"]
    text = _explain("allow-chart", "--template", "runner")
    assert "expects no named object (host: none)" in text
    # Issue 25: a `host: none` template has no direct path; the first path
    # its pods take is the pooled one.
    assert text.startswith("Sandbox runner in agents, path pooled\n")
