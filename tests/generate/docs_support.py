"""Shared by the generate and explain doc tests: run a documented command
the way the page shows it, in a copy of the demo, and find what the page
says it printed."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import click
from click.testing import CliRunner

from lint.cli.explain import explain_command
from lint.cli.generate import generate_command

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"


@click.group()
def documented_cli() -> None:
    """A local group standing in for `egress-lint` with the two commands."""


documented_cli.add_command(generate_command)
documented_cli.add_command(explain_command)


def demo_copy(root: Path) -> Path:
    """``root/fixtures/demo``, so printed paths match the page's."""
    shutil.copytree(DEMO, root / "fixtures" / "demo")
    return root


def run_documented(command: str) -> str:
    """The standard output of ``egress-lint ARGS`` run in the current directory."""
    args = shlex.split(command)
    assert args[0] == "egress-lint"
    result = CliRunner().invoke(documented_cli, args[1:], catch_exceptions=False)
    return result.stdout


def documented_outputs(page: Path, command: str) -> list[str]:
    """Every output the page shows for ``$ COMMAND``, in page order: the lines
    after it up to the next prompt or the end of the block."""
    pattern = re.compile(
        r"^\$ " + re.escape(command) + r"\n(.*?)(?=^\$ |^```)", re.DOTALL | re.MULTILINE
    )
    return [match.group(1) for match in pattern.finditer(page.read_text(encoding="utf-8"))]
