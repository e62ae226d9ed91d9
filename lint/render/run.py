"""Running the render tools: the command line of each, and its output.

``helm`` is ``$EGRESS_LINT_HELM`` when set, else ``helm`` on the PATH;
Kustomize is ``$EGRESS_LINT_KUSTOMIZE``, else ``kustomize`` on the PATH,
else ``kubectl kustomize`` (kubectl has carried Kustomize since 1.14).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from lint.loading.files import display_name
from lint.loading.limits import describe_size
from lint.loading.rendered import RenderedInput
from lint.render.bounded import Finished, run_bounded
from lint.render.neutral import quoted
from lint.render.origins import KustomizeOrigins, kustomization_file, origin_root, stripped
from lint.render.scan import check_inputs
from lint.render.spec import HelmRender, KustomizeRender, RenderPolicy, RenderSpec

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
_NOWHERE: Final = "http://127.0.0.1:9"
"""A proxy that refuses every connection (the discard port, nothing listens)."""
_OFFLINE: Final = {
    "HELM_REPOSITORY_CONFIG": os.devnull,
    "HELM_REPOSITORY_CACHE": os.devnull,
    "HELM_PLUGINS": os.devnull,
    "HTTP_PROXY": _NOWHERE,
    "HTTPS_PROXY": _NOWHERE,
    "ALL_PROXY": _NOWHERE,
    "http_proxy": _NOWHERE,
    "https_proxy": _NOWHERE,
    "all_proxy": _NOWHERE,
    "NO_PROXY": "",
    "no_proxy": "",
    "GIT_ALLOW_PROTOCOL": "none",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class RenderError(Exception):
    """A render that could not run, failed or ran out of time: a usage error
    (exit 2) for ``--helm`` and ``--kustomize``, a failed environment under
    ``renders:``."""


class ToolMissing(RenderError):
    """The tool is not there or cannot be started: a fault of the machine,
    not of the repository, so a usage error even under ``renders:``."""


def render(
    spec: RenderSpec,
    policy: RenderPolicy,
    *,
    name: str | None = None,
    overrun_fails: bool = False,
) -> RenderedInput:
    """Check the render's inputs, run it within the policy's bounds and
    return its standard output, named for reports (``name``, else ``<helm
    template CHART>`` or ``<kustomize build DIR>``). A local chart's
    ``# Source:`` paths map into its directory. Output past
    ``policy.max_output`` is cut there, one byte over, so that the loader
    refuses it as too large; with ``overrun_fails`` (a ``renders:``
    environment) it is a RenderError instead. Raises RenderRefused before
    the tool runs, RenderError when it cannot run, fails or runs out of
    time."""
    check_inputs(spec, policy)
    default = f"<{'helm template' if isinstance(spec, HelmRender) else 'kustomize build'} "
    shown_name = name or f"{default}{spec.target}>"
    if isinstance(spec, KustomizeRender):
        return _kustomize_render(spec, policy, shown_name, overrun_fails)
    stdout = _run(render_command(spec), spec, policy, overrun_fails)
    return RenderedInput(stdout, shown_name, _chart_root(spec))


def _kustomize_render(
    spec: KustomizeRender, policy: RenderPolicy, name: str, overrun_fails: bool
) -> RenderedInput:
    """A build that writes where each object came from (``lint.render.
    origins``), the annotations taken out again; when that build fails or
    overruns (a kustomize too old for ``buildMetadata``, a directory that
    is a Component), the plain build, whose objects then have no known
    origin."""
    kustomization = kustomization_file(spec.directory)
    with origin_root(spec.directory) as build_root:
        argv = [*_kustomize(os.environ), build_root]
        done = _bounded(argv, spec, policy)
        if done.returncode == 0 and not done.overran:
            text = done.stdout.decode("utf-8", "surrogateescape")
            kept, documents = stripped(text, build_root, policy.root)
            origins = KustomizeOrigins(documents, kustomization, policy.root)
            data = kept.encode("utf-8", "surrogateescape")
            return RenderedInput(data, name, None, kustomize_origins=origins)
    stdout = _run(render_command(spec), spec, policy, overrun_fails)
    origins = KustomizeOrigins((), kustomization, policy.root)
    return RenderedInput(stdout, name, None, kustomize_origins=origins)


def _bounded(argv: list[str], spec: RenderSpec, policy: RenderPolicy) -> Finished:
    shown = " ".join(_shown_command(spec))
    try:
        done = run_bounded(argv, _environment(policy), policy.timeout, policy.max_output)
    except OSError as error:
        raise ToolMissing(f"cannot run `{shown}`: {error.strerror or error}") from None
    if done.timed_out:
        raise RenderError(
            f"`{shown}` did not finish within {policy.timeout:g} s and was stopped "
            "(raise the limit with --render-timeout)"
        )
    return done


def _run(argv: list[str], spec: RenderSpec, policy: RenderPolicy, overrun_fails: bool) -> bytes:
    """The tool's standard output; RenderError when it fails, runs out of
    time or (with ``overrun_fails``) writes too much."""
    shown = " ".join(_shown_command(spec))
    done = _bounded(argv, spec, policy)
    if done.overran and overrun_fails:
        raise RenderError(
            f"`{shown}` wrote more than {describe_size(policy.max_output)} and was stopped "
            "(the smaller of --max-file-size and --max-total-size)"
        )
    if done.returncode != 0 and not done.overran:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        if len(stderr) > _STDERR_SHOWN:
            stderr = stderr[:_STDERR_SHOWN] + " [...]"
        raise RenderError(
            f"`{shown}` failed (exit {done.returncode}):\n"
            f"{quoted(stderr) if stderr else '(no error output)'}"
        )
    return done.stdout


def _environment(policy: RenderPolicy) -> dict[str, str]:
    """The tool's environment. Without --allow-remote-render, also one in
    which Helm knows no chart repository and loads no plugin, HTTP goes
    to a proxy that refuses every connection, and git may use no
    transport: a second line behind the scan (``lint.render.scan``), which
    is the guarantee (Go's HTTP client sends loopback addresses past any
    proxy)."""
    environ = dict(os.environ)
    if policy.allow_remote:
        return environ
    return {**environ, **_OFFLINE}


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
    raise ToolMissing(f"neither kustomize nor kubectl is on the PATH: {_INSTALL['kustomize']}")


def _tool(tool: str, override: str | None, command: str) -> str:
    if override:
        if shutil.which(override) is None:
            variable = HELM_VARIABLE if tool == "helm" else KUSTOMIZE_VARIABLE
            raise ToolMissing(f"${variable} is {override!r}, which is not an executable")
        return override
    found = shutil.which(command)
    if found is None:
        raise ToolMissing(f"{command} is not on the PATH: {_INSTALL[tool]}")
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
