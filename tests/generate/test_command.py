"""The ``generate`` command line (REPORT.md): exactly one of --out and
--stdout, exit 2 for declaration errors, exit 1 when it refuses to write."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from lint.cli.generate import generate_command
from tests.generate.conftest import READERS, exact
from tests.generate.variants import VARIANTS


@click.group()
def cli() -> None:
    """A local group: the lead registers the command on the real one."""


cli.add_command(generate_command)


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["generate", *args], input=stdin, catch_exceptions=False)


@pytest.mark.parametrize(
    "args",
    [(), ("--stdout", "--out", "x"), ("--stdout", "--force"), ("--force",)],
)
def test_exactly_one_destination_is_required(workdir: Path, args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert "--out" in result.output


def test_stdout_is_multi_document_yaml(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["public-internet"], encoding="utf-8")
    result = run("--stdout")
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "---\n# NetworkPolicy namzu-task-egress in namespace namzu-sandboxes\n"
    )
    values = READERS["egress-lint"](result.stdout)
    assert [v["metadata"]["name"] for v in values] == [
        "namzu-task-egress",
        "namzu-sandbox-baseline",
    ]


def test_out_lists_what_it_did(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    first = run("--out", "out")
    assert first.exit_code == 0
    assert first.stdout.splitlines() == [
        "created   out/namzu-sandboxes/networkpolicy-namzu-task-egress.yaml",
        "created   out/namzu-sandboxes/networkpolicy-namzu-sandbox-baseline.yaml",
    ]
    assert run("--out", "out").stdout.splitlines()[0].startswith("unchanged ")


def test_refusing_to_overwrite_exits_1(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    run("--out", "out")
    target = workdir / "out" / "namzu-sandboxes" / "networkpolicy-namzu-task-egress.yaml"
    target.write_text("mine\n", encoding="utf-8")
    refused = run("--out", "out")
    assert refused.exit_code == 1
    assert "use --force" in refused.stderr
    assert target.read_text(encoding="utf-8") == "mine\n"
    assert run("--out", "out", "--force").exit_code == 0
    assert target.read_text(encoding="utf-8") != "mine\n"


def test_an_invalid_declaration_exits_2_naming_field_and_line(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n"
        "      policy: {kind: public-internet, exceptCidrs: [not-a-cidr]}\n",
        encoding="utf-8",
    )
    result = run("--stdout")
    assert result.exit_code == 2
    assert "sandboxes[0].egress.policy.exceptCidrs" in result.stderr
    assert ".egress-lint.yaml:5" in result.stderr
    assert result.stdout == ""


def test_conflicting_declarations_exit_2(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(
        "version: 1\nsandboxes:\n"
        "  - {template: a, egress: {networkPolicyName: namzu-sandbox-baseline, policy: {kind: deny-all}}}\n",
        encoding="utf-8",
    )
    result = run("--stdout")
    assert result.exit_code == 2
    assert "generated twice" in result.stderr


def test_config_option_and_manifests_from_stdin(workdir: Path) -> None:
    """--config names the file; with no file, '-' reads the templates from stdin."""
    (workdir / "decl.yaml").write_text(VARIANTS["no-network"], encoding="utf-8")
    configured = run("--config", "decl.yaml", "--stdout")
    assert "no-network" in configured.stdout
    template = (
        "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
        "metadata: {name: from-stdin}\nspec: {podTemplate: {spec: {containers: []}}}\n"
    )
    defaulted = run("-", "--namespace", "piped", "--stdout", stdin=template)
    assert defaulted.exit_code == 0
    values = READERS["egress-lint"](defaulted.stdout)
    # Issue 25: the default is `host: none`: no namzu baseline.
    assert [(v["metadata"]["namespace"], v["metadata"]["name"]) for v in values] == [
        ("piped", "from-stdin-egress"),
    ]
    assert "No declaration file: the default intent (deny-all, engine core)" in defaulted.stdout
    assert exact(values[0]["spec"]["policyTypes"]) == exact(["Egress"])
