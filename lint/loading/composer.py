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

from lint.loading.construct import MAP_TAG, PLAIN_TAG, SEQ_TAG, STR_TAG


class _Resolving:
    """The resolver hooks the composers call."""

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: type, value: object, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            # implicit[0]: plain and untagged, or tagged `!` (construct
            # tells those apart from the text).
            return PLAIN_TAG if implicit[0] else STR_TAG
        return MAP_TAG if kind is MappingNode else SEQ_TAG


class PythonComposer(_Resolving, Reader, Scanner, Parser, Composer):
    """The pure-Python composer, for a PyYAML without libyaml."""

    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)


def _libyaml_composer() -> type | None:
    try:
        from yaml._yaml import CParser  # noqa: PLC0415 - optional C extension
    except ImportError:  # pragma: no cover - PyYAML wheels ship libyaml
        return None

    class CComposer(_Resolving, CParser):
        """libyaml's composer."""

    return CComposer


COMPOSER: Final[type] = _libyaml_composer() or PythonComposer
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
