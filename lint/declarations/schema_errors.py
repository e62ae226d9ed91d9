"""Turning pydantic's validation errors into declaration errors.

Pydantic reports a location tuple that mixes real keys with the tags of the
tagged unions in ``models.py``. The tuple is walked alongside the model
types, so tags are dropped and the field path names only what is in the
file. The message is ours: short, and naming the expected shape.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec
from pydantic import BaseModel, Tag, ValidationError
from pydantic_core import ErrorDetails

from lint.decision.values import compact_json
from lint.declarations.errors import DeclarationError
from lint.declarations.fieldpaths import Path, format_path, line_of
from lint.declarations.models import DeclarationFileModel, as_checked
from lint.declarations.reading import SourceTree
from lint.declarations.structure import CheckedFile

_SHOWN_VALUE_LIMIT = 60
_TYPE_MESSAGES = {
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "list_type": "must be a list",
    "string_too_short": "must not be empty",
    "too_short": "must not be empty",
}


class _Located(msgspec.Struct, frozen=True):
    path: Path
    container: type[BaseModel] | None
    chosen_tag: str | None
    other_tags: tuple[str, ...]


def validated(tree: SourceTree) -> CheckedFile:
    """The file's values as the pydantic models take them, or the first of
    their errors as a DeclarationError."""
    try:
        return as_checked(DeclarationFileModel.model_validate(tree.value))
    except ValidationError as error:
        raise first_schema_error(error, DeclarationFileModel, tree) from None


def first_schema_error(
    error: ValidationError, model: type[BaseModel], tree: SourceTree
) -> DeclarationError:
    """The pydantic error that comes first in the file, as a declaration error."""
    converted = [_convert(detail, model, tree) for detail in error.errors()]
    return min(converted, key=lambda item: item.line)


def _convert(detail: ErrorDetails, model: type[BaseModel], tree: SourceTree) -> DeclarationError:
    located = _locate(model, detail["loc"])
    line = line_of(tree.lines, located.path)
    return DeclarationError(
        path=format_path(located.path),
        file=tree.file,
        line=line,
        message=_message(detail, located),
        excerpt=tree.excerpt(line),
    )


def _message(detail: ErrorDetails, located: _Located) -> str:
    kind = detail["type"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return _unknown_field(located)
    if kind == "literal_error":
        expected = str(detail.get("ctx", {}).get("expected", "one of the allowed values"))
        if located.chosen_tag is not None and "mapping" in located.other_tags:
            expected += " or a mapping"
        return f"must be {expected}{_found(detail)}"
    if kind in ("greater_than_equal", "less_than_equal"):
        context = detail.get("ctx", {})
        bound = context.get("ge", context.get("le"))
        side = "at least" if kind == "greater_than_equal" else "at most"
        return f"must be {side} {bound}{_found(detail)}"
    if kind in _TYPE_MESSAGES:
        return _TYPE_MESSAGES[kind] + _found(detail)
    return detail["msg"].replace("Input should be", "must be")


def _unknown_field(located: _Located) -> str:
    name = located.path[-1] if located.path else ""
    if located.container is None:
        return "is not a known field"
    known = [field.alias or key for key, field in located.container.model_fields.items()]
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"is not a known field (known here: {', '.join(known)}){hint}"


def _found(detail: ErrorDetails) -> str:
    shown = compact_json(detail.get("input"))
    if len(shown) > _SHOWN_VALUE_LIMIT:
        shown = shown[: _SHOWN_VALUE_LIMIT - 3] + "..."
    return f", found {shown}"


def _locate(model: type[BaseModel], loc: Sequence[int | str]) -> _Located:
    """Walk ``loc`` through the model types, keeping real keys only."""
    current: Any = model
    container: type[BaseModel] | None = None
    path: list[int | str] = []
    chosen: str | None = None
    others: tuple[str, ...] = ()
    for element in loc:
        current = _strip(current)
        tagged = _tagged_members(current)
        if isinstance(element, str) and element in tagged:
            chosen, others = element, tuple(tag for tag in tagged if tag != element)
            current = tagged[element]
            continue
        chosen, others = None, ()
        if isinstance(current, type) and issubclass(current, BaseModel):
            container = current
        current = _child_type(current, element)
        if element != "[key]":
            path.append(element)
    return _Located(tuple(path), container, chosen, others)


def _strip(annotation: Any) -> Any:
    """Remove ``Annotated`` wrappers and ``None`` from optional unions."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif _is_union(annotation) and type(None) in get_args(annotation):
            rest = [arg for arg in get_args(annotation) if arg is not type(None)]
            annotation = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007
        else:
            return annotation


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _tagged_members(annotation: Any) -> dict[str, Any]:
    if not _is_union(annotation):
        return {}
    members: dict[str, Any] = {}
    for member in get_args(annotation):
        if get_origin(member) is Annotated:
            for meta in member.__metadata__:
                if isinstance(meta, Tag):
                    members[meta.tag] = member
    return members


def _child_type(annotation: Any, element: int | str) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for key, field in annotation.model_fields.items():
            if element in (field.alias, key):
                return field.annotation
        return Any
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is list and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[0] if element == "[key]" else args[1]
    return Any
