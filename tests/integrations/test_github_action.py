"""The composite action (action.yml) and docs/github-actions.md
(INTEGRATIONS.md §1.5, DESIGN §6): the declared inputs, the check step run
as the runner would run it on the demo fixture, and the documented workflows
run step by step."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.integrations.github_runner import (
    ACTION,
    Context,
    StepRun,
    action_inputs,
    action_step,
    preinstalled_venv,
    run_action_check,
    run_job,
    run_script,
)
from tests.integrations.support import (
    DECLARATION,
    DOCS,
    REPO,
    WIDENS,
    demo_tree,
    helm_stream,
    manifest_files,
    yaml_examples,
)
from tests.render.tools import find_tools

DOC = DOCS / "github-actions.md"
DOCUMENTED_INPUTS = {
    "args": "",
    "paths": "",
    "config": "",
    "fail-on": "error",
    "sarif-file": "egress-lint.sarif",
    "category": "egress-lint",
    "helm-chart-root": "",
}


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    workspace = tmp_path / "workspace"
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    return Context(workspace=workspace, runner_temp=runner_temp)


def sarif(ctx: Context, relative: str) -> dict[str, Any]:
    log = json.loads((ctx.workspace / relative).read_text(encoding="utf-8"))
    assert isinstance(log, dict)
    return log


def rule_ids(log: Mapping[str, Any]) -> list[str]:
    return [r["ruleId"] for r in log["runs"][0]["results"]]


# --- the action's definition ---------------------------------------------------


def test_inputs_and_defaults() -> None:
    inputs = ACTION["inputs"]
    assert {name: spec["default"] for name, spec in inputs.items()} == DOCUMENTED_INPUTS
    for spec in inputs.values():
        assert spec["description"].strip()
        assert spec["required"] is False


def test_composite_with_outputs_from_the_check_step() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert ACTION["outputs"]["sarif-file"]["value"] == "${{ steps.check.outputs.sarif-file }}"
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash", "composite run steps must name their shell"


def test_scripts_read_inputs_only_through_env() -> None:
    """An input expanded into script text could inject shell code; they go
    through `env:` instead, and every input the env names is declared."""
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step.get("name")
        for value in (step.get("env") or {}).values():
            for name in re.findall(r"inputs\.([\w-]+)", str(value)):
                assert name in ACTION["inputs"]


def test_runs_egress_lint_once_with_every_report() -> None:
    """One check (issue 29): annotations on standard output, SARIF and the
    Markdown summary as --report files of the same run."""
    script = action_step("check")["run"]
    assert script.count('"$VENV/bin/egress-lint" check') == 1
    for option in (
        "--format github",
        '--report "sarif=$INPUT_SARIF_FILE"',
        '--report "markdown=$summary"',
        '--category "$INPUT_CATEGORY"',
        '--fail-on "$INPUT_FAIL_ON"',
    ):
        assert option in script


def test_the_step_runs_the_check_once(ctx: Context) -> None:
    """The installed command behind a wrapper that counts its runs."""
    demo_tree(ctx.workspace, widening=True)
    bin_dir = preinstalled_venv(ctx.runner_temp)
    real = bin_dir / "egress-lint"
    counted = bin_dir / "egress-lint-real"
    real.rename(counted)
    runs = ctx.runner_temp / "runs"
    real.write_text(f'#!/bin/sh\necho run >> "{runs}"\nexec "{counted}" "$@"\n', encoding="utf-8")
    real.chmod(0o755)
    result = run_action_check(ctx, {})
    assert result.returncode == 1, result.log
    assert runs.read_text(encoding="utf-8") == "run\n"
    assert WIDENS in rule_ids(sarif(ctx, "egress-lint.sarif"))
    assert "::error file=widening-policy.yaml" in result.log
    assert f"| error | `{WIDENS}` |" in (ctx.runner_temp / "step-summary.md").read_text(
        encoding="utf-8"
    )


def test_docs_input_table_lists_the_action_inputs() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Inputs", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w-]+)` \| (`[^`]*`|empty) \|", section, re.MULTILINE)
    documented = {name: "" if default == "empty" else default.strip("`") for name, default in rows}
    assert documented == DOCUMENTED_INPUTS


# --- the check step on the demo -----------------------------------------------


def test_findings_fail_the_step_after_the_sarif_file_is_written(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=True)
    result = run_action_check(ctx, {})
    assert result.returncode == 1, result.log
    assert result.outputs == {"exit-code": "1", "sarif-file": "egress-lint.sarif"}
    log = sarif(ctx, "egress-lint.sarif")
    assert log["version"] == "2.1.0"
    assert WIDENS in rule_ids(log)
    # The job log carries one annotation per finding (--format github);
    # the SARIF file stays clean JSON.
    assert f"::error file=widening-policy.yaml,line=15,title=egress-lint {WIDENS}::" in result.log
    summary = (ctx.runner_temp / "step-summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## egress-lint\n")
    assert f"| error | `{WIDENS}` |" in summary


def test_args_are_passed_through(ctx: Context) -> None:
    """Any check flag goes in `args`: here a baseline that records every
    finding, so the widening tree passes."""
    demo_tree(ctx.workspace, widening=True)
    baseline = ctx.workspace / ".egress-lint-baseline.yaml"
    written = run_action_check(ctx, {"args": f"--write-baseline {baseline.name}"})
    assert written.returncode == 1 and baseline.is_file(), written.log
    result = run_action_check(ctx, {"args": f"--baseline {baseline.name}\n--read-cilium always"})
    assert result.returncode == 0, result.log
    assert "::error" not in result.log
    suppressed = [r for r in rule_ids(sarif(ctx, "egress-lint.sarif")) if r == WIDENS]
    assert suppressed  # kept in SARIF as suppressed results


def test_args_render_a_chart_with_the_real_helm(ctx: Context) -> None:
    helm = shutil.which("helm")
    if helm is None:
        pytest.skip("helm is not on the PATH (bash ../shared/tools/k8s-tools.sh DIR installs it)")
    shutil.copytree(REPO / "fixtures" / "render", ctx.workspace)
    ctx.extra_path = (Path(helm).parent,)
    result = run_action_check(
        ctx, {"args": "--helm charts/sandboxes --values env/dev.yaml --namespace namzu-sandboxes"}
    )
    assert result.returncode == 1, result.log
    template = "charts/sandboxes/templates/debug-egress.yaml"
    assert f"::error file={template},line=14," in result.log
    (widening,) = [
        r for r in sarif(ctx, "egress-lint.sarif")["runs"][0]["results"] if r["ruleId"] == WIDENS
    ]
    assert widening["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == template


def test_clean_tree_passes(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=False)
    result = run_action_check(ctx, {})
    assert result.returncode == 0, result.log
    assert result.outputs["exit-code"] == "0"
    assert WIDENS not in rule_ids(sarif(ctx, "egress-lint.sarif"))


def test_fail_on_never_keeps_the_findings_in_the_file(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=True)
    result = run_action_check(ctx, {"fail-on": "never"})
    assert result.returncode == 0, result.log
    assert WIDENS in rule_ids(sarif(ctx, "egress-lint.sarif"))


def test_category_and_nested_sarif_path(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=True)
    result = run_action_check(
        ctx, {"sarif-file": "out/nested/prod.sarif", "category": "egress-prod"}
    )
    assert result.outputs["sarif-file"] == "out/nested/prod.sarif"
    assert (
        sarif(ctx, "out/nested/prod.sarif")["runs"][0]["automationDetails"]["id"]
        == "egress-prod/check"
    )


def test_several_paths_separated_by_whitespace(ctx: Context) -> None:
    """Templates in one directory, policies in another: the widening is
    only found when both are read."""
    tree = demo_tree(ctx.runner_temp / "demo", widening=True)
    ctx.workspace.mkdir()
    shutil.copy(tree / DECLARATION, ctx.workspace / DECLARATION)
    for path in manifest_files(tree):
        folder = "templates" if path.name in ("templates.yaml", "namespace.yaml") else "policies"
        (ctx.workspace / folder).mkdir(exist_ok=True)
        shutil.copy(path, ctx.workspace / folder / path.name)
    result = run_action_check(ctx, {"paths": "policies/\n  templates/ "})
    ids = rule_ids(sarif(ctx, "egress-lint.sarif"))
    assert WIDENS in ids
    assert "template-not-found" not in ids
    assert result.returncode == 1


def test_config_input_names_the_declaration(ctx: Context) -> None:
    demo_tree(ctx.workspace / "rendered", widening=True)
    (ctx.workspace / "config").mkdir()
    (ctx.workspace / "rendered" / DECLARATION).rename(ctx.workspace / "config" / "sandboxes.yaml")
    result = run_action_check(ctx, {"paths": "rendered/", "config": "config/sandboxes.yaml"})
    assert result.returncode == 1, result.log
    assert WIDENS in rule_ids(sarif(ctx, "egress-lint.sarif"))


def test_bad_declaration_exits_2_and_leaves_no_file(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=False)
    (ctx.workspace / DECLARATION).write_text("version: 1\nsandboxes: 7\n", encoding="utf-8")
    (ctx.workspace / "egress-lint.sarif").write_text("stale", encoding="utf-8")
    result = run_action_check(ctx, {})
    assert result.returncode == 2, result.log
    assert result.outputs == {"exit-code": "2"}
    assert not (ctx.workspace / "egress-lint.sarif").exists()


def test_inputs_cannot_inject_shell_code(ctx: Context) -> None:
    demo_tree(ctx.workspace, widening=False)
    run_action_check(
        ctx,
        {
            "paths": ". $(touch injected-1) `touch injected-2` *",
            "category": 'x"; touch injected-3; echo "',
            "config": "$(touch injected-4)",
        },
    )
    assert sorted(p.name for p in ctx.workspace.glob("injected-*")) == []


def test_helm_chart_root_puts_results_on_templates(ctx: Context) -> None:
    tree = demo_tree(ctx.runner_temp / "demo", widening=True)
    (ctx.workspace / "rendered").mkdir(parents=True)
    (ctx.workspace / "rendered" / "sandboxes.yaml").write_bytes(helm_stream(tree))
    shutil.copy(tree / DECLARATION, ctx.workspace / DECLARATION)
    run_action_check(ctx, {"paths": "rendered/", "helm-chart-root": "charts/sandboxes"})
    results = sarif(ctx, "egress-lint.sarif")["runs"][0]["results"]
    widens = [r for r in results if r["ruleId"] == WIDENS]
    assert widens
    for result in widens:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "charts/sandboxes/templates/widening-policy.yaml"


@pytest.mark.slow
def test_install_step_installs_the_actions_own_source(ctx: Context) -> None:
    """The real install step: a fresh venv and `pip install` of this
    checkout (the action's source at the pinned ref)."""
    ctx.workspace.mkdir()
    ctx.steps["python"] = {"python-path": sys.executable}
    ctx.inputs = action_inputs({})
    result = run_script(action_step("install"), ctx)
    network = (
        "No matching distribution",
        "Could not find a version",
        "NewConnectionError",
        "Temporary failure in name resolution",
    )
    if result.returncode != 0 and any(marker in result.log for marker in network):
        pytest.skip(f"pip could not reach a package index: {result.log[-300:]}")
    assert result.returncode == 0, result.log
    assert (ctx.runner_temp / "egress-lint-venv" / "bin" / "egress-lint").exists()
    assert re.search(r"egress-lint, version \d", result.log)


# --- the documented workflows ---------------------------------------------------


def _workflows() -> list[dict[str, Any]]:
    flows = [w for w in yaml_examples(DOC) if isinstance(w, dict) and "jobs" in w]
    assert len(flows) == 2, "docs/github-actions.md shows two workflows"
    return flows


def _steps(workflow: Mapping[str, Any]) -> list[dict[str, Any]]:
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    assert isinstance(steps, list)
    return steps


def _uses(step: Mapping[str, Any], prefix: str) -> bool:
    return str(step.get("uses", "")).startswith(prefix)


@pytest.mark.parametrize("index", [0, 1])
def test_workflow_shape(index: int) -> None:
    workflow = _workflows()[index]
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    steps = _steps(workflow)
    (check,) = [s for s in steps if _uses(s, "egress-lint/egress-lint@")]
    (upload,) = [s for s in steps if _uses(s, "github/codeql-action/upload-sarif@")]
    assert steps.index(upload) > steps.index(check)
    assert set(check.get("with", {})) <= set(ACTION["inputs"])
    # The upload must run after findings failed the check step.
    assert "!cancelled()" in upload["if"] or "always()" in upload["if"]
    assert upload["with"]["sarif_file"] == f"${{{{ steps.{check['id']}.outputs.sarif-file }}}}"


def _fake_uses(uploaded: list[dict[str, Any]]) -> Any:
    def handle(step: Mapping[str, Any], ctx: Context, _failed: bool) -> StepRun | None:
        if _uses(step, "egress-lint/egress-lint@"):
            return run_action_check(ctx, {k: str(v) for k, v in step.get("with", {}).items()})
        if _uses(step, "github/codeql-action/upload-sarif@"):
            path = ctx.workspace / ctx.expand(step["with"]["sarif_file"])
            uploaded.append(
                {"log": json.loads(path.read_text(encoding="utf-8")), "with": step["with"]}
            )
            return StepRun(0, "uploaded", {})
        return None  # checkout, setup-helm: the workspace is already laid out

    return handle


@pytest.mark.parametrize(("case", "expected"), [("clean", 0), ("widening", 1)])
def test_rendered_manifests_workflow_runs(ctx: Context, case: str, expected: int) -> None:
    workflow = _workflows()[0]
    demo_tree(ctx.workspace / "rendered", widening=case == "widening")
    (ctx.workspace / "rendered" / DECLARATION).rename(ctx.workspace / DECLARATION)
    uploaded: list[dict[str, Any]] = []
    runs = run_job(workflow["jobs"]["egress-lint"], ctx, _fake_uses(uploaded))
    assert runs["egress-lint"].returncode == expected, runs["egress-lint"].log
    (upload,) = uploaded
    assert (WIDENS in rule_ids(upload["log"])) is (case == "widening")
    category = upload["with"].get("category")
    if category is not None:
        assert upload["log"]["runs"][0]["automationDetails"]["id"].rsplit("/", 1)[0] == category


def test_renders_workflow_runs_and_points_at_templates(
    ctx: Context, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The second workflow on the rendering fixture: egress-lint renders
    every `renders:` environment with the real helm and kubectl, and every
    result lands on a file of the repository."""
    tools = find_tools(str(tmp_path_factory.mktemp("tools")))
    if not (tools.helm and tools.kustomize):
        pytest.skip("helm and kubectl are not on the PATH (../shared/tools/k8s-tools.sh)")
    workflow = _workflows()[1]
    shutil.copytree(REPO / "fixtures" / "render", ctx.workspace)
    ctx.extra_path = (tools.directory,)
    uploaded: list[dict[str, Any]] = []
    runs = run_job(workflow["jobs"]["egress-lint"], ctx, _fake_uses(uploaded))
    assert runs["egress-lint"].returncode == 1, runs["egress-lint"].log
    (upload,) = uploaded
    results = upload["log"]["runs"][0]["results"]
    widening = [r for r in results if r["ruleId"] == WIDENS]
    assert sorted(r["properties"]["environment"] for r in widening) == ["dev", "kustomize-dev"]
    (helm_result,) = [r for r in widening if r["properties"]["environment"] == "dev"]
    uri = helm_result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "charts/sandboxes/templates/debug-egress.yaml"
    assert (ctx.workspace / uri).is_file()
    summary = (ctx.runner_temp / "step-summary.md").read_text(encoding="utf-8")
    assert "| namzu-sandboxes/namzu-task | direct | dev | 1 finding(s) |" in summary
