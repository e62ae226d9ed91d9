"""``renders:``: the environments a bare ``egress-lint check`` renders and
checks one by one (DESIGN §11).

Each entry names a Helm chart (with its values files, ``set`` values,
release, namespace, Kubernetes version and API versions) or a Kustomize
directory. Paths are relative to the declaration file's directory and are
handed on relative to the current directory, the way reports name files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import TYPE_CHECKING

from lint.declarations.discovery import display_name
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import line_of
from lint.render.spec import HelmRender, KustomizeRender, RenderSpec

if TYPE_CHECKING:
    # Types only: ruamel.yaml loads when a declaration file is read.
    from lint.declarations.reading import SourceTree
    from lint.declarations.structure import RenderEntry

_HELM_ONLY = ("values", "set_values", "release", "kube_version", "api_versions")


@dataclass(frozen=True)
class DeclaredRender:
    """One environment: its name, what renders it, the namespace objects
    that name none take (also Helm's release namespace), and where it is
    declared."""

    name: str
    spec: RenderSpec
    line: int
    namespace: str | None = None


def declared_renders(
    models: Sequence[RenderEntry] | None, tree: SourceTree, base: FilePath
) -> tuple[DeclaredRender, ...]:
    """The environments of the file, in the order written. Raises
    DeclarationError for an entry with both or neither of ``helm`` and
    ``kustomize``, Helm flags beside ``kustomize``, or a repeated name."""
    renders: list[DeclaredRender] = []
    seen: dict[str, int] = {}
    for index, model in enumerate(models or ()):
        line = line_of(tree.lines, ("renders", index))
        problem = _problem(model, seen)
        if problem is not None:
            raise DeclarationError(
                path=f"renders[{index}]", file=tree.file, line=line, message=problem
            )
        seen[model.name] = index
        renders.append(DeclaredRender(model.name, _spec(model, base), line, model.namespace))
    return tuple(renders)


def _problem(model: RenderEntry, seen: dict[str, int]) -> str | None:
    if (model.helm is None) == (model.kustomize is None):
        return "give exactly one of `helm: CHART` and `kustomize: DIR`"
    if model.name in seen:
        return f"the environment name {model.name!r} is already used by renders[{seen[model.name]}]"
    if model.kustomize is not None:
        given = [name for name in _HELM_ONLY if getattr(model, name) is not None]
        if given:
            fields = ", ".join("set" if n == "set_values" else _camel(n) for n in given)
            return f"{fields} only apply with `helm:`"
    return None


def _spec(model: RenderEntry, base: FilePath) -> RenderSpec:
    if model.kustomize is not None:
        return KustomizeRender(_local(base, model.kustomize))
    assert model.helm is not None
    return HelmRender(
        chart=_chart(base, model.helm),
        values=tuple(_local(base, v) for v in model.values or ()),
        set_values=tuple(model.set_values or ()),
        release=model.release,
        namespace=model.namespace,
        kube_version=model.kube_version,
        api_versions=tuple(model.api_versions or ()),
    )


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _local(base: FilePath, path: str) -> str:
    return display_name(base / path)


def _chart(base: FilePath, chart: str) -> str:
    """A chart directory relative to the declaration file; a reference
    such as ``oci://...`` or ``repo/chart`` that names no local directory
    goes to helm as written."""
    if "://" in chart or not (base / chart).exists():
        return chart
    return _local(base, chart)
