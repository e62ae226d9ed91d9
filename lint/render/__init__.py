"""The render layer: a chart or an overlay kept in git in, the rendered
manifests out (DESIGN §11).

``render(spec)`` runs the real tool on the PATH (``helm template``, or
``kustomize build``, else ``kubectl kustomize``) and returns what it wrote
to standard output as a :class:`~lint.loading.RenderedInput`, which the
loading layer reads the way it reads standard input. Nothing is written to
a temporary file. The command is an argument list, never a shell string,
and only the flags the user gave reach it: nothing read from a manifest
does. A tool that is missing, or a render that fails, raises
:class:`RenderError`, a usage error (exit 2) that carries the tool's own
standard error.
"""

from __future__ import annotations

from lint.render.run import RenderError, render, render_command
from lint.render.spec import HelmRender, KustomizeRender, RenderSpec

__all__ = [
    "HelmRender",
    "KustomizeRender",
    "RenderError",
    "RenderSpec",
    "render",
    "render_command",
]
