"""The charts and overlays ``egress-lint init`` lists under ``renders:``.

The loader does not read a directory holding a ``Chart.yaml`` or a
``kustomization.yaml``: it reports it once instead
(``lint.loading.files.unrendered_tree``). Those reports name the charts and
Kustomize directories of the tree. A Kustomize directory that another one
found builds on (``resources``, ``bases`` or ``components``) is a base,
not an environment: only the others are proposed. A render given on the
command line (``--helm``, ``--kustomize``) is proposed as given.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from lint.loading import LoadProblem
from lint.loading.files import KUSTOMIZATION_FILES, unrendered_root
from lint.render import HelmRender, KustomizeRender, RenderSpec
from lint.yaml.parse import ParseFailure, parse_yaml

_BUILDS_ON = ("resources", "bases", "components")
MAX_KUSTOMIZATION_BYTES = 1 << 20
"""A kustomization file larger than this is not read for its bases."""


class ProposedRender(msgspec.Struct, frozen=True):
    """One environment for ``renders:``: its name and what renders it."""

    name: str
    spec: RenderSpec
    namespace: str | None = None


def found_renders(problems: Iterable[LoadProblem]) -> tuple[ProposedRender, ...]:
    """The charts and the Kustomize directories that are no other one's
    base, by path, each named after its directory."""
    roots = sorted({root for root in map(unrendered_root, problems) if root is not None})
    overlays = [directory for directory, tool in roots if tool == "kustomize"]
    bases = _bases(overlays)
    specs: list[RenderSpec] = [
        HelmRender(chart=directory) if tool == "helm" else KustomizeRender(directory)
        for directory, tool in roots
        if not (tool == "kustomize" and _key(directory) in bases)
    ]
    return named(specs)


def named(specs: Sequence[RenderSpec], namespace: str | None = None) -> tuple[ProposedRender, ...]:
    """Each render with a unique environment name: a chart's last values
    file's name, else its directory's name, else its path with dashes,
    else with a number."""
    names: list[str] = []
    for spec in specs:
        path = spec.target.rstrip("/").split("://")[-1]
        parts = [part for part in path.split("/") if part not in ("", ".", "..")]
        candidates = [parts[-1] if parts else "default", "-".join(parts) or "default"]
        if isinstance(spec, HelmRender) and spec.values:
            # An environment of a chart is its values: env/dev.yaml is `dev`.
            candidates.insert(0, Path(spec.values[-1]).stem or candidates[0])
        name = next((c for c in candidates if c not in names), None)
        number = 2
        while name is None or name in names:
            name = f"{candidates[0]}-{number}"
            number += 1
        names.append(name)
    return tuple(ProposedRender(n, s, namespace) for n, s in zip(names, specs, strict=True))


def _key(directory: str) -> str:
    return os.path.normpath(os.path.abspath(directory))


def _bases(overlays: Sequence[str]) -> set[str]:
    """The found Kustomize directories another found one builds on."""
    known = {_key(directory) for directory in overlays}
    bases: set[str] = set()
    for directory in overlays:
        for entry in _builds_on(Path(directory)):
            target = _key(os.path.join(directory, entry))
            if target in known and target != _key(directory):
                bases.add(target)
    return bases


def _builds_on(directory: Path) -> list[str]:
    """The local entries of a kustomization's ``resources``, ``bases`` and
    ``components``; none when the file cannot be read."""
    for name in KUSTOMIZATION_FILES:
        path = directory / name
        try:
            if not path.is_file() or path.stat().st_size > MAX_KUSTOMIZATION_BYTES:
                continue
            value = parse_yaml(path.read_text(encoding="utf-8")).value
        except (OSError, UnicodeDecodeError, ParseFailure):
            return []
        if not isinstance(value, dict):
            return []
        entries = [value.get(key) for key in _BUILDS_ON]
        return [
            item
            for listed in entries
            if isinstance(listed, list)
            for item in listed
            if isinstance(item, str) and "://" not in item
        ]
    return []
