"""Reading a document's kind from its text, without parsing it.

Two sniffs live here. ``certain_kind`` decides whether a document may be
skipped unparsed: it answers only when the text leaves no doubt, and None
means "parse it". ``suspect_policy`` looks at text that failed to parse for
a policy kind and namespace, so the check can fail closed (SEMANTICS §17.7).
"""

from __future__ import annotations

import re
from typing import Final

from lint.kinds import (
    CONFIG_MAP_NAMES,
    CONTROLLER_IMAGE_NAME,
    NETWORK_POLICY,
    POLICY_KIND_NAMES,
    policy_key_of_name,
)
from lint.loading.split import Chunk
from lint.yaml.scalars import resolve_plain

_KIND_VALUE: Final = re.compile(
    r"[ \t]+(?:([A-Za-z][A-Za-z0-9]*)|\"([A-Za-z][A-Za-z0-9]*)\"|'([A-Za-z][A-Za-z0-9]*)')"
    r"(?:[ \t]+#[^\n]*)?[ \t\r]*"
)
# An indented line after the kind line would continue a plain scalar.
_CONTINUED: Final = re.compile(r"\n(?:[ \t]*\r?\n)*[ \t]+[^ \t\r\n#]")

# Any mention of a policy kind, in any style: plain, quoted, tagged
# (`!k8s NetworkPolicy`), a list (`NetworkPolicyList`). Kinds are matched
# with their case, as the API server and kubectl's mapper match them.
_POLICY_NAME: Final = re.compile("|".join(sorted(POLICY_KIND_NAMES, key=len, reverse=True)))
# Text that can spell any word without writing it: an escape sequence, a
# `!!binary` value, a tag written with %-escapes.
_SPELLS_ANYTHING: Final = re.compile(r"\\|binary|![^ \t\r\n]*%", re.IGNORECASE)
# Text that can give an object another namespace than the one written in
# its metadata: a merge key, a list's items.
_MOVES_NAMESPACE: Final = re.compile(r"<<|(?<![\w-])[\"']?items[\"']?[ \t]*:", re.IGNORECASE)
_KIND_KEY: Final = re.compile(r"(?<![\w-])[\"']?kind[\"']?[ \t]*:", re.IGNORECASE)
_METADATA_KEY: Final = re.compile(r"(?<![\w-])[\"']?metadata[\"']?[ \t]*:", re.IGNORECASE)
_NAME: Final = r"""["']?([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)["']?[ \t]*(?:[,}#\r\n]|$)"""
_NAMESPACE_KEY: Final = re.compile(r"(?<![\w.-])[\"']?namespace[\"']?[ \t]*:[ \t]*", re.IGNORECASE)
_NAMESPACE_VALUE: Final = re.compile(_NAME)
# metadata.namespace in block style: a `namespace:` key that is a direct
# child of the column-0 `metadata:` block.
_METADATA_BLOCK: Final = re.compile(
    r"^metadata:[ \t]*\r?\n((?:[ \t]+[^\n]*\n?|[ \t]*\r?\n)*)", re.M
)
_FIRST_INDENT: Final = re.compile(r"^([ \t]+)[^ \t\r\n#]", re.M)
# ... and in flow or JSON style, within the metadata object.
_FLOW_NAMESPACE: Final = re.compile(
    r"""["']?metadata["']?[ \t]*:[ \t]*\{[^{}]*?["']?namespace["']?[ \t]*:[ \t]*""" + _NAME
)


def certain_kind(text: str, chunk: Chunk) -> str | None:
    """The kind of the chunk's document when its text alone settles it.

    It answers only when the top level is a block mapping at column 0 whose
    column-0 lines are all plain keys (or entries of a sequence a key opens),
    exactly one of them ``kind``, with a one-line identifier value that is a
    string (not ``null``, ``yes`` or another YAML 1.1 word). Flow
    style, quoted or complex keys, anchors, aliases and tags at the top level,
    merge keys, directives, content on the ``---`` line and indented
    documents all give None, and the document is parsed.
    """
    if not chunk.plain_keys or len(chunk.kind_lines) != 1:
        return None
    # With plain keys only, no column-0 directive line comes before the
    # first content line, so the split's ``content`` is where it starts.
    first = chunk.content
    if first is None or text[first] in "- \t":
        return None
    value_text, end = chunk.kind_lines[0]
    try:
        kind = _KIND_NAMES[value_text]
    except KeyError:
        if len(_KIND_NAMES) >= _MAX_KIND_NAMES:
            _KIND_NAMES.clear()
        kind = _KIND_NAMES[value_text] = _kind_named(value_text)
    if kind is None or _CONTINUED.match(text, end, chunk.stop) is not None:
        return None
    return kind


# What the text after `kind:` names, by that text: a tree repeats the same
# few kind lines thousands of times.
_KIND_NAMES: Final[dict[str, str | None]] = {}
_MAX_KIND_NAMES: Final = 4_096


def _kind_named(value_text: str) -> str | None:
    """The kind a ``kind:`` line's one-line value names, or None."""
    value = _KIND_VALUE.fullmatch(value_text)
    if value is None:
        return None
    plain = value.group(1)
    if plain is not None and not isinstance(resolve_plain(plain), str):
        return None  # `kind: null` or `kind: yes` names no kind: parse it
    return plain or value.group(2) or value.group(3)


def may_name_config_map(text: str, chunk: Chunk) -> bool:
    """Whether a ConfigMap's text can name the one the check reads: the name
    must appear literally unless an escape sequence spells it."""
    return (
        any(text.find(name, chunk.body, chunk.stop) >= 0 for name in CONFIG_MAP_NAMES)
        or text.find("\\", chunk.body, chunk.stop) >= 0
    )


def may_run_controller(text: str, chunk: Chunk) -> bool:
    """Whether a workload's text can run the agent-sandbox controller, the
    only workload the check reads undeclared (for its version, AGENT-SANDBOX §8)."""
    return (
        text.find(CONTROLLER_IMAGE_NAME, chunk.body, chunk.stop) >= 0
        or text.find("\\", chunk.body, chunk.stop) >= 0
    )


def suspect_policy(text: str) -> tuple[str | None, str | None]:
    """Whether text that could not be read may be a policy, and its namespace.

    Conservative both ways (SEMANTICS §17.7): any mention of a policy kind's
    name, in any style, or anything that could spell one (an escape, a
    ``!!binary`` value), makes it a suspect; the first kind named, else
    ``NetworkPolicy``. The namespace is given only when the text can hold
    one object with one namespace: one ``kind`` key, one ``metadata`` key
    naming a namespace directly, every ``namespace`` key in the text naming
    the same, and no merge key, list or escape. None means every namespace.
    """
    named = _POLICY_NAME.search(text)
    if named is not None:
        kind = named.group(0)
    elif _SPELLS_ANYTHING.search(text) is not None:
        kind = NETWORK_POLICY.name
    else:
        return None, None
    return policy_key_of_name(kind), _certain_namespace(text)


def _certain_namespace(text: str) -> str | None:
    if _SPELLS_ANYTHING.search(text) or _MOVES_NAMESPACE.search(text):
        return None
    if len(_KIND_KEY.findall(text)) != 1 or len(_METADATA_KEY.findall(text)) != 1:
        return None
    if _POLICY_NAME.search(text) and re.search(r"List(?![A-Za-z0-9])", text):
        return None
    namespace = _metadata_namespace(text)
    if namespace is None:
        return None
    for key in _NAMESPACE_KEY.finditer(text):
        value = _NAMESPACE_VALUE.match(text, key.end())
        if value is None or value.group(1) != namespace:
            return None
    return namespace


def _metadata_namespace(text: str) -> str | None:
    block = _METADATA_BLOCK.search(text)
    if block is not None:
        body = block.group(1)
        first = _FIRST_INDENT.search(body)
        if first is None:
            return None
        child = re.compile(
            "^" + re.escape(first.group(1)) + r"namespace:[ \t]+" + _NAME, re.M
        ).search(body)
        return None if child is None else child.group(1)
    flow = _FLOW_NAMESPACE.search(text)
    return None if flow is None else flow.group(1)


# Line breaks libyaml honours besides LF and CRLF: a lone CR, NEL, LS, PS.
UNUSUAL_BREAKS: Final = re.compile(r"\r(?!\n)|[\x85\u2028\u2029]")


def has_unusual_breaks(text: str) -> bool:
    """Whether libyaml would see line breaks that are not LF or CRLF.

    Plain substring tests first: they are much faster than the regex over
    megabytes of ordinary text.
    """
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        return True
    return "\r" in text and text.count("\r") != text.count("\r\n")
