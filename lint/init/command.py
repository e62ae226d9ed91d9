"""``egress-lint init``: a starter declaration file from the manifests.

:func:`starter_text` reads the manifests as ``check`` does (the loader and
the inventory), proposes the entries (``propose``) and the environments
(``roots``), and writes the text (``emit``). No click here; the command
line, where the file goes and the refusal to overwrite it are in
``lint/cli/init.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from lint.init.emit import Starter, declaration_text
from lint.init.propose import Proposed, proposals
from lint.init.roots import ProposedRender, found_renders, named
from lint.inventory import Inventory, KubeObject, build_inventory
from lint.kinds import WORKLOAD_KINDS, Scope, relevant_kinds
from lint.loading import DEFAULT_LIMITS, LoadLimits, LoadProblem, load
from lint.loading.files import standard_input_once, unrendered_root
from lint.render import RenderSpec

DEFAULT_NAMESPACE = "default"
SHOWN_PROBLEMS = 3
"""Load problems named in the header; the rest are counted."""


class NothingToDeclare(Exception):
    """The manifests hold no SandboxTemplate and no workload a
    NetworkPolicy selects: a usage error, whose message says what to try."""


class InitOptions(msgspec.Struct, frozen=True):
    """One init run: what to read, and the render that made it, if any."""

    paths: tuple[str, ...] = (".",)
    namespace: str | None = None
    render: RenderSpec | None = None
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1


def starter_text(options: InitOptions, directory: Path, stdin: bytes | None = None) -> str:
    """The declaration file's text, to be written in ``directory``. Raises
    :class:`NothingToDeclare`."""
    paths = list(options.paths)
    stdin = standard_input_once(paths, stdin, options.limits)
    workloads = (kind.name for kind in WORKLOAD_KINDS)
    loaded = load(
        paths,
        stdin=stdin,
        relevant_kinds=relevant_kinds(workloads),
        limits=options.limits,
        jobs=options.jobs,
    )
    inventory = build_inventory(loaded.documents, options.namespace or DEFAULT_NAMESPACE)
    entries = proposals(inventory)
    renders = _renders(options, loaded.problems)
    if not entries:
        raise NothingToDeclare(_nothing(options, renders))
    starter = Starter(
        entries,
        renders,
        _default_namespace(options, entries, inventory),
        _header(options, loaded.problems),
        _renders_note(options, renders),
    )
    return declaration_text(starter, directory)


def _renders(options: InitOptions, problems: Sequence[LoadProblem]) -> tuple[ProposedRender, ...]:
    if options.render is not None:
        return named([options.render], options.namespace)
    return found_renders(problems)


def _nothing(options: InitOptions, renders: Sequence[ProposedRender]) -> str:
    read = f"what --{options.render.tool} renders" if options.render else "the manifests"
    message = (
        f"nothing to declare: {read} hold no SandboxTemplate and no workload "
        "a NetworkPolicy selects"
    )
    if renders and options.render is None:
        flags = ", ".join(f"`egress-lint init --{r.spec.tool} {r.spec.target}`" for r in renders)
        message += f"; the charts and overlays found are not rendered without a flag: try {flags}"
    return message


def _default_namespace(
    options: InitOptions, entries: Sequence[Proposed], inventory: Inventory
) -> str | None:
    """``--namespace``; else the one namespace of every entry, when every
    object named its namespace (a ``defaultNamespace`` would move an
    object that names none); else none, and each entry says its own."""
    if options.namespace is not None:
        return options.namespace
    namespaces = {entry.namespace for entry in entries}
    if len(namespaces) != 1 or namespaces == {DEFAULT_NAMESPACE}:
        return None
    if any(_names_no_namespace(obj.value) for obj in _namespaced(inventory)):
        return None
    return namespaces.pop()


def _namespaced(inventory: Inventory) -> list[KubeObject]:
    return [
        obj
        for namespace in inventory.namespaces.values()
        for objects in namespace.objects.values()
        for obj in objects
        if obj.entry is None or obj.entry.scope is Scope.NAMESPACED
    ]


def _names_no_namespace(value: object) -> bool:
    metadata = value.get("metadata") if isinstance(value, dict) else None
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return not (isinstance(namespace, str) and namespace)


def _header(options: InitOptions, problems: Sequence[LoadProblem]) -> tuple[str, ...]:
    sentences: list[str] = []
    if options.render is not None:
        sentences.append(
            f"Read from what `{options.render.tool}` rendered of {options.render.target}."
        )
    unread = [p for p in problems if unrendered_root(p) is None]
    if unread:
        shown = "; ".join(f"{p.file}:{p.line}: {p.message}" for p in unread[:SHOWN_PROBLEMS])
        more = len(unread) - SHOWN_PROBLEMS
        rest = f" (and {more} more)" if more > 0 else ""
        sentences.append(
            f"review: {len(unread)} problem(s) reading the manifests, which check reports "
            f"too: {shown}{rest}."
        )
    return tuple(sentences)


def _renders_note(options: InitOptions, renders: Sequence[ProposedRender]) -> str | None:
    if not renders:
        return None
    note = (
        "A bare `egress-lint check` renders each environment below and checks it on its "
        "own; manifests outside them are then checked only when named (`egress-lint check "
        "PATH`)."
    )
    if options.render is None:
        note += (
            " review: init did not render these, so the sandboxes they hold are not below: "
            "`egress-lint init --helm CHART` or `--kustomize DIR` writes their entries."
        )
    return note
