"""The options more than one command takes, each declared once, and reading
the manifests they name.

``check``, ``explain`` and ``generate`` read manifests: each takes PATHS,
``--config``, ``--namespace`` and the load-limit flags (``docs/limits.md``),
and reads standard input within the file limit. ``--read-cilium`` and
``--format`` are shared by the commands that have them; ``--format`` takes
its choices from the command's registry of reporters. ``--helm`` (with
its values flags) and ``--kustomize`` render what they name and check
the output (``lint.render``); ``--root``, ``--allow-remote-render`` and
``--render-timeout`` bound every render a command runs (``RenderFlags``).
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import click
import msgspec
from msgspec.structs import replace

from lint.cli.exits import USAGE, fail
from lint.declarations import DeclarationError, declaration_file_for, load_declarations
from lint.declarations.renders import DeclaredRender
from lint.loading import DEFAULT_LIMITS, LoadLimits, RenderedInput, parse_size
from lint.loading.files import path_refusal
from lint.parallel.shares import MAX_PROCESSES
from lint.render import (
    DEFAULT_RENDER_TIMEOUT,
    HelmRender,
    KustomizeRender,
    RenderPolicy,
    RenderRefused,
    RenderSpec,
    repository_root,
)
from lint.report.bounded import DEFAULT_MAX_REPORT_BYTES, MIN_MAX_REPORT_BYTES
from lint.report.examined import EXAMINED_MODES, Examined

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
    "version of the controller the manifests run, from its image tag or its "
    "app.kubernetes.io/version label, else the declaration's agentSandbox.version, else "
    "the newest known).",
)

VERBOSE: Final = click.option(
    "--verbose",
    is_flag=True,
    help="Text: list every policy each decision examined, and every affected path.",
)

QUIET: Final = click.option(
    "--quiet", is_flag=True, help="Text: print the findings only, without the per-path list."
)


ColorChoice = Literal["auto", "always", "never"]
COLOR_CHOICES: Final[tuple[ColorChoice, ...]] = ("auto", "always", "never")

COLOR: Final = click.option(
    "--color",
    "color",
    type=click.Choice(COLOR_CHOICES),
    default="auto",
    show_default=True,
    help="Text: paint levels with terminal colours. 'auto': when the report goes to a "
    "terminal, unless NO_COLOR is set; FORCE_COLOR set turns it on anywhere (a CI log).",
)


def colour_wanted(choice: ColorChoice, to_terminal: bool) -> bool:
    """Whether to paint: ``--color always`` or ``never`` as said; ``auto``
    never when ``NO_COLOR`` is set (https://no-color.org), else always when
    ``FORCE_COLOR`` is (https://force-color.org), else on a terminal only.
    An empty variable counts as unset, as both conventions say."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or to_terminal


JOBS: Final = click.option(
    "--jobs",
    type=click.IntRange(min=1),
    metavar="N",
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


def report_destinations(
    given: tuple[str, ...], formats: Sequence[str]
) -> tuple[tuple[str, Path], ...]:
    """``--report FORMAT=PATH``, each as (format, path), in the order given.
    A format the command does not have, an empty path, a path named twice,
    or one that cannot be written is a usage error, given before anything
    is read or judged: a report must not be lost after a long run."""
    reports: list[tuple[str, Path]] = []
    for value in given:
        fmt, sep, path = value.partition("=")
        if not sep or not path:
            raise click.BadParameter(f"{value!r} is not FORMAT=PATH", param_hint="--report")
        if fmt not in formats:
            raise click.BadParameter(
                f"unknown format {fmt!r} in {value!r}: choose from {', '.join(formats)}",
                param_hint="--report",
            )
        destination = Path(path)
        if any(destination == seen for _, seen in reports):
            raise click.BadParameter(f"{path} is named twice", param_hint="--report")
        problem = unwritable(destination)
        if problem is not None:
            raise click.BadParameter(f"cannot write {path}: {problem}", param_hint="--report")
        reports.append((fmt, destination))
    return tuple(reports)


def unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be written, without creating it; None when it can
    (as far as the file system says before the write)."""
    if path.is_dir():
        return "it is a directory"
    if path.exists():
        return None if os.access(path, os.W_OK) else "permission denied"
    parent = path.parent
    if not parent.is_dir():
        return f"no directory {parent}"
    return None if os.access(parent, os.W_OK) else f"permission denied in {parent}"


def report_option(formats: Sequence[str]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--report FORMAT=PATH``, repeatable: another report of the same run
    in FORMAT, written to PATH; the command gets ``reports`` as (format,
    path) pairs, already checked."""
    return click.option(
        "--report",
        "reports",
        metavar="FORMAT=PATH",
        multiple=True,
        callback=lambda _context, _param, value: report_destinations(value, formats),
        help="Also write the report in FORMAT to PATH, from the same run (repeatable; "
        f"FORMAT is one of {', '.join(formats)}).",
    )


def namespace_option(help_text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--namespace``; each command says what the namespace is for it."""
    return click.option("--namespace", metavar="NAMESPACE", help=help_text)


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
    click.option(
        "--max-depth", type=int, metavar="N", help="Deepest nesting in a document (default 100)."
    ),
    click.option(
        "--max-alias-expansion",
        type=int,
        metavar="N",
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
        return replace(DEFAULT_LIMITS, **values)
    except ValueError as error:
        name = next((n for n in LIMIT_FLAGS if n in str(error)), "max_file_size")
        raise click.BadParameter(str(error), param_hint=LIMIT_FLAGS[name]) from None


def manifest_input(
    paths: tuple[str, ...],
    limits: LoadLimits,
    render: RenderSpec | None = None,
    policy: RenderPolicy | None = None,
) -> tuple[tuple[str, ...], bytes | None]:
    """The paths to read (``.`` when none is given) and, when one of them is
    ``-``, standard input read within the limit. With a render (held to
    ``policy``), its output stands in for standard input, read first, and
    the paths given (none by default) beside it, into one inventory. Every
    path is checked before the render runs: a path that cannot be read is
    a usage error, not a wasted render."""
    if render is None:
        paths = paths or (".",)
    for path in paths:
        refusal = path_refusal(path)
        if refusal is not None:
            fail(f"cannot read {path}: {refusal}", USAGE)
    if render is not None:
        assert policy is not None, "a render needs its policy"
        return ("-", *paths), rendered_input(render, policy)
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
        help="Render CHART with `helm template` (or $EGRESS_LINT_HELM) and read the output "
        "with the PATHs given, if any.",
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
        help="Render DIR with `kustomize build` (or `kubectl kustomize`) and read the output "
        "with the PATHs given, if any.",
    ),
    click.option(
        "--root",
        metavar="DIR",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="Renders read nothing outside DIR (default: the declaration file's git work "
        "tree, else its directory).",
    ),
    click.option(
        "--allow-remote-render",
        is_flag=True,
        help="Let renders fetch remote charts, dependencies and Kustomize references "
        "(refused by default).",
    ),
    click.option(
        "--render-timeout",
        metavar="SECONDS",
        type=click.FloatRange(min=0, min_open=True),
        default=DEFAULT_RENDER_TIMEOUT,
        help="Stop a render that runs longer (default 120).",
    ),
)
_BOUND_FLAGS: Final = ("root", "allow_remote_render", "render_timeout")


class RenderFlags(msgspec.Struct, frozen=True):
    """``--root``, ``--allow-remote-render`` and ``--render-timeout``, for
    every render a command runs; ``policy`` completes them once the
    declaration file, and with it the repository root, is known."""

    root: Path | None = None
    allow_remote: bool = False
    timeout: float = DEFAULT_RENDER_TIMEOUT

    def policy(self, declaration: Path | None, limits: LoadLimits) -> RenderPolicy:
        """The policy: the root from ``--root``, else from ``declaration``
        (else from the declaration file found from the current directory);
        output bounded by the limits a piped stream has."""
        if declaration is None and self.root is None:
            declaration = declaration_file_for((".",), None)
        if not math.isfinite(self.timeout):
            raise click.BadParameter("must be a number of seconds", param_hint="--render-timeout")
        return RenderPolicy(
            root=repository_root(declaration, self.root),
            allow_remote=self.allow_remote,
            timeout=self.timeout,
            max_output=min(limits.max_file_size, limits.max_total_size),
        )


def render_options(command: Callable[..., None]) -> Callable[..., None]:
    """The command with ``--helm`` and its flags, ``--kustomize``, and the
    flags that bound renders, called with one ``render: RenderSpec | None``
    and one ``render_flags: RenderFlags`` instead. Flags that do not go
    together are a usage error, and so is ``-`` beside a render, whose
    output is read as standard input; other PATHs are read with it
    (``manifest_input``). ``--namespace`` is also Helm's release
    namespace."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        flags = {name: kwargs.pop(name) for name in (*_RENDER_FLAGS, "kustomize")}
        root, allow_remote, timeout = (kwargs.pop(name) for name in _BOUND_FLAGS)
        render = render_spec(flags, kwargs.get("namespace"))
        if render is not None and "-" in kwargs.get("paths", ()):
            # The render's output is read where standard input would be.
            raise click.UsageError(
                f"--{render.tool} takes the place of standard input: give no '-' with it"
            )
        bounds = RenderFlags(root, allow_remote, timeout)
        command(*args, render=render, render_flags=bounds, **kwargs)

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


def rendered_input(render: RenderSpec, policy: RenderPolicy) -> RenderedInput:
    """Run the render; a refused render, a missing tool or a failed render
    is a usage error (exit 2) that shows why (the tool's standard error,
    quoted). Output past the limit comes back cut, for the loader to
    refuse."""
    # Only a command that renders needs the tools' runner (``lint.render``).
    from lint.render.run import RenderError  # noqa: PLC0415
    from lint.render.run import render as run_render  # noqa: PLC0415

    try:
        return run_render(render, policy)
    except (RenderError, RenderRefused) as error:
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


def render_command(spec: RenderSpec) -> str:
    """How a report names the tool a render runs."""
    return "helm template" if isinstance(spec, HelmRender) else "kustomize build"


def environment_input(
    environment: DeclaredRender, namespace: str | None, policy: RenderPolicy
) -> tuple[RenderedInput, str | None]:
    """One ``renders:`` environment rendered, and the namespace objects that
    name none take: ``--namespace``, else the environment's (also Helm's
    release namespace when the environment names none).

    A refused or failed render, or one that overran its output limit, is no
    usage error here: it comes back empty with its ``failure``, which the
    check reports for that environment alone (``render-failed``), failing
    closed. A missing tool still is: no environment could render."""
    from lint.render.run import RenderError, ToolMissing  # noqa: PLC0415 - as rendered_input
    from lint.render.run import render as run_render  # noqa: PLC0415

    spec = environment.spec
    if isinstance(spec, HelmRender) and spec.namespace is None:
        spec = replace(spec, namespace=namespace)
    name = f"<{render_command(spec)} {spec.target} ({environment.name})>"
    try:
        stdin = run_render(spec, policy, name=name, overrun_fails=True)
    except ToolMissing as error:
        fail(str(error), USAGE)
    except (RenderError, RenderRefused) as error:
        # One line, as every parse error is: the tool's quoted lines follow
        # its command, each still behind its `|`.
        failure = " ".join(line.strip() for line in str(error).splitlines())
        stdin = RenderedInput(b"", name, failure=failure)
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
