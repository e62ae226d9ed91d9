"""The front door of every command: paths, limits and the declaration file
in; the declarations, the loaded documents, the inventory and the declared
sandboxes out.

``check``, ``explain`` and ``generate`` all start here, so they find the
declaration file, read the manifests, place objects in namespaces and apply
the no-declaration default the same way. Data flows one way: declarations
are read first (a problem there is a usage error before any manifest is
read), then the manifests are loaded and placed, then the declared
sandboxes are resolved against the inventory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import msgspec
from msgspec.structs import replace

from lint.declarations import (
    Declarations,
    DeclaredSandbox,
    declaration_file_for,
    load_declarations,
)
from lint.declarations.declared import declared_sandboxes
from lint.inventory import Inventory, build_inventory
from lint.kinds import CALICO_POLICIES, SERVICE_ACCOUNT, reads_service_accounts, relevant_kinds
from lint.loading import LoadLimits, LoadResult, load
from lint.loading.files import standard_input_once


class Intake(msgspec.Struct, frozen=True):
    """What one run works from."""

    declarations: Declarations
    loaded: LoadResult
    inventory: Inventory
    sandboxes: tuple[DeclaredSandbox, ...]


class InputOptions(Protocol):
    """What a command says about its input; ``CheckOptions``,
    ``ExplainOptions`` and ``GenerateOptions`` each carry these fields."""

    @property
    def paths(self) -> tuple[str, ...]: ...
    @property
    def config(self) -> Path | None: ...
    @property
    def namespace(self) -> str | None: ...
    @property
    def limits(self) -> LoadLimits: ...
    @property
    def jobs(self) -> int: ...


def take_in(
    options: InputOptions,
    *,
    stdin: bytes | None = None,
    environment: str | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> Intake:
    """Read the declarations (``--config``, else found upward from the first
    path, else from the current directory), load the paths within the
    limits on up to ``jobs`` processes, and place every object; objects
    that name no namespace go to ``--namespace``, else the file's
    ``defaultNamespace``, else ``default``. ``environment`` is the
    ``renders:`` environment the input was rendered for: only the entries
    that belong to it are declared sandboxes. ``meanwhile`` is what this
    process does once children start loading, if any do (``load``). Raises
    DeclarationError (a usage error, exit 2)."""
    declarations = load_declarations(
        declaration_file_for(options.paths, options.config),
        namespace_override=options.namespace,
        environment=environment,
    )
    paths = list(options.paths)
    stdin = standard_input_once(paths, stdin, options.limits)
    entries = declarations.entries
    workloads = (entry.workload.kind for entry in entries if entry.workload is not None)
    loaded = load(
        paths,
        stdin=stdin,
        relevant_kinds=relevant_kinds(workloads),
        limits=options.limits,
        jobs=options.jobs,
        meanwhile=meanwhile,
    )
    inventory = build_inventory(loaded.documents, declarations.object_namespace)
    if _reads_service_accounts(inventory):
        loaded = _with_service_accounts(loaded, paths, stdin, options)
        inventory = build_inventory(loaded.documents, declarations.object_namespace)
    return Intake(declarations, loaded, inventory, declared_sandboxes(declarations, inventory))


def _reads_service_accounts(inventory: Inventory) -> bool:
    return any(
        reads_service_accounts(kind, obj.value)
        for kind in CALICO_POLICIES
        for obj in inventory.all_of_kind(kind.key)
    )


def _with_service_accounts(
    loaded: LoadResult, paths: list[str], stdin: bytes | None, options: InputOptions
) -> LoadResult:
    """The load with the ServiceAccounts added, read in a second pass over the
    same input: a Calico policy reads their labels (CLUSTER-POLICIES §2.3),
    and no other run pays for parsing them. The second pass's problems and
    counts repeat the first's, so only its ServiceAccounts are taken."""
    name = SERVICE_ACCOUNT.name
    again = load(
        paths,
        stdin=stdin,
        relevant_kinds=frozenset({name}),
        limits=options.limits,
        jobs=options.jobs,
    )
    accounts = tuple(document for document in again.documents if document.kind == name)
    skipped = dict(loaded.skipped)
    left = skipped.pop(name, 0) - len(accounts)
    if left > 0:
        skipped[name] = left
    return replace(loaded, documents=loaded.documents + accounts, skipped=skipped)
