"""The real helm and kustomize for the rendering tests, or a reason to skip.

`.ci/run` installs them with `../shared/tools/k8s-tools.sh`; on a machine
without them these tests skip and say why. Each test runs egress-lint with
a PATH that holds only the tools found here (a `kustomize` that cannot
`build` is left out, so kubectl's own kustomize is used), plus the system
directories.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "fixtures" / "render"
CHART = "charts/sandboxes"
NAMESPACE = "namzu-sandboxes"
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


@dataclass(frozen=True)
class Tools:
    directory: Path
    helm: bool
    kustomize: bool


@cache
def find_tools(directory: str) -> Tools:
    found = Path(directory)
    found.mkdir(parents=True, exist_ok=True)
    helm = shutil.which("helm")
    if helm is not None:
        _link(found / "helm", helm)
    kustomize = shutil.which("kustomize")
    if kustomize is not None and _builds(kustomize):
        _link(found / "kustomize", kustomize)
    kubectl = shutil.which("kubectl")
    if kubectl is not None:
        _link(found / "kubectl", kubectl)
    can_kustomize = (found / "kustomize").exists() or kubectl is not None
    return Tools(found, helm is not None, can_kustomize)


def _link(link: Path, target: str) -> None:
    if not link.exists():
        link.symlink_to(target)


def _builds(kustomize: str) -> bool:
    """True when this `kustomize` is one that runs `kustomize build DIR`."""
    done = subprocess.run(
        [kustomize, "build", str(FIXTURE / "kustomize" / "overlays" / "prod")],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@dataclass(frozen=True)
class Ran:
    returncode: int
    out: str
    err: str


def run(
    argv: Sequence[str],
    *,
    path: Sequence[Path | str] = (),
    cwd: Path = FIXTURE,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Ran:
    """A command with PATH = ``path`` and the system directories only."""
    merged = {
        **{k: v for k, v in os.environ.items() if not k.startswith("EGRESS_LINT_")},
        "PATH": os.pathsep.join([*map(str, path), *SYSTEM_PATH]),
        "PYTHONPATH": str(REPO),
        **(env or {}),
    }
    done = subprocess.run(
        list(argv),
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=merged,
        timeout=300,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def egress_lint(*args: str, **kwargs: object) -> Ran:
    return run([sys.executable, "-m", "lint.cli", *args], **kwargs)  # type: ignore[arg-type]
