"""The pre-commit hook (INTEGRATIONS.md §2, DESIGN §6): its definition,
`pre-commit try-repo` against this repository on a temporary git repository
(green when clean, red when a policy widens egress), and the
.pre-commit-config.yaml examples of docs/pre-commit.md run as written."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from lint import __version__
from tests.integrations.support import (
    DECLARATION,
    DOCS,
    REPO,
    WIDENS,
    Ran,
    demo_tree,
    git_identity,
    init_git_repo,
    load_yaml,
    run,
    yaml_examples,
)
from tests.render.tools import FIXTURE, find_tools

HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"
DOC = DOCS / "pre-commit.md"


def _hook() -> dict[str, Any]:
    hooks = load_yaml(HOOKS_FILE)
    assert isinstance(hooks, list)
    (hook,) = [h for h in hooks if h["id"] == "egress-lint"]
    assert isinstance(hook, dict)
    return hook


def test_hook_definition() -> None:
    hook = _hook()
    assert hook["entry"] == "egress-lint check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False
    assert hook["require_serial"] is True
    assert {"id", "name", "entry", "language"} <= hook.keys()


@pytest.mark.parametrize(
    "path",
    [
        "rendered/all.yaml",
        "a.yml",
        "list.json",
        ".egress-lint.yaml",
        "hosts.txt",
        "allow/egress-hosts",
        "charts/x/templates/_helpers.tpl",
        "charts/x/values.yaml",
    ],
)
@pytest.mark.parametrize("hook_id", ["egress-lint", "egress-lint-render"])
def test_hook_files_pattern_triggers_on_anything_that_can_change_egress(
    path: str, hook_id: str
) -> None:
    # pre-commit applies `files` with re.search. The declaration file may
    # name an allowedHostsFile of any name, so every file triggers.
    (hook,) = [h for h in load_yaml(HOOKS_FILE) if h["id"] == hook_id]
    assert re.search(hook["files"], path)


def test_render_hook_relies_on_renders() -> None:
    (hook,) = [h for h in load_yaml(HOOKS_FILE) if h["id"] == "egress-lint-render"]
    assert hook["entry"] == "egress-lint check --renders"
    assert hook["pass_filenames"] is False and hook["require_serial"] is True


def test_documented_rev_is_the_tag_of_this_version() -> None:
    for config in _doc_configs():
        assert config["repos"][0]["rev"] == f"v{__version__}"
    assert f'`__version__ = "{__version__}"`' in DOC.read_text(encoding="utf-8")


# The stages a hook may name (pre-commit 3.2 and later), and the ones a
# check of the whole tree has something to say in.
KNOWN_STAGES = {
    "commit-msg",
    "manual",
    "post-checkout",
    "post-commit",
    "post-merge",
    "post-rewrite",
    "pre-commit",
    "pre-merge-commit",
    "pre-push",
    "pre-rebase",
    "prepare-commit-msg",
}


@pytest.mark.parametrize("hook_id", ["egress-lint", "egress-lint-render"])
def test_hooks_declare_their_stages(hook_id: str) -> None:
    (hook,) = [h for h in load_yaml(HOOKS_FILE) if h["id"] == hook_id]
    assert set(hook["stages"]) <= KNOWN_STAGES
    assert {"pre-commit", "pre-push", "manual"} <= set(hook["stages"])
    assert not {"commit-msg", "prepare-commit-msg", "post-checkout"} & set(hook["stages"])
    # The stage names above are pre-commit 3.2's; older versions call
    # pre-commit `commit` and would refuse them.
    minimum = tuple(int(part) for part in hook["minimum_pre_commit_version"].split("."))
    assert minimum >= (3, 2, 0)


# --- running pre-commit ------------------------------------------------------

needs_pre_commit = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None,
    reason="pre-commit is not installed (pip install pre-commit)",
)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the session: the hook's environment is built
    once and shared by every run below."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _hook_path(extra_bin: Path | None) -> str:
    """PATH without this interpreter's scripts, so the hook can only run the
    egress-lint that pre-commit installed in its own environment."""
    ours = str(Path(sys.executable).parent)
    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != ours]
    return os.pathsep.join(([str(extra_bin)] if extra_bin else []) + kept)


def pre_commit(args: list[str], cwd: Path, home: Path, extra_bin: Path | None = None) -> Ran:
    env = {
        "PRE_COMMIT_HOME": str(home),
        "PRE_COMMIT_COLOR": "never",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_RETRIES": "1",
        "PATH": _hook_path(extra_bin),
    }
    try:
        result = run([sys.executable, "-m", "pre_commit", *args], cwd, env=env, timeout=900)
    except subprocess.TimeoutExpired:
        pytest.skip("pre-commit did not finish building the hook environment in 900 s (offline?)")
    _skip_when_environment_cannot_be_built(result)
    return result


def _skip_when_environment_cannot_be_built(result: Ran) -> None:
    """pre-commit exits 3 on its own errors; a hook that fails makes it
    exit 1. A failed `pip install` of the hook repository (no index reachable,
    no build backend) is the one error this test tolerates, by skipping."""
    text = result.out + result.err
    if result.returncode == 3 and "CalledProcessError" in text and "pip" in text:
        errors = [line.strip() for line in text.splitlines() if "ERROR:" in line]
        reason = "; ".join(dict.fromkeys(errors[:2])) or text.strip().splitlines()[-1]
        pytest.skip(f"pre-commit could not build the egress-lint environment offline: {reason}")


def _needs_git_checkout() -> None:
    if not (REPO / ".git").exists():
        pytest.skip(f"{REPO} is not a git checkout; pre-commit clones hook repositories with git")


@needs_pre_commit
@pytest.mark.slow
@pytest.mark.parametrize(("case", "expected"), [("clean", 0), ("widening", 1)])
def test_try_repo(tmp_path: Path, pre_commit_home: Path, case: str, expected: int) -> None:
    _needs_git_checkout()
    project = demo_tree(tmp_path / case, widening=case == "widening")
    init_git_repo(project)
    result = pre_commit(
        ["try-repo", str(REPO), "egress-lint", "--all-files"], project, pre_commit_home
    )
    assert result.returncode == expected, result.out + result.err
    assert "egress-lint" in result.out
    if expected:
        assert WIDENS in result.out


@needs_pre_commit
def test_pre_commit_accepts_the_manifest_and_the_doc_configs(tmp_path: Path) -> None:
    """pre-commit's own schema checks: a missing required key or a mistyped
    value fails here."""
    manifest = run([sys.executable, "-m", "pre_commit", "validate-manifest", HOOKS_FILE], REPO)
    assert manifest.returncode == 0, manifest.out + manifest.err
    for index, config in enumerate(_doc_configs()):
        path = tmp_path / f"config-{index}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        checked = run([sys.executable, "-m", "pre_commit", "validate-config", path], REPO)
        assert checked.returncode == 0, checked.out + checked.err


# --- the documented configurations ------------------------------------------


def _doc_configs() -> list[dict[str, Any]]:
    configs = [c for c in yaml_examples(DOC) if isinstance(c, dict) and "repos" in c]
    assert len(configs) == 2, "docs/pre-commit.md shows two configurations"
    return configs


def test_doc_configs_name_this_repository_and_its_hook() -> None:
    hook_ids = {h["id"] for h in load_yaml(HOOKS_FILE)}
    for config in _doc_configs():
        (repo,) = config["repos"]
        assert repo["repo"].endswith("/egress-lint")
        assert re.fullmatch(r"v\d+\.\d+\.\d+", repo["rev"])
        assert {h["id"] for h in repo["hooks"]} <= hook_ids


def _local_config(config: dict[str, Any], where: Path) -> Path:
    """The documented config, pointed at this checkout instead of the
    published repository."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo,) = config["repos"]
    local = {"repos": [{**repo, "repo": str(REPO), "rev": head}]}
    path = where / ".pre-commit-config.yaml"
    path.write_text(yaml.safe_dump(local, sort_keys=False), encoding="utf-8")
    return path


@needs_pre_commit
@pytest.mark.slow
@pytest.mark.parametrize(("case", "expected"), [("clean", 0), ("widening", 1)])
def test_doc_config_for_committed_rendered_manifests(
    tmp_path: Path, pre_commit_home: Path, case: str, expected: int
) -> None:
    _needs_git_checkout()
    config = _doc_configs()[0]
    assert config["repos"][0]["hooks"][0]["args"][-1] == "rendered/"
    project = tmp_path / "project"
    demo_tree(project / "rendered", widening=case == "widening")
    (project / "rendered" / DECLARATION).rename(project / DECLARATION)
    _local_config(config, project)
    init_git_repo(project)
    result = pre_commit(["run", "--all-files"], project, pre_commit_home)
    assert result.returncode == expected, result.out + result.err
    if expected:
        assert WIDENS in result.out


def _chart_repository(where: Path) -> Path:
    """A scratch git repository holding the rendering fixture: a chart with
    two environments and a Kustomize base with two overlays, listed under
    `renders:`; `dev` and `kustomize-dev` widen."""
    shutil.copytree(FIXTURE, where)
    init_git_repo(where)
    return where


def _fix_the_widening(project: Path) -> None:
    (project / "env" / "dev.yaml").write_text("allowAllEgress: false\n", encoding="utf-8")
    overlay = project / "kustomize" / "overlays" / "dev" / "kustomization.yaml"
    overlay.write_text(
        overlay.read_text(encoding="utf-8").replace("  - debug-egress.yaml\n", ""),
        encoding="utf-8",
    )
    env = {**os.environ, **git_identity()}
    for argv in (["git", "add", "-A"], ["git", "commit", "-q", "-m", "fix"]):
        subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True)


@pytest.fixture
def render_tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tools = find_tools(str(tmp_path_factory.mktemp("tools")))
    if not (tools.helm and tools.kustomize):
        pytest.skip("helm and kubectl are not on the PATH (../shared/tools/k8s-tools.sh)")
    return tools.directory


@needs_pre_commit
@pytest.mark.slow
def test_try_repo_on_a_chart_repository_red_then_green(
    tmp_path: Path, pre_commit_home: Path, render_tools: Path
) -> None:
    _needs_git_checkout()
    project = _chart_repository(tmp_path / "project")
    argv = ["try-repo", str(REPO), "egress-lint-render", "--all-files"]
    red = pre_commit(argv, project, pre_commit_home, extra_bin=render_tools)
    assert red.returncode == 1, red.out + red.err
    assert WIDENS in red.out
    # The Helm finding points at the chart's template file and line.
    # Text wraps at word boundaries (issue 13): compare with the breaks undone.
    assert "(from charts/sandboxes/templates/debug-egress.yaml:14)" in " ".join(red.out.split())
    assert "in dev" in red.out and "in kustomize-dev" in red.out
    _fix_the_widening(project)
    green = pre_commit(argv, project, pre_commit_home, extra_bin=render_tools)
    assert green.returncode == 0, green.out + green.err


@needs_pre_commit
@pytest.mark.slow
def test_doc_config_for_a_chart_repository(
    tmp_path: Path, pre_commit_home: Path, render_tools: Path
) -> None:
    _needs_git_checkout()
    config = _doc_configs()[1]
    assert config["repos"][0]["hooks"] == [{"id": "egress-lint-render"}]
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    _local_config(config, project)
    init_git_repo(project)
    result = pre_commit(["run", "--all-files"], project, pre_commit_home, extra_bin=render_tools)
    assert result.returncode == 1, result.out + result.err
    assert WIDENS in result.out
