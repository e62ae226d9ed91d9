"""Rendering an untrusted pull request (issue 26, items 1-3): nothing
outside the repository root is read, nothing is fetched without
`--allow-remote-render`, and a render is bounded in output and time. A
refused, failed or overrunning `renders:` environment fails closed on its
own while the others are checked.

Refusals happen before any tool runs, so most of these tests use a
stand-in `helm` or `kustomize` that records whether it ran; those that show
what the real tools would do use them, and skip when they are absent."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.render import repository_root
from lint.render.neutral import quoted
from tests.render.tools import FIXTURE, Ran, Tools, egress_lint

DECLARATION = (
    "version: 1\n"
    "defaultNamespace: namzu-sandboxes\n"
    "{renders}"
    "sandboxes:\n"
    "  - template: namzu-task\n"
    "    egress: {{policy: {{kind: deny-all}}}}\n"
    "    ingress: unverified\n"
)
SECRET = "secret-marker-from-outside"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (a `.git` directory is all it takes) holding a copy of
    the render fixture: its chart, its overlays and its values."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    (root / ".git").mkdir()
    (tmp_path / "outside.yaml").write_text(f"template: {SECRET}\nallowAllEgress: true\n")
    return root


def _declare(repo: Path, renders: str = "") -> None:
    (repo / ".egress-lint.yaml").write_text(DECLARATION.format(renders=renders))


def _stand_in(directory: Path, name: str, body: str) -> Path:
    """An executable that touches `<name>.ran` and then runs ``body``."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f"#!/bin/sh\ntouch '{directory / name}.ran'\n{body}\n")
    script.chmod(0o755)
    return script


def _ran(script: Path) -> bool:
    return script.with_name(script.name + ".ran").exists()


def _no_workflow_command(text: str) -> None:
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line


# --- the repository root ------------------------------------------------------------------


def test_root_is_the_nearest_work_tree_found_without_git(tmp_path: Path) -> None:
    tree = tmp_path / "work"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / ".git").write_text("gitdir: /elsewhere\n")  # a linked work tree's .git is a file
    declaration = tree / "a" / "b" / ".egress-lint.yaml"
    assert repository_root(declaration) == tree.resolve()
    bare = tmp_path / "bare" / "x"
    bare.mkdir(parents=True)
    assert repository_root(bare / ".egress-lint.yaml") == bare.resolve()
    assert repository_root(declaration, tmp_path) == tmp_path.resolve()


def test_chart_values_symlink_out_of_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    _declare(repo)
    values = repo / "charts" / "sandboxes" / "values.yaml"
    values.unlink()
    values.symlink_to(tmp_path / "outside.yaml")
    helm = _stand_in(tmp_path / "bin", "helm", "exit 0")
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.parent])
    assert ran.returncode == 2, ran.err
    assert "charts/sandboxes/values.yaml" in ran.err and "outside the repository root" in ran.err
    assert not _ran(helm)


def test_real_helm_never_reads_a_symlinked_values_file_outside(
    helm: Tools, repo: Path, tmp_path: Path
) -> None:
    _declare(repo)
    values = repo / "charts" / "sandboxes" / "values.yaml"
    before = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.directory])
    (repo / "inside.yaml").write_text(values.read_text())
    values.unlink()
    values.symlink_to(tmp_path / "outside.yaml")
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.directory])
    assert ran.returncode == 2
    assert SECRET not in ran.out + ran.err
    # Inside the root, the same link is followed as before.
    values.unlink()
    values.symlink_to(repo / "inside.yaml")
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.directory])
    assert (ran.returncode, ran.out) == (before.returncode, before.out), ran.err


@pytest.mark.parametrize(
    ("link", "named"),
    [
        ("templates/stolen.yaml", "charts/sandboxes/templates/stolen.yaml"),
        ("templates/more", "charts/sandboxes/templates/more"),
        ("files", "charts/sandboxes/files"),
    ],
)
def test_any_chart_file_linked_out_of_the_repository_is_refused(
    repo: Path, tmp_path: Path, link: str, named: str
) -> None:
    _declare(repo)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "policy.yaml").write_text("kind: ConfigMap\n")
    target = outside / "policy.yaml" if link.endswith(".yaml") else outside
    (repo / "charts" / "sandboxes" / link).symlink_to(target)
    helm = _stand_in(tmp_path / "bin", "helm", "exit 0")
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.parent])
    assert ran.returncode == 2
    assert f"the chart file {named} resolves to" in ran.err
    assert not _ran(helm)


@pytest.mark.parametrize("given", ["../outside.yaml", "link.yaml"])
def test_a_values_file_outside_the_root_is_refused(repo: Path, tmp_path: Path, given: str) -> None:
    _declare(repo)
    (repo / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    helm = _stand_in(tmp_path / "bin", "helm", "exit 0")
    ran = egress_lint(
        "check", "--helm", "charts/sandboxes", "--values", given, cwd=repo, path=[helm.parent]
    )
    assert ran.returncode == 2
    assert f"the values file {given}" in ran.err
    assert not _ran(helm)
    # --root names a wider root, and the file may be read.
    wider = egress_lint(
        "check",
        "--helm",
        "charts/sandboxes",
        "--values",
        given,
        "--root",
        str(tmp_path),
        cwd=repo,
        path=[helm.parent],
    )
    assert _ran(helm), wider.err


def test_a_kustomize_file_linked_out_of_the_repository_is_refused(
    repo: Path, tmp_path: Path
) -> None:
    _declare(repo)
    policy = repo / "kustomize" / "base" / "egress-policy.yaml"
    policy.unlink()
    policy.symlink_to(tmp_path / "outside.yaml")
    kustomize = _stand_in(tmp_path / "bin", "kustomize", "exit 0")
    ran = egress_lint(
        "check", "--kustomize", "kustomize/overlays/dev", cwd=repo, path=[kustomize.parent]
    )
    assert ran.returncode == 2
    assert "kustomize/base/kustomization.yaml:5" in ran.err
    assert "outside the repository root" in ran.err
    assert not _ran(kustomize)


# --- remote references ----------------------------------------------------------------------


def _overlay(repo: Path, text: str, extra: dict[str, str] | None = None) -> str:
    overlay = repo / "kustomize" / "overlays" / "remote"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(text)
    for name, content in (extra or {}).items():
        (overlay / name).write_text(content)
    return "kustomize/overlays/remote"


KUSTOMIZE_REMOTE = [
    ("resources:\n  - ../../base\n  - https://example.com/policy.yaml\n", 3),
    ("resources:\n  - github.com/example/repo//deploy?ref=v1\n", 2),
    ("bases:\n  - git@github.com:example/repo.git\n", 2),
    ("components:\n  - ../missing/component\n", 2),
    (
        "resources:\n  - ../../base\nconfigMapGenerator:\n  - name: c\n    files:\n"
        "      - key=https://example.com/x\n",
        6,
    ),
    ("patches:\n  - path: https://example.com/patch.yaml\n", 2),
    ("helmCharts:\n  - name: cilium\n    repo: https://helm.cilium.io\n", 2),
]


@pytest.mark.parametrize(("text", "line"), KUSTOMIZE_REMOTE)
def test_remote_kustomize_references_are_refused(
    repo: Path, tmp_path: Path, text: str, line: int
) -> None:
    _declare(repo)
    directory = _overlay(repo, text)
    kustomize = _stand_in(tmp_path / "bin", "kustomize", "exit 0")
    ran = egress_lint("check", "--kustomize", directory, cwd=repo, path=[kustomize.parent])
    assert ran.returncode == 2, ran.err
    assert f"{directory}/kustomization.yaml:{line}" in ran.err
    assert "--allow-remote-render" in ran.err
    assert not _ran(kustomize)
    allowed = egress_lint(
        "check",
        "--kustomize",
        directory,
        "--allow-remote-render",
        cwd=repo,
        path=[kustomize.parent],
    )
    assert _ran(kustomize), allowed.err


def test_a_remote_reference_in_an_included_overlay_is_refused(repo: Path, tmp_path: Path) -> None:
    _declare(repo)
    base = repo / "kustomize" / "base" / "kustomization.yaml"
    base.write_text(base.read_text() + "  - https://example.com/more.yaml\n")
    kustomize = _stand_in(tmp_path / "bin", "kustomize", "exit 0")
    ran = egress_lint(
        "check", "--kustomize", "kustomize/overlays/dev", cwd=repo, path=[kustomize.parent]
    )
    assert ran.returncode == 2
    assert "kustomize/base/kustomization.yaml:6" in ran.err
    assert not _ran(kustomize)


@pytest.mark.parametrize(
    ("chart", "said"),
    [
        ("https://example.com/charts/sandboxes-0.1.0.tgz", "the chart is a remote reference"),
        ("oci://registry.example.com/charts/sandboxes", "the chart is a remote reference"),
        (
            "example/sandboxes",
            "the chart is not a local directory or archive, so Helm would look it up",
        ),
    ],
)
def test_remote_helm_charts_are_refused(repo: Path, tmp_path: Path, chart: str, said: str) -> None:
    _declare(repo)
    helm = _stand_in(tmp_path / "bin", "helm", "exit 0")
    ran = egress_lint("check", "--helm", chart, cwd=repo, path=[helm.parent])
    assert ran.returncode == 2
    assert f"chart {chart}: {said}" in ran.err
    assert not _ran(helm)
    egress_lint("check", "--helm", chart, "--allow-remote-render", cwd=repo, path=[helm.parent])
    assert _ran(helm)


def test_a_dependency_not_vendored_is_refused(repo: Path, tmp_path: Path) -> None:
    _declare(repo)
    chart = repo / "charts" / "sandboxes" / "Chart.yaml"
    chart.write_text(
        chart.read_text()
        + "dependencies:\n  - name: cilium\n    version: 1.16.0\n"
        + "    repository: https://helm.cilium.io\n"
    )
    helm = _stand_in(tmp_path / "bin", "helm", "exit 0")
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.parent])
    assert ran.returncode == 2
    assert "charts/sandboxes/Chart.yaml:7: the dependency cilium" in ran.err
    assert not _ran(helm)
    # Vendored under charts/, it is the chart's own.
    vendored = repo / "charts" / "sandboxes" / "charts" / "cilium"
    vendored.mkdir(parents=True)
    (vendored / "Chart.yaml").write_text("apiVersion: v2\nname: cilium\nversion: 1.16.0\n")
    egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.parent])
    assert _ran(helm)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback HTTP server on a free port that records each request."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    requests: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                try:
                    requests.append(connection.recv(4096))
                    connection.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    requests.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], requests
    stop.set()
    thread.join()
    server.close()


def test_no_connection_is_made_without_the_flag(
    kustomize: Tools, repo: Path, listener: tuple[int, list[bytes]]
) -> None:
    port, requests = listener
    url = f"http://127.0.0.1:{port}/policy.yaml"
    directory = _overlay(repo, f"resources:\n  - ../../base\n  - {url}\n")
    _declare(repo, f"renders:\n  - name: remote\n    kustomize: {directory}\n")
    flagged = egress_lint("check", "--kustomize", directory, cwd=repo, path=[kustomize.directory])
    bare = egress_lint("check", "--format", "json", cwd=repo, path=[kustomize.directory])
    assert flagged.returncode == 2 and url in flagged.err
    assert bare.returncode == 1, bare.err
    (failed,) = _render_failures(json.loads(bare.out))
    assert url in failed["message"]
    time.sleep(0.5)
    assert requests == []
    # With the flag the same overlay does reach the listener: the test can see one.
    allowed = egress_lint(
        "check",
        "--kustomize",
        directory,
        "--allow-remote-render",
        cwd=repo,
        path=[kustomize.directory],
    )
    assert allowed.returncode == 2  # the listener answers 404
    assert any(b"GET /policy.yaml" in r for r in requests)


# --- bounded renders -----------------------------------------------------------------------


def test_endless_output_is_cut_at_the_limit(repo: Path, tmp_path: Path) -> None:
    _declare(repo)
    helm = _stand_in(tmp_path / "bin", "helm", "exec yes 'kind: ConfigMap'")
    started = time.monotonic()
    ran = egress_lint(
        "check",
        "--helm",
        "charts/sandboxes",
        "--max-total-size",
        "1M",
        "--format",
        "json",
        cwd=repo,
        path=[helm.parent],
    )
    assert time.monotonic() - started < 60
    assert ran.returncode == 1, ran.err
    (error,) = json.loads(ran.out)["parseErrors"]
    assert "over the 1 MiB limit" in error["message"]
    findings = json.loads(ran.out)["findings"]
    assert any(f["ruleId"] == "egress-not-evaluable" for f in findings)


def test_a_huge_real_helm_render_is_cut(helm: Tools, repo: Path) -> None:
    _declare(repo)
    (repo / "charts" / "sandboxes" / "templates" / "many.yaml").write_text(
        "{{- range $i := until 200000 }}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{{ $i }}\n{{- end }}\n"
    )
    ran = egress_lint(
        "check",
        "--helm",
        "charts/sandboxes",
        "--max-total-size",
        "1M",
        "--format",
        "json",
        cwd=repo,
        path=[helm.directory],
    )
    assert ran.returncode == 1, ran.err
    (error,) = json.loads(ran.out)["parseErrors"]
    assert "over the 1 MiB limit" in error["message"]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_render_past_the_time_limit_is_killed_with_its_group(repo: Path, tmp_path: Path) -> None:
    _declare(repo)
    pidfile = tmp_path / "child.pid"
    helm = _stand_in(
        tmp_path / "bin",
        "helm",
        f"sleep 300 &\necho $! > '{pidfile}'\ntrap '' TERM\nwait\nwait\n",
    )
    started = time.monotonic()
    ran = egress_lint(
        "check",
        "--helm",
        "charts/sandboxes",
        "--render-timeout",
        "1",
        cwd=repo,
        path=[helm.parent],
    )
    assert time.monotonic() - started < 30
    assert ran.returncode == 2
    assert "did not finish within 1 s" in ran.err
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def test_a_looping_real_helm_chart_is_killed(helm: Tools, repo: Path) -> None:
    _declare(repo)
    (repo / "charts" / "sandboxes" / "templates" / "loop.yaml").write_text(
        "{{- range $i := until 1000000000 }}{{- end }}\n"
    )
    started = time.monotonic()
    ran = egress_lint(
        "check",
        "--helm",
        "charts/sandboxes",
        "--render-timeout",
        "2",
        cwd=repo,
        path=[helm.directory],
    )
    assert time.monotonic() - started < 60
    assert ran.returncode == 2
    assert "did not finish within 2 s" in ran.err


@pytest.mark.parametrize("stream", ["1", "2"])
def test_quoted_tool_output_cannot_start_a_workflow_command(
    repo: Path, tmp_path: Path, stream: str
) -> None:
    _declare(repo)
    helm = _stand_in(
        tmp_path / "bin",
        "helm",
        f"printf '::warning::pwned\\n  ::stop-commands::x\\nbad ##[error]y\\r::error::z\\n' >&{stream}"
        "\nexit 1",
    )
    ran = egress_lint("check", "--helm", "charts/sandboxes", cwd=repo, path=[helm.parent])
    assert ran.returncode == 2
    _no_workflow_command(ran.out)
    _no_workflow_command(ran.err)
    if stream == "2":
        assert "pwned" in ran.err  # the tool's words are shown, quoted


def test_quoted_keeps_every_line_and_defuses_each() -> None:
    text = quoted("::a\n ::b\r::c\n##[d ###[e")
    assert text.splitlines() == ["  | ::a", "  |  ::b", "  | ::c", "  | ##\\x5bd ###\\x5be"]
    _no_workflow_command(text)


# --- renders: environments ------------------------------------------------------------------


ENVIRONMENTS = (
    "renders:\n"
    "  - name: prod\n"
    "    helm: charts/sandboxes\n"
    "    values: [env/prod.yaml]\n"
    "    namespace: namzu-sandboxes\n"
    "  - name: stolen\n"
    "    helm: charts/sandboxes\n"
    "    values: [../outside.yaml]\n"
    "  - name: fetched\n"
    "    helm: oci://registry.example.com/charts/sandboxes\n"
    "  - name: kustomize-dev\n"
    "    kustomize: kustomize/overlays/dev\n"
)


def _environment_check(repo: Path, tools: Path, *flags: str) -> tuple[Ran, dict[str, object]]:
    ran = egress_lint("check", "--format", "json", *flags, cwd=repo, path=[tools])
    return ran, json.loads(ran.out)


def _render_failures(report: dict[str, object]) -> list[dict[str, object]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [f for f in findings if f["ruleId"] == "render-failed"]


def test_a_refused_environment_fails_closed_and_the_others_are_checked(
    helm: Tools, kustomize: Tools, repo: Path
) -> None:
    _declare(repo, ENVIRONMENTS)
    ran, report = _environment_check(repo, helm.directory)
    assert ran.returncode == 1, ran.err
    sandboxes = report["sandboxes"]
    assert isinstance(sandboxes, list)
    assert [s["environment"] for s in sandboxes] == ["prod", "stolen", "fetched", "kustomize-dev"]
    # Each refused environment is one error at its renders: entry, and nothing else.
    findings = report["findings"]
    assert isinstance(findings, list)
    by_environment = {f["environment"]: f for f in _render_failures(report)}
    assert set(by_environment) == {"stolen", "fetched"}
    assert [f["ruleId"] for f in findings if f["environment"] in ("stolen", "fetched")] == [
        "render-failed",
        "render-failed",
    ]
    stolen, fetched = by_environment["stolen"], by_environment["fetched"]
    assert (stolen["file"], stolen["line"]) == (".egress-lint.yaml", 8)
    assert "outside the repository root" in stolen["message"]
    assert (fetched["file"], fetched["line"]) == (".egress-lint.yaml", 11)
    assert "--allow-remote-render" in fetched["message"]
    assert stolen["level"] == fetched["level"] == "error"
    # Their sandboxes fail closed: the egress of a pod nothing was read for
    # is never decided open.
    for sandbox in sandboxes:
        if sandbox["environment"] in ("stolen", "fetched"):
            assert sandbox["egress"]["union"]["refusal"] == "not-evaluable"
    assert [a["path"] for a in stolen["affected"]] == ["direct"]
    assert report["parseErrors"] == []
    # The other environments were checked as before: dev's debug policy widens.
    widening = {f["environment"] for f in findings if f["ruleId"] == "egress-policy-widens"}
    assert widening == {"kustomize-dev"}
    assert SECRET not in ran.out + ran.err


def test_a_failing_environment_among_several(repo: Path, tmp_path: Path) -> None:
    renders = (
        "renders:\n"
        "  - name: slow\n    helm: charts/sandboxes\n"
        "  - name: fine\n    kustomize: kustomize/overlays/prod\n"
    )
    _declare(repo, renders)
    manifest = (FIXTURE / "kustomize" / "base" / "template.yaml").read_text()
    (tmp_path / "template.yaml").write_text(manifest)
    bin_dir = tmp_path / "bin"
    _stand_in(bin_dir, "helm", "trap '' TERM\nsleep 30")
    _stand_in(bin_dir, "kustomize", f"cat '{tmp_path / 'template.yaml'}'")
    ran, report = _environment_check(repo, bin_dir, "--render-timeout", "1")
    assert ran.returncode == 1, ran.err
    (failed,) = _render_failures(report)
    assert (failed["environment"], failed["file"], failed["line"]) == (
        "slow",
        ".egress-lint.yaml",
        4,
    )
    assert "did not finish within 1 s" in failed["message"]
    sandboxes = report["sandboxes"]
    assert isinstance(sandboxes, list)
    fine = [s for s in sandboxes if s["environment"] == "fine"]
    assert fine and all(s["namespace"] == "namzu-sandboxes" for s in fine)


def test_exec_functions_stay_refused(kustomize: Tools, repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "exec-ran"
    script = repo / "kustomize" / "fn.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    directory = _overlay(
        repo,
        "resources:\n  - ../../base\ntransformers:\n  - fn.yaml\n",
        {
            "fn.yaml": "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: fn\n"
            "  annotations:\n    config.kubernetes.io/function: |\n"
            "      exec:\n        path: ../../fn.sh\n"
        },
    )
    _declare(repo)
    ran = egress_lint(
        "check",
        "--kustomize",
        directory,
        "--allow-remote-render",
        cwd=repo,
        path=[kustomize.directory],
    )
    assert ran.returncode == 2
    assert not marker.exists()
    assert not os.path.exists(repo / "kustomize" / "overlays" / "remote" / "exec-ran")


def test_a_missing_tool_under_renders_is_still_a_usage_error(repo: Path, tmp_path: Path) -> None:
    _declare(repo, "renders:\n  - name: prod\n    helm: charts/sandboxes\n")
    empty = tmp_path / "no-tools"
    empty.mkdir()
    ran = egress_lint("check", cwd=repo, path=[empty])
    assert ran.returncode == 2
    assert "helm is not on the PATH" in ran.err


def test_an_environment_past_the_output_limit_is_one_render_failed(
    repo: Path, tmp_path: Path
) -> None:
    """Issue 28: under renders:, output past the limit is the environment's
    render-failed error (not a parse error of a cut stream), and the others
    are still checked."""
    renders = (
        "renders:\n"
        "  - name: endless\n    helm: charts/sandboxes\n"
        "  - name: fine\n    kustomize: kustomize/overlays/prod\n"
    )
    _declare(repo, renders)
    manifest = (FIXTURE / "kustomize" / "base" / "template.yaml").read_text()
    (tmp_path / "template.yaml").write_text(manifest)
    bin_dir = tmp_path / "bin"
    _stand_in(bin_dir, "helm", "exec yes 'kind: ConfigMap'")
    _stand_in(bin_dir, "kustomize", f"cat '{tmp_path / 'template.yaml'}'")
    ran, report = _environment_check(repo, bin_dir, "--max-total-size", "1M")
    assert ran.returncode == 1, ran.err
    (failed,) = _render_failures(report)
    assert failed["environment"] == "endless"
    assert "wrote more than 1 MiB and was stopped" in failed["message"]
    assert report["parseErrors"] == []
    findings = report["findings"]
    assert isinstance(findings, list)
    assert [f["ruleId"] for f in findings if f["environment"] == "endless"] == ["render-failed"]
    assert any(f["environment"] == "fine" for f in findings)  # fine was judged on its own


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_failed_environments_message_cannot_start_a_workflow_command(
    repo: Path, tmp_path: Path, fmt: str
) -> None:
    _declare(repo, "renders:\n  - name: dev\n    helm: charts/sandboxes\n")
    helm = _stand_in(
        tmp_path / "bin",
        "helm",
        "printf '::warning::pwned\\n  ::stop-commands::x\\nbad ##[error]y\\r::error::z\\n' >&2"
        "\nexit 1",
    )
    ran = egress_lint("check", "--format", fmt, cwd=repo, path=[helm.parent])
    assert ran.returncode == 1, ran.err
    assert "render-failed" in ran.out
    assert "pwned" in ran.out  # the tool's words are shown, quoted
    if fmt != "github":  # its own annotation lines start with `::error` on purpose
        _no_workflow_command(ran.out)
    else:
        assert all(
            line.startswith("::error ") or not line.lstrip().startswith("::")
            for line in ran.out.splitlines()
        )
        assert "##[" not in ran.out
    _no_workflow_command(ran.err)
