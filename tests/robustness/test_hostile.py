"""The hostile corpus and the real one run through the command line with no
traceback, every hostile file reported where it lies, in bounded memory
(issue 7, "done when").

Each run is a separate process, so that a crash, a hang (the timeout) or a
runaway allocation shows as what it is. The memory bound asserted here is
deliberately loose: it catches a bomb that got through, not a regression of
a few percent. ``docs/limits.md`` has the measured figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.robustness.hostile import write_hostile
from tests.robustness.trees import CORPUS, REPO

HANG_GUARD_SECONDS = 600
MEMORY_BOUND_KIB = 1_500_000  # 1.5 GB; the hostile corpus takes about 0.6 GB


@dataclass(frozen=True)
class Run:
    exit: int
    seconds: float
    max_rss_kib: int
    stdout: bytes
    stderr: bytes

    @property
    def report(self) -> Any:
        return json.loads(self.stdout)


def measured(tmp_path: Path, *args: str) -> Run:
    result_file = tmp_path / "measured.json"
    process = subprocess.run(
        [sys.executable, "-m", "tests.robustness.measured", str(result_file), *args],
        cwd=REPO,
        capture_output=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    cost = json.loads(result_file.read_text())
    return Run(cost["exit"], cost["seconds"], cost["max_rss_kib"], process.stdout, process.stderr)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str | None], Run]:
    root = tmp_path_factory.mktemp("hostile")
    expected = write_hostile(root / "tree")
    run = measured(root, "check", str(root / "tree"), "--format", "json")
    return root / "tree", expected, run


@pytest.mark.slow
def test_the_hostile_corpus_runs_without_a_traceback(
    hostile: tuple[Path, dict[str, str | None], Run],
) -> None:
    _, _, run = hostile
    assert b"Traceback" not in run.stderr
    assert b"internal error" not in run.stderr
    assert run.exit == 1  # parse errors are findings at error level
    assert run.max_rss_kib < MEMORY_BOUND_KIB


def test_every_hostile_file_is_reported_where_it_lies(
    hostile: tuple[Path, dict[str, str | None], Run],
) -> None:
    root, expected, run = hostile
    messages: dict[str, list[str]] = {}
    for finding in run.report["findings"]:
        # Names are relative to the run's directory; no resolve(): some loop.
        key = os.path.relpath(os.path.normpath(REPO / finding["file"]), root)
        messages.setdefault(Path(key).as_posix(), []).append(finding["message"])
    for name, fragment in expected.items():
        if fragment is None:
            continue
        assert any(fragment in message for message in messages.get(name, [])), (
            name,
            messages.get(name),
        )


@pytest.mark.slow
def test_the_hostile_policies_fail_their_namespace_closed(
    hostile: tuple[Path, dict[str, str | None], Run], tmp_path: Path
) -> None:
    root, _, _ = hostile
    (tmp_path / "template.yaml").write_text(
        "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
        "metadata: {name: task, namespace: hostile}\n"
        "spec: {networkPolicyManagement: Unmanaged, podTemplate: {metadata: {labels: {app: t}}}}\n",
        encoding="utf-8",
    )
    config = tmp_path / "declaration.yaml"
    config.write_text(
        "version: 1\nsandboxes:\n  - {template: task, namespace: hostile, "
        "egress: {policy: {kind: allow-all}}, ingress: unverified}\n",
        encoding="utf-8",
    )
    run = measured(
        tmp_path, "check", str(root), str(tmp_path / "template.yaml"), "--config", str(config),
        "--format", "json",
    )  # fmt: skip
    (sandbox,) = run.report["sandboxes"]
    # allow-all passes any readable policy: only the unreadable ones refuse.
    assert sandbox["egress"]["union"]["refusal"] == "not-evaluable"


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present")
@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_the_whole_corpus_runs_without_a_traceback(fmt: str, tmp_path: Path) -> None:
    run = measured(tmp_path, "check", str(CORPUS), "--format", fmt)
    assert b"Traceback" not in run.stderr
    assert b"internal error" not in run.stderr
    assert run.exit in (0, 1)
    assert run.max_rss_kib < MEMORY_BOUND_KIB
    if fmt != "text":
        json.loads(run.stdout.decode("utf-8"))
