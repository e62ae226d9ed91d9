"""``renders:``: the environments a bare ``egress-lint check`` renders and
checks one by one (DESIGN §11).

Each entry names a Helm chart (with its values files, ``set`` values,
release, namespace, Kubernetes version and API versions) or a Kustomize
directory. Every path is relative to the declaration file's directory,
wherever the run starts, and is handed on relative to the current
directory, the way reports name files; a path that names nothing there is
a declaration error (issue 28). What is not a path stays as written: a URL
(``oci://...``, ``https://...``) and a chart repository reference
(``repo/chart``), which a render fetches only with
``--allow-remote-render``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Final

import msgspec

from lint.declarations.discovery import display_name
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path, line_of
from lint.render.spec import HelmRender, KustomizeRender, RenderSpec

if TYPE_CHECKING:
    # Types only: ruamel.yaml loads when a declaration file is read.
    from lint.declarations.reading import SourceTree
    from lint.declarations.structure import RenderEntry

_HELM_ONLY = ("values", "set_values", "release", "kube_version", "api_versions")
_SCHEME: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# `repo/chart`: Helm's name for a chart in a repository added with `helm repo add`
# (an archive name, `.tgz`, is a path).
_REPOSITORY_CHART: Final = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*(?<!\.tgz)$")


class DeclaredRender(msgspec.Struct, frozen=True):
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
        spec = _spec(model, _Paths(tree, base, index))
        renders.append(DeclaredRender(model.name, spec, line, model.namespace))
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


def _spec(model: RenderEntry, paths: _Paths) -> RenderSpec:
    if model.kustomize is not None:
        return KustomizeRender(paths.local(("kustomize",), model.kustomize))
    assert model.helm is not None
    return HelmRender(
        chart=paths.chart(model.helm),
        values=tuple(
            v if _SCHEME.match(v) else paths.local(("values", n), v)
            for n, v in enumerate(model.values or ())
        ),
        set_values=tuple(model.set_values or ()),
        release=model.release,
        namespace=model.namespace,
        kube_version=model.kube_version,
        api_versions=tuple(model.api_versions or ()),
    )


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


class _Paths(msgspec.Struct, frozen=True):
    """The paths of ``renders[index]``, read against ``base``, the
    declaration file's directory."""

    tree: SourceTree
    base: FilePath
    index: int

    def local(self, field: Path, path: str) -> str:
        """``path`` as the current directory names it; a DeclarationError
        when nothing is there."""
        if not (self.base / path).exists():
            raise self._error(field, f"{path} does not exist in {self._shown_base()}, {_RULE}")
        return display_name(self.base / path)

    def chart(self, chart: str) -> str:
        """A chart next to the declaration file; a URL, or a ``repo/chart``
        reference that names no local path, goes to helm as written."""
        if _SCHEME.match(chart) or (self.base / chart).exists():
            return chart if _SCHEME.match(chart) else display_name(self.base / chart)
        if not _REPOSITORY_CHART.match(chart) or (self.base / chart).parent.exists():
            return self.local(("helm",), chart)
        if FilePath(chart).exists():
            # Helm would read the current directory's copy as a local chart.
            raise self._error(
                ("helm",),
                f"{chart} does not exist in {self._shown_base()}, but does in the current "
                f"directory; {_RULE}",
            )
        return chart

    def _shown_base(self) -> str:
        return f"{display_name(self.base)}/ (the declaration file's directory)"

    def _error(self, field: Path, message: str) -> DeclarationError:
        parts: Path = ("renders", self.index, *field)
        line = line_of(self.tree.lines, parts)
        return DeclarationError(
            path=format_path(parts),
            file=self.tree.file,
            line=line,
            message=message,
            excerpt=self.tree.excerpt(line),
        )


_RULE: Final = (
    "and every path in renders: is relative to the declaration file's directory, "
    "wherever egress-lint runs"
)
