"""Reading a render's inputs before its tool runs: every path it will use
must stay inside the repository root, and, without
``--allow-remote-render``, nothing it names may be fetched.

A Helm chart is a local directory or archive; a URL, an ``oci://``
reference or a ``repo/chart`` name is remote, and so is a dependency its
``Chart.yaml`` lists that is not vendored under ``charts/`` (``helm
template`` is never asked to update dependencies). Every symbolic link in
the chart directory must resolve inside the root: Helm follows them, and
templates can read any chart file.

A Kustomize directory is read the way ``kustomize build`` reads it, through
every local directory it includes: its ``resources``, ``bases``,
``components``, ``generators``, ``transformers`` and ``validators`` that
are URLs or git references (or paths that name nothing here, which
Kustomize would try to fetch), ``helmCharts`` from a repository, and the files its patches,
generators, replacements and configurations read, which Kustomize fetches
when they are ``http(s)`` URLs. Each local file must resolve inside the
root.

Kustomize's exec and KRM function plugins, and its Helm inflation, run
programs; they stay off because egress-lint never passes the flags that
enable them (``--enable-alpha-plugins``, ``--enable-exec``,
``--enable-helm``), so Kustomize itself refuses such an overlay.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import msgspec
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lint.loading.files import KUSTOMIZATION_FILES, display_name
from lint.render.root import RenderRefused, confine
from lint.render.spec import HelmRender, KustomizeRender, RenderPolicy, RenderSpec
from lint.yaml.parse import ParseFailure, compose

_SCHEME: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# What Kustomize may read as a git repository: `git::...`, `user@host:path`,
# a host name as the first segment (`github.com/org/repo`), a `//` subpath
# or a `?ref=` query.
_GIT: Final = re.compile(
    r"^git::|^[\w.-]+@[\w.-]+:|^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:\d+)?/|//|\?(ref|version|submodules|timeout)="
)
_MAX_SCANNED: Final = 4 * 1024 * 1024
"""Largest Chart.yaml or kustomization file read for the scan."""
_REMOTE_HINT: Final = "a render fetches nothing without --allow-remote-render"
# Kustomization fields whose entries are kustomizations, files or remote
# references, and those whose entries are files Kustomize reads (or fetches
# when they are http(s) URLs).
_INCLUDES: Final = ("resources", "bases", "components", "generators", "transformers", "validators")
_FILE_LISTS: Final = ("crds", "configurations", "patchesStrategicMerge")
_PATH_ITEMS: Final = ("patches", "patchesJson6902", "replacements")
_GENERATORS: Final = ("configMapGenerator", "secretGenerator")


class _Place(msgspec.Struct, frozen=True):
    """Where a reference is written: a file and a 1-based line."""

    file: Path
    line: int

    def __str__(self) -> str:
        return f"{display_name(self.file)}:{self.line}"


def check_inputs(spec: RenderSpec, policy: RenderPolicy) -> None:
    """Raise RenderRefused for the first input of ``spec`` that leaves the
    root or, without ``allow_remote``, is remote."""
    if isinstance(spec, KustomizeRender):
        _Kustomize(policy).directory(Path(spec.directory), None, "the Kustomize directory")
    else:
        _helm(spec, policy)


def _remote(where: str, what: str) -> RenderRefused:
    return RenderRefused(f"{where}: {what}; {_REMOTE_HINT}")


# --- Helm ------------------------------------------------------------------------------


def _helm(spec: HelmRender, policy: RenderPolicy) -> None:
    for values in spec.values:
        if _SCHEME.match(values) and not policy.allow_remote:
            raise _remote(f"--values {values}", "the values file is a URL Helm would fetch")
        if not _SCHEME.match(values):
            confine(values, policy.root, "the values file")
    chart = spec.chart
    if _SCHEME.match(chart) or not os.path.lexists(chart):
        if policy.allow_remote:
            return
        why = (
            "the chart is a remote reference"
            if _SCHEME.match(chart)
            else "the chart is not a local directory or archive, so Helm would look it up "
            "in a chart repository"
        )
        raise _remote(f"chart {chart}", why)
    confine(chart, policy.root, "the chart")
    if os.path.isdir(chart):
        _chart_links(Path(chart), policy.root)
        if not policy.allow_remote:
            _chart_dependencies(Path(chart))


def _chart_links(chart: Path, root: Path) -> None:
    """Every symbolic link under the chart, followed as Helm follows them,
    resolves inside the root."""
    seen: set[str] = set()
    for directory, names, files in os.walk(chart, followlinks=True):
        real = os.path.realpath(directory)
        if real in seen:
            names[:] = []
            continue
        seen.add(real)
        for name in (*names, *files):
            path = Path(directory) / name
            if path.is_symlink():
                confine(path, root, "the chart file")


def _chart_dependencies(chart: Path) -> None:
    """Every dependency of the chart, and of the charts vendored under its
    ``charts/``, is vendored there."""
    manifest = chart / "Chart.yaml"
    root = _mapping(manifest) if manifest.is_file() else None
    vendored = _vendored(chart / "charts")
    dependencies = _value(root, "dependencies") if root is not None else None
    for item in _items(dependencies):
        name = _text(_value(item, "name"))
        if name is None or name in vendored:
            continue
        repository = _text(_value(item, "repository")) or "no repository"
        raise _remote(
            str(_Place(manifest, item.start_mark.line + 1)),
            f"the dependency {name} ({repository}) is not vendored under charts/, so Helm "
            "would fetch it (run `helm dependency build` yourself and commit charts/)",
        )
    for sub in sorted(chart.glob("charts/*/Chart.yaml")):
        _chart_dependencies(sub.parent)


def _vendored(charts: Path) -> set[str]:
    """The chart names ``charts/`` holds: directory names, the names their
    Chart.yaml gives, and the names of archives (``NAME-VERSION.tgz``)."""
    names: set[str] = set()
    if not charts.is_dir():
        return names
    for entry in charts.iterdir():
        if entry.is_dir():
            names.add(entry.name)
            manifest = entry / "Chart.yaml"
            given = _text(_value(_mapping(manifest), "name")) if manifest.is_file() else None
            if given is not None:
                names.add(given)
        elif entry.name.endswith((".tgz", ".tar.gz")):
            stem = entry.name.removesuffix(".tgz").removesuffix(".tar.gz")
            names.add(stem.rsplit("-", 1)[0] if "-" in stem else stem)
            names.add(stem)
    return names


# --- Kustomize -------------------------------------------------------------------------


class _Kustomize:
    """One scan through a Kustomize directory and those it includes."""

    def __init__(self, policy: RenderPolicy) -> None:
        self.policy = policy
        self.seen: set[str] = set()

    def directory(self, directory: Path, place: _Place | None, what: str) -> None:
        confine(directory, self.policy.root, what if place is None else f"{place}: {what}")
        real = os.path.realpath(directory)
        if real in self.seen:
            return
        self.seen.add(real)
        found = next((directory / n for n in KUSTOMIZATION_FILES if (directory / n).exists()), None)
        if found is None:
            return  # Kustomize refuses it; nothing is read
        confine(found, self.policy.root, "the kustomization")
        root = _mapping(found)
        if root is None:
            return
        for field in _INCLUDES:
            for item in _items(_value(root, field)):
                self.include(directory, found, item)
        for field in _FILE_LISTS:
            for item in _items(_value(root, field)):
                self.file(directory, found, item)
        for field in _PATH_ITEMS:
            for item in _items(_value(root, field)):
                self.file(directory, found, _value(item, "path"))
        self.file(directory, found, _value(_value(root, "openapi"), "path"))
        for field in ("chartHome", "configHome"):
            self.file(directory, found, _value(_value(root, "helmGlobals"), field))
        for field in _GENERATORS:
            for item in _items(_value(root, field)):
                self.generator(directory, found, item)
        for field in ("helmCharts", "helmChartInflationGenerator"):
            for item in _items(_value(root, field)):
                self.chart(found, item)

    def include(self, directory: Path, file: Path, node: Node | None) -> None:
        """A resource, base, component or plugin entry: inline text, a
        local file, a local kustomization (scanned in turn), or remote."""
        entry = _text(node)
        if entry is None or node is None or "\n" in entry:
            return
        place = _Place(file, node.start_mark.line + 1)
        path = directory / entry
        if not self.policy.allow_remote:
            if _SCHEME.match(entry):
                raise _remote(str(place), f"{entry} is a URL Kustomize would fetch")
            if not path.is_file() and _GIT.search(entry):
                raise _remote(str(place), f"{entry} is a git reference Kustomize would clone")
            if not os.path.lexists(path) and ("/" in entry or ":" in entry):
                # A bare file name names no host, so it cannot be fetched:
                # Kustomize reports it missing.
                raise _remote(
                    str(place),
                    f"{entry} is neither a file nor a directory here, so Kustomize would "
                    "try to fetch it",
                )
        if _SCHEME.match(entry) or not os.path.lexists(path):
            return
        confine(path, self.policy.root, f"{place}: {entry}")
        if path.is_dir():
            self.directory(path, place, entry)

    def file(self, directory: Path, file: Path, node: Node | None) -> None:
        """A file Kustomize reads, fetched when it is an http(s) URL."""
        entry = _text(node)
        if entry is None or node is None or "\n" in entry:
            return
        place = _Place(file, node.start_mark.line + 1)
        if _SCHEME.match(entry):
            if not self.policy.allow_remote:
                raise _remote(str(place), f"{entry} is a URL Kustomize would fetch")
            return
        path = directory / entry
        if os.path.lexists(path):
            confine(path, self.policy.root, f"{place}: {entry}")

    def generator(self, directory: Path, file: Path, item: Node) -> None:
        """A ConfigMap or Secret generator: its ``files`` (``[KEY=]PATH``),
        ``envs`` and ``env``."""
        for given in _items(_value(item, "files")):
            text = _text(given)
            if text is not None and "=" in text:
                path = text.split("=", 1)[1]
                given = ScalarNode(given.tag, path, given.start_mark, given.end_mark)  # noqa: PLW2901
            self.file(directory, file, given)
        for node in _items(_value(item, "envs")):
            self.file(directory, file, node)
        self.file(directory, file, _value(item, "env"))

    def chart(self, file: Path, item: Node) -> None:
        repository = _text(_value(item, "repo")) or _text(_value(item, "chartRepoUrl"))
        if repository and not self.policy.allow_remote:
            name = _text(_value(item, "name")) or _text(_value(item, "chartName")) or "a chart"
            raise _remote(
                str(_Place(file, item.start_mark.line + 1)),
                f"helmCharts names {name} from the repository {repository}",
            )


# --- reading YAML with lines -----------------------------------------------------------


def _mapping(path: Path) -> MappingNode | None:
    """The top mapping of a Chart.yaml or kustomization file; None when it is
    not a mapping. A file that cannot be read or parsed is refused: what it
    would make the tool fetch cannot be known."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode) or status.st_size > _MAX_SCANNED:
            raise RenderRefused(
                f"{display_name(path)}: not read for remote references "
                f"(not a regular file of at most {_MAX_SCANNED // 1024 // 1024}M)"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise RenderRefused(f"{display_name(path)}: cannot be read: {reason}") from None
    try:
        node = compose(text)
    except ParseFailure as failure:
        raise RenderRefused(
            f"{display_name(path)}:{failure.line + 1}: cannot be read for remote references: "
            f"{failure.message}"
        ) from None
    return node if isinstance(node, MappingNode) else None


def _value(node: Node | None, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    for key_node, value in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value  # type: ignore[no-any-return]
    return None


def _items(node: Node | None) -> Iterator[Node]:
    if isinstance(node, SequenceNode):
        yield from node.value


def _text(node: Node | None) -> str | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return node.value
    return None
