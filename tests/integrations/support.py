"""Shared helpers for the integration tests: the demo fixture as a clean or a
widening tree, the installed console script, stand-ins for helm and
kustomize, and the YAML examples quoted in the docs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"
DOCS = REPO / "docs"
CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

DECLARATION = ".egress-lint.yaml"
WIDENING_FILE = "widening-policy.yaml"
# The rule the demo's widening policy triggers (lint/rules.py).
WIDENS = "egress-policy-widens"
DEMO_NAMESPACE = "namzu-sandboxes"


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def console_script() -> Path:
    """The installed `egress-lint` next to this interpreter; the integrations
    run the command users run, not the click function."""
    script = Path(sys.executable).parent / "egress-lint"
    if not script.exists():
        pytest.skip(f"egress-lint is not installed next to {sys.executable} (pip install -e .)")
    return script


def tool_path(*extra: Path) -> str:
    """PATH with the stand-in tools first, then this interpreter's scripts."""
    parts = [str(p) for p in extra] + [str(Path(sys.executable).parent), os.environ.get("PATH", "")]
    return os.pathsep.join(parts)


def run(
    argv: Sequence[str | Path],
    cwd: Path,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> Ran:
    merged = {**os.environ, "PATH": tool_path(), **(env or {})}
    merged.pop("NO_COLOR", None)
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=merged,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def demo_tree(destination: Path, *, widening: bool, declaration: bool = True) -> Path:
    """A copy of fixtures/demo: with its widening policy (exit 1) or without
    it (exit 0); optionally without the declaration file."""
    shutil.copytree(DEMO, destination)
    if not widening:
        (destination / WIDENING_FILE).unlink()
    if not declaration:
        (destination / DECLARATION).unlink()
    return destination


def manifest_files(tree: Path) -> list[Path]:
    return sorted(
        p for p in tree.iterdir() if p.suffix in (".yaml", ".yml") and p.name != DECLARATION
    )


def helm_stream(tree: Path, chart: str = "sandboxes") -> bytes:
    """The demo manifests the way `helm template` prints them: each file
    after `---` and a `# Source: <chart>/templates/<file>` line."""
    parts = [
        b"---\n# Source: " + f"{chart}/templates/{p.name}".encode() + b"\n" + p.read_bytes()
        for p in manifest_files(tree)
    ]
    return b"".join(part if part.endswith(b"\n") else part + b"\n" for part in parts)


def kustomize_stream(tree: Path) -> bytes:
    """The demo manifests as one multi-document stream, no comments kept."""
    docs: list[Any] = []
    for path in manifest_files(tree):
        docs.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
    return yaml.safe_dump_all(docs, sort_keys=False).encode()


def stand_in(bin_dir: Path, name: str, stream: Path, *, exit_code: int = 0) -> Path:
    """An executable `name` that logs its arguments to `<name>.args` beside
    itself, prints `stream` and exits with `exit_code`: a renderer whose
    output the test chooses."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / name
    log = bin_dir / f"{name}.args"
    script.write_text(
        "#!/usr/bin/env bash\n"
        f"printf '%s\\n' \"$*\" >> '{log}'\n"
        f"cat '{stream}'\n"
        f"exit {exit_code}\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def stand_in_calls(bin_dir: Path, name: str) -> list[str]:
    log = bin_dir / f"{name}.args"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


_FENCE = re.compile(r"^([ \t]*)```(\w*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def code_blocks(markdown: Path, language: str) -> list[str]:
    """The fenced blocks of `language` in a Markdown file, in order; a
    block indented under a list item is dedented."""
    text = markdown.read_text(encoding="utf-8")
    return [
        textwrap.dedent(body) for _indent, lang, body in _FENCE.findall(text) if lang == language
    ]


def yaml_examples(markdown: Path) -> list[Any]:
    """Every ```yaml block of a doc, parsed: an example that does not parse
    fails here."""
    return [yaml.safe_load(block) for block in code_blocks(markdown, "yaml")]


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def init_git_repo(root: Path) -> None:
    """Make `root` a git repository with everything in it committed."""
    env = {**os.environ, **git_identity()}
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "-m", "fixture"],
    ):
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)


def git_identity() -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": "egress-lint tests",
        "GIT_AUTHOR_EMAIL": "tests@example.invalid",
        "GIT_COMMITTER_NAME": "egress-lint tests",
        "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    }
