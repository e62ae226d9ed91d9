"""The golden cases: every command egress-lint has, on every input tree the
project knows, in every output format.

A case is a command line run from a working directory. ``regenerate.py``
records each case; ``test_golden.py`` runs the cases again and compares:

- on the fixture trees, the whole output as text, one file per tree under
  ``outputs/`` (``stored_text``): a change shows as a unified diff, and a
  reviewer reads what changed in the commit that changed it;
- on the large trees (``../shared/corpus`` and the generated bench tree),
  the exit code and the SHA-256 of each stream, in ``digests.json``.

Trees outside the repository and generated ones are named by a root token,
so the recorded cases do not depend on where the checkout lives.
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
from lint.report.reporters import CHECK_REPORTERS

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
CORPUS = REPO.parent / "shared" / "corpus"
DIGESTS = Path(__file__).with_name("digests.json")
FORMATS = ("text", "json", "sarif")
"""The formats pinned on the large trees."""
OUTPUTS = Path(__file__).with_name("outputs")
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


def tree_cases(
    root: str, cwd: str, target: str, roots: dict[str, Path], formats: tuple[str, ...] = FORMATS
) -> Iterator[Case]:
    """check in every format, generate, and explain for the first sandboxes
    the check reports (``_EXPLAINED``: each explain reads the whole tree)."""
    for fmt in formats:
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
    every_format = tuple(CHECK_REPORTERS)
    for cwd in fixture_dirs():
        cases += tree_cases("fixtures", cwd, ".", roots, every_format)
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


# --- the fixture trees' outputs as text -----------------------------------------------

_HEAD = "=== egress-lint "


def outputs_file(cwd: str) -> Path:
    """Where the outputs of the cases run in fixture tree ``cwd`` are kept."""
    return OUTPUTS / f"{cwd.replace('/', '__')}.txt"


def stored_text(case: Case, outcome: Outcome) -> str:
    """One case's section of its tree's file: the command, the exit code and
    a digest of the exact bytes, then each stream. A one-line JSON document
    is shown indented, so that a change reads as a diff of the members that
    changed; the digest still pins every byte."""
    head = f"{_HEAD}{' '.join(case.args)}\n"
    state = f"exit {outcome.exit_code}, stdout sha256 {_sha(outcome.stdout)[:16]}\n"
    return f"{head}{state}--- stdout\n{_shown(outcome.stdout)}--- stderr\n{_shown(outcome.stderr)}"


def _shown(text: str) -> str:
    if text.startswith(("{", "[")) and text.count("\n") <= 1:
        try:
            value = json.loads(text)
        except ValueError:
            pass
        else:
            return json.dumps(value, indent=1, ensure_ascii=False) + "\n"
    return text if not text or text.endswith("\n") else text + "\n[no final line break]\n"


def read_sections(path: Path) -> dict[tuple[str, ...], str]:
    """The stored sections of one tree's file, by the case's arguments."""
    if not path.is_file():
        return {}
    sections: dict[tuple[str, ...], str] = {}
    current: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith(_HEAD) and current:
            _keep(sections, current)
            current = []
        current.append(line)
    if current:
        _keep(sections, current)
    return sections


def _keep(sections: dict[tuple[str, ...], str], lines: list[str]) -> None:
    args = tuple(lines[0][len(_HEAD) :].rstrip("\n").split(" "))
    sections[args] = "".join(lines)
