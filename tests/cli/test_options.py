"""The options more than one command takes are declared once
(``lint/cli/options.py``): every command that has one accepts and refuses
it the same way, and ``--format`` offers exactly the reporters of the
command's registry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lint.cli import main
from lint.cli.rules import RULES_REPORTERS
from lint.explain.reporters import EXPLAIN_REPORTERS
from lint.report.reporters import CHECK_REPORTERS

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"

COMMANDS = {
    "check": ["check"],
    "explain": ["explain", "--template", "namzu-task"],
    "generate": ["generate", "--stdout"],
}
"""Every command that reads manifests, with what it needs besides them."""
READING = pytest.mark.parametrize("command", list(COMMANDS))


def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(main, args)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo whose declaration file is not named
    ``.egress-lint.yaml``, so only --config finds it; the working directory."""
    shutil.copytree(DEMO, tmp_path / "demo")
    (tmp_path / "demo" / ".egress-lint.yaml").rename(tmp_path / "declared.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@READING
def test_config_names_the_declaration_file(command: str, demo: Path) -> None:
    configured = invoke([*COMMANDS[command], "demo", "--config", "declared.yaml"])
    (demo / "declared.yaml").rename(demo / "demo" / ".egress-lint.yaml")
    found = invoke([*COMMANDS[command], "demo"])
    assert configured.exit_code in (0, 1), configured.output
    shown = found.output.replace("demo/.egress-lint.yaml", "declared.yaml")
    assert (configured.exit_code, configured.output) == (found.exit_code, shown)


@READING
def test_config_refuses_a_directory(command: str, demo: Path) -> None:
    result = invoke([*COMMANDS[command], "demo", "--config", "demo"])
    assert result.exit_code == 2
    assert "Invalid value for '--config'" in result.output
    assert "is a directory" in result.output


@READING
def test_config_that_does_not_exist_is_a_declaration_error(command: str, demo: Path) -> None:
    result = invoke([*COMMANDS[command], "demo", "--config", "nonesuch.yaml"])
    assert result.exit_code == 2
    assert result.stderr.startswith("egress-lint: ") and "nonesuch.yaml" in result.stderr


@READING
def test_namespace_is_taken_and_said_in_help(command: str) -> None:
    help_text = invoke([*COMMANDS[command][:1], "--help"]).output
    assert "--namespace NAMESPACE" in help_text


LIMITS = ["--max-file-size", "--max-total-size", "--max-document-size", "--max-depth"]
LIMITS.append("--max-alias-expansion")


@READING
@pytest.mark.parametrize("flag", LIMITS)
def test_a_bad_limit_is_a_usage_error_naming_its_flag(command: str, flag: str) -> None:
    result = invoke([*COMMANDS[command], str(DEMO), flag, "0"])
    assert result.exit_code == 2
    assert "No such option" not in result.output
    assert f"Invalid value for {flag}" in result.output


@READING
def test_a_limit_that_is_not_a_number_is_a_usage_error(command: str) -> None:
    result = invoke([*COMMANDS[command], str(DEMO), "--max-file-size", "lots"])
    assert result.exit_code == 2
    assert "Invalid value for --max-file-size: 'lots' is not a size" in result.output


@pytest.mark.parametrize("command", ["check", "explain"])
def test_read_cilium_is_refused_alike(command: str) -> None:
    result = invoke([*COMMANDS[command], str(DEMO), "--read-cilium", "never"])
    assert result.exit_code == 2
    assert "'never' is not one of 'auto', 'always'" in result.output


@pytest.mark.parametrize(
    ("command", "reporters"),
    [("check", CHECK_REPORTERS), ("explain", EXPLAIN_REPORTERS), ("rules", RULES_REPORTERS)],
)
def test_format_offers_the_registry_of_the_command(command: str, reporters: object) -> None:
    names = list(reporters)  # type: ignore[call-overload]
    help_text = invoke([command, "--help"]).output
    assert f"[{'|'.join(names)}]" in help_text
    assert f"[default: {names[0]}]" in help_text
    refused = invoke([command, "--format", "nonesuch"])
    assert refused.exit_code == 2
    assert ", ".join(f"'{name}'" for name in names) in refused.output


def test_jobs_must_be_positive() -> None:
    result = invoke(["check", str(DEMO), "--jobs", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--jobs'" in result.output
