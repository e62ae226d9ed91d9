"""The declared sandboxes of a run, resolved once (``lint.declarations.declared``)
and handed to every command by the front door (``lint.intake``)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.declarations.declared import DEFAULT_EGRESS
from lint.explain.command import ExplainOptions, run_explain
from lint.explain.selection import declared_at
from lint.generate.command import GenerateOptions, render_all
from lint.intake import take_in

TEMPLATE = """
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {{metadata: {{labels: {{app: {name}}}}}}}
"""

DECLARATION = """
version: 1
defaultNamespace: sandboxes
sandboxes:
  - template: task
    egress:
      engine: cilium
      verify: named-object-only
      profile: web
      policy: {kind: static, allowedHosts: [api.github.com]}
  - template: batch
    external: true
    ingress: unverified
    egress: {policy: {kind: no-network}}
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


@pytest.fixture
def overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No declaration file; template ``task`` applied twice (base, then an
    overlay), template ``other`` in a second namespace."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m" / "a-base.yaml", TEMPLATE.format(name="task", namespace="sandboxes"))
    _write(tmp_path / "m" / "b-overlay.yaml", TEMPLATE.format(name="task", namespace="sandboxes"))
    _write(tmp_path / "m" / "c-other.yaml", TEMPLATE.format(name="other", namespace="ops"))
    return tmp_path


def test_without_a_file_every_template_is_one_default_sandbox(overlay: Path) -> None:
    intake = take_in(CheckOptions(paths=("m",)))
    assert intake.declarations.defaults_applied
    by_template = {s.template: s for s in intake.sandboxes}
    assert sorted(by_template) == ["other", "task"]
    task = by_template["task"]
    # The copy applied last is the one the cluster holds.
    assert (task.file, task.line, task.namespace) == ("m/b-overlay.yaml", 1, "sandboxes")
    assert task.defaulted and task.index is None
    assert task.egress == DEFAULT_EGRESS
    assert task.translation.policy_kind == "deny-all"
    assert (task.engine, task.verify, task.union_verified) == ("core", "union", True)
    # Issue 25: nothing says a namzu host makes these pods: `host: none`,
    # no agent port, a translation selecting the pods' own labels and read
    # back by no host.
    assert task.host == "none"
    assert (task.agent_port, task.ingress_engine) == (None, None)
    assert not task.translation.named
    assert task.where == "m/b-overlay.yaml:1"
    assert by_template["other"].namespace == "ops"


def test_check_explain_and_generate_name_the_same_default(overlay: Path) -> None:
    report = run_check(CheckOptions(paths=("m",)))
    declared = {(s.ref.template, s.declaration.file, s.declaration.line) for s in report.sandboxes}
    assert ("task", "m/b-overlay.yaml", 1) in declared
    assert not any(file == "m/a-base.yaml" for _, file, _ in declared)

    explanation, _ = run_explain(ExplainOptions(template="task", paths=("m",)))
    assert declared_at(explanation.chosen) == (
        "m/b-overlay.yaml:1 (no declaration file: default deny-all)"
    )

    rendered = render_all(GenerateOptions(paths=("m",)))
    sources = {s.where for r in rendered for s in r.obj.sources if s.template == "task"}
    assert sources == {"m/b-overlay.yaml:1"}


def test_entries_are_the_file_s_own_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / ".egress-lint.yaml", DECLARATION)
    _write(tmp_path / "m" / "t.yaml", TEMPLATE.format(name="task", namespace="sandboxes"))
    intake = take_in(CheckOptions(paths=("m",)))
    assert intake.sandboxes == intake.declarations.entries
    task, batch = intake.sandboxes
    assert (task.index, task.where) == (0, ".egress-lint.yaml:4 (sandboxes[0])")
    assert (task.engine, task.verify, task.union_verified, task.profile) == (
        "cilium",
        "named-object-only",
        False,
        "web",
    )
    assert task.translation.kind == "CiliumNetworkPolicy"
    assert (batch.external, batch.agent_port, batch.ingress_engine) == (True, None, None)
    # The one translation is the one check reports on.
    report = run_check(CheckOptions(paths=("m",)))
    egress = {s.ref.template: s.egress for s in report.sandboxes}
    assert egress["task"].expected_name == task.translation.name
    assert egress["task"].union is None  # named-object-only: no union judged
    assert egress["task"].verify == "named-object-only"


def test_objects_without_a_namespace_go_where_the_file_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / ".egress-lint.yaml", DECLARATION)
    text = TEMPLATE.format(name="task", namespace="x").replace(", namespace: x", "")
    _write(tmp_path / "m" / "t.yaml", text)
    assert (
        take_in(CheckOptions(paths=("m",)))
        .inventory.namespace("sandboxes")
        .named("SandboxTemplate", "task")
    )
    overridden = take_in(CheckOptions(paths=("m",), namespace="elsewhere"))
    assert overridden.inventory.namespace("elsewhere").named("SandboxTemplate", "task")
    assert {s.namespace for s in overridden.sandboxes} == {"elsewhere"}


def test_the_default_is_written_once() -> None:
    """No other module spells the no-declaration default."""
    lint = Path(__file__).resolve().parents[2] / "lint"
    spelled = [
        str(path.relative_to(lint))
        for path in lint.rglob("*.py")
        if '"deny-all"}, "engine": "core"' in path.read_text(encoding="utf-8")
    ]
    assert spelled == ["declarations/declared.py"]
    assert json.dumps(DEFAULT_EGRESS) == '{"policy": {"kind": "deny-all"}, "engine": "core"}'
