"""The Calico selector language: parse, print, three-valued evaluation, and
the conjunctive fragment (CLUSTER-POLICIES.md §5.3, §5.9.1).

Pure: a string in, a frozen tree out; a tree and a label lookup in, a
``Tri`` out. Nothing here reads a manifest.

What Calico accepts was learned from its own tokenizer, parser and AST
(read, not copied; the wording and structure here are ours):

- ``projectcalico/calico@d4bced9ad8c266121dc6675980c7cfe8cf08355d``:
  ``libcalico-go/lib/selector/tokenizer/tokenizer.go`` (whitespace is only
  space and tab; labels are 1-512 bytes of ``[A-Za-z0-9_./-]``; keyword
  operators after a label need a word boundary after them; ``notin`` and
  ``startswith`` are accepted as one word; strings have no escapes);
- ``projectcalico/calico@a834c00ed9dedc4234977d46c610cfa14e3c5b47``:
  ``libcalico-go/lib/selector/parser/parser.go`` (``||`` over ``&&`` over a
  run of ``!`` that collapses to one negation; sets allow a trailing comma;
  an empty selector is ``all()``);
- ``projectcalico/calico@91871723f33cbb9f89cbf74a24f685d3b917257f``:
  ``libcalico-go/lib/selector/parser/ast.go`` (``!=`` and ``not in`` match
  a missing label; the other atoms do not; ``global()`` evaluates to true).

The evaluation is Kleene's three-valued logic over a label lookup in which a
key is present with a known value, present with an unknown value, known
absent, or unknown altogether. It is sound: it never answers ``no`` (or
``yes``) where some way of filling in the unknown labels would make Calico
answer the other way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from functools import lru_cache
from typing import Final, TypeAlias

import msgspec

from lint.decision.model import Tri
from lint.decision.values import JSON

MAX_LABEL_LENGTH: Final = 512
MAX_NESTING: Final = 64
"""Parentheses nested deeper than this make a selector unreadable: the
parser, the printer and the evaluation each recurse once per level, and a
selector of a few hundred bytes must not exhaust the stack (real selectors
nest two or three levels). An unreadable selector fails closed."""
WHITESPACE: Final = " \t"
_LABEL_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-"
)


# --- The tree ------------------------------------------------------------------


class AllNode(msgspec.Struct, frozen=True):
    """``all()`` (and the empty selector)."""


class GlobalNode(msgspec.Struct, frozen=True):
    """``global()``: only meaningful in a rule's ``namespaceSelector``."""


class HasNode(msgspec.Struct, frozen=True):
    key: str


class Compare(Enum):
    """The binary string operators."""

    EQ = "=="
    NE = "!="
    CONTAINS = "contains"
    STARTS_WITH = "starts with"
    ENDS_WITH = "ends with"


class CompareNode(msgspec.Struct, frozen=True):
    key: str
    op: Compare
    value: str


class SetNode(msgspec.Struct, frozen=True):
    """``k in {...}`` (``negated`` False) or ``k not in {...}``. ``values``
    keeps the written order, duplicates removed."""

    key: str
    values: tuple[str, ...]
    negated: bool


class NotNode(msgspec.Struct, frozen=True):
    operand: Node


class AndNode(msgspec.Struct, frozen=True):
    operands: tuple[Node, ...]


class OrNode(msgspec.Struct, frozen=True):
    operands: tuple[Node, ...]


Node: TypeAlias = (
    AllNode | GlobalNode | HasNode | CompareNode | SetNode | NotNode | AndNode | OrNode
)


class SelectorError(msgspec.Struct, frozen=True):
    """A selector that does not parse; ``reason`` says where it fails."""

    reason: str


# --- Tokens --------------------------------------------------------------------


class Tok(Enum):
    LABEL = "label"
    STRING = "string"
    LBRACE = "{"
    RBRACE = "}"
    COMMA = ","
    EQ = "=="
    NE = "!="
    NOT = "!"
    AND = "&&"
    OR = "||"
    LPAREN = "("
    RPAREN = ")"
    IN = "in"
    NOT_IN = "not in"
    CONTAINS = "contains"
    STARTS_WITH = "starts with"
    ENDS_WITH = "ends with"
    ALL = "all()"
    GLOBAL = "global()"
    HAS = "has()"
    EOF = "end"


class Token(msgspec.Struct, frozen=True):
    kind: Tok
    value: str = ""


class _Fail(Exception):
    """Raised inside the tokenizer and parser; turned into SelectorError."""


_PUNCTUATION: Final = {
    "(": Tok.LPAREN,
    ")": Tok.RPAREN,
    "{": Tok.LBRACE,
    "}": Tok.RBRACE,
    ",": Tok.COMMA,
}
_DOUBLED: Final = {"=": Tok.EQ, "&": Tok.AND, "|": Tok.OR}
# Operators that may follow a label, tried in this order; each is a list of
# words that may be separated by whitespace (or not at all).
_KEYWORD_OPERATORS: Final = (
    (("contains",), Tok.CONTAINS),
    (("starts", "with"), Tok.STARTS_WITH),
    (("ends", "with"), Tok.ENDS_WITH),
    (("not", "in"), Tok.NOT_IN),
    (("in",), Tok.IN),
)
_FUNCTIONS: Final = (("all(", Tok.ALL), ("global(", Tok.GLOBAL))


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in WHITESPACE:
        pos += 1
    return pos


def _label_end(text: str, pos: int) -> int:
    end = pos
    while end < len(text) and text[end] in _LABEL_CHARS:
        end += 1
    return end


def _read_label(text: str, pos: int) -> tuple[str, int]:
    end = _label_end(text, pos)
    if end == pos:
        raise _Fail(f"expected a label at offset {pos}")
    if end - pos > MAX_LABEL_LENGTH:
        raise _Fail(f"a label longer than {MAX_LABEL_LENGTH} characters at offset {pos}")
    return text[pos:end], end


def _keyword_operator(text: str, pos: int) -> tuple[Tok, int] | None:
    """The keyword operator at ``pos`` and where the next token starts. The
    words may be separated by whitespace or run together; a word boundary
    is required after the last word only."""
    for words, kind in _KEYWORD_OPERATORS:
        end = pos
        word_end = pos
        for word in words:
            if not text.startswith(word, end):
                break
            word_end = end + len(word)
            end = _skip_ws(text, word_end)
        else:
            if word_end >= len(text) or text[word_end] not in _LABEL_CHARS:
                return kind, end
    return None


def tokenize(text: str) -> list[Token]:
    """The tokens of a selector, ending with EOF. Raises _Fail."""
    tokens: list[Token] = []
    pos = 0
    while True:
        pos = _skip_ws(text, pos)
        if pos >= len(text):
            tokens.append(Token(Tok.EOF))
            return tokens
        char = text[pos]
        after_label = bool(tokens) and tokens[-1].kind is Tok.LABEL
        if char in _PUNCTUATION:
            tokens.append(Token(_PUNCTUATION[char]))
            pos += 1
        elif char in "'\"":
            close = text.find(char, pos + 1)
            if close < 0:
                raise _Fail(f"an unterminated string at offset {pos}")
            tokens.append(Token(Tok.STRING, text[pos + 1 : close]))
            pos = close + 1
        elif char in _DOUBLED:
            if not text.startswith(char * 2, pos):
                raise _Fail(f"expected {char * 2!r} at offset {pos}")
            tokens.append(Token(_DOUBLED[char]))
            pos += 2
        elif char == "!":
            doubled = text.startswith("!=", pos)
            tokens.append(Token(Tok.NE if doubled else Tok.NOT))
            pos += 2 if doubled else 1
        elif after_label:
            found = _keyword_operator(text, pos)
            if found is None:
                raise _Fail(f"expected an operator after label {tokens[-1].value!r}")
            tokens.append(Token(found[0]))
            pos = found[1]
        else:
            pos = _read_word(text, pos, tokens)


def _read_word(text: str, pos: int, tokens: list[Token]) -> int:
    """``has(k)``, ``all()``, ``global()`` (only as written, no space before
    the parenthesis) or a label."""
    if text.startswith("has(", pos):
        label, end = _read_label(text, _skip_ws(text, pos + 4))
        end = _skip_ws(text, end)
        if not text.startswith(")", end):
            raise _Fail("no closing ')' after has(")
        tokens.append(Token(Tok.HAS, label))
        return end + 1
    for opening, kind in _FUNCTIONS:
        if text.startswith(opening, pos):
            end = _skip_ws(text, pos + len(opening))
            if not text.startswith(")", end):
                raise _Fail(f"no closing ')' after {opening}")
            tokens.append(Token(kind))
            return end + 1
    label, end = _read_label(text, pos)
    tokens.append(Token(Tok.LABEL, label))
    return end


# --- Parsing -------------------------------------------------------------------


_COMPARE_TOKENS: Final = {
    Tok.EQ: Compare.EQ,
    Tok.NE: Compare.NE,
    Tok.CONTAINS: Compare.CONTAINS,
    Tok.STARTS_WITH: Compare.STARTS_WITH,
    Tok.ENDS_WITH: Compare.ENDS_WITH,
}


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind is not Tok.EOF:
            self.pos += 1
        return token

    def or_expr(self) -> Node:
        operands = [self.and_expr()]
        while self.peek().kind is Tok.OR:
            self.take()
            operands.append(self.and_expr())
        return operands[0] if len(operands) == 1 else OrNode(tuple(operands))

    def and_expr(self) -> Node:
        operands = [self.unary()]
        while self.peek().kind is Tok.AND:
            self.take()
            operands.append(self.unary())
        return operands[0] if len(operands) == 1 else AndNode(tuple(operands))

    def unary(self) -> Node:
        negated = False
        while self.peek().kind is Tok.NOT:
            self.take()
            negated = not negated
        node = self.primary()
        return NotNode(node) if negated else node

    def primary(self) -> Node:
        token = self.take()
        if token.kind is Tok.HAS:
            return HasNode(token.value)
        if token.kind is Tok.ALL:
            return AllNode()
        if token.kind is Tok.GLOBAL:
            return GlobalNode()
        if token.kind is Tok.LPAREN:
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise _Fail(f"parentheses nested deeper than {MAX_NESTING} levels")
            inner = self.or_expr()
            if self.take().kind is not Tok.RPAREN:
                raise _Fail("expected ')'")
            self.depth -= 1
            return inner
        if token.kind is Tok.LABEL:
            return self.operation(token.value)
        raise _Fail(f"unexpected {token.kind.value!r}")

    def operation(self, key: str) -> Node:
        operator = self.take()
        if operator.kind in _COMPARE_TOKENS:
            value = self.take()
            if value.kind is not Tok.STRING:
                raise _Fail(f"expected a quoted string after {operator.kind.value!r}")
            return CompareNode(key, _COMPARE_TOKENS[operator.kind], value.value)
        if operator.kind in (Tok.IN, Tok.NOT_IN):
            return SetNode(key, self.set_literal(), negated=operator.kind is Tok.NOT_IN)
        raise _Fail(f"expected an operator after label {key!r}")

    def set_literal(self) -> tuple[str, ...]:
        if self.take().kind is not Tok.LBRACE:
            raise _Fail("expected a set literal '{...}'")
        values: list[str] = []
        while self.peek().kind is Tok.STRING:
            values.append(self.take().value)
            if self.peek().kind is not Tok.COMMA:
                break
            self.take()
        if self.take().kind is not Tok.RBRACE:
            raise _Fail("expected '}'")
        return tuple(dict.fromkeys(values))


@lru_cache(maxsize=4096)
def parse_selector(text: str) -> Node | SelectorError:
    """Parse a Calico selector; an empty one (whitespace only) is ``all()``.
    Memoised: a selector is read once per path and document, and the tree
    is frozen."""
    try:
        tokens = tokenize(text)
        if tokens[0].kind is Tok.EOF:
            return AllNode()
        parser = _Parser(tokens)
        node = parser.or_expr()
        if parser.peek().kind is not Tok.EOF:
            raise _Fail(f"unexpected {parser.peek().kind.value!r} after the selector")
        return node
    except _Fail as failure:
        return SelectorError(str(failure))


# --- Printing ------------------------------------------------------------------


def _quote(value: str) -> str:
    # No escapes exist: a value with a double quote can only be single-quoted.
    quote = "'" if '"' in value else '"'
    return f"{quote}{value}{quote}"


def print_selector(node: Node) -> str:
    """A selector text that parses back to ``node``."""
    return _print(node, nested=False)


def _print(node: Node, *, nested: bool) -> str:
    if isinstance(node, AllNode):
        return "all()"
    if isinstance(node, GlobalNode):
        return "global()"
    if isinstance(node, HasNode):
        return f"has({node.key})"
    if isinstance(node, CompareNode):
        return f"{node.key} {node.op.value} {_quote(node.value)}"
    if isinstance(node, SetNode):
        operator = "not in" if node.negated else "in"
        return f"{node.key} {operator} {{{', '.join(_quote(v) for v in node.values)}}}"
    if isinstance(node, NotNode):
        # "!!x" would collapse to x on reading, so a nested negation keeps parentheses.
        operand = _print(node.operand, nested=True)
        return f"!({operand})" if isinstance(node.operand, NotNode) else "!" + operand
    joiner = " && " if isinstance(node, AndNode) else " || "
    text = joiner.join(_print(operand, nested=True) for operand in node.operands)
    return f"({text})" if nested else text


# --- Three-valued evaluation ---------------------------------------------------


class KeyState(Enum):
    """A key whose value the lookup cannot give."""

    ABSENT = "absent"  # known not to be there
    PRESENT = "present"  # known to be there, value unknown
    UNKNOWN = "unknown"  # may or may not be there


LabelValue: TypeAlias = str | KeyState
Lookup: TypeAlias = Callable[[str], LabelValue]


def tri_not(value: Tri) -> Tri:
    if value is Tri.UNKNOWN:
        return Tri.UNKNOWN
    return Tri.NO if value is Tri.YES else Tri.YES


def tri_all(values: Iterable[Tri]) -> Tri:
    """Kleene conjunction: no wins, then unknown."""
    result = Tri.YES
    for value in values:
        if value is Tri.NO:
            return Tri.NO
        if value is Tri.UNKNOWN:
            result = Tri.UNKNOWN
    return result


def tri_any(values: Iterable[Tri]) -> Tri:
    """Kleene disjunction: yes wins, then unknown."""
    result = Tri.NO
    for value in values:
        if value is Tri.YES:
            return Tri.YES
        if value is Tri.UNKNOWN:
            result = Tri.UNKNOWN
    return result


def _yes(condition: bool) -> Tri:
    return Tri.YES if condition else Tri.NO


def _string_test(op: Compare, actual: str, wanted: str) -> bool:
    if op is Compare.EQ:
        return actual == wanted
    if op is Compare.NE:
        return actual != wanted
    if op is Compare.CONTAINS:
        return wanted in actual
    if op is Compare.STARTS_WITH:
        return actual.startswith(wanted)
    return actual.endswith(wanted)


def evaluate(node: Node, lookup: Lookup) -> Tri:
    """Three-valued match of ``node`` (§5.3). ``global()`` is ``unknown``:
    callers reject it where it has no meaning before evaluating."""
    if isinstance(node, AllNode):
        return Tri.YES
    if isinstance(node, GlobalNode):
        return Tri.UNKNOWN
    if isinstance(node, NotNode):
        return tri_not(evaluate(node.operand, lookup))
    if isinstance(node, AndNode):
        return tri_all(evaluate(operand, lookup) for operand in node.operands)
    if isinstance(node, OrNode):
        return tri_any(evaluate(operand, lookup) for operand in node.operands)
    value = lookup(node.key)
    if isinstance(node, HasNode):
        return _has(value)
    # A missing label fails every atom except the two negative ones.
    missing_matches = isinstance(node, SetNode) and node.negated
    missing_matches = missing_matches or (isinstance(node, CompareNode) and node.op is Compare.NE)
    if value is KeyState.ABSENT:
        return _yes(missing_matches)
    if isinstance(value, KeyState):
        return Tri.UNKNOWN
    if isinstance(node, SetNode):
        return _yes((value in node.values) != node.negated)
    return _yes(_string_test(node.op, value, node.value))


def _has(value: LabelValue) -> Tri:
    if value is KeyState.ABSENT:
        return Tri.NO
    if value is KeyState.UNKNOWN:
        return Tri.UNKNOWN
    return Tri.YES


def uses_global(node: Node) -> bool:
    """Whether ``global()`` appears anywhere in the selector."""
    if isinstance(node, GlobalNode):
        return True
    if isinstance(node, NotNode):
        return uses_global(node.operand)
    if isinstance(node, AndNode | OrNode):
        return any(uses_global(operand) for operand in node.operands)
    return False


def keys_used(node: Node) -> frozenset[str]:
    """Every label key the selector names."""
    if isinstance(node, HasNode | CompareNode | SetNode):
        return frozenset({node.key})
    if isinstance(node, NotNode):
        return keys_used(node.operand)
    if isinstance(node, AndNode | OrNode):
        return frozenset().union(*(keys_used(operand) for operand in node.operands))
    return frozenset()


# --- The conjunctive fragment (§5.9.1) -----------------------------------------


def _conjuncts(node: Node) -> list[Node]:
    if isinstance(node, AndNode):
        return [atom for operand in node.operands for atom in _conjuncts(operand)]
    return [node]


def to_label_selector(
    node: Node, rename: Callable[[str], str] = lambda key: key
) -> dict[str, JSON] | None:
    """The LabelSelector that selects exactly what ``node`` does, when
    ``node`` is in the conjunctive fragment of §5.9.1; None otherwise.
    ``rename`` maps each key (the namespace part maps
    ``projectcalico.org/name`` to ``kubernetes.io/metadata.name``).

    Empty parts are left out, so ``all()`` gives ``{}``.
    """
    match_labels: dict[str, str] = {}
    expressions: list[dict[str, JSON]] = []
    for atom in _conjuncts(node):
        if isinstance(atom, AllNode):
            continue
        requirement = _requirement(atom)
        if requirement is None:
            return None
        key = rename(requirement[0])
        operator, values = requirement[1], requirement[2]
        if operator == "==" and key not in match_labels:
            match_labels[key] = values[0]
        elif operator == "==":
            expressions.append({"key": key, "operator": "In", "values": list(values)})
        elif operator in ("Exists", "DoesNotExist"):
            expressions.append({"key": key, "operator": operator})
        else:
            expressions.append({"key": key, "operator": operator, "values": list(values)})
    selector: dict[str, JSON] = {}
    if match_labels:
        selector["matchLabels"] = match_labels
    if expressions:
        selector["matchExpressions"] = expressions
    return selector


def _requirement(atom: Node) -> tuple[str, str, tuple[str, ...]] | None:
    """One atom of the fragment as (key, operator, values)."""
    if isinstance(atom, HasNode):
        return atom.key, "Exists", ()
    if isinstance(atom, NotNode) and isinstance(atom.operand, HasNode):
        return atom.operand.key, "DoesNotExist", ()
    if isinstance(atom, CompareNode) and atom.op is Compare.EQ:
        return atom.key, "==", (atom.value,)
    if isinstance(atom, CompareNode) and atom.op is Compare.NE:
        return atom.key, "NotIn", (atom.value,)
    if isinstance(atom, SetNode):
        return atom.key, "NotIn" if atom.negated else "In", atom.values
    return None
