"""How the process starts and ends: `egress-lint check` imports only what it
needs (a pre-commit hook runs it on every commit), and the console script
leaves with everything written and the command's exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from lint import cli
from lint.cli import main
from lint.console import VERSION_LINE

ONLY_ON_DEMAND = (
    "jinja2",
    "lint.generate",
    "lint.explain",
    "lint.report.sarif_report",
    "lint.cli.explain",
    "lint.cli.generate",
)


def test_importing_the_cli_leaves_other_commands_unloaded() -> None:
    probe = "import sys, lint.cli; print('\\n'.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    early = [m for m in loaded if m.startswith(ONLY_ON_DEMAND)]
    assert early == []


def _loaded_after(code: str, *args: str) -> list[str]:
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)), file=sys.stderr)"
    run = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    return run.stderr.split()


def test_version_imports_neither_click_nor_the_tool() -> None:
    code = (
        "sys.argv[0] = 'egress-lint'\n"
        "from lint.console import entry\n"
        "try:\n    entry()\nexcept SystemExit:\n    pass"
    )
    loaded = _loaded_after(code, "--version")
    assert "lint.console" in loaded
    assert [m for m in loaded if m.startswith(("click", "lint.cli", "lint.checks"))] == []


def test_the_fast_version_line_is_click_s() -> None:
    fast = subprocess.run(
        [sys.executable, "-c", ENTRY.replace("lint.cli", "lint.console"), "--version"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    assert fast == CliRunner().invoke(main, ["--version"], prog_name="egress-lint").output.encode()
    assert fast == f"{VERSION_LINE}\n".encode()


def test_help_imports_no_command() -> None:
    code = "from lint.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    loaded = _loaded_after(code)
    assert [m for m in loaded if m.startswith(("lint.cli.check", "lint.checks", "pydantic"))] == []


def test_a_run_without_a_declaration_file_imports_no_pydantic_or_ruamel(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("kind: NetworkPolicy\nmetadata: {name: p}\n")
    code = f"from lint.cli import run_cli\nsys.argv = ['egress-lint', 'check', {str(tmp_path)!r}]\nrun_cli()"
    loaded = _loaded_after(code)
    assert "lint.checks.runner" in loaded
    assert [m for m in loaded if m.startswith(("pydantic", "ruamel"))] == []


def test_a_run_with_a_valid_declaration_file_imports_no_pydantic() -> None:
    """The demo's file is checked plainly (lint.declarations.structure);
    pydantic loads only to word a refusal."""
    code = "from lint.cli import run_cli\nsys.argv = ['egress-lint', 'check', 'fixtures/demo']\nrun_cli()"
    loaded = _loaded_after(code)
    assert "lint.declarations.loading" in loaded
    assert [m for m in loaded if m.startswith(("pydantic", "lint.declarations.models"))] == []


RENDER_RUNNER = (
    "lint.render.run",
    "lint.render.bounded",
    "lint.render.origins",
    "lint.render.lines",
)


def test_a_check_of_files_imports_no_render_runner() -> None:
    """Running helm or kustomize, and reading their origins and template
    lines, is loaded only by a command that renders."""
    code = "from lint.cli import run_cli\nsys.argv = ['egress-lint', 'check', 'fixtures/demo']\nrun_cli()"
    loaded = _loaded_after(code)
    assert "lint.checks.runner" in loaded and "lint.render.spec" in loaded
    assert [m for m in loaded if m.startswith(RENDER_RUNNER) or m in ("subprocess", "shutil")] == []


def test_a_json_check_imports_no_text_report() -> None:
    code = (
        "from lint.cli import run_cli\n"
        "sys.argv = ['egress-lint', 'check', 'fixtures/demo', '--format', 'json']\nrun_cli()"
    )
    loaded = _loaded_after(code)
    assert "lint.report.json_report" in loaded
    assert "lint.report.text_report" not in loaded


def test_the_render_package_gives_its_runner_when_asked() -> None:
    from lint import render  # noqa: PLC0415 - the package, after other tests loaded it or not
    from lint.render import run  # noqa: PLC0415

    assert (render.render, render.RenderError, render.ToolMissing) == (
        run.render,
        run.RenderError,
        run.ToolMissing,
    )
    assert render.render_command is run.render_command
    with pytest.raises(AttributeError, match="nonesuch"):
        _ = render.nonesuch


def test_the_schema_command_prints_the_shipped_file_without_pydantic() -> None:
    """`egress-lint schema` reads the checked-in file; only a test
    generates it from the models."""
    code = "from lint.cli import run_cli\nsys.argv = ['egress-lint', 'schema']\nrun_cli()"
    loaded = _loaded_after(code)
    assert "lint.cli.schema" in loaded
    assert [m for m in loaded if m.startswith(("pydantic", "lint.declarations.models"))] == []


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
@pytest.mark.parametrize("limit", [30, 45, 1000])
def test_the_help_list_says_what_each_command_says(name: str, limit: int) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    expected = command.get_short_help_str(limit)
    assert cli.COMMANDS[name].stand_in(name).get_short_help_str(limit) == expected


def test_lazy_commands_are_listed_and_run() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in ("check", "explain", "generate", "init", "rules", "schema"):
        assert f"  {name} " in result.output
    assert CliRunner().invoke(main, ["generate", "--help"]).exit_code == 0
    assert CliRunner().invoke(main, ["explain", "--help"]).exit_code == 0
    assert CliRunner().invoke(main, ["init", "--help"]).exit_code == 0
    assert CliRunner().invoke(main, ["nonesuch"]).exit_code == 2


ENTRY = "import sys; from lint.cli import entry; sys.argv[0] = 'egress-lint'; entry()"
REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["check", "fixtures/demo", "--format", "json"], 1),
        (["check", "fixtures/demo", "--format", "json", "--fail-on", "never"], 0),
        (["check", "--format", "nonesuch"], 2),
    ],
)
def test_the_console_script_flushes_everything_before_it_leaves(args: list[str], code: int) -> None:
    """`entry` ends the process without interpreter teardown; what it wrote
    must all be there, and the exit code must be the command's."""
    run = subprocess.run(
        [sys.executable, "-c", ENTRY, *args], cwd=REPO, capture_output=True, check=False
    )
    assert run.returncode == code, run.stderr
    if code < 2:
        report = json.loads(run.stdout)
        assert report["sandboxes"] and run.stdout.endswith(b"\n")
    else:
        assert b"nonesuch" in run.stderr


def test_an_internal_failure_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(cli, "main", broken)
    messages: list[str] = []
    monkeypatch.setattr(cli.click, "echo", lambda text, err=False: messages.append(text))
    assert cli.run_cli() == 3
    assert messages == ["egress-lint: internal error: KeyError: 'surprise'. Please report it."]


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), ("bye", 1)])
def test_exit_codes_follow_python_s_rules(code: object, status: int) -> None:
    assert cli._status(code) == status


CHECKS_THEMSELVES = (
    "lint.checks.sandbox_checks",
    "lint.checks.judging",
    "lint.checks.reach",
    "lint.decision.tiers",
    # The report model and what writes or filters a report come with the
    # checks: nothing before the first file is read needs them.
    "lint.report.model",
    "lint.report.json_report",
    "lint.suppression",
)


def test_the_check_command_parses_its_options_before_the_checks_are_imported() -> None:
    """The checks are imported while the children load (``lint.checks.runner``)."""
    loaded = _loaded_after("import lint.cli.check")
    assert "lint.checks.runner" in loaded
    assert [m for m in loaded if m.startswith(CHECKS_THEMSELVES)] == []


def test_the_checks_are_imported_while_children_load_the_files() -> None:
    """With the load shared out (even the demo's few files, here), the
    parent imports the checks after the children start and before it takes
    any files: each process's first step is recorded as it is taken."""
    code = """
import os
from lint.loading import shares as loading_shares
from lint.parallel import shares as parallel_shares
loading_shares.MIN_SHARE_BYTES = loading_shares.UNIT_BYTES = 1
parent = os.getpid()
taken = parallel_shares._take
def recording(queue, groups, do_one, *claimed):
    first = 'lint.checks.sandbox_checks' in sys.modules
    if os.getpid() == parent:
        print('parent has the checks' if first else 'parent lacks the checks')
    yield from taken(queue, groups, do_one, *claimed)
parallel_shares._take = recording
from lint.cli import run_cli
sys.argv = ['egress-lint', 'check', 'fixtures/demo', '--format', 'json', '--jobs', '2']
try:
    run_cli()
finally:
    sys.stdout.flush()
"""
    run = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith("parent ")]
    assert lines[:1] == ["parent has the checks"], run.stderr


def test_the_collector_is_off_before_the_tool_is_imported() -> None:
    """The console script pauses the cyclic collector before it imports
    the command line, not only once a command runs: the import makes
    thousands of functions and classes for it to rescan."""
    code = (
        "import gc, sys\n"
        "sys.argv = ['egress-lint', 'rules']\n"
        "class Probe:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'lint.cli':\n"
        "            print(f'collector on: {gc.isenabled()}')\n"
        "sys.meta_path.insert(0, Probe())\n"
        "from lint.console import entry\n"
        "entry()"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert run.stdout.splitlines()[0] == "collector on: False"
    assert run.returncode == 0
