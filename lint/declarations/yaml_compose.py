"""Composing the declaration file into YAML nodes that carry their lines.

libyaml (PyYAML's C extension) scans, parses and composes. Its resolver
hook only marks untagged plain scalars (and those tagged ``!``), so that
``yaml_scalars`` applies the file's own schema. When libyaml refuses the
text, PyYAML's pure-Python parser composes it again: the project's first
reader (ruamel.yaml) grew out of that parser, so its error messages and
lines are the ones the tool has always reported, and where it accepts
text libyaml refuses (an unknown directive, ``%YAML 1.3``), its nodes are
used. Valid files never pay for the slow parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from lint.declarations.yaml_scalars import (
    MAP_TAG,
    PLAIN_TAG,
    SEQ_TAG,
    STR_TAG,
    YAML_1_1,
    YAML_1_2,
    YamlVersion,
)
from lint.yaml.composer import Resolving, compose_single, composers


class UnreadableYaml(Exception):
    """Text that is not one buildable YAML document: ``message`` is about
    the 1-based ``line``, which is worth quoting when ``quoted`` is set."""

    def __init__(self, line: int, message: str, *, quoted: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.quoted = quoted


def syntax_error(reason: str, line: int) -> UnreadableYaml:
    """A YAML syntax error (or a node that cannot be built) at ``line``."""
    return UnreadableYaml(line, f"YAML syntax error: {reason}", quoted=True)


@dataclass(frozen=True)
class Composed:
    """The document's root node (None when empty) and the YAML version its
    plain scalars follow."""

    root: Node | None
    version: YamlVersion


class _Resolving(Resolving):
    """Marks untagged plain scalars (and empty nodes tagged ``!``) for
    ``yaml_scalars``."""

    def resolve(self, kind: type, value: object, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            # Quoted and block scalars are (False, True). libyaml gives an
            # empty node tagged `!` (False, False); it is plain, as for
            # PyYAML's parser.
            return STR_TAG if implicit == (False, True) else PLAIN_TAG
        return MAP_TAG if kind is MappingNode else SEQ_TAG


_LIBYAML, _PythonComposer = composers(_Resolving)

# A %YAML directive; directives can only precede the document.
_VERSION_DIRECTIVE = re.compile(r"%YAML[ \t]+([0-9]+)\.([0-9]+)")


def compose(text: str) -> Composed:
    """The single document of ``text`` as nodes. Raises
    :class:`UnreadableYaml` when ``text`` is not one YAML document."""
    root: Node | None
    if _LIBYAML is not None:
        try:
            root = compose_single(text, _LIBYAML)
        except (yaml.YAMLError, UnicodeEncodeError):
            root = _compose_or_refuse(text)
    else:  # pragma: no cover - PyYAML wheels ship libyaml
        root = _compose_or_refuse(text)
    return Composed(root, declared_version(text))


def declared_version(text: str) -> YamlVersion:
    """YAML 1.1 when a ``%YAML 1.1`` directive says so, else YAML 1.2."""
    if "%YAML" not in text:
        return YAML_1_2
    for row in text.splitlines():
        if row.startswith("%"):
            directive = _VERSION_DIRECTIVE.match(row)
            if directive is not None:
                version = (int(directive[1]), int(directive[2]))
                return YAML_1_1 if version == YAML_1_1 else YAML_1_2
        elif row.strip() and not row.lstrip().startswith("#"):
            break
    return YAML_1_2


def _compose_or_refuse(text: str) -> Node | None:
    try:
        return compose_single(text, _PythonComposer)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        pieces = [piece for piece in (error.context, error.problem) if piece]
        reason = ", ".join(str(piece).strip() for piece in pieces) or "invalid YAML"
        raise syntax_error(reason, mark.line + 1 if mark is not None else 1) from error
    except yaml.YAMLError as error:
        raise UnreadableYaml(1, f"YAML error: {error}") from error
