"""The Argo CD examples in docs/argocd/ (INTEGRATIONS.md §3, DESIGN §6):
each manifest parses and agrees with the others, and the plugin's and the
PreSync Job's command lines run as written, with stand-ins for kustomize and
helm that print the demo fixture."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lint.cli import main
from tests.integrations.support import (
    DECLARATION,
    DEMO_NAMESPACE,
    DOCS,
    REPO,
    WIDENS,
    Ran,
    code_blocks,
    demo_tree,
    helm_stream,
    kustomize_stream,
    load_yaml,
    run,
    stand_in,
    stand_in_calls,
    tool_path,
)
from tests.render.tools import find_tools

ARGOCD = DOCS / "argocd"
PLUGIN = load_yaml(ARGOCD / "plugin.yaml")
APPLICATION = load_yaml(ARGOCD / "application.yaml")
PATCH = load_yaml(ARGOCD / "repo-server-patch.yaml")
JOB = load_yaml(ARGOCD / "presync-job.yaml")
GATE = 'args=(--passthrough --namespace "$ARGOCD_APP_NAMESPACE")'


def _sidecar() -> dict[str, Any]:
    (container,) = PATCH["spec"]["template"]["spec"]["containers"]
    assert isinstance(container, dict)
    return container


def _job_container() -> dict[str, Any]:
    (container,) = JOB["spec"]["template"]["spec"]["containers"]
    assert isinstance(container, dict)
    return container


# --- the manifests agree with each other and with Argo CD's contract ------------


def test_plugin_runs_the_gate_under_pipefail() -> None:
    assert (PLUGIN["apiVersion"], PLUGIN["kind"]) == (
        "argoproj.io/v1alpha1",
        "ConfigManagementPlugin",
    )
    generate = PLUGIN["spec"]["generate"]
    assert generate["command"] == ["bash", "-o", "pipefail", "-c"]
    (script,) = generate["args"]
    assert GATE in script
    assert 'egress-lint check --kustomize . "${args[@]}"' in script
    assert 'egress-lint check "${helm[@]}" "${args[@]}"' in script
    assert '--kube-version "$KUBE_VERSION"' in script
    assert '--api-versions "$KUBE_API_VERSIONS"' in script
    (parameter,) = PLUGIN["spec"]["parameters"]["static"]
    assert (parameter["name"], parameter["collectionType"]) == ("args", "array")


def test_application_names_the_versioned_plugin() -> None:
    assert APPLICATION["kind"] == "Application"
    plugin = APPLICATION["spec"]["source"]["plugin"]
    assert plugin["name"] == f"{PLUGIN['metadata']['name']}-{PLUGIN['spec']['version']}"
    assert APPLICATION["spec"]["destination"]["namespace"]


def test_application_env_is_what_the_plugin_reads() -> None:
    """Argo CD prefixes plugin env names with ARGOCD_ENV_."""
    (script,) = PLUGIN["spec"]["generate"]["args"]
    for variable in APPLICATION["spec"]["source"]["plugin"]["env"]:
        assert f"ARGOCD_ENV_{variable['name']}" in script


def test_sidecar_is_a_cmp_server_with_the_plugin_mounted() -> None:
    container = _sidecar()
    assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert container["securityContext"]["runAsUser"] == 999
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert mounts["/var/run/argocd"]["name"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"]["name"] == "plugins"
    config = mounts["/home/argocd/cmp-server/config/plugin.yaml"]
    assert config["subPath"] == "plugin.yaml"
    volumes = {v["name"]: v for v in PATCH["spec"]["template"]["spec"]["volumes"]}
    configmap = volumes[config["name"]]["configMap"]["name"]
    assert "/tmp" in mounts and "emptyDir" in volumes[mounts["/tmp"]["name"]]
    # The README creates that ConfigMap from plugin.yaml under the key the mount reads.
    readme = "\n".join(code_blocks(ARGOCD / "README.md", "sh"))
    assert f"create configmap {configmap} --from-file=plugin.yaml=docs/argocd/plugin.yaml" in readme


def test_readme_commands_name_files_that_exist() -> None:
    readme = "\n".join(code_blocks(ARGOCD / "README.md", "sh"))
    named = set(re.findall(r"docs/argocd/[\w.-]+", readme))
    assert named
    for name in named:
        assert (ARGOCD.parent.parent / name).is_file(), name


def test_job_and_sidecar_use_the_image_the_readme_builds() -> None:
    readme = "\n".join(code_blocks(ARGOCD / "README.md", "sh"))
    (built,) = set(re.findall(r"docker build .* -t (\S+) \.", readme))
    assert _sidecar()["image"] == built
    assert _job_container()["image"] == built


def test_job_is_a_presync_hook_that_fails_once() -> None:
    annotations = JOB["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/hook"] == "PreSync"
    assert annotations["argocd.argoproj.io/hook-delete-policy"] == "BeforeHookCreation"
    assert JOB["spec"]["backoffLimit"] == 0
    assert JOB["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    container = _job_container()
    assert container["command"] == ["bash", "-o", "pipefail", "-c"]
    # The Job renders inside the clone its init container makes.
    (fetch,) = JOB["spec"]["template"]["spec"]["initContainers"]
    clone_target = fetch["args"][-1]
    assert container["workingDir"].startswith(clone_target + "/")


# --- running the plugin --------------------------------------------------------


@dataclass(frozen=True)
class App:
    """An application directory as the sidecar sees it, plus stand-in tools."""

    root: Path
    bin_dir: Path
    stream: bytes


def make_app(tmp_path: Path, *, widening: bool, kind: str, render_exit: int = 0) -> App:
    tree = demo_tree(tmp_path / "demo", widening=widening)
    app = tmp_path / "repo" / "apps" / "sandboxes"
    app.mkdir(parents=True)
    (tmp_path / "repo" / DECLARATION).write_bytes((tree / DECLARATION).read_bytes())
    stream = helm_stream(tree) if kind == "helm" else kustomize_stream(tree)
    rendered = tmp_path / "rendered.yaml"
    rendered.write_bytes(stream)
    bin_dir = tmp_path / "bin"
    if kind == "helm":
        (app / "Chart.yaml").write_text("apiVersion: v2\nname: sandboxes\nversion: 0.1.0\n")
    elif kind == "kustomize":
        (app / "kustomization.yaml").write_text("resources: [all.yaml]\n")
    for tool in ("helm", "kustomize"):
        stand_in(bin_dir, tool, rendered, exit_code=render_exit)
    return App(app, bin_dir, stream)


def run_command(spec: dict[str, Any], app: App, env: dict[str, str] | None = None) -> Ran:
    argv = [*spec["command"], *spec.get("args", [])]
    base = {
        "ARGOCD_APP_NAME": "sandboxes",
        "ARGOCD_APP_NAMESPACE": DEMO_NAMESPACE,
        "ARGOCD_APP_SOURCE_PATH": "apps/sandboxes",
        "PATH": tool_path(app.bin_dir),
    }
    return run(argv, app.root, env={**base, **(env or {})})


@pytest.mark.parametrize("kind", ["kustomize", "helm"])
@pytest.mark.parametrize(("case", "expected"), [("clean", 0), ("widening", 1)])
def test_generate_passes_manifests_through_or_fails(
    tmp_path: Path, kind: str, case: str, expected: int
) -> None:
    app = make_app(tmp_path, widening=case == "widening", kind=kind)
    result = run_command(PLUGIN["spec"]["generate"], app)
    assert result.returncode == expected, result.err
    assert result.stdout == app.stream  # Argo CD reads exactly the rendered bytes
    if expected:
        assert WIDENS in result.err


def test_generate_renders_with_the_tool_the_directory_asks_for(tmp_path: Path) -> None:
    app = make_app(tmp_path, widening=False, kind="helm")
    result = run_command(
        PLUGIN["spec"]["generate"], app, {"ARGOCD_ENV_HELM_VALUES": "values.yaml prod.yaml"}
    )
    assert result.returncode == 0, result.err
    assert stand_in_calls(app.bin_dir, "helm") == [
        f"template sandboxes . --namespace {DEMO_NAMESPACE} --values values.yaml --values prod.yaml"
    ]
    assert stand_in_calls(app.bin_dir, "kustomize") == []


def test_a_failing_render_fails_the_generation(tmp_path: Path) -> None:
    """The stand-in prints a clean stream, then fails: only pipefail stops
    that stream from being checked, passed and synced."""
    app = make_app(tmp_path, widening=False, kind="kustomize", render_exit=1)
    result = run_command(PLUGIN["spec"]["generate"], app)
    assert result.returncode != 0


@pytest.mark.parametrize(
    ("kind", "env", "message"),
    [
        ("none", {}, "no kustomization.yaml or Chart.yaml"),
        ("kustomize", {"ARGOCD_APP_NAMESPACE": ""}, "spec.destination.namespace"),
    ],
)
def test_generate_refuses_what_it_cannot_gate(
    tmp_path: Path, kind: str, env: dict[str, str], message: str
) -> None:
    app = make_app(tmp_path, widening=False, kind=kind)
    result = run_command(PLUGIN["spec"]["generate"], app, env)
    assert result.returncode != 0
    assert result.stdout == b""
    assert message in result.err


def test_generate_takes_the_declaration_named_in_the_application(tmp_path: Path) -> None:
    app = make_app(tmp_path, widening=True, kind="kustomize")
    elsewhere = tmp_path / "repo" / "policy"
    elsewhere.mkdir()
    (tmp_path / "repo" / DECLARATION).rename(elsewhere / "sandboxes.yaml")
    env = {"ARGOCD_ENV_EGRESS_LINT_CONFIG": "../../policy/sandboxes.yaml"}
    named = run_command(PLUGIN["spec"]["generate"], app, env)
    assert named.returncode == 1, named.err
    # Only the declaration puts namzu-build under a static Cilium intent;
    # without it every template is checked as deny-all under core.
    assert "declarations: ../../policy/sandboxes.yaml" in named.err
    assert "default intent" not in named.err
    unnamed = run_command(PLUGIN["spec"]["generate"], app)
    assert "declarations: ../../policy/sandboxes.yaml" not in unnamed.err
    assert "default intent" in " ".join(unnamed.err.split())


@pytest.mark.parametrize(("kind", "builds"), [("helm", True), ("kustomize", False)])
def test_init_builds_helm_dependencies_only_for_charts(
    tmp_path: Path, kind: str, builds: bool
) -> None:
    app = make_app(tmp_path, widening=False, kind=kind)
    result = run_command(PLUGIN["spec"]["init"], app)
    assert result.returncode == 0, result.err
    assert result.stdout == b"", "init output must not reach Argo CD"
    assert stand_in_calls(app.bin_dir, "helm") == (["dependency build"] if builds else [])


# --- running the PreSync Job's command -------------------------------------------


@pytest.mark.parametrize(("case", "expected"), [("clean", 0), ("widening", 1)])
def test_presync_check_fails_the_job_on_findings(tmp_path: Path, case: str, expected: int) -> None:
    app = make_app(tmp_path, widening=case == "widening", kind="kustomize")
    # workingDir is the app inside the clone; here the clone is tmp_path/repo.
    assert _job_container()["workingDir"].endswith("/apps/sandboxes")
    result = run_command(_job_container(), app, {"ARGOCD_APP_NAMESPACE": ""})
    assert result.returncode == expected, result.out + result.err
    # One build, of the temporary kustomization that asks for origins and
    # whose one resource is the app directory (lint.render.origins).
    (call,) = stand_in_calls(app.bin_dir, "kustomize")
    assert call.startswith("build ") and "egress-lint-kustomize-" in call
    if expected:
        assert WIDENS in result.out


def test_presync_check_fails_when_the_render_fails(tmp_path: Path) -> None:
    app = make_app(tmp_path, widening=False, kind="kustomize", render_exit=1)
    result = run_command(_job_container(), app)
    assert result.returncode != 0


def test_examples_use_only_options_the_cli_has() -> None:
    """A renamed or dropped option would break the examples silently."""
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    scripts = [*PLUGIN["spec"]["generate"]["args"], *_job_container()["args"]]
    for script in scripts:
        lines = re.findall(r"(?:egress-lint check|(?:args|helm)\+?=\()[^\n|]*", script)
        assert lines
        for line in lines:
            for option in re.findall(r"[\s(](--[\w-]+)", line):
                assert option in help_text, option


def test_readme_quotes_the_commands_the_manifests_run() -> None:
    readme = "\n".join(code_blocks(ARGOCD / "README.md", "sh"))
    quoted = [line for line in readme.splitlines() if "egress-lint check" in line]
    assert len(quoted) == 3
    scripts = [*PLUGIN["spec"]["generate"]["args"], *_job_container()["args"]]
    for line in quoted:
        assert any(line in script for script in scripts), line


# --- the plugin as the sidecar runs it, with the real helm and kubectl ------------

ARGOCD_ENV = {
    "ARGOCD_APP_NAME": "sandboxes",
    "ARGOCD_APP_NAMESPACE": "namzu-sandboxes",
    "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
    "ARGOCD_APP_SOURCE_PATH": "charts/sandboxes",
    "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/platform/gitops.git",
    "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
    "KUBE_VERSION": "1.31.4",
    "KUBE_API_VERSIONS": "v1,apps/v1,networking.k8s.io/v1,cilium.io/v2",
}


def _real_tools(tmp_path: Path) -> Path:
    tools = find_tools(str(tmp_path / "tools"))
    if not (tools.helm and tools.kustomize):
        pytest.skip("helm and kubectl are not on the PATH (../shared/tools/k8s-tools.sh)")
    return tools.directory


def _sidecar_run(app: Path, tools: Path, env: dict[str, str]) -> Ran:
    """generate as argocd-cmp-server runs it: in the app's directory, with
    the build variables, the Application's env and its parameters."""
    generate = PLUGIN["spec"]["generate"]
    argv = [*generate["command"], *generate["args"]]
    return run(argv, app, env={**ARGOCD_ENV, "PATH": tool_path(tools), **env})


@pytest.mark.parametrize(("environment", "expected"), [("prod", 0), ("dev", 1)])
def test_sidecar_generate_renders_the_real_chart(
    tmp_path: Path, environment: str, expected: int
) -> None:
    tools = _real_tools(tmp_path)
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures" / "render", repo)
    app = repo / "charts" / "sandboxes"
    result = _sidecar_run(app, tools, {"ARGOCD_ENV_HELM_VALUES": f"../../env/{environment}.yaml"})
    assert result.returncode == expected, result.err
    # Argo CD gets exactly what helm renders with Argo CD's own inputs.
    helm = run(
        [
            str(tools / "helm"),
            "template",
            "sandboxes",
            ".",
            "--namespace",
            "namzu-sandboxes",
            "--values",
            f"../../env/{environment}.yaml",
            "--kube-version",
            "1.31.4",
            "--api-versions",
            "v1",
            "--api-versions",
            "apps/v1",
            "--api-versions",
            "networking.k8s.io/v1",
            "--api-versions",
            "cilium.io/v2",
        ],
        app,
    )
    assert helm.returncode == 0, helm.err
    assert result.stdout == helm.stdout
    assert 'kubeVersion: "v1.31.4"' in result.out
    assert 'cilium: "true"' in result.out
    assert (WIDENS in result.err) is bool(expected)
    if expected:
        assert "(from templates/debug-egress.yaml:14)" in result.err


def test_sidecar_generate_builds_the_real_overlay_with_the_args_parameter(tmp_path: Path) -> None:
    tools = _real_tools(tmp_path)
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures" / "render", repo)
    app = repo / "kustomize" / "overlays" / "dev"
    failing = _sidecar_run(app, tools, {})
    assert failing.returncode == 1, failing.err
    assert WIDENS in failing.err
    assert b"name: namzu-task-debug-egress" in failing.stdout
    # The Application's `args` parameter, as Argo CD hands it to the plugin.
    parameters = {
        "ARGOCD_APP_PARAMETERS": json.dumps([{"name": "args", "array": ["--fail-on", "never"]}]),
        "PARAM_ARGS_0": "--fail-on",
        "PARAM_ARGS_1": "never",
    }
    passing = _sidecar_run(app, tools, parameters)
    assert passing.returncode == 0, passing.err
    assert passing.stdout == failing.stdout
    assert WIDENS in passing.err
