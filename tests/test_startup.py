"""`egress-lint check` starts without importing what only other commands
need: a pre-commit hook runs it on every commit."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from lint.cli import main

ONLY_ON_DEMAND = ("jinja2", "lint.generate", "lint.explain", "lint.report.sarif_report")


def test_importing_the_cli_leaves_other_commands_unloaded() -> None:
    probe = "import sys, lint.cli; print('\\n'.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    early = [m for m in loaded if m.startswith(ONLY_ON_DEMAND)]
    assert early == []


def test_lazy_commands_are_listed_and_run() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in ("check", "explain", "generate", "rules"):
        assert f"  {name} " in result.output
    assert CliRunner().invoke(main, ["generate", "--help"]).exit_code == 0
    assert CliRunner().invoke(main, ["explain", "--help"]).exit_code == 0
    assert CliRunner().invoke(main, ["nonesuch"]).exit_code == 2
