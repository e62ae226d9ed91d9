"""What the loader hands to the rest of the tool.

These frozen records are the loading layer's whole interface: the inventory
reads ``LoadedDocument`` values, and the report lists ``LoadProblem`` entries
as parse errors. Lines are 1-based everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import msgspec

from lint.decision.frozen import equal_without
from lint.loading.kinds import item_kind_of

JSONValue: TypeAlias = Any
"""A JSON-shaped value: dict, list, str, int, float, bool or None."""

Severity: TypeAlias = Literal["error", "warning"]

STDIN_NAME = "<stdin>"
"""The ``file`` of documents read from standard input."""


class LoadedDocument(msgspec.Struct, frozen=True):
    """One document (or one list item) of a relevant kind.

    ``line`` is where the content starts: the first line that is neither blank
    nor a comment, or the item's own line for a list item. ``index`` counts
    every document of the file, empty ones included; the items of one list
    share their wrapper's index and differ by ``list_index``.
    """

    file: str
    line: int
    end_line: int
    index: int
    value: JSONValue
    source: str | None = None
    list_kind: str | None = None
    list_index: int | None = None
    text: str = ""
    """The raw text of the document (the whole wrapper for a list item)."""
    text_line: int = 1
    """The line of the file on which ``text`` begins."""

    # What a document is, not the text it was read from.
    __eq__ = equal_without("text", "text_line")
    __hash__ = None  # type: ignore[assignment]  # its value is a dict: never hashed

    @property
    def kind(self) -> str | None:
        """The object's ``kind``, else the kind its typed list holds."""
        if isinstance(self.value, dict):
            kind = self.value.get("kind")
            if isinstance(kind, str):
                return kind
        if self.list_kind is not None:
            return item_kind_of(self.list_kind)
        return None


class LoadProblem(msgspec.Struct, frozen=True):
    """A document or file that could not be read, or was read with a caveat.

    ``suspect_kind`` is set when the input that could not be read may be a
    policy: a policy kind its text names, the kind its API group serves, or
    ``NetworkPolicy`` for a file that was not read at all. The check must
    then fail closed (SEMANTICS §17.7) for ``suspect_namespace``, or for
    every namespace when that is None (the object named none, or its
    namespace cannot be known).
    """

    file: str
    line: int
    message: str
    suspect_kind: str | None = None
    suspect_namespace: str | None = None
    severity: Severity = "error"
    render: str | None = None
    """``helm`` or ``kustomize`` for a Helm chart or Kustomize directory
    named among the paths: nothing in it was read, and it is no parse
    error: it needs rendering (the ``render-needed`` finding)."""


class LoadResult(msgspec.Struct, frozen=True):
    """Everything one ``load()`` call produced, in file order then index."""

    documents: tuple[LoadedDocument, ...]
    problems: tuple[LoadProblem, ...]
    skipped: Mapping[str, int]
    """Documents of other kinds: counted, never constructed. Sorted by kind."""
    files: int
    bytes: int
