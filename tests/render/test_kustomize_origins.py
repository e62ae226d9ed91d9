"""Kustomize findings at the files that wrote them (issue 27): a base that
widens egress itself, an overlay whose patch file widens a second policy,
and an inline patch that widens a third (`fixtures/render/kustomize-origins`).
The real kustomize (or kubectl) runs; the tests skip without it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from lint.render.origins import ORIGIN, TRANSFORMATIONS, stripped
from tests.render.tools import FIXTURE, Tools, egress_lint

OVERLAY = "kustomize-origins/overlay"
BASE_FILE = "kustomize-origins/base/policies.yaml"
PATCH_FILE = "kustomize-origins/overlay/open-dns.yaml"
KUSTOMIZATION = "kustomize-origins/overlay/kustomization.yaml"
FORMATS = ("text", "json", "sarif", "github", "markdown")


def _line(path: str, text: str, before: int = 0) -> int:
    """The 1-based line of the first line of ``path`` holding ``text``,
    less ``before``."""
    lines = (FIXTURE / path).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line) - before


def _widens(report: str) -> dict[str, tuple[str, int, str]]:
    """Each egress-policy-widens finding by policy name: file, line, message."""
    return {name: found[:3] for name, found in _widening(report).items()}


def _widening(report: str) -> dict[str, tuple[str, int, str, list[tuple[str, int]]]]:
    """As ``_widens``, with the file and line of each offending rule."""
    found = {}
    for finding in json.loads(report)["findings"]:
        if finding["ruleId"] == "egress-policy-widens":
            name = finding["message"].split()[0].split("/")[1]
            rules = [(r["file"], r["line"]) for r in finding["culprit"]["rules"]]
            found[name] = (finding["file"], finding["line"], finding["message"], rules)
    return found


def test_each_object_and_rule_sits_at_the_file_that_wrote_it(kustomize: Tools) -> None:
    done = egress_lint(
        "check", "--kustomize", OVERLAY, "--format", "json", path=[kustomize.directory]
    )
    assert done.returncode == 1, done.err
    found = _widens(done.out)
    # The base's own rule: the `- to:` two lines above its cidr.
    assert found["namzu-task-web"][:2] == (BASE_FILE, _line(BASE_FILE, "cidr: 0.0.0.0/0", 2))
    # Rewritten by a patch file: the rule's line in the patch.
    assert found["namzu-task-dns"][:2] == (PATCH_FILE, _line(PATCH_FILE, "cidr: 10.0.0.0/8", 2))
    # Rewritten by an inline patch: the kustomization's patches, and a note.
    file, line, message = found["namzu-task-metrics"]
    assert (file, line) == (KUSTOMIZATION, _line(KUSTOMIZATION, "patches:"))
    assert f"a patch listed in {KUSTOMIZATION} changed" in message
    assert "(a patch" not in found["namzu-task-web"][2]


def test_each_rule_of_a_policy_sits_at_its_own_file(kustomize: Tools) -> None:
    """The web policy widens egress in the base, and an inline patch of the
    overlay adds a second widening rule: each rule at its own place."""
    done = egress_lint(
        "check", "--kustomize", OVERLAY, "--format", "json", path=[kustomize.directory]
    )
    rules = _widening(done.out)["namzu-task-web"][3]
    assert rules == [
        (BASE_FILE, _line(BASE_FILE, "cidr: 0.0.0.0/0", 2)),
        (KUSTOMIZATION, _line(KUSTOMIZATION, "patches:")),
    ]
    text = egress_lint("check", "--kustomize", OVERLAY, path=[kustomize.directory]).out
    assert f"lets out ({KUSTOMIZATION}:{_line(KUSTOMIZATION, 'patches:')}): spec.egress[2]" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_names_the_build_stream(kustomize: Tools, fmt: str) -> None:
    done = egress_lint("check", "--kustomize", OVERLAY, "--format", fmt, path=[kustomize.directory])
    assert done.returncode == 1, done.err
    assert "kustomize build" not in done.out
    assert "%3Ckustomize" not in done.out
    assert BASE_FILE in done.out and PATCH_FILE in done.out


def test_every_sarif_uri_is_a_file_of_the_repository(kustomize: Tools) -> None:
    done = egress_lint(
        "check", "--kustomize", OVERLAY, "--format", "sarif", path=[kustomize.directory]
    )
    uris = set()
    for result in json.loads(done.out)["runs"][0]["results"]:
        for place in (*result["locations"], *result.get("relatedLocations", [])):
            uris.add(place["physicalLocation"]["artifactLocation"]["uri"])
    assert uris
    assert all((FIXTURE / uri).is_file() for uri in uris), uris


def test_the_text_report_says_where_a_patch_could_not_be_told(kustomize: Tools) -> None:
    done = egress_lint("check", "--kustomize", OVERLAY, path=[kustomize.directory])
    assert f"error {KUSTOMIZATION}:{_line(KUSTOMIZATION, 'patches:')}" in done.out
    assert "where: a patch listed in" in done.out


def test_the_temporary_kustomization_is_removed(kustomize: Tools, tmp_path: Path) -> None:
    before = sorted(p.name for p in FIXTURE.rglob("*"))
    done = egress_lint(
        "check",
        "--kustomize",
        OVERLAY,
        path=[kustomize.directory],
        env={"TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 1, done.err
    assert list(tmp_path.iterdir()) == []
    assert sorted(p.name for p in FIXTURE.rglob("*")) == before


def test_a_kustomize_without_origins_points_at_the_kustomization(
    kustomize: Tools, tmp_path: Path
) -> None:
    """A kustomize that refuses `buildMetadata` (an old one): the plain
    build is checked, and each finding names the kustomization and says why."""
    real = kustomize.directory / "kubectl"
    old = tmp_path / "old-kustomize"
    old.write_text(
        "#!/bin/sh\n"
        '[ "$1" = build ] && shift\n'
        'if grep -qs buildMetadata "$1/kustomization.yaml"; then\n'
        '  echo "json: unknown field \\"buildMetadata\\"" >&2; exit 1\n'
        "fi\n"
        f'exec "{real}" kustomize "$1"\n',
        encoding="utf-8",
    )
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    done = egress_lint(
        "check",
        "--kustomize",
        OVERLAY,
        "--format",
        "json",
        path=[kustomize.directory],
        env={"EGRESS_LINT_KUSTOMIZE": str(old)},
    )
    assert done.returncode == 1, done.err
    found = _widens(done.out)
    assert set(found) == {"namzu-task-web", "namzu-task-dns", "namzu-task-metrics"}
    for file, line, message in found.values():
        assert (file, line) == (KUSTOMIZATION, 1)
        assert "Kustomize did not say which file wrote this object" in message


def test_the_annotations_are_taken_out_before_anything_is_judged(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "p.yaml").write_text("kind: NetworkPolicy\n", encoding="utf-8")
    build = tmp_path / "build"
    build.mkdir()
    text = (
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        "  annotations:\n"
        f"    {TRANSFORMATIONS}: |\n"
        "      - configuredIn: ../base/kustomization.yaml\n"
        "        configuredBy:\n"
        "          apiVersion: builtin\n"
        "          kind: PatchTransformer\n"
        "    mine: kept\n"
        f"    {ORIGIN}: |\n"
        "      path: ../base/p.yaml\n"
        "  name: a\n"
        "---\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        "  annotations:\n"
        f"    {ORIGIN}: |\n"
        "      path: ../../outside.yaml\n"
        "  name: b\n"
    )
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        kept, origins = stripped(text, str(build), tmp_path.resolve())
    finally:
        os.chdir(cwd)
    assert kept == (
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        "  annotations:\n"
        "    mine: kept\n"
        "  name: a\n"
        "---\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        "  name: b\n"
    )
    first, second = origins
    assert (first.first, first.last, first.kind, first.name) == (1, 6, "NetworkPolicy", "a")
    assert first.path == "base/p.yaml"
    assert first.patched_in == ("base/kustomization.yaml",)
    # A path outside the repository is never named, so never read.
    assert (second.first, second.name, second.path) == (7, "b", None)
