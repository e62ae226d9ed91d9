"""Shell completion as the README sets it up: click answers
``_EGRESS_LINT_COMPLETE`` for the console script, through the lazy command
group, down to an option's choices."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The console script as installed: its name is what click derives the variable from.
SCRIPT = "import sys; sys.argv[0] = 'egress-lint'; from lint.console import entry; entry()"


def _complete(words: str, mode: str = "bash_complete") -> str:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "_EGRESS_LINT_COMPLETE": mode,
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1),
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("egress-lint ch", {"plain,check"}),
        ("egress-lint s", {"plain,schema"}),
        ("egress-lint check --col", {"plain,--color"}),
        ("egress-lint check --color a", {"plain,always", "plain,auto"}),
        ("egress-lint check --format s", {"plain,sarif"}),
    ],
)
def test_completion_answers(words: str, expected: set[str]) -> None:
    assert set(_complete(words).splitlines()) == expected


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_source_scripts_exist(shell: str) -> None:
    script = _complete("egress-lint", f"{shell}_source")
    assert "_EGRESS_LINT_COMPLETE" in script
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"_EGRESS_LINT_COMPLETE={shell}_source egress-lint" in readme
