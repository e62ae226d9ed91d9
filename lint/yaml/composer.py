"""libyaml's node composer, with a resolver that only tells plain scalars
from the rest.

PyYAML's C extension (libyaml) does the scanning and composing. Tag
resolution is left to ``construct``, which applies the Kubernetes rules, so
the resolver here only marks untagged plain scalars. When PyYAML was built
without libyaml, the same composer runs in pure Python: the same nodes, about
ten times slower.
"""

from __future__ import annotations

from typing import Final

from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner

from lint.yaml.tags import MAP_TAG, PLAIN_TAG, SEQ_TAG, STR_TAG


class Resolving:
    """The resolver hooks the composers call. This one marks untagged plain
    scalars (and those tagged ``!``: construct tells them apart from the
    text); subclasses may mark differently."""

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: type, value: object, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return PLAIN_TAG if implicit[0] else STR_TAG
        return MAP_TAG if kind is MappingNode else SEQ_TAG


def composers(resolving: type) -> tuple[type | None, type]:
    """libyaml's composer (None when PyYAML lacks it) and PyYAML's
    pure-Python one, both resolving through ``resolving``."""

    class PythonComposer(resolving, Reader, Scanner, Parser, Composer):  # type: ignore[misc]
        """The pure-Python composer."""

        def __init__(self, text: str) -> None:
            Reader.__init__(self, text)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)

    try:
        from yaml._yaml import CParser  # noqa: PLC0415 - optional C extension
    except ImportError:  # pragma: no cover - PyYAML wheels ship libyaml
        return None, PythonComposer

    class CComposer(resolving, CParser):  # type: ignore[misc]
        """libyaml's composer."""

    return CComposer, PythonComposer


_LIBYAML_COMPOSER, PythonComposer = composers(Resolving)
COMPOSER: Final[type] = _LIBYAML_COMPOSER or PythonComposer
"""The composer in use: libyaml's when PyYAML has it."""

READER_OFFSETS_IN_BYTES: Final = COMPOSER is not PythonComposer
"""libyaml reports a reader error's position in UTF-8 bytes, PyYAML's
pure-Python reader in characters."""


def compose_single(text: str, composer: type = COMPOSER) -> Node | None:
    """The node tree of the one document in ``text``; None when it is empty.

    Raises ``yaml.YAMLError`` for text that is not exactly one document.
    """
    parser = composer(text)
    try:
        node: Node | None = parser.get_single_node()
    finally:
        parser.dispose()
    return node


def compose_first(text: str, composer: type = COMPOSER) -> Node | None:
    """The node tree of the first document in ``text``, whatever follows it:
    go-yaml's ``Unmarshal`` reads one document and never looks further, so
    kubectl applies it even when the text goes on with what libyaml refuses.
    Raises ``yaml.YAMLError`` when the first document itself is not readable."""
    parser = composer(text)
    try:
        node: Node | None = parser.get_node() if parser.check_node() else None
    finally:
        parser.dispose()
    return node
