"""Just enough of a GitHub Actions runner to execute action.yml's steps and
the workflows of docs/github-actions.md here: `${{ }}` expressions over
inputs, steps, runner and github, `run:` steps under bash the way the runner
starts them, and step outputs read back from $GITHUB_OUTPUT."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.integrations.support import REPO, console_script, load_yaml, tool_path

ACTION = load_yaml(REPO / "action.yml")
# `shell: bash` on a GitHub runner (docs: "Using a specific shell").
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Context:
    """What expressions can see: inputs of the action being run, outputs of
    the steps run so far, and the runner's paths."""

    workspace: Path
    runner_temp: Path
    inputs: dict[str, str] = field(default_factory=dict)
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    extra_path: tuple[Path, ...] = ()

    def value(self, expression: str) -> str:
        parts = expression.split(".")
        match parts:
            case ["inputs", name]:
                return self.inputs[name]
            case ["steps", step, "outputs", name]:
                return self.steps.get(step, {}).get(name, "")
            case ["runner", "temp"]:
                return str(self.runner_temp)
            case ["github", "action_path"]:
                return str(REPO)
            case ["github", "workspace"]:
                return str(self.workspace)
        raise AssertionError(f"expression not understood by the test runner: {expression}")

    def expand(self, text: str) -> str:
        return _EXPR.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, text: str, earlier_failed: bool) -> bool:
        """`if:` terms joined by `&&`: status functions and `!= ''` tests."""
        body = _EXPR.fullmatch(text.strip())
        expression = body.group(1) if body else text
        results = []
        for term in (t.strip() for t in expression.split("&&")):
            if term in ("!cancelled()", "always()"):
                results.append(True)
            elif term == "success()":
                results.append(not earlier_failed)
            elif term == "failure()":
                results.append(earlier_failed)
            elif (m := re.fullmatch(r"([\w.-]+)\s*!=\s*''", term)) is not None:
                results.append(self.value(m.group(1)) != "")
            else:
                raise AssertionError(f"condition not understood by the test runner: {term}")
        return all(results)


@dataclass(frozen=True)
class StepRun:
    returncode: int
    log: str
    outputs: dict[str, str]


def run_script(step: Mapping[str, Any], ctx: Context) -> StepRun:
    """One `run:` step: its env expanded, its script under bash."""
    assert step.get("shell", "bash") == "bash"
    output_file = ctx.runner_temp / f"output-{len(ctx.steps)}-{os.getpid()}"
    output_file.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "PATH": tool_path(*ctx.extra_path),
        "GITHUB_OUTPUT": str(output_file),
        "GITHUB_STEP_SUMMARY": str(ctx.runner_temp / "step-summary.md"),
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_WORKSPACE": str(ctx.workspace),
        "RUNNER_TEMP": str(ctx.runner_temp),
        **{k: ctx.expand(str(v)) for k, v in (step.get("env") or {}).items()},
    }
    script = ctx.runner_temp / "step.sh"
    script.write_text(ctx.expand(step["run"]), encoding="utf-8")
    done = subprocess.run(
        [*BASH, str(script)],
        cwd=ctx.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    outputs = dict(
        line.split("=", 1)
        for line in output_file.read_text(encoding="utf-8").splitlines()
        if "=" in line
    )
    return StepRun(done.returncode, done.stdout + done.stderr, outputs)


def action_step(step_id: str) -> dict[str, Any]:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
    assert isinstance(step, dict)
    return step


def action_inputs(given: Mapping[str, str]) -> dict[str, str]:
    unknown = set(given) - set(ACTION["inputs"])
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    return {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | dict(
        given
    )


def preinstalled_venv(runner_temp: Path) -> Path:
    """Stand in for the install step: the venv path the check step uses,
    holding this checkout's egress-lint and a python."""
    bin_dir = runner_temp / "egress-lint-venv" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for link, target in (("egress-lint", console_script()), ("python", Path(sys.executable))):
        if not (bin_dir / link).exists():
            (bin_dir / link).symlink_to(target)
    return bin_dir


def run_action_check(ctx: Context, given: Mapping[str, str]) -> StepRun:
    """The action's check step with these inputs, egress-lint preinstalled."""
    preinstalled_venv(ctx.runner_temp)
    ctx.inputs = action_inputs(given)
    return run_script(action_step("check"), ctx)


UsesHandler = Callable[[Mapping[str, Any], Context, bool], StepRun | None]


def run_job(job: Mapping[str, Any], ctx: Context, uses: UsesHandler) -> dict[str, StepRun]:
    """Every step of a job in order, honouring `if:`; `uses:` steps go to
    the handler (None: the step did nothing here). Returns each step's run
    by id (or name)."""
    failed = False
    runs: dict[str, StepRun] = {}
    for index, step in enumerate(job["steps"]):
        key = step.get("id") or step.get("name") or str(index)
        if not ctx.condition(step.get("if", "success()"), failed):
            continue
        result = run_script(step, ctx) if "run" in step else uses(step, ctx, failed)
        if result is None:
            continue
        runs[key] = result
        if "id" in step:
            ctx.steps[step["id"]] = result.outputs
        failed = failed or result.returncode != 0
    return runs
