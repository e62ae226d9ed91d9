"""The package and the way it is tested, as the README states them: the
test command CI runs is the README's, slow tests are deselected by
default and run by CI, the metadata names files that exist, and the
CHANGELOG has an entry for the version being built."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from lint import __version__

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _section(markdown: str, title: str) -> str:
    start = markdown.index(f"\n## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def _sh_lines(markdown: str) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", markdown, re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_code_fence_of_the_readme_stands_on_its_own_line() -> None:
    # A fence after text on the same line closes nothing: the rest of the
    # page would render as code.
    fences = [line for line in README.splitlines() if "```" in line]
    assert all(line.lstrip().startswith("```") for line in fences), fences
    assert len(fences) % 2 == 0


def test_ci_runs_the_readmes_test_command() -> None:
    (command,) = [line for line in _sh_lines(_section(README, "Test")) if "pytest" in line]
    assert command in CI.splitlines()
    # The quick suite, then the slow tests: CI runs the whole suite.
    assert command.endswith("pytest && pytest -m slow")
    assert "'.[dev]'" in command  # actionlint comes with the dev extra


def test_slow_tests_are_deselected_by_default() -> None:
    addopts = shlex.split(PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"])
    assert addopts[addopts.index("-m") + 1] == "not slow"
    assert any(m.startswith("slow:") for m in PYPROJECT["tool"]["pytest"]["ini_options"]["markers"])


def test_ci_checks_the_built_wheel_from_outside_the_checkout() -> None:
    assert "bash .ci/wheel" in CI
    wheel = (REPO / ".ci" / "wheel").read_text(encoding="utf-8")
    for step in ("-m build", "-m twine check --strict", 'pipx" install', "check ../demo"):
        assert step in wheel, step
    assert 'expect 1 "$status"' in wheel  # the demo's widening policy fails the check


def test_the_metadata_names_files_that_exist() -> None:
    project = PYPROJECT["project"]
    assert project["requires-python"] == ">=3.11"
    assert (REPO / project["readme"]).is_file()
    for name in project["license-files"]:
        assert (REPO / name).is_file()
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "lint/__init__.py"
    # Every path the sdist takes exists.
    for name in PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]:
        assert (REPO / name).exists(), name


def test_the_readme_installs_with_a_supported_python() -> None:
    install = _section(README, "Install")
    assert "Python 3.11 or newer" in install
    assert f"dist/egress_lint-{__version__}-py3-none-any.whl" in install
    assert "pipx install ." in install
    assert "_EGRESS_LINT_COMPLETE" in install


def test_the_changelog_has_the_version_being_built() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(__version__)}\b", changelog, re.MULTILINE)
    policy = _section(changelog, "Version policy")
    assert "Semantic Versioning" in policy
    assert "schemaVersion" in policy
