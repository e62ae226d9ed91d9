"""agent-sandbox objects against their CRDs' fields (issue 28; AGENT-SANDBOX
§3): a missing required field is an error at the object's line, an unknown
field a warning at its own line naming the nearest known one."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks.agent_sandbox_fields import SPECS, invalid_agent_sandbox_objects
from lint.inventory import build_inventory
from lint.loading import load
from tests.checks.scenario_runner import run_scenario

EXT = "extensions.agents.x-k8s.io"


def _findings(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    inventory = build_inventory(load([str(path)]).documents, "sbx")
    found = invalid_agent_sandbox_objects(inventory)
    return sorted((f.rule_id, f.location.line, f.message) for f in found)


def _rules(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    return [(rule_id, line) for rule_id, line, _ in _findings(tmp_path, text)]


def test_done_when_spec_template_is_an_error_and_a_warning_naming_pod_template() -> None:
    outcome = run_scenario("agent-sandbox-invalid")
    found = [(f["ruleId"], f["level"], f["line"]) for f in outcome.report["findings"]]
    assert found == [
        ("agent-sandbox-invalid", "error", 4),  # the object's line
        ("agent-sandbox-unknown-field", "warning", 8),  # the line of `template:`
    ]
    error, warning = (f["message"] for f in outcome.report["findings"])
    assert "SandboxTemplate sbx/task" in error and "has no spec.podTemplate" in error
    assert "spec.template is not a field" in warning
    assert "did you mean spec.podTemplate?" in warning
    assert outcome.exit_code == 1


VALID = f"""apiVersion: {EXT}/v1beta1
kind: SandboxTemplate
metadata: {{name: t}}
spec:
  podTemplate: {{metadata: {{labels: {{a: b}}}}, spec: {{containers: []}}}}
  networkPolicy: {{ingress: [], egress: []}}
  networkPolicyManagement: Managed
  volumeClaimTemplatesPolicy: Allowed
---
apiVersion: {EXT}/v1beta1
kind: SandboxWarmPool
metadata: {{name: p}}
spec: {{sandboxTemplateRef: {{name: t}}, updateStrategy: {{type: Recreate}}}}
---
apiVersion: {EXT}/v1beta1
kind: SandboxClaim
metadata: {{name: c}}
spec:
  warmPoolRef: {{name: p}}
  additionalPodMetadata: {{labels: {{a: b}}}}
  lifecycle: {{shutdownPolicy: Delete}}
---
apiVersion: {EXT}/v1alpha1
kind: SandboxClaim
metadata: {{name: d}}
spec: {{sandboxTemplateRef: {{name: t}}, warmpool: none}}
---
apiVersion: {EXT}/v1alpha1
kind: SandboxWarmPool
metadata: {{name: q}}
spec: {{sandboxTemplateRef: {{name: t}}, replicas: 0}}
---
apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata: {{name: s}}
spec: {{podTemplate: {{spec: {{}}}}, operatingMode: Running, shutdownPolicy: Retain}}
---
apiVersion: agents.x-k8s.io/v1alpha1
kind: Sandbox
metadata: {{name: r}}
spec: {{podTemplate: {{spec: {{}}}}, replicas: 1}}
"""


def test_objects_the_crds_accept_give_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, VALID) == []


@pytest.mark.parametrize(
    ("document", "missing"),
    [
        (f"apiVersion: {EXT}/v1beta1\nkind: SandboxTemplate\nspec: {{}}\n", "spec.podTemplate"),
        (f"apiVersion: {EXT}/v1alpha1\nkind: SandboxTemplate\n", "spec.podTemplate"),
        (
            f"apiVersion: {EXT}/v1beta1\nkind: SandboxTemplate\nspec: {{podTemplate: {{}}}}\n",
            "spec.podTemplate.spec",
        ),
        (
            f"apiVersion: {EXT}/v1beta1\nkind: SandboxWarmPool\nspec: {{}}\n",
            "spec.sandboxTemplateRef",
        ),
        (
            f"apiVersion: {EXT}/v1beta1\nkind: SandboxWarmPool\nspec: {{sandboxTemplateRef: {{}}}}\n",
            "spec.sandboxTemplateRef.name",
        ),
        # replicas has no default in v1alpha1 only
        (
            f"apiVersion: {EXT}/v1alpha1\nkind: SandboxWarmPool\n"
            "spec: {sandboxTemplateRef: {name: t}}\n",
            "spec.replicas",
        ),
        (
            f"apiVersion: {EXT}/v1beta1\nkind: SandboxClaim\nspec: {{warmPoolRef: null}}\n",
            "spec.warmPoolRef",
        ),
        (
            f"apiVersion: {EXT}/v1alpha1\nkind: SandboxClaim\nspec: {{}}\n",
            "spec.sandboxTemplateRef",
        ),
        ("apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nspec: {}\n", "spec.podTemplate"),
    ],
)
def test_a_missing_required_field_is_an_error_at_the_object(
    tmp_path: Path, document: str, missing: str
) -> None:
    text = "# a comment first\n" + document.replace("\n", "\nmetadata: {name: o}\n", 1)
    found = _findings(tmp_path, text)
    assert [(rule_id, line) for rule_id, line, _ in found] == [("agent-sandbox-invalid", 2)]
    assert f"has no {missing}, which" in found[0][2]


def test_a_v1beta1_claim_with_a_template_ref_is_refused_and_the_ref_named(
    tmp_path: Path,
) -> None:
    """v1beta1 claims name a warm pool; a direct template ref is v1alpha1's."""
    text = f"apiVersion: {EXT}/v1beta1\nkind: SandboxClaim\nmetadata: {{name: c}}\nspec:\n"
    text += "  sandboxTemplateRef: {name: t}\n"
    found = _findings(tmp_path, text)
    assert [(r, line) for r, line, _ in found] == [
        ("agent-sandbox-invalid", 1),
        ("agent-sandbox-unknown-field", 5),
    ]
    assert "has no spec.warmPoolRef" in found[0][2]
    assert "spec.sandboxTemplateRef is not a field" in found[1][2]


@pytest.mark.parametrize(
    ("spec", "unknown", "hint"),
    [
        # networkPolicy takes only ingress and egress: the controller sets the rest.
        (
            "{podTemplate: {spec: {}}, networkPolicy: {podSelector: {}, egress: []}}",
            "spec.networkPolicy.podSelector",
            "the fields known there are egress, ingress",
        ),
        (
            "{podTemplate: {spec: {}}, networkPolicyManagment: Unmanaged}",
            "spec.networkPolicyManagment",
            "did you mean spec.networkPolicyManagement?",
        ),
        (
            "{podTemplate: {labels: {a: b}, spec: {}}}",
            "spec.podTemplate.labels",
            "the fields known there are metadata, spec",
        ),
    ],
)
def test_an_unknown_field_is_a_warning_at_its_line(
    tmp_path: Path, spec: str, unknown: str, hint: str
) -> None:
    text = f"apiVersion: {EXT}/v1beta1\nkind: SandboxTemplate\nmetadata: {{name: t}}\n"
    text += f"spec: {spec}\n"
    found = _findings(tmp_path, text)
    assert [(r, line) for r, line, _ in found] == [("agent-sandbox-unknown-field", 4)]
    assert f"{unknown} is not a field" in found[0][2] and found[0][2].endswith(hint)


def test_fields_differ_by_version(tmp_path: Path) -> None:
    """volumeClaimTemplatesPolicy is v1beta1's; a v1alpha1 Sandbox has
    replicas where v1beta1 has operatingMode."""
    text = (
        f"apiVersion: {EXT}/v1alpha1\nkind: SandboxTemplate\nmetadata: {{name: t}}\n"
        "spec: {podTemplate: {spec: {}}, volumeClaimTemplatesPolicy: Allowed}\n---\n"
        "apiVersion: agents.x-k8s.io/v1alpha1\nkind: Sandbox\nmetadata: {name: s}\n"
        "spec: {podTemplate: {spec: {}}, operatingMode: Running}\n---\n"
        "apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata: {name: u}\n"
        "spec: {podTemplate: {spec: {}}, replicas: 1}\n"
    )
    assert _rules(tmp_path, text) == [
        ("agent-sandbox-unknown-field", 4),
        ("agent-sandbox-unknown-field", 9),
        ("agent-sandbox-unknown-field", 14),
    ]


def test_versions_and_groups_the_crds_do_not_serve_are_not_checked(tmp_path: Path) -> None:
    text = (
        f"apiVersion: {EXT}/v2\nkind: SandboxTemplate\nmetadata: {{name: a}}\nspec: {{}}\n---\n"
        "apiVersion: other.example.com/v1\nkind: SandboxTemplate\nmetadata: {name: b}\n"
        "spec: {template: {}}\n---\n"
        "apiVersion: other.example.com/v1\nkind: SandboxClaim\nmetadata: {name: c}\nspec: {}\n"
    )
    assert _findings(tmp_path, text) == []


def test_the_table_covers_every_kind_and_served_version() -> None:
    kinds = {"SandboxTemplate", "SandboxWarmPool", "SandboxClaim", "Sandbox"}
    assert set(SPECS) == {(kind, v) for kind in kinds for v in ("v1beta1", "v1alpha1")}
