"""The render layer: a chart or an overlay kept in git in, the rendered
manifests out (DESIGN §11).

``render(spec)`` runs the real tool on the PATH (``helm template``, or
``kustomize build``, else ``kubectl kustomize``) and returns what it wrote
to standard output as a :class:`~lint.loading.RenderedInput`, which the
loading layer reads the way it reads standard input. Nothing is written to
a temporary file. The command is an argument list, never a shell string,
and only the flags the user gave reach it: nothing read from a manifest
does.

Every render is held to a :class:`RenderPolicy` (``docs/limits.md``):
before the tool runs, each path it will read must resolve inside the
repository root (``root``) and, without ``--allow-remote-render``, nothing
it names may be fetched (``scan``): else :class:`RenderRefused`. The tool
runs in its own process group, its output cut at the size limit and its
time bounded (``bounded``). A tool that is missing, or a render that fails
or runs out of time (or, for a ``renders:`` environment, overruns its
output limit), raises :class:`RenderError`, which carries the tool's own
standard error, quoted so that it cannot start a CI workflow command
(``neutral``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lint.render.root import RenderRefused, repository_root
from lint.render.spec import (
    DEFAULT_RENDER_TIMEOUT,
    HelmRender,
    KustomizeRender,
    RenderPolicy,
    RenderSpec,
)

if TYPE_CHECKING:
    from lint.render.run import RenderError, ToolMissing, render, render_command

_RUN: frozenset[str] = frozenset({"RenderError", "ToolMissing", "render", "render_command"})
"""What ``lint.render.run`` gives, imported when first asked for: a command
that renders nothing (every plain ``check`` of files) only needs the specs,
and running a tool brings in ``subprocess``, ``tempfile`` and the scan of
what a render reads."""


def __getattr__(name: str) -> Any:
    if name in _RUN:
        from lint.render import run  # noqa: PLC0415 - only when a render runs

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_RENDER_TIMEOUT",
    "HelmRender",
    "KustomizeRender",
    "RenderError",
    "RenderPolicy",
    "RenderRefused",
    "RenderSpec",
    "ToolMissing",
    "render",
    "render_command",
    "repository_root",
]
