"""A document yaml_rs can read for us, or None.

yaml_rs (Rust) builds a document's value about four times faster than
libyaml's composer and our ``construct.Builder`` together. But it reads YAML
1.2, not the go-yaml v2 dialect Kubernetes reads, and it reports no lines
and no repeated keys. So it may only vouch for a document whose value is
provably the one the slow path (``parse.parse_yaml``) builds: ``fast_value``
returns that value, or None whenever it cannot prove it, and the caller then
runs the slow path, which stays the only source of errors, warnings, lines
and node trees.

Why a vouched value is exact:

- Structure. Both parsers build the same tree of mappings and sequences from
  text that has none of what the gates in ``_plain_text`` exclude: node
  properties (anchors, aliases, tags), merge keys, directives, tabs,
  control characters, lone CRs, non-ASCII text (but for dashes, quotes,
  arrows and Latin letters on comment lines, which both parsers skip, or
  copy where such a line is a scalar's text).
- Quoted and block scalars are strings in both, folded and chomped alike,
  escapes included (every escape was compared). Two exceptions: a block
  scalar running to the end of a text without a final line break, and an
  empty one at the end of a document, where yaml_rs adds a line break
  libyaml does not; a walk rule excludes the second, and the first is the
  last scalar of its document, so a text without a final line break that
  may hold a block scalar is vouched for only when the last scalar yaml_rs
  read does not end with a line break (``_open_ended``, ``_last_scalar``).
- A plain scalar yaml_rs leaves as a string ``s``: ``s`` is the folded text,
  which is what go-yaml resolves, so Kubernetes reads ``resolve_plain(s)``
  and the walk accepts only ``s`` itself. That catches ``yes``, ``on``, ``y``
  and every other YAML 1.1 form YAML 1.2 leaves alone. A string yaml_rs
  would have resolved had it been plain (``"53"``) was quoted: accepted.
  So is a word such as ``y`` that the text never holds where a plain
  scalar could be it (``_only_quoted``): it was quoted (``namespace: "y"``).
- A plain scalar yaml_rs resolves to a bool, null, int or float agrees with
  ``resolve_plain``, token by token (see the tests), except for tokens
  starting with ``_`` or with a dot and a digit or ``_`` (yaml_rs drops
  underscores there), leading zeros (go-yaml: octal, or a float), ints past
  int64 (go-yaml: a float or the text), infinities and NaN (``1e400``,
  ``.nAn``: text for go-yaml). Gates exclude the tokens, the walk the
  values. Both read decimal floats correctly rounded.
- Keys must be strings that are their own member names, so two keys equal
  for Kubernetes are equal for yaml_rs, which refuses a repeated key: such a
  document goes to the slow path, which reports it.

yaml_rs must never accept what libyaml refuses either, or a broken document
would be evaluated instead of reported. The mutation tests found these, all
excluded: control characters; in flow collections, a ':' right before a
flow indicator (``{a:}``), a key spanning lines (a ':' opening a line, a key
holding a space or a line break, an escaped line break), and plain scalars
starting with ``|``, ``>``, ``?`` or ``:``.

Finally, yaml_rs recurses per level of block nesting and crashes the whole
process near ten thousand levels; a text whose lines could nest that deep
is never handed to it.

The walk that proves a value also builds its mappings again, with one key
object for each name and one object for each recent string value, shared
by every document: yaml_rs makes a new string for every key and value, and
the kept documents' keys alone took about 90 MiB of the 132 MB bench tree's
memory (issue 18: memory bounded by the policies). Equal strings read the
same, so nothing downstream can tell.
"""

from __future__ import annotations

import re
from typing import Any, Final, TypeVar

try:
    import yaml_rs
except ImportError:  # pragma: no cover - optional: the slow path reads everything
    yaml_rs = None  # type: ignore[assignment]

from lint.yaml.scalars import RESOLVING_STARTS, resolve_plain

FastValue = dict[str, Any] | list[Any]


def _byte_classes() -> bytes:
    """A table folding each byte onto a class: NUL for the control
    characters (libyaml refuses them, yaml_rs does not; tabs, which the two
    place differently, included), a blank for the space and the block
    indicators ``-?:``, the newline, and ``x`` for the rest. One pass finds
    refused bytes, and a substring search then finds a long run of
    indentation and indicators opening a line."""
    table = bytearray(256)
    for byte in range(0x20, 0x7F):
        table[byte] = ord("x")
    for byte in b" -?:":
        table[byte] = ord(" ")
    table[ord("\n")] = ord("\n")
    table[ord("\r")] = ord("x")  # only as part of CRLF, checked apart
    return bytes(table)


_BYTE_CLASSES: Final = _byte_classes()
_SHALLOW_COLUMNS: Final = 100
"""Longest run of spaces and ``-?:`` indicators opening a line. Block
nesting needs a new column at least every second level, so this bounds it
by about 200 levels (flow nesting is bounded by yaml_rs itself, at 256)."""
_DEEP_LINE: Final = b"\n" + b" " * _SHALLOW_COLUMNS


def _token_start(matched: int) -> str:
    """Lookbehinds true when the ``matched`` characters just read start a
    token: at the start of the text or of a line, after a blank, after a
    flow indicator, or after the ':' that follows a quoted key (``"a":1``)."""
    read = "." * matched
    return rf"(?<![^ \n\[{{,:]{read})(?<![^\"']:{read})"


def _signed_start(matched: int) -> str:
    """The same, allowing a sign before the characters read."""
    return rf"(?:{_token_start(matched)}|(?<=[+-]{'.' * matched}){_token_start(matched + 1)})"


# The rest of a token yaml_rs may read as a number, up to where the token
# surely ends (conservatively: ':' and '#' end it too).
_NUMERIC_REST: Final = r"[0-9_.eE+\-]*(?![^ \n\r,\]}:#])"
# Each pattern begins with the rare character itself and only then looks
# behind, so that the regex engine's prefix search does the scanning; one
# search per first character is several times faster than one for both.
_PROPERTIES: Final = tuple((start, re.compile(rf"\{start}{_token_start(1)}")) for start in "&*!")
"""An anchor, alias or tag (a quoted "*" does not count): one pattern per
character, each searched for only in a text that holds it. A class of
first characters would be tried at every offset, several times slower."""
_UNDERSCORE: Final = re.compile(rf"_{_signed_start(1)}")
"""A token starting with ``_``, after an optional sign."""
_LEADING_ZERO: Final = re.compile(rf"0[0-9_]{_signed_start(2)}{_NUMERIC_REST}")
"""A number starting with 0 and a digit or ``_`` (octal for go-yaml)."""
_DOTTED: Final = re.compile(rf"\.[0-9_]{_signed_start(2)}{_NUMERIC_REST}")
"""A number starting with a dot and a digit or ``_`` (such as .5)."""
_BLOCK_HEADER: Final = re.compile(r"[|>][0-9+\- ]*(?:#[^\n]*)?\r?(?:\n|\Z)")
"""What may open a block scalar: '|' or '>' ending its line."""

_COMMENT_CHARACTERS: Final = (
    "\u00a1-\u00ac\u00ae-\u024f"  # Latin-1 and Latin Extended: no NBSP or soft hyphen
    "\u2010-\u2027\u2030-\u205e"  # dashes, quotes, bullets: no separators or spaces
    "\u2190-\u21ff\u2500-\u257f"  # arrows, box drawing
)
"""Non-ASCII characters allowed on comment lines (``_ascii_stand_in``):
the dashes, quotes and arrows manifests' comments are written with."""
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")
_UNSAFE_CHARACTER: Final = re.compile(rf"[^\x00-\x7f{_COMMENT_CHARACTERS}]")
_NON_ASCII_CONTENT: Final = re.compile(r"^(?![ ]*#)[^\n]*[^\x00-\x7f]", re.M)
"""A non-ASCII character on a line that is not a comment line."""
_FLOW_VALUE_CLOSED: Final = re.compile(r":[,\]}]")
"""``{a:}``: libyaml refuses a ':' that a flow indicator follows."""
_VALUE_OPENS_LINE: Final = re.compile(r"\n[ ]*+:")
"""A ':' opening a line: in a flow collection its key began on an earlier
line, which libyaml refuses and yaml_rs accepts. Only a text holding ``\n:``
or `` :`` can hold one, and the indentation is never given back."""

_INDICATOR_STARTS: Final = frozenset("|>?:")
"""Strings yaml_rs may build from a plain scalar that libyaml refuses to
start with these indicators: ``[|]``, ``{?a: 1}``, ``{::}`` in flow."""
_CHECKED_STARTS: Final = RESOLVING_STARTS | _INDICATOR_STARTS | {"\n"}
_CHECKED_KEY_STARTS: Final = _CHECKED_STARTS | {"<"}
_TOKEN: Final = re.compile(r"[0-9A-Za-z+\-._~]+")
# The walk's verdicts on keys (the key to share, or False), and on the
# strings it must check: manifests repeat the same few names (``name``,
# ``to``, ``TCP``) thousands of times, and a lookup costs a tenth of a verdict.
_KEYS: Final[dict[Any, Any]] = {}
_TEXT_VERDICTS: Final[dict[str, bool]] = {}
_SHARED: Final[dict[str, str]] = {}
"""One copy of each recent string value, shared by every document read."""
_MAX_VERDICTS: Final = 16_384
_QUOTED_WORDS: Final[set[str]] = set()
"""Words go-yaml would resolve had they been plain (``y``, ``yes``) that the
document being walked holds only quoted (``_only_quoted``), so strings."""
_REFUSED: Final[list[str]] = []
"""Such a word, when one stopped the walk."""
_MAX_QUOTED_WORDS: Final = 4
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


def fast_value(piece: str, max_depth: int) -> FastValue | None:
    """The value of the one document in ``piece`` as ``parse_yaml`` would
    build it, when yaml_rs can prove it; None otherwise (the slow path must
    then read the text)."""
    if yaml_rs is None or not _plain_text(piece):
        return None
    try:
        value: Any = yaml_rs.loads(piece, parse_datetime=False)
    except Exception:  # any refusal, whatever its type, leaves it to the slow path
        return None
    if _open_ended(piece):
        last = _last_scalar(value)
        if type(last) is str and last.endswith("\n"):
            return None  # perhaps a block scalar running to the end of the text
    kind = type(value)
    if kind is not dict and kind is not list:
        return None  # empty, null or scalar documents are rare: the slow path
    try:
        for _ in range(_MAX_QUOTED_WORDS + 1):
            _REFUSED.clear()
            try:
                if kind is dict:
                    return _agreed_mapping(value, max_depth)
                _agreed_sequence(value, max_depth)
                return value  # type: ignore[no-any-return]
            except _Disagrees:
                pass
            # A word such as "y" stopped the walk: if the text holds it only
            # quoted, it is a string for go-yaml too. Walk again allowing it.
            word = _REFUSED[-1] if _REFUSED else None
            if word is None or word in _QUOTED_WORDS or not _only_quoted(piece, word):
                return None
            _QUOTED_WORDS.add(word)
        return None
    finally:
        _QUOTED_WORDS.clear()
        _REFUSED.clear()


def _only_quoted(piece: str, word: str) -> bool:
    """Whether no plain scalar of ``piece`` can be ``word``, one token of
    ``_TOKEN``'s characters: a plain scalar is its own text, so it would
    stand between a blank, a flow indicator or a ':' (or an end of the
    text) on both sides. A quote or any other character next to each
    occurrence proves it part of another scalar."""
    pattern = rf"(?<![^\s\[{{,:]){re.escape(word)}(?![^\s,\]}}:])"
    return re.search(pattern, piece) is None


def _plain_text(piece: str) -> bool:
    """Whether the text avoids everything the two parsers read differently,
    and cannot nest deep enough to exhaust yaml_rs's stack. The cheap
    one-character searches come first."""
    if not piece.isascii():
        stand_in = _ascii_stand_in(piece)
        if stand_in is None:
            return False
        piece = stand_in
    classes = piece.encode("ascii").translate(_BYTE_CLASSES)
    if b"\0" in classes or _DEEP_LINE in classes or classes.startswith(_DEEP_LINE[1:]):
        return False
    if "\r" in piece and piece.count("\r") != piece.count("\r\n"):
        return False  # a lone CR breaks a line for libyaml only
    if ("<" in piece and "<<" in piece) or (
        "%" in piece and (piece.startswith("%") or "\n%" in piece)
    ):
        return False  # merge keys, directives
    for start, pattern in _PROPERTIES:
        if start in piece and pattern.search(piece):
            return False
    if "_" in piece and _UNDERSCORE.search(piece):
        return False
    if "\\" in piece and ("\\\n" in piece or "\\\r\n" in piece):
        return False  # an escaped line break could join a key over two lines
    if _LEADING_ZERO.search(piece) or _DOTTED.search(piece):
        return False
    # A flow indicator is rare in block-style manifests, and one-character
    # tests run at memory speed, where the pattern stops at every ':'.
    if ("," in piece or "]" in piece or "}" in piece) and _FLOW_VALUE_CLOSED.search(piece):
        return False
    if " :" in piece or "\n:" in piece:
        return _VALUE_OPENS_LINE.search(piece) is None
    return True


def _open_ended(piece: str) -> bool:
    """Whether a block scalar may run to the end of the text, which has no
    final line break."""
    return (
        not piece.endswith("\n")
        and ("|" in piece or ">" in piece)
        and _BLOCK_HEADER.search(piece) is not None
    )


def _last_scalar(value: Any) -> Any:
    """The scalar a document's text ends with: the last item of the last
    collection, all the way down (keys come in the text's order, and a
    repeated one is refused). An empty collection stands for itself."""
    while value:
        kind = type(value)
        if kind is dict:
            value = next(reversed(value.values()))
        elif kind is list:
            value = value[-1]
        else:
            break
    return value


def _ascii_stand_in(piece: str) -> str | None:
    """For the gates, a text whose non-ASCII characters all stand on comment
    lines and are printable, neither blank nor a line break for either
    parser (``_COMMENT_CHARACTERS``), with each written as ``x``: none of
    the gates' patterns tells such a character from ``x``. Both parsers
    skip a comment, and copy such a line verbatim where it is a block or
    quoted scalar's text. None for any other non-ASCII text."""
    if _UNSAFE_CHARACTER.search(piece) or _NON_ASCII_CONTENT.search(piece):
        return None
    return _NON_ASCII.sub("x", piece)


class _Disagrees(Exception):
    """A value Kubernetes reads otherwise, met by the walk: ``fast_value``
    leaves the document to the slow path. Raised rather than returned, so
    that the walk's loops test nothing after each value."""


def _agreed_mapping(mapping: dict[Any, Any], room: int) -> dict[str, Any]:
    """The mapping built again with shared keys and strings (``_SHARED``);
    raises ``_Disagrees`` unless every key and value reads the same for
    Kubernetes. ``room`` counts the collection levels still allowed, this
    one included."""
    if room <= 0:
        raise _Disagrees
    room -= 1
    keys, shared = _KEYS, _SHARED
    agreed: dict[str, Any] = {}
    for key, item in mapping.items():
        # A key met before is its shared copy; only the empty key is falsy,
        # and a refused one is judged again (``_new_key`` raises).
        known = keys.get(key) or _new_key(key)
        kind = type(item)
        if kind is str:
            agreed[known] = shared.get(item) or _agreed_string(item)
        elif kind is dict:
            agreed[known] = _agreed_mapping(item, room)
        elif kind is list:
            _agreed_sequence(item, room)
            agreed[known] = item
        elif kind is int:  # ports and counts: inlined, as common as lists
            if not _INT64_MIN <= item <= _INT64_MAX:
                raise _Disagrees
            agreed[known] = item
        elif _scalar_agrees(item):
            agreed[known] = item
        else:
            raise _Disagrees
    return agreed


def _agreed_sequence(sequence: list[Any], room: int) -> None:
    """Shares the items' strings and mappings' keys in place; raises
    ``_Disagrees`` unless every item reads the same."""
    if room <= 0:
        raise _Disagrees
    room -= 1
    shared = _SHARED
    for index, item in enumerate(sequence):
        kind = type(item)
        if kind is str:
            sequence[index] = shared.get(item) or _agreed_string(item)
        elif kind is dict:
            sequence[index] = _agreed_mapping(item, room)
        elif kind is list:
            _agreed_sequence(item, room)
        elif not _scalar_agrees(item):
            raise _Disagrees


def _new_key(key: Any) -> str:
    """A key not met lately: its copy to share, once judged; raises
    ``_Disagrees`` when Kubernetes names the member otherwise."""
    if _remember(_KEYS, key, key if _key_agrees(key) else False) is False:
        raise _Disagrees
    return key  # type: ignore[no-any-return]


def _agreed_string(text: str) -> str:
    """A string value met for the first time lately (or the empty string):
    the copy to share when Kubernetes reads it the same; raises
    ``_Disagrees`` otherwise. Only agreeing strings are shared, so finding
    one in ``_SHARED`` settles both questions at once."""
    if text and text[0] in _CHECKED_STARTS and not _text_agrees(text):
        if text in _QUOTED_WORDS:
            return text  # agrees in this document only: never shared
        if _TOKEN.fullmatch(text) is not None:
            _REFUSED.append(text)
        raise _Disagrees
    return _remember(_SHARED, text, text)


def _key_agrees(key: Any) -> bool:
    """Whether Kubernetes names the member with the key yaml_rs built."""
    if type(key) is not str:
        return False
    if key and key[0] in _CHECKED_KEY_STARTS and (key == "<<" or not _text_agrees(key)):
        return False
    return not (" " in key or "\n" in key)  # in a flow mapping, such a key may span lines


def _text_agrees(text: str) -> bool:
    """Whether Kubernetes reads a string yaml_rs built, one that starts with
    a character of ``_CHECKED_STARTS``, as that string."""
    verdict = _TEXT_VERDICTS.get(text)
    if verdict is None:
        verdict = _remember(_TEXT_VERDICTS, text, _judge_text(text))
    return verdict


def _judge_text(text: str) -> bool:
    """As a plain scalar the text resolves to itself, or yaml_rs would have
    resolved it had it been plain (``"53"``, ``"true"``), so it was quoted
    or a block scalar, which go-yaml never resolves either."""
    if text[0] in _INDICATOR_STARTS:
        return False
    if text == "\n":
        return False  # yaml_rs's reading of a block scalar with no content
    if resolve_plain(text) == text:
        return True
    # Whatever go-yaml resolves is one plain token of these characters, so
    # parsed alone it is read exactly as yaml_rs reads a plain scalar.
    if _TOKEN.fullmatch(text) is None:
        return False
    try:
        alone: Any = yaml_rs.loads(text, parse_datetime=False)
    except Exception:  # not a value yaml_rs reads: no proof
        return False
    return type(alone) is not str


V = TypeVar("V")


def _remember(verdicts: dict[Any, V], subject: Any, verdict: V) -> V:
    if len(verdicts) >= _MAX_VERDICTS:
        verdicts.clear()  # the set of repeated names changes between trees
    verdicts[subject] = verdict
    return verdict


def _scalar_agrees(value: Any) -> bool:
    """A non-string scalar go-yaml reads the same: bools and nulls always,
    ints within int64, finite floats."""
    kind = type(value)
    if kind is int:
        return bool(_INT64_MIN <= value <= _INT64_MAX)
    if kind is float:
        return bool(value - value == 0.0)  # false for infinities and NaN
    return kind is bool or value is None
