"""Rendering with the real helm and kustomize (DESIGN §11): `--helm` and
`--kustomize` find what piping `helm template` or `kustomize build` into
`check -` finds, findings land on the chart's template files, and a bare
`check` renders and checks every `renders:` environment. Skips with a
reason where the tools are absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from lint.loading.rendered import chart_file
from tests.render.tools import CHART, FIXTURE, NAMESPACE, REPO, Tools, egress_lint, run

WIDENS = "egress-policy-widens"
HELM_ENVIRONMENTS = [("prod", 0), ("dev", 1)]
OVERLAYS = [("prod", 0), ("dev", 1)]


def _findings(report: str, *, source_root: str | None = None) -> list[tuple[Any, ...]]:
    """What a finding says, apart from the name of the stream it was read
    from; a piped stream's `# Source:` paths mapped as --helm maps them."""
    found = []
    for f in json.loads(report)["findings"]:
        source = f.get("source")
        if source is not None and source_root is not None:
            source = chart_file(source, source_root)
        sandbox = f["sandbox"]
        found.append((f["ruleId"], f["level"], f["message"], f["line"], source, str(sandbox)))
    return sorted(found)


def _unplaced(report: str) -> list[tuple[Any, ...]]:
    return sorted((*finding[:3], *finding[4:]) for finding in _findings(report))


def _helm_flags(environment: str) -> list[str]:
    return ["--values", f"env/{environment}.yaml", "--namespace", NAMESPACE]


@pytest.mark.parametrize(("environment", "expected"), HELM_ENVIRONMENTS)
def test_helm_flag_finds_what_the_piped_render_finds(
    helm: Tools, environment: str, expected: int
) -> None:
    flags = _helm_flags(environment)
    rendered = run(["helm", "template", "sandboxes", CHART, *flags], path=[helm.directory])
    assert rendered.returncode == 0, rendered.err
    piped = egress_lint(
        "check",
        "-",
        "--namespace",
        NAMESPACE,
        "--format",
        "json",
        stdin=rendered.out,
        path=[helm.directory],
    )
    flagged = egress_lint(
        "check",
        "--helm",
        CHART,
        "--release",
        "sandboxes",
        *flags,
        "--format",
        "json",
        path=[helm.directory],
    )
    assert (flagged.returncode, piped.returncode) == (expected, expected), flagged.err + piped.err
    assert _findings(flagged.out) == _findings(piped.out, source_root=CHART)
    widening = [f for f in _findings(flagged.out) if f[0] == WIDENS]
    assert len(widening) == expected


def test_sarif_result_points_at_the_chart_template(helm: Tools) -> None:
    ran = egress_lint(
        "check", "--helm", CHART, *_helm_flags("dev"), "--format", "sarif", path=[helm.directory]
    )
    assert ran.returncode == 1, ran.err
    (result,) = [r for r in json.loads(ran.out)["runs"][0]["results"] if r["ruleId"] == WIDENS]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "charts/sandboxes/templates/debug-egress.yaml"
    template = (FIXTURE / CHART / "templates" / "debug-egress.yaml").read_text().splitlines()
    # The widening rule starts at the `- to:` above the ipBlock.
    rule_line = next(i for i, text in enumerate(template, 1) if "ipBlock" in text) - 1
    assert template[rule_line - 1].strip() == "- to:"
    assert where["region"]["startLine"] == rule_line
    related = result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    # A stream's name is percent-encoded like any path (issue 13).
    assert unquote(related) == "<helm template charts/sandboxes>"


@pytest.mark.parametrize(("overlay", "expected"), OVERLAYS)
def test_kustomize_flag_finds_what_the_piped_build_finds(
    kustomize: Tools, overlay: str, expected: int
) -> None:
    directory = f"kustomize/overlays/{overlay}"
    built = run(
        ["sh", "-c", f"kustomize build {directory} 2>/dev/null || kubectl kustomize {directory}"],
        path=[kustomize.directory],
    )
    assert built.returncode == 0, built.err
    piped = egress_lint(
        "check", "-", "--format", "json", stdin=built.out, path=[kustomize.directory]
    )
    flagged = egress_lint(
        "check", "--kustomize", directory, "--format", "json", path=[kustomize.directory]
    )
    assert (flagged.returncode, piped.returncode) == (expected, expected), flagged.err + piped.err
    # The same findings; --kustomize places them at the overlay's files, a
    # piped stream at its own lines.
    assert _unplaced(flagged.out) == _unplaced(piped.out)
    # The overlay's namespace reached the objects: nothing fell into `default`.
    sandboxes = json.loads(flagged.out)["sandboxes"]
    assert {s["namespace"] for s in sandboxes} == {NAMESPACE}


def test_bare_check_renders_every_environment(helm: Tools, kustomize: Tools) -> None:
    ran = egress_lint("check", "--format", "json", path=[helm.directory])
    assert ran.returncode == 1, ran.err
    report = json.loads(ran.out)
    assert [s["environment"] for s in report["sandboxes"]] == [
        "prod",
        "dev",
        "kustomize-prod",
        "kustomize-dev",
    ]
    widening = [f for f in report["findings"] if f["ruleId"] == WIDENS]
    assert sorted(f["environment"] for f in widening) == ["dev", "kustomize-dev"]
    (helm_finding,) = [f for f in widening if f["environment"] == "dev"]
    assert helm_finding["source"] == "charts/sandboxes/templates/debug-egress.yaml"
    assert helm_finding["file"] == "<helm template charts/sandboxes (dev)>"
    text = egress_lint("check", path=[helm.directory])
    assert "namzu-sandboxes/namzu-task [direct path] in dev" in text.out
    sarif = json.loads(egress_lint("check", "--format", "sarif", path=[helm.directory]).out)
    assert len(sarif["runs"]) == 1
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == WIDENS]
    assert sorted(r["properties"]["environment"] for r in results) == ["dev", "kustomize-dev"]
    hashes = {r["partialFingerprints"]["primaryLocationLineHash"] for r in results}
    assert len(hashes) == 2


def test_a_failed_render_is_a_usage_error_with_the_tools_error(helm: Tools) -> None:
    ran = egress_lint(
        "check", "--helm", CHART, "--values", "env/missing.yaml", path=[helm.directory]
    )
    assert ran.returncode == 2
    assert "`helm template charts/sandboxes --values env/missing.yaml` failed" in ran.err
    assert "env/missing.yaml" in ran.err.split("failed", 1)[1]  # helm's own words follow


def test_explain_and_generate_render_too(helm: Tools) -> None:
    explained = egress_lint(
        "explain",
        "--template",
        "namzu-task",
        "--helm",
        CHART,
        *_helm_flags("dev"),
        "--to",
        "1.1.1.1:443",
        path=[helm.directory],
    )
    # dev's debug policy lets 1.1.1.1:443 out beyond the allowance (issue 13).
    assert explained.returncode == 1, explained.err
    assert "namzu-task-debug-egress" in explained.out
    assert "allowance: OUTSIDE the allowance" in explained.out
    generated = egress_lint(
        "generate", "--stdout", "--helm", CHART, *_helm_flags("prod"), path=[helm.directory]
    )
    assert generated.returncode == 0, generated.err
    assert "name: namzu-task-egress" in generated.out


# --- a render beside PATHs (issue 28) -----------------------------------------------------

MANIFESTS = ("manifests/web-egress.yaml", "manifests/metrics-egress.yaml")


def _widening_files(report: str) -> list[tuple[str, str | None]]:
    found = json.loads(report)["findings"]
    return sorted((f["file"], f.get("source")) for f in found if f["ruleId"] == WIDENS)


def test_helm_flag_with_paths_reads_the_render_and_the_paths_as_one(helm: Tools) -> None:
    """`check --helm CHART manifests/`: prod's chart holds the named policy
    and the template (nothing is missing, so the chart was read), and each
    plain manifest's policy is judged beside it."""
    ran = egress_lint(
        "check",
        "--helm",
        CHART,
        *_helm_flags("prod"),
        "manifests/",
        "--format",
        "json",
        path=[helm.directory],
    )
    assert ran.returncode == 1, ran.err
    report = json.loads(ran.out)
    assert [f["ruleId"] for f in report["findings"]] == [WIDENS, WIDENS]
    assert _widening_files(ran.out) == [(name, None) for name in sorted(MANIFESTS)]
    (sandbox,) = report["sandboxes"]
    assert sandbox["egress"]["named"]["result"] == "match"
    examined = {e["name"]: e["file"] for e in sandbox["egress"]["union"]["examined"]}
    assert examined == {
        "namzu-task-egress": "<helm template charts/sandboxes>",
        "namzu-task-web-egress": "manifests/web-egress.yaml",
        "namzu-task-metrics-egress": "manifests/metrics-egress.yaml",
    }
    # dev's chart widens too: its finding lands on the chart's template file.
    dev = egress_lint(
        "check",
        "--helm",
        CHART,
        *_helm_flags("dev"),
        "manifests/",
        "--format",
        "json",
        path=[helm.directory],
    )
    assert _widening_files(dev.out) == sorted(
        [
            ("<helm template charts/sandboxes>", "charts/sandboxes/templates/debug-egress.yaml"),
            *((name, None) for name in MANIFESTS),
        ]
    )


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_render_with_paths_gives_the_same_bytes_in_any_order(helm: Tools, fmt: str) -> None:
    first = egress_lint(
        "check",
        "--helm",
        CHART,
        *_helm_flags("dev"),
        *MANIFESTS,
        "--format",
        fmt,
        path=[helm.directory],
    )
    second = egress_lint(
        "check",
        *reversed(MANIFESTS),
        "--format",
        fmt,
        "--helm",
        CHART,
        *_helm_flags("dev"),
        path=[helm.directory],
    )
    assert first.returncode == 1, first.err
    assert (second.returncode, second.out) == (first.returncode, first.out)


def test_kustomize_flag_with_paths(kustomize: Tools) -> None:
    ran = egress_lint(
        "check",
        "--kustomize",
        "kustomize/overlays/prod",
        "manifests/",
        "--format",
        "json",
        path=[kustomize.directory],
    )
    assert ran.returncode == 1, ran.err
    assert _widening_files(ran.out) == [(name, None) for name in sorted(MANIFESTS)]
    (sandbox,) = json.loads(ran.out)["sandboxes"]
    assert sandbox["egress"]["named"]["result"] == "match"


def test_explain_and_generate_read_paths_beside_a_render(helm: Tools) -> None:
    explained = egress_lint(
        "explain",
        "--template",
        "namzu-task",
        "--helm",
        CHART,
        *_helm_flags("prod"),
        "manifests/web-egress.yaml",
        "--to",
        "1.1.1.1:443",
        path=[helm.directory],
    )
    # prod's chart lets nothing out; the plain manifest's policy does.
    assert explained.returncode == 1, explained.err
    assert "namzu-task-web-egress" in explained.out
    alone = egress_lint(
        "explain",
        "--template",
        "namzu-task",
        "--helm",
        CHART,
        *_helm_flags("prod"),
        "--to",
        "1.1.1.1:443",
        path=[helm.directory],
    )
    assert alone.returncode == 0, alone.err
    generated = egress_lint(
        "generate",
        "--stdout",
        "--helm",
        CHART,
        *_helm_flags("prod"),
        "manifests/",
        path=[helm.directory],
    )
    assert generated.returncode == 0, generated.err
    assert "name: namzu-task-egress" in generated.out


def test_a_render_failing_in_one_environment_reports_the_others(
    helm: Tools, tmp_path: Path
) -> None:
    """Issue 28: `fixtures/scenarios/render-failed`, one chart whose template
    requires a value dev's values leave out. prod is checked as usual; dev
    is one render-failed error at its renders: entry, quoting helm's
    message, and its sandbox fails closed; the exit status covers both."""
    scenario = REPO / "fixtures" / "scenarios" / "render-failed"
    ran = egress_lint("check", "--format", "json", cwd=scenario, path=[helm.directory])
    assert ran.returncode == 1, ran.err
    report = json.loads(ran.out)
    (failed,) = report["findings"]
    assert (failed["ruleId"], failed["level"], failed["environment"]) == (
        "render-failed",
        "error",
        "dev",
    )
    assert (failed["file"], failed["line"]) == (".egress-lint.yaml", 12)
    assert "`helm template chart --namespace sbx --values env/dev.yaml` failed" in failed["message"]
    assert "image is required" in failed["message"]
    by_environment = {s["environment"]: s for s in report["sandboxes"]}
    assert set(by_environment) == {"prod", "dev"}
    prod = by_environment["prod"]["egress"]
    assert (prod["named"]["result"], prod["union"]["refusal"]) == ("match", None)
    assert by_environment["dev"]["egress"]["union"]["refusal"] == "not-evaluable"
    text = egress_lint("check", cwd=scenario, path=[helm.directory])
    assert "ok   sbx/task [direct path] in prod" in text.out
    assert "FAIL sbx/task [direct path] in dev: render-failed" in text.out
    assert text.out.rstrip().endswith("2 sandbox path(s) checked, 1 error, 0 warnings, 0 notes")
    # With dev's image given, the same tree is clean: dev's failure alone set the status.
    copy = tmp_path / "render-failed"
    shutil.copytree(scenario, copy)
    (copy / "env" / "dev.yaml").write_text("image: registry.example.com/agents/task:dev\n")
    fixed = egress_lint("check", "--format", "json", cwd=copy, path=[helm.directory])
    assert fixed.returncode == 0, fixed.out + fixed.err
    assert json.loads(fixed.out)["findings"] == []
