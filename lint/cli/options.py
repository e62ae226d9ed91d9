"""The options more than one command takes, each declared once, and reading
the manifests they name.

``check``, ``explain`` and ``generate`` read manifests: each takes PATHS,
``--config``, ``--namespace`` and the load-limit flags (``docs/limits.md``),
and reads standard input within the file limit. ``--read-cilium`` and
``--format`` are shared by the commands that have them; ``--format`` takes
its choices from the command's registry of reporters. ``--helm`` (with
its values flags) and ``--kustomize`` render what they name and check
the output (``lint.render``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import click

from lint.cli.exits import USAGE, fail
from lint.declarations import DeclarationError, declaration_file_for, load_declarations
from lint.declarations.renders import DeclaredRender
from lint.loading import DEFAULT_LIMITS, LoadLimits, RenderedInput, parse_size
from lint.loading.files import path_refusal
from lint.parallel.shares import MAX_PROCESSES
from lint.render import HelmRender, KustomizeRender, RenderError, RenderSpec
from lint.render import render as run_render
from lint.report.bounded import DEFAULT_MAX_REPORT_BYTES, MIN_MAX_REPORT_BYTES
from lint.report.json_report import EXAMINED_MODES, Examined

PATHS: Final = click.argument("paths", nargs=-1)

CONFIG: Final = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Declaration file (default: search upward for .egress-lint.yaml).",
)

READ_CILIUM: Final = click.option(
    "--read-cilium",
    type=click.Choice(["auto", "always"]),
    default="auto",
    show_default=True,
    help="'always' reads Cilium policies under engine: core too.",
)

CONTROLLER_VERSION: Final = click.option(
    "--controller-version",
    metavar="VERSION",
    help="The agent-sandbox controller version to assume, such as v0.5.0 (default: the "
    "declaration's agentSandbox.version, else the controller Deployment's image tag, "
    "else the newest known).",
)

VERBOSE: Final = click.option(
    "--verbose",
    is_flag=True,
    help="Text: list every policy each decision examined, and every affected path.",
)

QUIET: Final = click.option(
    "--quiet", is_flag=True, help="Text: print the findings only, without the per-path list."
)


def colour_wanted(to_terminal: bool) -> bool:
    """Colour on a terminal only, and never when ``NO_COLOR`` is set to
    anything but the empty string (https://no-color.org)."""
    return to_terminal and not os.environ.get("NO_COLOR")


JOBS: Final = click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Processes to load and judge on (default: one per CPU, at most "
    f"{MAX_PROCESSES}; large inputs only). 1 stays in one process.",
)


def _report_bytes(value: str | None) -> int:
    if value is None:
        return DEFAULT_MAX_REPORT_BYTES
    try:
        size = parse_size(value)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--max-report-bytes") from None
    if size < MIN_MAX_REPORT_BYTES:
        raise click.BadParameter(
            f"must be at least {MIN_MAX_REPORT_BYTES // 1024}K", param_hint="--max-report-bytes"
        )
    return size


MAX_REPORT_BYTES: Final = click.option(
    "--max-report-bytes",
    "max_report_bytes",
    metavar="SIZE",
    callback=lambda _context, _param, value: _report_bytes(value),
    help="Largest JSON report written (default 64M, at least 64K); past it long strings "
    "are capped and trailing entries left out, and the report says it was truncated.",
)


EXAMINED: Final = click.option(
    "--examined",
    type=click.Choice(EXAMINED_MODES),
    help="JSON: which examined entries each decision lists: 'all' (the default, the "
    "contract) or 'selecting', which leaves out those that do not select the pod and "
    "counts them in notSelecting. Only with --format json.",
)


def examined_for(fmt: str, examined: str | None) -> Examined:
    """``--examined`` as given, ``all`` when it is not; a usage error with a
    format other than JSON, which has no examined lists to leave out."""
    if examined is None:
        return "all"
    if fmt != "json":
        raise click.UsageError(f"--examined applies to --format json only, not {fmt}")
    return "selecting" if examined == "selecting" else "all"


def namespace_option(help_text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--namespace``; each command says what the namespace is for it."""
    return click.option("--namespace", help=help_text)


def format_option(
    reporters: Mapping[str, object],
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--format``, one choice per reporter, the first the default; the
    command gets the name as ``fmt``."""
    names = list(reporters)
    return click.option(
        "--format", "fmt", type=click.Choice(names), default=names[0], show_default=True
    )


LIMIT_FLAGS: Final = {
    "max_file_size": "--max-file-size",
    "max_total_size": "--max-total-size",
    "max_document_size": "--max-document-size",
    "max_depth": "--max-depth",
    "max_alias_expansion": "--max-alias-expansion",
}
_SIZES: Final = ("max_file_size", "max_total_size", "max_document_size")
_LIMIT_OPTIONS: Final = (
    click.option("--max-file-size", metavar="SIZE", help="Largest file read (default 64M)."),
    click.option("--max-total-size", metavar="SIZE", help="Most bytes read in all (default 128M)."),
    click.option(
        "--max-document-size", metavar="SIZE", help="Largest document parsed (default 8M)."
    ),
    click.option("--max-depth", type=int, help="Deepest nesting in a document (default 100)."),
    click.option(
        "--max-alias-expansion",
        type=int,
        help="Most values a document may hold once aliases are expanded (default 1000000).",
    ),
)


def limit_options(command: Callable[..., None]) -> Callable[..., None]:
    """The command with ``--max-file-size`` ... ``--max-alias-expansion``,
    called with one ``limits: LoadLimits`` instead; a bad value is a usage
    error naming its flag."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        flags = {name: kwargs.pop(name) for name in LIMIT_FLAGS}
        command(*args, limits=limits_from(flags), **kwargs)

    for option in reversed(_LIMIT_OPTIONS):
        run = option(run)
    return run


def limits_from(flags: Mapping[str, Any]) -> LoadLimits:
    """The load limits from the flag values (None where a flag is not given)."""
    values: dict[str, int] = {}
    for name, value in flags.items():
        if value is None:
            continue
        if name in _SIZES:
            try:
                values[name] = parse_size(value)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint=LIMIT_FLAGS[name]) from None
        else:
            values[name] = value
    try:
        return dataclasses.replace(DEFAULT_LIMITS, **values)
    except ValueError as error:
        name = next((n for n in LIMIT_FLAGS if n in str(error)), "max_file_size")
        raise click.BadParameter(str(error), param_hint=LIMIT_FLAGS[name]) from None


def manifest_input(
    paths: tuple[str, ...], limits: LoadLimits, render: RenderSpec | None = None
) -> tuple[tuple[str, ...], bytes | None]:
    """The paths to read (``.`` when none is given) and, when one of them is
    ``-``, standard input read within the limit. With a render, its output
    stands in for standard input."""
    if render is not None:
        return ("-",), rendered_input(render)
    paths = paths or (".",)
    for path in paths:
        refusal = path_refusal(path)
        if refusal is not None:
            fail(f"cannot read {path}: {refusal}", USAGE)
    return paths, read_stdin(limits) if "-" in paths else None


def read_stdin(limits: LoadLimits) -> bytes:
    """Standard input, at most one byte past the file limit: the loader
    reports the excess, and an endless stream cannot exhaust memory."""
    return sys.stdin.buffer.read(limits.max_file_size + 1)


_RENDER_FLAGS: Final = ("helm", "values", "set_values", "release", "kube_version", "api_versions")
_RENDER_OPTIONS: Final = (
    click.option(
        "--helm",
        metavar="CHART",
        help="Render CHART with `helm template` (or $EGRESS_LINT_HELM) and check the output.",
    ),
    click.option(
        "--values",
        "values",
        metavar="FILE",
        multiple=True,
        help="--helm: a values file (repeatable).",
    ),
    click.option(
        "--set", "set_values", metavar="K=V", multiple=True, help="--helm: a value (repeatable)."
    ),
    click.option("--release", metavar="NAME", help="--helm: the release name."),
    click.option(
        "--kube-version", metavar="VERSION", help="--helm: the Kubernetes version templates see."
    ),
    click.option(
        "--api-versions",
        metavar="LIST",
        multiple=True,
        help="--helm: API versions templates see (comma-separated, repeatable).",
    ),
    click.option(
        "--kustomize",
        metavar="DIR",
        help="Render DIR with `kustomize build` (or `kubectl kustomize`) and check the output.",
    ),
)


def render_options(command: Callable[..., None]) -> Callable[..., None]:
    """The command with ``--helm`` and its flags, and ``--kustomize``,
    called with one ``render: RenderSpec | None`` instead. Flags that do
    not go together are a usage error. ``--namespace`` is also Helm's
    release namespace."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        flags = {name: kwargs.pop(name) for name in (*_RENDER_FLAGS, "kustomize")}
        render = render_spec(flags, kwargs.get("namespace"))
        if render is not None and kwargs.get("paths"):
            raise click.UsageError(
                f"--{render.tool} renders the manifests to check: give no PATH with it"
            )
        command(*args, render=render, **kwargs)

    for option in reversed(_RENDER_OPTIONS):
        run = option(run)
    return run


def render_spec(flags: Mapping[str, Any], namespace: str | None) -> RenderSpec | None:
    """The render the flags ask for, if any."""
    helm, kustomize = flags.get("helm"), flags.get("kustomize")
    if helm is not None and kustomize is not None:
        raise click.UsageError("give one of --helm and --kustomize")
    if kustomize is not None:
        return KustomizeRender(kustomize)
    if helm is None:
        given = [f"--{name.replace('_', '-')}" for name in _RENDER_FLAGS[1:] if flags.get(name)]
        if given:
            raise click.UsageError(
                f"{', '.join(given).replace('--set-values', '--set')} only apply with --helm"
            )
        return None
    api_versions = tuple(
        version.strip()
        for given in flags.get("api_versions", ())
        for version in given.split(",")
        if version.strip()
    )
    return HelmRender(
        chart=helm,
        values=tuple(flags.get("values", ())),
        set_values=tuple(flags.get("set_values", ())),
        release=flags.get("release"),
        namespace=namespace,
        kube_version=flags.get("kube_version") or None,
        api_versions=api_versions,
    )


def rendered_input(render: RenderSpec, name: str | None = None) -> RenderedInput:
    """Run the render; a missing tool or a failed render is a usage error
    (exit 2) that shows the tool's standard error."""
    try:
        return run_render(render, name=name)
    except RenderError as error:
        fail(str(error), USAGE)


def declaration_start(config: Path | None, render: RenderSpec | None) -> Path | None:
    """``--config``, else, for a render of a local directory, the nearest
    declaration file upward from it (then from the current directory)."""
    if config is not None or render is None or not Path(render.target).is_dir():
        return config
    return declaration_file_for((render.target,), None)


def declared_renders(
    config: Path | None, namespace: str | None
) -> tuple[Path, tuple[DeclaredRender, ...]] | None:
    """The declaration file and its ``renders:``, when it has any; an
    invalid declaration file is a usage error."""
    file = declaration_file_for((".",), config)
    if file is None:
        return None
    try:
        renders = load_declarations(file, namespace_override=namespace).renders
    except DeclarationError as error:
        fail(error.report(), USAGE)
    return (file, renders) if renders else None


def environment_input(
    environment: DeclaredRender, namespace: str | None
) -> tuple[RenderedInput, str | None]:
    """One ``renders:`` environment rendered, and the namespace objects that
    name none take: ``--namespace``, else the environment's (also Helm's
    release namespace when the environment names none)."""
    spec = environment.spec
    if isinstance(spec, HelmRender) and spec.namespace is None:
        spec = dataclasses.replace(spec, namespace=namespace)
    command = "helm template" if isinstance(spec, HelmRender) else "kustomize build"
    stdin = rendered_input(spec, f"<{command} {spec.target} ({environment.name})>")
    return stdin, namespace or environment.namespace


ENVIRONMENT: Final = click.option(
    "--environment",
    metavar="NAME",
    help="The declaration file's renders: environment to render (needed when the "
    "sandbox is in several).",
)


def _workload(value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    kind, slash, name = value.partition("/")
    if not slash or not kind or not name:
        raise click.BadParameter("give KIND/NAME, such as Deployment/api", param_hint="--workload")
    return kind, name


WORKLOAD: Final = click.option(
    "--workload",
    metavar="KIND/NAME",
    callback=lambda _context, _param, value: _workload(value),
    help="A declared workload (workload: in the declaration file), such as Deployment/api.",
)
