"""``fixtures/environments``: three ``renders:`` environments that differ
(issue 28). Helm values for dev and prod, a Kustomize overlay for staging
in its own namespace, a sandbox in prod only: with entries scoped to their
environments the repository checks clean but for the one widening policy
placed in staging. Runs the real tools, from a working directory that is
not the fixture's, so every ``renders:`` path must be read next to the
declaration file. Skips with a reason where the tools are absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.render.tools import REPO, Tools, egress_lint

FIXTURE = REPO / "fixtures" / "environments"
WIDENS = "egress-policy-widens"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A working directory with a decoy chart where the declaration's
    would be if paths were read from the current directory."""
    decoy = tmp_path / "run" / "charts" / "agents"
    shutil.copytree(FIXTURE / "charts" / "agents", decoy)
    (decoy / "templates" / "coder.yaml").write_text("broken: {{ .Nothing.here }\n")
    return tmp_path / "run"


def _copy(tmp_path: Path, declaration: str) -> Path:
    copied = tmp_path / "repo"
    shutil.copytree(FIXTURE, copied)
    (copied / ".egress-lint.yaml").write_text(declaration, encoding="utf-8")
    return copied / ".egress-lint.yaml"


def _check(config: Path, tools: Tools, cwd: Path) -> tuple[int, dict[str, Any]]:
    ran = egress_lint(
        "check", "--config", str(config), "--format", "json", path=[tools.directory], cwd=cwd
    )
    assert ran.returncode in (0, 1), ran.err
    return ran.returncode, json.loads(ran.out)


def test_scoped_entries_check_clean_but_for_the_widening_in_staging(
    helm: Tools, kustomize: Tools, elsewhere: Path
) -> None:
    code, report = _check(FIXTURE / ".egress-lint.yaml", helm, elsewhere)
    assert code == 1
    checked = [(s["environment"], s["namespace"], s["template"]) for s in report["sandboxes"]]
    assert checked == [
        ("dev", "agents", "coder"),
        ("prod", "agents", "coder"),
        ("prod", "agents", "researcher"),
        ("staging", "agents-staging", "coder"),
    ]
    findings = [(f["ruleId"], f["level"], f["environment"]) for f in report["findings"]]
    assert findings == [(WIDENS, "error", "staging")]
    (finding,) = report["findings"]
    assert "coder-debug-egress" in finding["message"]


def test_unscoped_the_same_repository_is_all_errors(
    helm: Tools, kustomize: Tools, tmp_path: Path
) -> None:
    """What the scoping saves: each entry is required in every environment."""
    text = (FIXTURE / ".egress-lint.yaml").read_text(encoding="utf-8")
    unscoped = text.replace(
        "namespace: {dev: agents, prod: agents, staging: agents-staging}", "namespace: agents"
    ).replace("    environments: [prod]\n", "")
    assert unscoped != text
    code, report = _check(_copy(tmp_path, unscoped), helm, tmp_path)
    assert code == 1
    errors = {(f["environment"], f["ruleId"]) for f in report["findings"] if f["level"] == "error"}
    # The researcher is missing in dev and staging, coder in staging's `agents`.
    assert {environment for environment, _ in errors} == {"dev", "staging"}
    assert len([f for f in report["findings"] if f["level"] == "error"]) > 1


def test_a_per_environment_namespace_is_where_the_entry_is_judged(
    helm: Tools, kustomize: Tools, tmp_path: Path
) -> None:
    """Staging's coder, declared in `agents`, is not found there."""
    text = (FIXTURE / ".egress-lint.yaml").read_text(encoding="utf-8")
    wrong = text.replace("staging: agents-staging}", "staging: agents}")
    code, report = _check(_copy(tmp_path, wrong), helm, tmp_path)
    assert code == 1
    staging = {f["ruleId"] for f in report["findings"] if f["environment"] == "staging"}
    assert WIDENS not in staging  # the policy's namespace holds no declared sandbox now
    assert staging  # and the declared one is missing
    assert {f["environment"] for f in report["findings"]} == {"staging"}


def test_explain_picks_the_environment(helm: Tools, kustomize: Tools, elsewhere: Path) -> None:
    config = str(FIXTURE / ".egress-lint.yaml")

    def explain(*args: str) -> tuple[int, str, str]:
        ran = egress_lint(
            "explain", "--config", config, *args, path=[helm.directory], cwd=elsewhere
        )
        return ran.returncode, ran.out, ran.err

    code, out, err = explain("--template", "coder", "--environment", "staging", "--format", "json")
    assert code == 0, err
    sandbox = json.loads(out)["sandbox"]
    assert (sandbox["environment"], sandbox["namespace"]) == ("staging", "agents-staging")
    code, out, err = explain(
        "--template", "coder", "--environment", "staging", "--to", "1.1.1.1:443"
    )
    assert code == 1, err
    assert "coder-debug-egress" in out
    assert explain("--template", "coder", "--environment", "prod", "--to", "1.1.1.1:443")[0] == 0
    # In several environments, explain asks which one.
    code, _, err = explain("--template", "coder")
    assert code == 2
    assert "pick one with --environment" in err
    # The prod-only sandbox is found in prod without asking.
    code, out, err = explain("--template", "researcher")
    assert code == 0, err
    assert "rendered for the renders: environment prod" in out
    # An environment the sandbox does not belong to, or no such environment.
    code, _, err = explain("--template", "researcher", "--environment", "dev")
    assert code == 2
    assert "in the renders: environment dev" in err
    code, _, err = explain("--template", "coder", "--environment", "qa")
    assert code == 2
    assert "no renders: environment 'qa'; declared: dev, prod, staging" in err


def test_a_missing_renders_path_is_a_declaration_error(
    helm: Tools, kustomize: Tools, tmp_path: Path
) -> None:
    text = (FIXTURE / ".egress-lint.yaml").read_text(encoding="utf-8")
    config = _copy(tmp_path, text.replace("values: [values/prod.yaml]", "values: [values/qa.yaml]"))
    ran = egress_lint("check", "--config", str(config), path=[helm.directory], cwd=tmp_path)
    assert ran.returncode == 2
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "values/prod.yaml" in row)
    assert f".egress-lint.yaml:{line}: renders[1].values[0]: values/qa.yaml does not exist" in (
        ran.err
    )
    assert "Traceback" not in ran.err


def test_the_documented_complete_example_is_this_fixture() -> None:
    page = (REPO / "docs" / "declarations.md").read_text(encoding="utf-8")
    declaration = (FIXTURE / ".egress-lint.yaml").read_text(encoding="utf-8")
    assert f"```yaml\n{declaration}```\n" in page
