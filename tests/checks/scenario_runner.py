"""Run `egress-lint check` on a scenario fixture the way a user would:
from inside the scenario directory, on `.`, so report paths are stable."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from lint.cli import main

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "fixtures" / "scenarios"
DEMO = REPO / "fixtures" / "demo"


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def report(self) -> dict[str, Any]:
        return json.loads(self.stdout)


def run_cli(args: list[str], cwd: Path, stdin: bytes | None = None) -> Outcome:
    runner = CliRunner()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(main, args, input=stdin, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Outcome(result.exit_code, result.stdout, result.stderr)


def run_scenario(name: str, *extra: str) -> Outcome:
    return run_cli(["check", ".", "--format", "json", *extra], SCENARIOS / name)


def normalise(report: dict[str, Any]) -> dict[str, Any]:
    """The version changes with releases; the rest of the report must not."""
    report = dict(report)
    report["tool"] = {**report["tool"], "version": "X.Y.Z"}
    return report
