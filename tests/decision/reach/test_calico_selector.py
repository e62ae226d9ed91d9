"""The Calico selector language (CLUSTER-POLICIES.md §5.3, §5.9.1)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.model import Tri
from lint.decision.reach.calico_selector import (
    AllNode,
    AndNode,
    Compare,
    CompareNode,
    GlobalNode,
    HasNode,
    KeyState,
    LabelValue,
    Node,
    NotNode,
    OrNode,
    SelectorError,
    SetNode,
    evaluate,
    keys_used,
    parse_selector,
    print_selector,
    to_label_selector,
    uses_global,
)


def parsed(text: str) -> Node:
    node = parse_selector(text)
    assert not isinstance(node, SelectorError), node
    return node


def view(labels: Mapping[str, LabelValue], default: KeyState = KeyState.ABSENT):
    return lambda key: labels.get(key, default)


# --- Parsing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("", AllNode()),
        ("  \t ", AllNode()),
        ("all()", AllNode()),
        ("all( \t)", AllNode()),
        ("global()", GlobalNode()),
        ("has(app)", HasNode("app")),
        ("has( app )", HasNode("app")),
        ("app == 'agent'", CompareNode("app", Compare.EQ, "agent")),
        ('app=="agent"', CompareNode("app", Compare.EQ, "agent")),
        ("app != 'a b'", CompareNode("app", Compare.NE, "a b")),
        ('app == "it\'s"', CompareNode("app", Compare.EQ, "it's")),
        ("app == 'say \"hi\"'", CompareNode("app", Compare.EQ, 'say "hi"')),
        ("app == 'two\nlines'", CompareNode("app", Compare.EQ, "two\nlines")),
        ("app contains 'ge'", CompareNode("app", Compare.CONTAINS, "ge")),
        ("app contains'ge'", CompareNode("app", Compare.CONTAINS, "ge")),
        ("app starts with 'ag'", CompareNode("app", Compare.STARTS_WITH, "ag")),
        ("app startswith 'ag'", CompareNode("app", Compare.STARTS_WITH, "ag")),
        ("app ends \t with 'nt'", CompareNode("app", Compare.ENDS_WITH, "nt")),
        ("app in {'a', \"b\"}", SetNode("app", ("a", "b"), negated=False)),
        ("app in {'a','b',}", SetNode("app", ("a", "b"), negated=False)),
        ("app in {}", SetNode("app", (), negated=False)),
        ("app in{'a'}", SetNode("app", ("a",), negated=False)),
        ("app in {'b', 'a', 'b'}", SetNode("app", ("b", "a"), negated=False)),
        ("app not in {'a'}", SetNode("app", ("a",), negated=True)),
        ("app notin {'a'}", SetNode("app", ("a",), negated=True)),
        ("!has(app)", NotNode(HasNode("app"))),
        ("!!has(app)", HasNode("app")),
        ("!!!has(app)", NotNode(HasNode("app"))),
        ("! ! has(app)", HasNode("app")),
        ("!(!has(app))", NotNode(NotNode(HasNode("app")))),
        ("k8s.io/x-y_z == 'v'", CompareNode("k8s.io/x-y_z", Compare.EQ, "v")),
        ("in == 'x'", CompareNode("in", Compare.EQ, "x")),
        ("contains == 'x'", CompareNode("contains", Compare.EQ, "x")),
        ("has(in)", HasNode("in")),
        (
            "a == 'x' && b == 'y' || c == 'z'",
            OrNode(
                (
                    AndNode((CompareNode("a", Compare.EQ, "x"), CompareNode("b", Compare.EQ, "y"))),
                    CompareNode("c", Compare.EQ, "z"),
                )
            ),
        ),
        (
            "a == 'x' && (b == 'y' || c == 'z')",
            AndNode(
                (
                    CompareNode("a", Compare.EQ, "x"),
                    OrNode((CompareNode("b", Compare.EQ, "y"), CompareNode("c", Compare.EQ, "z"))),
                )
            ),
        ),
        (
            "!a == 'x' && has(b)",
            AndNode((NotNode(CompareNode("a", Compare.EQ, "x")), HasNode("b"))),
        ),
        ("((has(a)))", HasNode("a")),
        ("a" * 512 + " == 'x'", CompareNode("a" * 512, Compare.EQ, "x")),
    ],
)
def test_parses(text: str, tree: Node) -> None:
    assert parse_selector(text) == tree


@pytest.mark.parametrize(
    "text",
    [
        "app = 'agent'",  # row 41: a single '='
        "app == agent",  # unquoted value
        "app == 'agent",  # unterminated string
        "app == \"agent'",
        "app",  # a label with no operator
        "has(app",
        "has()",
        "has (app)",  # has( only as written
        "all ()",
        "all(x)",
        "global(x)",
        "app == 'a' &",
        "app == 'a' | b == 'c'",
        "app == 'a' && ",
        "|| app == 'a'",
        "(app == 'a'",
        "app == 'a')",
        "app == 'a' b == 'c'",  # two operations with no operator between
        "app == 'a'\nb == 'c'",  # a newline is not whitespace
        "app\n== 'a'",
        "app\r== 'a'",
        "app containsx 'a'",  # a keyword needs a word boundary
        "app inx {'a'}",
        "app not {'a'}",
        "app not inx {'a'}",
        "app starts 'a'",
        "app in {'a' 'b'}",
        "app in {,}",
        "app in {'a',,}",
        "app in 'a'",
        "app in ('a')",
        "app == 'a' == 'b'",
        "ápp == 'a'",  # not a label character
        "app.ü == 'a'",
        "a" * 513 + " == 'x'",  # a label longer than 512
        "!",
        "()",
        "&&",
        "app ! = 'a'",
        "all() all()",
    ],
)
def test_does_not_parse(text: str) -> None:
    assert isinstance(parse_selector(text), SelectorError)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("app=='agent'", 'app == "agent"'),
        ("a == 'say \"hi\"'", "a == 'say \"hi\"'"),
        ("a notin {'x','y',}", 'a not in {"x", "y"}'),
        ("(a == 'x' && b == 'y') && c == 'z'", '(a == "x" && b == "y") && c == "z"'),
        ("!(a == 'x' || has(b))", '!(a == "x" || has(b))'),
        ("!(!has(b))", "!(!has(b))"),
        ("", "all()"),
    ],
)
def test_prints(text: str, printed: str) -> None:
    assert print_selector(parsed(text)) == printed
    assert parse_selector(printed) == parsed(text)


def test_uses_global_and_keys() -> None:
    assert uses_global(parsed("global()"))
    assert uses_global(parsed("has(a) && !(b == 'x' || global())"))
    assert not uses_global(parsed("has(a) && b == 'x'"))
    assert keys_used(parsed("has(a) && !(b == 'x' || c in {'y'})")) == {"a", "b", "c"}
    assert keys_used(parsed("all()")) == frozenset()


# --- Three-valued evaluation ---------------------------------------------------

PRESENT_V = {"k": "agent"}
ABSENT_V: dict[str, LabelValue] = {}
UNKNOWN_V = {"k": KeyState.UNKNOWN}
HIDDEN_V = {"k": KeyState.PRESENT}


@pytest.mark.parametrize(
    ("text", "present", "absent", "unknown", "hidden"),
    [
        # atom                  value agent  absent     unknown key  present, value unknown
        ("has(k)", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.YES),
        ("!has(k)", Tri.NO, Tri.YES, Tri.UNKNOWN, Tri.NO),
        ("k == 'agent'", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k == 'other'", Tri.NO, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k != 'agent'", Tri.NO, Tri.YES, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k != 'other'", Tri.YES, Tri.YES, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k in {'agent', 'x'}", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k in {'x'}", Tri.NO, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k not in {'agent'}", Tri.NO, Tri.YES, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k not in {'x'}", Tri.YES, Tri.YES, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k contains 'gen'", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k contains 'x'", Tri.NO, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k starts with 'ag'", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k starts with 'nt'", Tri.NO, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k ends with 'nt'", Tri.YES, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("k ends with 'ag'", Tri.NO, Tri.NO, Tri.UNKNOWN, Tri.UNKNOWN),
        ("all()", Tri.YES, Tri.YES, Tri.YES, Tri.YES),
        ("", Tri.YES, Tri.YES, Tri.YES, Tri.YES),
        ("global()", Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN, Tri.UNKNOWN),
    ],
)
def test_atoms(text: str, present: Tri, absent: Tri, unknown: Tri, hidden: Tri) -> None:
    node = parsed(text)
    assert evaluate(node, view(PRESENT_V)) is present
    assert evaluate(node, view(ABSENT_V)) is absent
    assert evaluate(node, view(UNKNOWN_V)) is unknown
    assert evaluate(node, view(HIDDEN_V)) is hidden


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The spec's example: an unknown atom and a false one give no.
        ("u == 'x' && app == 'other'", Tri.NO),
        ("u == 'x' && app == 'agent'", Tri.UNKNOWN),
        ("u == 'x' || app == 'agent'", Tri.YES),
        ("u == 'x' || app == 'other'", Tri.UNKNOWN),
        ("!(u == 'x' || app == 'agent')", Tri.NO),
        ("!(u == 'x' && app == 'other')", Tri.YES),
        ("!u == 'x'", Tri.UNKNOWN),
        ("has(app) && app != 'agent'", Tri.NO),  # row 40
        ("has(app) && app == 'agent'", Tri.YES),
        ("has(missing) || !has(app)", Tri.NO),
    ],
)
def test_kleene(text: str, expected: Tri) -> None:
    labels = view({"app": "agent", "u": KeyState.UNKNOWN})
    assert evaluate(parsed(text), labels) is expected


# --- The conjunctive fragment --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "selector"),
    [
        ("all()", {}),
        ("", {}),
        ("app == 'a'", {"matchLabels": {"app": "a"}}),
        (
            "app == 'a' && app == 'b'",
            {
                "matchLabels": {"app": "a"},
                "matchExpressions": [{"key": "app", "operator": "In", "values": ["b"]}],
            },
        ),
        (
            "app != 'a'",
            {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["a"]}]},
        ),
        (
            "app in {'a', 'b'}",
            {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "b"]}]},
        ),
        (
            "app not in {'a'}",
            {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["a"]}]},
        ),
        ("has(app)", {"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
        ("!has(app)", {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}),
        (
            "all() && (x == '1' && has(y)) && all()",
            {
                "matchLabels": {"x": "1"},
                "matchExpressions": [{"key": "y", "operator": "Exists"}],
            },
        ),
    ],
)
def test_fragment_translates(text: str, selector: dict[str, object]) -> None:
    assert to_label_selector(parsed(text)) == selector


@pytest.mark.parametrize(
    "text",
    [
        "a == 'x' || b == 'y'",
        "!(a == 'x')",
        "!a in {'x'}",
        "a contains 'x'",
        "a starts with 'x'",
        "a ends with 'x'",
        "global()",
        "has(a) && global()",
        "!all()",
        "!(!has(a))",
    ],
)
def test_outside_the_fragment(text: str) -> None:
    assert to_label_selector(parsed(text)) is None


def test_fragment_renames_keys() -> None:
    def rename(key: str) -> str:
        return "kubernetes.io/metadata.name" if key == "projectcalico.org/name" else key

    translated = to_label_selector(parsed("projectcalico.org/name == 'kube-system'"), rename)
    assert translated == {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}


# --- Properties ----------------------------------------------------------------

KEYS = ("a", "b", "c")
VALUES = ("", "x", "xy", "yx")
label_keys = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-",
    min_size=1,
    max_size=12,
)
# A string literal has no escapes, so it can hold one kind of quote at most.
literals = st.one_of(
    st.text(st.characters(blacklist_characters="'"), max_size=6),
    st.text(st.characters(blacklist_characters='"'), max_size=6),
)


def trees(keys: st.SearchStrategy[str], values: st.SearchStrategy[str]) -> st.SearchStrategy[Node]:
    atoms = st.one_of(
        st.just(AllNode()),
        st.just(GlobalNode()),
        st.builds(HasNode, keys),
        st.builds(CompareNode, keys, st.sampled_from(list(Compare)), values),
        st.builds(
            SetNode,
            keys,
            st.lists(values, max_size=3, unique=True).map(tuple),
            st.booleans(),
        ),
    )

    def extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        several = st.lists(children, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            st.builds(NotNode, children),
            st.builds(AndNode, several),
            st.builds(OrNode, several),
        )

    return st.recursive(atoms, extend, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(trees(label_keys, literals))
def test_print_then_parse_round_trips(tree: Node) -> None:
    assert parse_selector(print_selector(tree)) == tree


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\n!&|=(){}',\"abcinothswreld_.-/", max_size=30))
def test_any_text_parses_or_is_refused_and_reprints(text: str) -> None:
    node = parse_selector(text)
    if not isinstance(node, SelectorError):
        assert parse_selector(print_selector(node)) == node


def concrete(node: Node, labels: Mapping[str, str]) -> bool:
    """Calico's own two-valued meaning, written independently (ast.go)."""
    if isinstance(node, AllNode | GlobalNode):
        return True
    if isinstance(node, NotNode):
        return not concrete(node.operand, labels)
    if isinstance(node, AndNode):
        return all(concrete(operand, labels) for operand in node.operands)
    if isinstance(node, OrNode):
        return any(concrete(operand, labels) for operand in node.operands)
    if node.key not in labels:
        return (isinstance(node, CompareNode) and node.op is Compare.NE) or (
            isinstance(node, SetNode) and node.negated
        )
    value = labels[node.key]
    if isinstance(node, HasNode):
        return True
    if isinstance(node, SetNode):
        return (value in node.values) != node.negated
    return {
        Compare.EQ: value == node.value,
        Compare.NE: value != node.value,
        Compare.CONTAINS: node.value in value,
        Compare.STARTS_WITH: value.startswith(node.value),
        Compare.ENDS_WITH: value.endswith(node.value),
    }[node.op]


def completions(partial: Mapping[str, LabelValue]) -> list[dict[str, str]]:
    """Every way to fill the view's unknowns from VALUES plus a fresh value."""
    domain = (*VALUES, "fresh")
    choices: list[list[str | None]] = []
    for key in KEYS:
        state = partial[key]
        if isinstance(state, str):
            choices.append([state])
        elif state is KeyState.ABSENT:
            choices.append([None])
        elif state is KeyState.PRESENT:
            choices.append(list(domain))
        else:
            choices.append([None, *domain])
    return [
        {key: value for key, value in zip(KEYS, combo, strict=True) if value is not None}
        for combo in itertools.product(*choices)
    ]


label_states = st.one_of(
    st.sampled_from(VALUES), st.sampled_from([KeyState.ABSENT, KeyState.PRESENT, KeyState.UNKNOWN])
)


@settings(max_examples=400, deadline=None)
@given(
    trees(st.sampled_from(KEYS), st.sampled_from(VALUES)).filter(lambda t: not uses_global(t)),
    st.fixed_dictionaries(dict.fromkeys(KEYS, label_states)),
)
def test_three_valued_evaluation_is_sound(tree: Node, partial: dict[str, LabelValue]) -> None:
    result = evaluate(tree, view(partial))
    outcomes = {concrete(tree, labels) for labels in completions(partial)}
    if result is Tri.NO:
        assert outcomes == {False}
    if result is Tri.YES:
        assert outcomes == {True}
    if not any(
        isinstance(state, KeyState) and state is not KeyState.ABSENT for state in partial.values()
    ):
        # With every key known, the answer is exact.
        assert result is (Tri.YES if outcomes == {True} else Tri.NO)


@settings(max_examples=300, deadline=None)
@given(
    trees(st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.fixed_dictionaries({key: st.sampled_from((*VALUES, None)) for key in KEYS}),
)
def test_fragment_selects_what_the_selector_does(tree: Node, values: dict[str, str | None]) -> None:
    translated = to_label_selector(tree)
    if translated is None:
        return
    labels = {key: value for key, value in values.items() if value is not None}
    assert label_selector_matches(translated, labels) is concrete(tree, labels)


def label_selector_matches(selector: Mapping[str, object], labels: Mapping[str, str]) -> bool:
    match_labels = selector.get("matchLabels", {})
    assert isinstance(match_labels, dict)
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    expressions = selector.get("matchExpressions", [])
    assert isinstance(expressions, list)
    for expression in expressions:
        key, operator = expression["key"], expression["operator"]
        present = key in labels
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
        if operator == "In" and (not present or labels[key] not in expression["values"]):
            return False
        if operator == "NotIn" and present and labels[key] in expression["values"]:
            return False
    return True
