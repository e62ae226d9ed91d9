"""``egress-lint init`` (issue 29): a starter declaration from the manifests.

Each tree's output is pinned in ``expected/`` (rewrite them with
``EGRESS_LINT_RECORD_INIT=1 python -m pytest tests/init``, and read the
difference), and ``check`` runs with each: exit 0 or 1, never 2. init never
overwrites a file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner, Result

from lint.cli import main
from lint.declarations import load_declarations
from lint.render import HelmRender

REPO = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).with_name("expected")
DECLARATION = ".egress-lint.yaml"
RECORD = os.environ.get("EGRESS_LINT_RECORD_INIT") == "1"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> Path:
    """A copy of a fixture tree without its declaration, as the current directory."""
    copy = tmp_path / "tree"
    shutil.copytree(REPO / "fixtures" / source, copy)
    (copy / DECLARATION).unlink(missing_ok=True)
    monkeypatch.chdir(copy)
    return copy


def pinned(name: str, written: Path) -> str:
    text = written.read_text(encoding="utf-8")
    expected = EXPECTED / f"{name}.yaml"
    if RECORD:
        expected.write_text(text, encoding="utf-8")
    assert text == expected.read_text(encoding="utf-8")
    return text


def needs_kustomize() -> None:
    if shutil.which("kustomize") is None and shutil.which("kubectl") is None:
        pytest.skip("neither kustomize nor kubectl is on the PATH")


@pytest.mark.parametrize(("source", "exit_code"), [("demo", 1), ("init/workload", 0)])
def test_init_writes_a_declaration_check_runs_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, exit_code: int
) -> None:
    copy = tree(tmp_path, monkeypatch, source)
    written = invoke("init")
    assert written.exit_code == 0, written.output
    assert written.output == "wrote .egress-lint.yaml: review it, then run `egress-lint check`\n"
    pinned(source.replace("/", "-"), copy / DECLARATION)
    checked = invoke("check")
    assert checked.exit_code == exit_code, checked.output
    assert "declarations: .egress-lint.yaml" in checked.output


def test_demo_intent_is_read_back_from_the_hosts_policies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The namzu host's named policies read back as the demo's own
    declaration says: deny-all, and static hosts under Cilium; the widening
    policy is still found."""
    copy = tree(tmp_path, monkeypatch, "demo")
    assert invoke("init").exit_code == 0
    entries = {
        e.template: e
        for e in load_declarations(copy / DECLARATION, namespace_override=None).entries
    }
    assert entries["namzu-task"].host == "namzu"
    assert entries["namzu-task"].egress["policy"] == {"kind": "deny-all"}
    build = entries["namzu-build"].egress
    assert build["engine"] == "cilium"
    assert build["policy"] == {"kind": "static", "allowedHosts": ["api.github.com", ".pypi.org"]}
    checked = invoke("check", "--format", "github")
    assert "egress-policy-widens" in checked.output
    assert "named-policy" not in checked.output


def test_overlay_is_rendered_and_listed_under_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_kustomize()
    copy = tree(tmp_path, monkeypatch, "init/overlay")
    written = invoke("init", "--kustomize", "overlays/dev")
    assert written.exit_code == 0, written.output
    text = pinned("init-overlay", copy / DECLARATION)
    assert "host: none" in text
    checked = invoke("check")  # a bare check renders the environment
    assert checked.exit_code == 0, checked.output
    # host: none: the pods come through claims and pools, never the direct path.
    assert "ok   agents-dev/coder [pooled path] in dev" in checked.output


def test_overlay_without_a_render_flag_names_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is rendered without a flag: with nothing else to declare it
    is a usage error naming the overlay (not its base) to render."""
    copy = tree(tmp_path, monkeypatch, "init/overlay")
    result = invoke("init")
    assert result.exit_code == 2
    assert "nothing to declare" in result.output
    assert "`egress-lint init --kustomize overlays/dev`" in result.output
    assert "base" not in result.output
    assert not (copy / DECLARATION).exists()


def test_a_render_flag_with_paths_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: check reads PATHs beside a render, but init would declare
    the render alone under renders:, where a bare check never reads the
    PATHs: it refuses them, before anything is rendered or written."""
    copy = tree(tmp_path, monkeypatch, "init/overlay")
    result = invoke("init", "--kustomize", "overlays/dev", "overlays")
    assert result.exit_code == 2
    assert "give no PATH with it" in result.output
    assert not (copy / DECLARATION).exists()


def test_renders_lists_charts_and_overlays_but_no_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tree(tmp_path, monkeypatch, "init/workload")
    shutil.copytree(REPO / "fixtures" / "init" / "overlay", copy / "deploy")
    shutil.copytree(REPO / "fixtures" / "render" / "charts", copy / "charts")
    (copy / "out").mkdir()
    result = invoke("init", "--output", "out/declaration.yaml")
    assert result.exit_code == 0, result.output
    assert "then run `egress-lint check --config out/declaration.yaml`" in result.output
    declarations = load_declarations(copy / "out" / "declaration.yaml", namespace_override=None)
    renders = {r.name: (r.spec.tool, r.spec.target) for r in declarations.renders}
    assert renders == {
        "sandboxes": ("helm", "charts/sandboxes"),
        "dev": ("kustomize", "deploy/overlays/dev"),
    }
    text = (copy / "out" / "declaration.yaml").read_text(encoding="utf-8")
    assert "helm: ../charts/sandboxes" in text  # relative to the file
    assert "init did not render these" in text


def test_init_refuses_to_overwrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tree(tmp_path, monkeypatch, "init/workload")
    (copy / DECLARATION).write_text("mine\n", encoding="utf-8")
    result = invoke("init")
    assert result.exit_code == 2
    assert ".egress-lint.yaml exists already: init never overwrites it" in result.output
    assert (copy / DECLARATION).read_text(encoding="utf-8") == "mine\n"
    (copy / "other.yaml").write_text("theirs\n", encoding="utf-8")
    again = invoke("init", "--output", "other.yaml")
    assert again.exit_code == 2
    assert (copy / "other.yaml").read_text(encoding="utf-8") == "theirs\n"


def test_output_dash_prints_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tree(tmp_path, monkeypatch, "init/workload")
    printed = invoke("init", "--output", "-")
    assert printed.exit_code == 0
    assert not (copy / DECLARATION).exists()
    assert printed.output == (EXPECTED / "init-workload.yaml").read_text(encoding="utf-8")
    assert printed.output.startswith("# yaml-language-server: $schema=")


def test_output_does_not_depend_on_document_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tree(tmp_path, monkeypatch, "init/workload")
    manifests = copy / "manifests.yaml"
    documents = manifests.read_text(encoding="utf-8").split("\n---\n")
    manifests.write_text("\n---\n".join(reversed(documents)) + "\n", encoding="utf-8")
    printed = invoke("init", "--output", "-")
    assert printed.output == (EXPECTED / "init-workload.yaml").read_text(encoding="utf-8")


def test_rules_that_cannot_be_written_are_left_out_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A named port is refused in `allow` (it resolves only on a running
    pod): the rule is left out and said so; check then reports the policy."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(
        """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  template:
    metadata: {labels: {app: db}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db-out, namespace: data}
spec:
  podSelector: {matchLabels: {app: db}}
  policyTypes: [Egress]
  egress:
    - ports: [{port: https}]
    - to: [{ipBlock: {cidr: 10.0.0.0/8}}]
""",
        encoding="utf-8",
    )
    assert invoke("init").exit_code == 0
    text = (tmp_path / DECLARATION).read_text(encoding="utf-8")
    assert "NetworkPolicy/db-out (m.yaml:8) spec.egress[0] is left out" in text
    (entry,) = load_declarations(tmp_path / DECLARATION, namespace_override=None).entries
    assert entry.egress["allow"] == [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]
    checked = invoke("check", "--format", "github")
    assert checked.exit_code == 1
    assert "NetworkPolicy/db-out" in checked.output


def test_pods_no_policy_restricts_may_reach_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Selected by an ingress policy only: nothing restricts egress, and the
    starter says so rather than inventing a limit."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: site}
spec:
  template:
    metadata: {labels: {app: web}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-in, namespace: site}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
""",
        encoding="utf-8",
    )
    assert invoke("init").exit_code == 0
    (entry,) = load_declarations(tmp_path / DECLARATION, namespace_override=None).entries
    assert entry.workload is not None and entry.workload.name == "web"
    assert entry.egress["allow"] == [{}]
    assert "no NetworkPolicy restricts egress" in (tmp_path / DECLARATION).read_text(
        encoding="utf-8"
    )
    assert invoke("check").exit_code == 0


def test_nothing_to_declare_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8"
    )
    result = invoke("init")
    assert result.exit_code == 2
    assert "nothing to declare" in result.output
    assert not (tmp_path / DECLARATION).exists()


def test_a_chart_rendered_with_its_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--helm and its flags: the environment is named after the values file
    and keeps every flag, so a bare check renders the same."""
    if shutil.which("helm") is None:
        pytest.skip("helm is not on the PATH")
    copy = tree(tmp_path, monkeypatch, "render")
    written = invoke(
        "init",
        "--helm",
        "charts/sandboxes",
        "--values",
        "env/dev.yaml",
        "--release",
        "sandboxes",
        "--namespace",
        "namzu-sandboxes",
    )
    assert written.exit_code == 0, written.output
    declarations = load_declarations(copy / DECLARATION, namespace_override=None)
    (render,) = declarations.renders
    assert render.name == "dev"
    assert render.spec == HelmRender(
        chart="charts/sandboxes",
        values=("env/dev.yaml",),
        release="sandboxes",
        namespace="namzu-sandboxes",
    )
    assert [e.template for e in declarations.entries] == ["namzu-task"]
    checked = invoke("check")
    assert checked.exit_code == 1, checked.output
    assert "namzu-sandboxes/namzu-task [direct path] in dev" in checked.output


def test_the_docs_example_is_the_pinned_output() -> None:
    """docs/init.md shows fixtures/init/workload's file, without its header
    and the two top-level comments."""
    docs = (REPO / "docs" / "init.md").read_text(encoding="utf-8")
    marker = "# (fixtures/init/workload, after the header)\n"
    shown = docs.split(marker, 1)[1].split("```", 1)[0]
    pinned_text = (EXPECTED / "init-workload.yaml").read_text(encoding="utf-8")
    body = pinned_text[pinned_text.index("version: 1\n") :]
    kept = [line for line in body.splitlines(keepends=True) if not line.startswith("# ")]
    assert shown == "".join(kept)


def test_input_text_cannot_break_out_of_a_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A policy name with a line break (the input is untrusted) stays inside
    its comment, escaped; the file still reads as the entries init made.
    Problems reading the manifests are named at the top."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.yaml").write_text("kind: [unclosed\n", encoding="utf-8")
    (tmp_path / "m.yaml").write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: site}
spec:
  template:
    metadata: {labels: {app: web}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: "out\\nsandboxes: []\\n::error::x", namespace: site}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
    - ports: [{port: http}]
""",
        encoding="utf-8",
    )
    assert invoke("init").exit_code == 0
    text = (tmp_path / DECLARATION).read_text(encoding="utf-8")
    assert "NetworkPolicy/out\\x0asandboxes: []\\x0a::error::x (m.yaml:8)" in text
    assert not any(line.startswith(("::", "sandboxes: []")) for line in text.splitlines())
    assert "1 problem(s) reading the manifests" in text and "broken.yaml:2" in text
    (entry,) = load_declarations(tmp_path / DECLARATION, namespace_override=None).entries
    assert entry.template == "web"
    assert invoke("check", "m.yaml").exit_code in (0, 1)


def test_an_output_that_cannot_be_written_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(tmp_path, monkeypatch, "init/workload")
    with mock.patch("lint.cli.init.starter_text") as started:
        missing = invoke("init", "--output", "nodir/x.yaml")
        directory = invoke("init", "--output", ".")
    assert (
        missing.exit_code == 2 and "cannot write nodir/x.yaml: no directory nodir" in missing.output
    )
    assert directory.exit_code == 2 and ". is a directory" in directory.output
    started.assert_not_called()


def test_namzu_labels_without_the_named_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's baseline selects on the host's label, so the host is namzu;
    without namzu-task-egress, the entry says deny-all and asks for the
    host's intent, and check reports the missing policy (exit 1, not 2)."""
    copy = tree(tmp_path, monkeypatch, "demo")
    for name in ("egress-policies.yaml", "widening-policy.yaml"):
        (copy / name).unlink()
    assert invoke("init").exit_code == 0
    text = (copy / DECLARATION).read_text(encoding="utf-8")
    assert "its policy namzu-task-egress is not in the manifests" in text
    entries = load_declarations(copy / DECLARATION, namespace_override=None).entries
    assert {(e.template, e.host) for e in entries} == {
        ("namzu-build", "namzu"),
        ("namzu-task", "namzu"),
    }
    checked = invoke("check", "--format", "github")
    assert checked.exit_code == 1
    assert "named-policy-missing" in checked.output
