"""The kind sniff answers only when the text settles the kind; every doubtful
shape is parsed. ``test_sniff_safety`` checks the same against the parser."""

from __future__ import annotations

import pytest

from lint.loading.sniff import (
    certain_kind,
    has_unusual_breaks,
    may_name_config_map,
    suspect_policy,
)
from lint.loading.split import split_stream


def sniff(text: str) -> str | None:
    chunks = [chunk for chunk in split_stream(text) if chunk.content is not None]
    assert len(chunks) == 1
    return certain_kind(text, chunks[0])


CERTAIN = [
    ("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n", "Service"),
    ("---\n# Source: c/templates/d.yaml\napiVersion: apps/v1\nkind: Deployment\n", "Deployment"),
    ("kind: Deployment # kind: NetworkPolicy\n", "Deployment"),
    ('kind: "Deployment"\n', "Deployment"),
    ("kind: 'Deployment'\n", "Deployment"),
    ("kind:\tDeployment\n", "Deployment"),
    ("apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: s\r\n", "Service"),
    ("kind: Role\nrules:\n- apiGroups: ['']\n  resources: [pods]\n", "Role"),
    ("kind: Service\nspec:\n  x: |\n    kind: NetworkPolicy\n", "Service"),
    ("kind: Service\n\n# comment\nmetadata: {}\n", "Service"),
    # Quoted, those words are strings.
    ("kind: 'null'\n", "null"),
    ('kind: "yes"\n', "yes"),
]


@pytest.mark.parametrize(("text", "kind"), CERTAIN)
def test_plain_shapes_give_their_kind(text: str, kind: str) -> None:
    assert sniff(text) == kind


DOUBTFUL = [
    # Flow style and JSON.
    "{kind: Service}\n",
    '{"apiVersion": "v1", "kind": "Service"}\n',
    # Quoted, spaced, explicit or tagged keys.
    '"kind": Service\n',
    "'kind': Service\n",
    "kind : Service\n",
    "? kind\n: Service\n",
    "!!str kind: Service\n",
    # The whole document indented, or its first content line indented.
    "  kind: Service\n  metadata: {}\n",
    "  metadata: {}\nkind: Service\n",
    # A top-level sequence.
    "- kind: Service\n",
    # Anchors, aliases and merge keys at the top level.
    "base: &b {kind: NetworkPolicy}\n<<: *b\nkind: Service\n",
    "kind: &k Service\n",
    "kind: *k\n",
    "kind: !!str Service\n",
    # Two kind keys: the last would win.
    "kind: Service\nkind: NetworkPolicy\n",
    # A kind value on the next line, or continued on the next line.
    "kind:\n  Service\n",
    "kind: Network\n  Policy\n",
    "kind: Network\n\n  Policy\n",
    # No kind at all.
    "apiVersion: v1\nmetadata: {}\n",
    # Values that are not a single identifier.
    "kind: Service # x\n  more\n",
    "kind: Net-Policy\n",
    "kind: Service#x\n",
    'kind: "Service\n',
    "kind: Service, NetworkPolicy\n",
    # Directives and content on the marker line.
    "%YAML 1.1\n---\nkind: Service\n",
    "--- !!map\nkind: Service\n",
    "--- {kind: Service}\n",
    # Plain words YAML 1.1 reads as null or a boolean, not as a kind: the
    # object has no kind, which matters for a policy API group (identity.py).
    "apiVersion: networking.k8s.io/v1\nkind: null\n",
    "kind: Null\n",
    "kind: yes\n",
    "kind: off\n",
    "kind: y\n",
    # A column-0 line that is not a plain key.
    "kind: Service\nplain text at column 0\n",
    'kind: Service\nmetadata: "a\nkind: NetworkPolicy"\n',
]


@pytest.mark.parametrize("text", DOUBTFUL)
def test_doubtful_shapes_are_parsed(text: str) -> None:
    assert sniff(text) is None


def test_kind_in_a_later_document_is_not_this_documents_kind() -> None:
    text = "apiVersion: v1\n---\nkind: Service\n"
    first, second = split_stream(text)
    assert certain_kind(text, first) is None
    assert certain_kind(text, second) == "Service"


@pytest.mark.parametrize("line", ["kind: yes", "kind: Service", "kind: 'yes'", "kind: ~"])
def test_a_repeated_kind_line_names_the_same_kind_every_time(line: str) -> None:
    """The kind a line names is remembered by its text: the second reading,
    from memory, must agree with the first, and continuation still counts."""
    text = f"{line}\n---\n{line}\n---\n{line}\n  more\n"
    first, second, third = split_stream(text)
    expected = {"kind: Service": "Service", "kind: 'yes'": "yes"}.get(line)
    assert certain_kind(text, first) == expected
    assert certain_kind(text, second) == expected
    assert certain_kind(text, third) is None  # an indented line continues the value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: ConfigMap\nmetadata:\n  name: agent-sandbox-config\n", True),
        ("kind: ConfigMap\nmetadata:\n  name: other\n", False),
        ('kind: ConfigMap\nmetadata:\n  name: "agent-sandbox\\x2dconfig"\n', True),
    ],
)
def test_config_map_name_prefilter(text: str, expected: bool) -> None:
    (chunk,) = split_stream(text)
    assert may_name_config_map(text, chunk) is expected


SUSPECTS = [
    ("kind: NetworkPolicy\nmetadata:\n  namespace: team-a\nspec: [", ("NetworkPolicy", "team-a")),
    ('{"kind": "CiliumNetworkPolicy", "metadata": {"namespace": "b"', ("CiliumNetworkPolicy", "b")),
    ("kind: CiliumClusterwideNetworkPolicy\nspec: {", ("CiliumClusterwideNetworkPolicy", None)),
    ("kind: NetworkPolicyList\nitems: [", ("NetworkPolicy", None)),
    ("kind: AdminNetworkPolicy\n", ("AdminNetworkPolicy", None)),
    ("kind: BaselineAdminNetworkPolicy\n", ("BaselineAdminNetworkPolicy", None)),
    ("kind: Deployment\nmetadata:\n  namespace: a\n", (None, None)),
    # Any mention of a policy kind's name makes a suspect.
    ("kind: NetworkPolicyReport\n", ("NetworkPolicy", None)),
    # Only metadata.namespace counts, not a selector key that ends in "namespace".
    (
        "kind: CiliumNetworkPolicy\nmetadata:\n  name: x\nspec:\n  toEndpoints:\n"
        "  - matchLabels:\n      io.kubernetes.pod.namespace: kube-system\n",
        ("CiliumNetworkPolicy", None),
    ),
    (
        "kind: NetworkPolicy\nmetadata:\n  labels:\n    namespace: inner\n  namespace: outer\nspec: [",
        ("NetworkPolicy", None),  # a label named namespace is not trusted
    ),
    (
        "kind: NetworkPolicy\nmetadata: {name: a, namespace: 'flow'}\nspec: [",
        ("NetworkPolicy", "flow"),
    ),
    (
        "kind: NetworkPolicy\nmetadata:\n  namespace: {{ .Release.Namespace }}\n",
        ("NetworkPolicy", None),
    ),
]


@pytest.mark.parametrize(("text", "expected"), SUSPECTS)
def test_suspect_policy(text: str, expected: tuple[str | None, str | None]) -> None:
    assert suspect_policy(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\nb\r\nc\n", False),
        ("a\rb\n", True),
        ("a\x85b", True),
        ("a\u2028b", True),
        ("a\u2029b", True),
        ("\r\n\r\n", False),
    ],
)
def test_unusual_line_breaks(text: str, expected: bool) -> None:
    assert has_unusual_breaks(text) is expected
