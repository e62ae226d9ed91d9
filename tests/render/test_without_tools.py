"""Rendering without the real tools: the command lines egress-lint builds
(argument lists, `$EGRESS_LINT_HELM`, kubectl's kustomize as the fallback),
missing tools and bad flags as usage errors, `renders:` entries refused
where they are wrong, and unrendered trees met with one message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lint.declarations import DeclarationError, load_declarations
from lint.render import (
    HelmRender,
    KustomizeRender,
    RenderError,
    RenderPolicy,
    render,
    render_command,
)
from tests.render.tools import CHART, FIXTURE, egress_lint


def _stand_in(directory: Path, name: str, output: str = "", exit_code: int = 0) -> Path:
    """An executable that records its arguments one per line and prints ``output``."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    log = directory / f"{name}.args"
    script.write_text(
        f"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{log}'\n"
        f"printf '%s' '{output}'\necho 'stand-in error output' >&2\nexit {exit_code}\n"
    )
    script.chmod(0o755)
    return script


def test_helm_command_is_an_argument_list() -> None:
    spec = HelmRender(
        chart="-odd chart",
        values=("a.yaml", "b c.yaml"),
        set_values=("x=$(reboot)",),
        release="rel",
        namespace="ns",
        kube_version="1.30.0",
        api_versions=("cilium.io/v2", "monitoring.coreos.com/v1"),
    )
    argv = render_command(spec, {"EGRESS_LINT_HELM": sys.executable})
    assert argv == [
        sys.executable,
        "template",
        "rel",
        "./-odd chart",
        "--namespace",
        "ns",
        "--values",
        "a.yaml",
        "--values",
        "b c.yaml",
        "--set",
        "x=$(reboot)",
        "--kube-version",
        "1.30.0",
        "--api-versions",
        "cilium.io/v2",
        "--api-versions",
        "monitoring.coreos.com/v1",
    ]


def test_kustomize_falls_back_to_kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kubectl = _stand_in(tmp_path, "kubectl")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert render_command(KustomizeRender("overlays/dev"), {}) == [
        str(kubectl),
        "kustomize",
        "overlays/dev",
    ]
    kustomize = _stand_in(tmp_path, "kustomize")
    assert render_command(KustomizeRender("overlays/dev"), {}) == [
        str(kustomize),
        "build",
        "overlays/dev",
    ]


def test_missing_tools_name_the_tool_and_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError, match="helm is not on the PATH: install Helm"):
        render_command(HelmRender("chart"), {})
    with pytest.raises(RenderError, match="neither kustomize nor kubectl is on the PATH"):
        render_command(KustomizeRender("dir"), {})
    with pytest.raises(RenderError, match=r"\$EGRESS_LINT_HELM is '/nowhere/helm'"):
        render_command(HelmRender("chart"), {"EGRESS_LINT_HELM": "/nowhere/helm"})


def test_missing_helm_is_a_usage_error(tmp_path: Path) -> None:
    ran = egress_lint("check", "--helm", CHART, path=[tmp_path])
    assert ran.returncode == 2
    assert "helm is not on the PATH" in ran.err and "https://helm.sh" in ran.err


def test_egress_lint_helm_override_and_the_flags_it_gets(tmp_path: Path) -> None:
    helm = _stand_in(tmp_path / "bin", "helm-4", output="")
    ran = egress_lint(
        "check",
        "--helm",
        CHART,
        "--values",
        "env/dev.yaml",
        "--set",
        "a=b",
        "--release",
        "r",
        "--namespace",
        "ns",
        "--kube-version",
        "v1.31.0",
        "--api-versions",
        "x/v1,y/v2",
        env={"EGRESS_LINT_HELM": str(helm)},
    )
    assert ran.returncode == 1, ran.err  # nothing rendered: the declared template is missing
    args = (tmp_path / "bin" / "helm-4.args").read_text().splitlines()
    assert args == [
        "template",
        "r",
        CHART,
        "--namespace",
        "ns",
        "--values",
        "env/dev.yaml",
        "--set",
        "a=b",
        "--kube-version",
        "v1.31.0",
        "--api-versions",
        "x/v1",
        "--api-versions",
        "y/v2",
    ]


def test_a_failing_render_shows_the_tools_stderr(tmp_path: Path) -> None:
    helm = _stand_in(tmp_path, "helm", exit_code=1)
    ran = egress_lint("check", "--helm", CHART, env={"EGRESS_LINT_HELM": str(helm)})
    assert ran.returncode == 2
    assert "failed (exit 1)" in ran.err and "stand-in error output" in ran.err


def test_render_reads_the_tools_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helm = _stand_in(tmp_path, "helm", output="kind: Namespace")
    monkeypatch.setenv("EGRESS_LINT_HELM", str(helm))
    rendered = render(HelmRender(str(FIXTURE / CHART)), RenderPolicy(FIXTURE))
    assert bytes(rendered) == b"kind: Namespace"
    assert rendered.name.startswith("<helm template ")
    assert rendered.chart_root is not None and rendered.chart_root.endswith("charts/sandboxes")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--helm", CHART, "--kustomize", "x"], "give one of --helm and --kustomize"),
        (["--values", "v.yaml"], "--values only apply with --helm"),
        (["--helm", CHART, "-"], "give no '-' with it"),
        (["--kustomize", "k", "-"], "give no '-' with it"),
        (["--helm", CHART, "some/path"], "cannot read some/path: no such file"),
        (["--helm", CHART, "--passthrough", "."], "--passthrough copies the one stream"),
    ],
)
def test_render_flags_that_do_not_go_together(args: list[str], message: str) -> None:
    ran = egress_lint("check", *args)
    assert ran.returncode == 2
    assert message in ran.err


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{name: a}", "give exactly one of `helm: CHART` and `kustomize: DIR`"),
        ("{name: a, helm: c, kustomize: d}", "give exactly one of"),
        ("{name: a, kustomize: d, values: [v.yaml]}", "values only apply with `helm:`"),
        ("{name: a, helm: c, bogus: 1}", "bogus"),
    ],
)
def test_bad_renders_entries_are_declaration_errors(
    tmp_path: Path, entry: str, message: str
) -> None:
    declaration = tmp_path / ".egress-lint.yaml"
    declaration.write_text(
        f"version: 1\nrenders:\n  - {entry}\nsandboxes:\n  - template: t\n    egress: {{policy: {{kind: deny-all}}}}\n"
    )
    with pytest.raises(DeclarationError, match=message) as raised:
        load_declarations(declaration, namespace_override=None)
    assert raised.value.line == 3


def test_renders_paths_are_relative_to_the_declaration_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(FIXTURE.parent)
    renders = load_declarations(FIXTURE / ".egress-lint.yaml", namespace_override=None).renders
    assert [r.name for r in renders] == ["prod", "dev", "kustomize-prod", "kustomize-dev"]
    prod = renders[0].spec
    assert isinstance(prod, HelmRender)
    assert (prod.chart, prod.values) == ("render/charts/sandboxes", ("render/env/prod.yaml",))
    assert renders[3].spec == KustomizeRender("render/kustomize/overlays/dev")


@pytest.mark.parametrize(
    ("tree", "flag"),
    [
        ("charts/sandboxes", "--helm"),
        ("kustomize/base", "--kustomize"),
        ("kustomize/overlays/dev", "--kustomize"),
    ],
)
def test_an_unrendered_tree_gets_one_message(tree: str, flag: str) -> None:
    ran = egress_lint("check", tree, "--format", "json")
    assert ran.returncode == 1
    report = json.loads(ran.out)
    # It needs rendering: no parse error, and no policy it might hold named.
    assert report["parseErrors"] == []
    assert not any(f["ruleId"] == "parse-error" for f in report["findings"])
    (finding,) = [f for f in report["findings"] if f["ruleId"] == "render-needed"]
    said = f"{finding['message']} {finding['remedy']}"
    assert f"`egress-lint check {flag} {tree}`" in said
    assert f"{flag.strip('-')}: {tree}" in said  # the renders: entry to write
    # Nothing was read from it: no object silently landed in `default`.
    assert all(s["namespace"] != "default" for s in report["sandboxes"])
    # It may hold any policy, so every sandbox fails closed, with it named.
    for sandbox in report["sandboxes"]:
        decision = sandbox["egress"]["union"] or sandbox["egress"]["reach"]
        assert decision["refusal"] == "not-evaluable"
        assert "(unparsed" not in json.dumps(sandbox)
