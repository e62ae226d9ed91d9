"""Which ``renders:`` environments a sandbox entry belongs to, and its
namespace in each (issue 28).

An entry names its environments with ``environments: [prod, staging]``,
else inherits ``defaults.environments``, else belongs to every one. Its
``namespace`` is one name, or one name per environment
(``namespace: {prod: agents, staging: agents-staging}``); in an
environment the mapping does not name, and in a run that checks no
``renders:`` environment (PATHs given), the entry takes the namespace an
entry without ``namespace`` takes. Every name used must be one of the
file's ``renders:`` environments, else a :class:`DeclarationError` at the
name's line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path, line_of

if TYPE_CHECKING:
    # Types only: ruamel.yaml loads when a declaration file is read.
    from lint.declarations.reading import SourceTree
    from lint.declarations.structure import SandboxEntry


class Scope(msgspec.Struct, frozen=True):
    """The environments of a file's ``renders:`` (in file order) and the one
    this run checks (None: no environment, as when PATHs are given)."""

    names: tuple[str, ...]
    current: str | None = None

    def includes(self, environments: tuple[str, ...] | None) -> bool:
        """Whether an entry of these environments is judged in this run:
        always in a run of no environment, which cannot tell."""
        return self.current is None or environments is None or self.current in environments

    def namespace(self, given: str | Mapping[str, str] | None) -> str | None:
        """The entry's own namespace in this run, None when it gives none here."""
        if given is None or isinstance(given, str):
            return given
        return given.get(self.current) if self.current is not None else None


def default_environments(tree: SourceTree, scope: Scope) -> tuple[str, ...] | None:
    """``defaults.environments``, checked; None when absent."""
    defaults = tree.value.get("defaults")
    given = defaults.get("environments") if isinstance(defaults, dict) else None
    if given is None:
        return None
    return _checked(tree, ("defaults", "environments"), tuple(given), scope)


def entry_environments(
    tree: SourceTree,
    index: int,
    sandbox: SandboxEntry,
    scope: Scope,
    inherited: tuple[str, ...] | None,
) -> tuple[str, ...] | None:
    """The entry's environments, its own else ``defaults``'; None for every
    one. Raises DeclarationError for a name not in ``renders:``, and checks
    the names of a per-environment ``namespace`` alike."""
    if isinstance(sandbox.namespace, Mapping):
        for name in sandbox.namespace:
            _known(tree, ("sandboxes", index, "namespace", name), name, scope)
    if sandbox.environments is None:
        return inherited
    return _checked(tree, ("sandboxes", index, "environments"), sandbox.environments, scope)


def _checked(tree: SourceTree, field: Path, names: Sequence[str], scope: Scope) -> tuple[str, ...]:
    for position, name in enumerate(names):
        _known(tree, (*field, position), name, scope)
    return tuple(dict.fromkeys(names))


def _known(tree: SourceTree, field: Path, name: str, scope: Scope) -> None:
    if name in scope.names:
        return
    declared = (
        f"the renders: environments are {', '.join(scope.names)}"
        if scope.names
        else "the file declares no renders: environments"
    )
    line = line_of(tree.lines, field)
    raise DeclarationError(
        path=format_path(field),
        file=tree.file,
        line=line,
        message=f"{name!r} is not an environment of renders:; {declared}",
        excerpt=tree.excerpt(line),
    )
