"""What to render: a Helm chart with its values, or a Kustomize directory.
Plain frozen data, built from the command line flags or from a ``renders:``
entry of the declaration file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True)
class HelmRender:
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


@dataclass(frozen=True)
class KustomizeRender:
    """``kustomize build DIR`` (or ``kubectl kustomize DIR``)."""

    directory: str

    @property
    def tool(self) -> str:
        return "kustomize"

    @property
    def target(self) -> str:
        return self.directory


RenderSpec: TypeAlias = HelmRender | KustomizeRender
