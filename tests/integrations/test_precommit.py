"""The pre-commit hook (INTEGRATIONS.md §2, DESIGN §6): its definition,
`pre-commit try-repo` against this repository on a temporary git repository
(green when clean, red when a policy widens egress), and the
.pre-commit-config.yaml examples of docs/pre-commit.md run as written."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integrations.support import (
    DECLARATION,
    DOCS,
    REPO,
    WIDENS,
    Ran,
    demo_tree,
    helm_stream,
    init_git_repo,
    load_yaml,
    manifest_files,
    run,
    stand_in,
    yaml_examples,
)

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
    ("path", "triggers"),
    [
        ("rendered/all.yaml", True),
        ("a.yml", True),
        ("list.json", True),
        (".egress-lint.yaml", True),
        ("charts/x/templates/_helpers.tpl", False),
        ("README.md", False),
        ("values.yaml.orig", False),
    ],
)
def test_hook_files_pattern(path: str, triggers: bool) -> None:
    # pre-commit applies `files` with re.search.
    assert bool(re.search(_hook()["files"], path)) is triggers


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


@needs_pre_commit
@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "helm_exit", "expected"),
    [("clean", 0, 0), ("widening", 0, 1), ("render-fails", 1, 1)],
)
def test_doc_config_that_renders_first(
    tmp_path: Path, pre_commit_home: Path, case: str, helm_exit: int, expected: int
) -> None:
    """The `entry` override runs the documented helm pipeline; a stand-in
    helm prints the demo as Helm would. A render that fails after printing a
    clean stream must still fail the hook: that is what pipefail is for."""
    _needs_git_checkout()
    config = _doc_configs()[1]
    entry = config["repos"][0]["hooks"][0]["entry"]
    assert entry.startswith("bash -o pipefail -c ")
    tree = demo_tree(tmp_path / "demo", widening=case == "widening")
    stream = tmp_path / "rendered.yaml"
    stream.write_bytes(helm_stream(tree))
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "helm", stream, exit_code=helm_exit)

    project = tmp_path / "project"
    templates = project / "charts" / "sandboxes" / "templates"
    templates.mkdir(parents=True)
    (project / "charts" / "sandboxes" / "Chart.yaml").write_text(
        "apiVersion: v2\nname: sandboxes\nversion: 0.1.0\n"
    )
    for path in manifest_files(tree):
        (templates / path.name).write_bytes(path.read_bytes())
    (project / DECLARATION).write_bytes((tree / DECLARATION).read_bytes())
    _local_config(config, project)
    init_git_repo(project)

    result = pre_commit(["run", "--all-files"], project, pre_commit_home, extra_bin=bin_dir)
    assert result.returncode == expected, result.out + result.err
    calls = (bin_dir / "helm.args").read_text().splitlines()
    assert calls == ["template sandboxes charts/sandboxes --namespace namzu-sandboxes"]
    if case == "widening":
        assert WIDENS in result.out
