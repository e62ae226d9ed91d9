"""Rendered manifests handed to the loader, and mapping Helm's ``# Source:``
paths back to the chart's files.

A render (``lint.render``) produces one stream, read like standard input
(the path ``-``). :class:`RenderedInput` is that stream's bytes with the
name reports give it and, for a local Helm chart, the chart directory its
``# Source:`` paths are relative to. It is a ``bytes`` so that it travels
through every layer that already carries standard input, unchanged.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lint.render.origins import KustomizeOrigins


class RenderedInput(bytes):
    """The output of one render: its bytes, the name reports give it, and
    ``chart_root``, the chart directory (relative to the current directory,
    ``/`` separators) that its ``# Source:`` paths are mapped into, when the
    chart is a local directory. ``failure`` says why a render gave nothing
    to read (it was refused, failed or ran out of time): the loader then
    reads it as an input that could not be read, and the check fails
    closed. ``kustomize_origins``, for a Kustomize build, says which file
    wrote each of its documents, when the tool said (``lint.render.origins``)."""

    name: str
    chart_root: str | None
    failure: str | None
    kustomize_origins: KustomizeOrigins | None

    def __new__(
        cls,
        data: bytes,
        name: str,
        chart_root: str | None = None,
        failure: str | None = None,
        *,
        kustomize_origins: KustomizeOrigins | None = None,
    ) -> RenderedInput:
        rendered = super().__new__(cls, data)
        rendered.name = name
        rendered.chart_root = chart_root
        rendered.failure = failure
        rendered.kustomize_origins = kustomize_origins
        return rendered


def chart_file(source: str, chart_root: str | None) -> str:
    """The chart file a ``# Source: <chart>/templates/x.yaml`` names: the
    chart's name (the first segment) replaced by ``chart_root``, so that a
    subchart's ``<chart>/charts/<sub>/templates/x.yaml`` lands in the
    parent's ``charts/`` directory too. Unchanged without a root; a path
    with no chart segment (a CRD file of an old Helm) is joined whole."""
    if chart_root is None:
        return source
    rest = source.split("/", 1)[1] if "/" in source else source
    return posixpath.normpath(posixpath.join(chart_root.replace("\\", "/"), rest))
