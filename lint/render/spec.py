"""What to render: a Helm chart with its values, or a Kustomize directory,
and the policy every render is held to. Plain frozen data, built from the
command line flags or from a ``renders:`` entry of the declaration file."""

from __future__ import annotations

from pathlib import Path
from typing import Final, TypeAlias

import msgspec

from lint.loading.limits import DEFAULT_LIMITS


class HelmRender(msgspec.Struct, frozen=True):
    """``helm template [RELEASE] CHART`` with these flags. ``namespace`` is
    Helm's ``--namespace`` (the release namespace templates read)."""

    chart: str
    values: tuple[str, ...] = ()
    set_values: tuple[str, ...] = ()
    release: str | None = None
    namespace: str | None = None
    kube_version: str | None = None
    api_versions: tuple[str, ...] = ()

    @property
    def tool(self) -> str:
        return "helm"

    @property
    def target(self) -> str:
        return self.chart


class KustomizeRender(msgspec.Struct, frozen=True):
    """``kustomize build DIR`` (or ``kubectl kustomize DIR``)."""

    directory: str

    @property
    def tool(self) -> str:
        return "kustomize"

    @property
    def target(self) -> str:
        return self.directory


RenderSpec: TypeAlias = HelmRender | KustomizeRender


DEFAULT_RENDER_TIMEOUT: Final = 120.0
"""Seconds a render may run (``--render-timeout``)."""


class RenderPolicy(msgspec.Struct, frozen=True):
    """What every render is held to (``docs/limits.md``): ``root``, the
    resolved repository root every path it uses must stay inside;
    ``allow_remote`` (``--allow-remote-render``), without which a remote
    chart, dependency or Kustomize reference is refused before the tool
    runs; ``timeout`` in seconds, after which the tool's whole process
    group is killed; ``max_output``, the bytes of output kept, past which
    the tool is stopped."""

    root: Path
    allow_remote: bool = False
    timeout: float = DEFAULT_RENDER_TIMEOUT
    max_output: int = DEFAULT_LIMITS.max_file_size
