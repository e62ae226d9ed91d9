"""The golden cases: every command egress-lint has, on every input tree the
project knows, in every output format.

A case is a command line run from a working directory. ``regenerate.py``
records each case's exit code and the SHA-256 of its standard output and
standard error in ``digests.json``; ``test_golden.py`` runs the cases again
and compares. The digests were first taken before the layout of issue 11
changed, so a refactor that changes any byte of any output fails here.

Trees outside the repository (``../shared/corpus``) and generated ones (the
bench tree) are named by a root token, so the recorded cases do not depend
on where the checkout lives.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from lint.cli import main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
CORPUS = REPO.parent / "shared" / "corpus"
DIGESTS = Path(__file__).with_name("digests.json")
FORMATS = ("text", "json", "sarif")
BENCH_SHAPE: dict[str, int] = {"namespaces": 20}
"""The 16 MB bench tree of ``bench/run.py``."""


@dataclass(frozen=True)
class Case:
    """One command line, run from ``root``/``cwd``."""

    root: str
    cwd: str
    args: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.root}:{self.cwd} $ {' '.join(self.args)}"


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str

    def digest(self) -> dict[str, Any]:
        return {
            "exit": self.exit_code,
            "stdout": _sha(self.stdout),
            "stderr": _sha(self.stderr),
            "bytes": len(self.stdout.encode("utf-8")),
        }


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_case(case: Case, roots: dict[str, Path]) -> Outcome:
    """Run the case in this process, as the console script would."""
    runner = CliRunner()
    previous = Path.cwd()
    os.chdir(roots[case.root] / case.cwd)
    try:
        result = runner.invoke(main, list(case.args), catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Outcome(result.exit_code, _placed(result.stdout), _placed(result.stderr))


_REPOSITORY_URI = Path(__file__).resolve().parents[2].as_uri()


def _placed(text: str) -> str:
    """The output with the checkout's own location written as `file:///REPO`:
    a SARIF report names a file outside the working directory (a declaration
    file found upward) by its absolute URI, which is wherever the repository
    was cloned."""
    return text.replace(_REPOSITORY_URI, "file:///REPO")


def fixture_dirs() -> list[str]:
    """Every fixture tree a user could check, relative to ``fixtures/``."""
    found = ["demo", "helm/rendered"]
    found += sorted(f"scenarios/{p.name}" for p in (FIXTURES / "scenarios").iterdir() if p.is_dir())
    return found


def tree_cases(root: str, cwd: str, target: str, roots: dict[str, Path]) -> Iterator[Case]:
    """check in every format, generate, and explain for the first sandboxes
    the check reports (``_EXPLAINED``: each explain reads the whole tree)."""
    for fmt in FORMATS:
        yield Case(root, cwd, ("check", target, "--format", fmt))
    yield Case(root, cwd, ("check", target, "--format", "json", "--read-cilium", "always"))
    yield Case(root, cwd, ("generate", target, "--stdout"))
    report = run_case(Case(root, cwd, ("check", target, "--format", "json")), roots)
    try:
        sandboxes = json.loads(report.stdout)["sandboxes"]
    except (ValueError, KeyError):
        return
    # Warm paths and claims' pooled entries (issue 14) are left out, so the
    # explained sandboxes stay the ones recorded before them.
    sandboxes = [s for s in sandboxes if s["path"] in ("direct", "pooled") and "claim" not in s]
    for sandbox in sandboxes[: _EXPLAINED.get(root, 6)]:
        yield from _explain_cases(root, cwd, target, sandbox)


_EXPLAINED = {"bench": 2}
_DESTINATIONS = ("1.1.1.1:443", "10.0.0.10:53/UDP", "api.github.com:443")


def _explain_cases(root: str, cwd: str, target: str, sandbox: dict[str, Any]) -> Iterator[Case]:
    base = ["explain", target, "--template", sandbox["template"]]
    base += ["--namespace", sandbox["namespace"], "--path", sandbox["path"]]
    if sandbox.get("profile"):
        base += ["--profile", sandbox["profile"]]
    yield Case(root, cwd, (*base, "--format", "text"))
    yield Case(root, cwd, (*base, "--format", "json"))
    for destination in _DESTINATIONS:
        yield Case(root, cwd, (*base, "--to", destination, "--format", "json"))


def all_cases(roots: dict[str, Path]) -> list[Case]:
    """Every case, for the roots that exist."""
    cases: list[Case] = []
    for cwd in fixture_dirs():
        cases += tree_cases("fixtures", cwd, ".", roots)
    cases.append(Case("fixtures", "demo", ("rules",)))
    cases.append(Case("fixtures", "demo", ("rules", "--format", "json")))
    if "corpus" in roots:
        cases += tree_cases("corpus", ".", "corpus", roots)
    if "bench" in roots:
        cases += tree_cases("bench", ".", ".", roots)
    return cases


def base_roots() -> dict[str, Path]:
    roots = {"fixtures": FIXTURES}
    if CORPUS.is_dir():
        roots["corpus"] = CORPUS.parent
    return roots
