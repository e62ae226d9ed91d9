"""Running the render tools: the command line of each, and its output.

``helm`` is ``$EGRESS_LINT_HELM`` when set, else ``helm`` on the PATH;
Kustomize is ``$EGRESS_LINT_KUSTOMIZE``, else ``kustomize`` on the PATH,
else ``kubectl kustomize`` (kubectl has carried Kustomize since 1.14).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from lint.loading.files import display_name
from lint.loading.rendered import RenderedInput
from lint.render.spec import HelmRender, KustomizeRender, RenderSpec

HELM_VARIABLE: Final = "EGRESS_LINT_HELM"
KUSTOMIZE_VARIABLE: Final = "EGRESS_LINT_KUSTOMIZE"
_INSTALL: Final = {
    "helm": f"install Helm (https://helm.sh/docs/intro/install/), or set ${HELM_VARIABLE} "
    "to the helm binary",
    "kustomize": "install kustomize (https://kubectl.docs.kubernetes.io/installation/kustomize/) "
    f"or kubectl, or set ${KUSTOMIZE_VARIABLE} to the kustomize binary",
}
_STDERR_SHOWN: Final = 4000
"""Characters of a failing tool's standard error repeated in the message."""


class RenderError(Exception):
    """A render that could not run or failed: a usage error (exit 2)."""


def render(spec: RenderSpec, *, name: str | None = None) -> RenderedInput:
    """Run the render and return its standard output, named for reports
    (``name``, else ``<helm template CHART>`` or ``<kustomize build DIR>``).
    A local chart's ``# Source:`` paths map into its directory. Raises
    RenderError."""
    argv = render_command(spec)
    shown = " ".join(_shown_command(spec))
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except OSError as error:
        raise RenderError(f"cannot run `{shown}`: {error.strerror or error}") from None
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        if len(stderr) > _STDERR_SHOWN:
            stderr = stderr[:_STDERR_SHOWN] + " [...]"
        raise RenderError(
            f"`{shown}` failed (exit {done.returncode}):\n{stderr or '(no error output)'}"
        )
    default = f"<{'helm template' if isinstance(spec, HelmRender) else 'kustomize build'} "
    return RenderedInput(done.stdout, name or f"{default}{spec.target}>", _chart_root(spec))


def render_command(spec: RenderSpec, environ: Mapping[str, str] | None = None) -> list[str]:
    """The argument list that renders ``spec``. Raises RenderError when
    the tool is not found."""
    environ = os.environ if environ is None else environ
    if isinstance(spec, HelmRender):
        return [_tool("helm", environ.get(HELM_VARIABLE), "helm"), *_helm_arguments(spec)]
    return [*_kustomize(environ), _operand(spec.directory)]


def _helm_arguments(spec: HelmRender) -> list[str]:
    arguments = ["template"]
    if spec.release is not None:
        arguments.append(spec.release)
    arguments.append(_operand(spec.chart))
    if spec.namespace is not None:
        arguments += ["--namespace", spec.namespace]
    for values in spec.values:
        arguments += ["--values", values]
    for assignment in spec.set_values:
        arguments += ["--set", assignment]
    if spec.kube_version is not None:
        arguments += ["--kube-version", spec.kube_version]
    for api_version in spec.api_versions:
        arguments += ["--api-versions", api_version]
    return arguments


def _kustomize(environ: Mapping[str, str]) -> list[str]:
    override = environ.get(KUSTOMIZE_VARIABLE)
    if override:
        return [_tool("kustomize", override, "kustomize"), "build"]
    found = shutil.which("kustomize")
    if found is not None:
        return [found, "build"]
    kubectl = shutil.which("kubectl")
    if kubectl is not None:
        return [kubectl, "kustomize"]
    raise RenderError(f"neither kustomize nor kubectl is on the PATH: {_INSTALL['kustomize']}")


def _tool(tool: str, override: str | None, command: str) -> str:
    if override:
        if shutil.which(override) is None:
            variable = HELM_VARIABLE if tool == "helm" else KUSTOMIZE_VARIABLE
            raise RenderError(f"${variable} is {override!r}, which is not an executable")
        return override
    found = shutil.which(command)
    if found is None:
        raise RenderError(f"{command} is not on the PATH: {_INSTALL[tool]}")
    return found


def _operand(path: str) -> str:
    """A chart or directory the tool cannot mistake for a flag."""
    return f"./{path}" if path.startswith("-") else path


def _shown_command(spec: RenderSpec) -> list[str]:
    if isinstance(spec, HelmRender):
        return ["helm", *_helm_arguments(spec)]
    return ["kustomize", "build", spec.directory]


def _chart_root(spec: RenderSpec) -> str | None:
    if isinstance(spec, KustomizeRender) or not Path(spec.chart).is_dir():
        return None
    return display_name(Path(spec.chart))
