"""``load()`` end to end: files in, documents, problems and counts out."""

from __future__ import annotations

import codecs
import functools
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.loading import RELEVANT_KINDS, STDIN_NAME, LoadedDocument, files, load, loader
from tests.loading.helpers import load_text, write

POLICY = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {name}
  namespace: team-a
spec:
  podSelector: {{}}
  policyTypes: [Egress]
"""


def names(documents: tuple[LoadedDocument, ...]) -> list[str | None]:
    return [d.value["metadata"]["name"] if isinstance(d.value, dict) else None for d in documents]


def test_relevant_documents_are_kept_and_others_counted(tree: Path) -> None:
    text = "\n---\n".join(
        [
            POLICY.format(name="p1"),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
            "kind: Service\nmetadata:\n  name: s\n",
            '{"kind": "Service", "metadata": {"name": "s2"}}',
            "metadata: {name: nothing}\n",
            "- a list\n",
            POLICY.format(name="p2"),
        ]
    )
    result = load_text(tree, text)
    assert names(result.documents) == ["p1", "p2"]
    assert result.skipped == {
        "(no kind)": 1,
        "(not an object)": 1,
        "Deployment": 1,
        "Service": 2,
    }
    assert result.problems == ()
    assert (result.files, result.bytes) == (1, len(text.encode()))


@pytest.mark.parametrize("kind", sorted(RELEVANT_KINDS - {"ConfigMap", "Deployment"}))
def test_every_relevant_kind_is_kept(tree: Path, kind: str) -> None:
    result = load_text(tree, f"apiVersion: x/v1\nkind: {kind}\nmetadata:\n  name: n\n")
    assert [d.kind for d in result.documents] == [kind]


def test_only_the_controller_deployment_is_kept(tree: Path) -> None:
    text = (
        "kind: Deployment\nmetadata:\n  name: c\nspec:\n  template:\n    spec:\n"
        "      containers: [{name: m, image: reg.io/agent-sandbox-controller:v0.5.0}]\n"
        "---\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
        "      containers: [{name: w, image: nginx:1}]\n"
        "---\nkind: Deployment\nmetadata:\n  name: agent-sandbox-controller\n"
    )
    result = load_text(tree, text)
    assert names(result.documents) == ["c"]
    assert dict(result.skipped) == {"Deployment": 2}


@pytest.mark.parametrize(
    ("text", "searched", "kept"),
    [
        # Every document read whole: the file is never searched.
        (f"{POLICY.format(name='a')}---\n{POLICY.format(name='b')}", set(), ["a", "b"]),
        # A Service is skipped unless a catch-all group is named.
        ("kind: Service\nmetadata: {name: s}\n", {"catch-all"}, []),
        (
            "kind: Service\napiVersion: policy.networking.k8s.io/v1alpha1\nmetadata: {name: s}\n",
            {"catch-all"},
            ["s"],
        ),
        # A ConfigMap is read when it may be the controller's.
        ("kind: ConfigMap\nmetadata: {name: other}\n", {"config-map", "catch-all"}, []),
        (
            "kind: ConfigMap\nmetadata: {name: agent-sandbox-config}\n",
            {"config-map"},
            ["agent-sandbox-config"],
        ),
    ],
)
def test_a_file_is_searched_for_what_it_mentions_only_when_a_document_asks(
    tree: Path, monkeypatch: pytest.MonkeyPatch, text: str, searched: set[str], kept: list[str]
) -> None:
    """Whether a file mentions a catch-all group, the controller's image or
    a ConfigMap name is found at most once per file, and only for a
    document that could otherwise be skipped."""
    asked: list[str] = []
    mentions = loader._Mentions
    for name, what in [
        ("catch_all_group", "catch-all"),
        ("controller_image", "image"),
        ("config_map_name", "config-map"),
    ]:
        found = vars(mentions)[name].func

        def spy(self: object, found: Any = found, what: str = what) -> bool:
            asked.append(what)
            return bool(found(self))

        counted = functools.cached_property(spy)
        counted.__set_name__(mentions, name)
        monkeypatch.setattr(mentions, name, counted)
    result = load_text(tree, text + "---\n" + text)  # the second copy asks nothing again
    assert sorted(asked) == sorted(searched)
    assert names(result.documents) == kept * 2


@pytest.mark.parametrize(
    ("kind", "pod"),
    [
        ("StatefulSet", "spec:\n  template:\n    spec:\n"),
        ("DaemonSet", "spec:\n  template:\n    spec:\n"),
        ("CronJob", "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"),
        ("Pod", "spec:\n"),
    ],
)
def test_every_workload_kind_running_the_controller_is_kept(
    tree: Path, kind: str, pod: str
) -> None:
    """Issue 28: an upstream release chart runs the controller as a StatefulSet."""
    indent = " " * (len(pod.splitlines()[-1]) - len(pod.splitlines()[-1].lstrip()) + 2)
    text = (
        f"kind: {kind}\nmetadata:\n  name: c\n{pod}"
        f"{indent}containers: [{{name: m, image: reg.io/agent-sandbox-controller:v0.1.0}}]\n"
        f"---\nkind: {kind}\nmetadata:\n  name: web\n{pod}"
        f"{indent}containers: [{{name: w, image: nginx:1}}]\n"
        # The image named elsewhere than in the pod's containers: not the controller.
        f"---\nkind: {kind}\nmetadata:\n  name: agent-sandbox-controller\n"
    )
    result = load_text(tree, text)
    assert names(result.documents) == ["c"]
    assert dict(result.skipped) == {kind: 2}


def test_only_the_controller_config_map_is_kept(tree: Path) -> None:
    text = (
        "kind: ConfigMap\nmetadata:\n  name: agent-sandbox-config\n"
        "---\nkind: ConfigMap\nmetadata:\n  name: app-settings\n"
        '---\n{"kind": "ConfigMap", "metadata": {"name": "other"}}\n'
    )
    result = load_text(tree, text)
    assert names(result.documents) == ["agent-sandbox-config"]
    assert result.skipped == {"ConfigMap": 2}


def test_relevant_kinds_can_be_narrowed(tree: Path) -> None:
    write(tree, "m.yaml", POLICY.format(name="p") + "---\nkind: Namespace\nmetadata: {name: n}\n")
    result = load(["m.yaml"], relevant_kinds=frozenset({"Namespace"}))
    assert [d.kind for d in result.documents] == ["Namespace"]
    assert result.skipped == {"NetworkPolicy": 1}


def test_document_positions_and_lines(tree: Path) -> None:
    text = (
        "---\n# Source: chart/templates/np.yaml\n---\n"  # index 0: comment only
        + POLICY.format(name="a")  # index 1, content on line 4
        + "---\n---\n"  # index 2: empty
        + "# leading comment\n\n"
        + POLICY.format(name="b")  # index 3
        + "# trailing comment\n"
    )
    result = load_text(tree, text)
    first, second = result.documents
    assert (first.file, first.index, first.line, first.end_line) == ("m.yaml", 1, 4, 11)
    assert first.source == "chart/templates/np.yaml"
    assert (second.index, second.line, second.end_line, second.source) == (3, 16, 23, None)


def test_list_wrappers_are_unrolled_with_item_lines(tree: Path) -> None:
    text = """---
# Source: c/templates/list.yaml
apiVersion: v1
kind: List
items:
- apiVersion: networking.k8s.io/v1
  kind: NetworkPolicy
  metadata: {name: a}
- kind: Deployment
  metadata: {name: d}
-
  kind: CiliumNetworkPolicy
  metadata: {name: c}
"""
    result = load_text(tree, text)
    assert [(d.kind, d.line, d.list_kind, d.list_index, d.index) for d in result.documents] == [
        ("NetworkPolicy", 6, "List", 0, 0),
        ("CiliumNetworkPolicy", 12, "List", 2, 0),
    ]
    assert result.documents[0].end_line == 8
    assert all(d.source == "c/templates/list.yaml" for d in result.documents)
    assert result.skipped == {"Deployment": 1}


def test_typed_list_items_take_the_listed_kind(tree: Path) -> None:
    text = "kind: NetworkPolicyList\nitems:\n- metadata: {name: a}\n  spec: {}\n- 42\n- null\n"
    result = load_text(tree, text)
    assert [(d.kind, d.value, d.line, d.list_index) for d in result.documents] == [
        ("NetworkPolicy", {"metadata": {"name": "a"}, "spec": {}}, 3, 0),
        ("NetworkPolicy", 42, 5, 1),
        ("NetworkPolicy", None, 6, 2),
    ]
    assert result.problems == ()


def test_non_object_item_of_a_plain_list_is_a_problem(tree: Path) -> None:
    result = load_text(
        tree, "kind: List\nitems:\n- kind: Namespace\n  metadata: {name: n}\n- oops\n"
    )
    assert [d.kind for d in result.documents] == ["Namespace"]
    (problem,) = result.problems
    assert (problem.file, problem.line, problem.severity) == ("m.yaml", 5, "error")
    assert "item 1" in problem.message


def test_irrelevant_typed_list_is_counted_by_item_kind(tree: Path) -> None:
    result = load_text(tree, "kind: PodList\nitems:\n- metadata: {name: a}\n- 3\n")
    assert result.documents == ()
    assert result.problems == ()
    assert result.skipped == {"Pod": 2}


@pytest.mark.parametrize(
    ("items", "composed"),
    [
        ("- metadata: {name: a}\n- 3\n- kind: Service\n", 0),  # every item skipped
        ("- metadata: {name: a}\n- kind: NetworkPolicy\n  metadata: {name: p}\n", 1),
    ],
)
def test_a_list_is_composed_only_for_an_item_that_is_read(
    tree: Path, monkeypatch: pytest.MonkeyPatch, items: str, composed: int
) -> None:
    import lint.loading.loader as loader  # noqa: PLC0415 - the module whose compose is counted

    calls: list[str] = []
    compose = loader._quiet_compose

    def counted(text: str) -> Any:
        calls.append(text)
        return compose(text)

    monkeypatch.setattr(loader, "_quiet_compose", counted)
    result = load_text(tree, "kind: PodList\nitems:\n" + items)
    assert len(calls) == composed
    assert [(d.kind, d.line, d.end_line, d.list_index) for d in result.documents] == (
        [("NetworkPolicy", 4, 5, 1)] if composed else []
    )


@pytest.mark.parametrize(
    ("text", "suspect"),
    [
        (
            "kind: List\nitems: {kind: NetworkPolicy, metadata: {namespace: b}}\n",
            ("NetworkPolicy", None),  # a list's text may place items anywhere
        ),
        ("kind: NetworkPolicyList\nitems: nope\n", ("NetworkPolicy", None)),
        ("kind: List\nitems: 3\n", (None, None)),
    ],
)
def test_list_whose_items_are_not_a_list_is_a_problem(
    tree: Path, text: str, suspect: tuple[str | None, str | None]
) -> None:
    result = load_text(tree, text)
    assert result.documents == ()
    (problem,) = result.problems
    assert problem.line == 2
    assert (problem.suspect_kind, problem.suspect_namespace) == suspect


@pytest.mark.parametrize("items", ["", "items: null\n", "items: []\n"])
def test_list_without_items_is_empty(tree: Path, items: str) -> None:
    result = load_text(tree, f"kind: NetworkPolicyList\n{items}")
    assert (result.documents, result.problems) == ((), ())


OPEN_ITEM = (
    "- apiVersion: networking.k8s.io/v1\n  kind: NetworkPolicy\n"
    "  metadata: {name: open, namespace: team-a}\n"
    "  spec: {podSelector: {}, policyTypes: [Egress], egress: [{}]}\n"
)


@pytest.mark.parametrize(
    "wrapper",
    [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: w}\n",
        "metadata: {name: no-kind}\n",
    ],
)
def test_any_object_with_items_is_opened_as_kubectl_opens_it(tree: Path, wrapper: str) -> None:
    """kubectl's unstructured decoder makes any object with an ``items`` key
    a list and applies its items, never the object itself (docs/yaml.md)."""
    result = load_text(tree, wrapper + "items:\n" + OPEN_ITEM)
    assert [(d.kind, d.line, d.list_index) for d in result.documents] == [
        ("NetworkPolicy", wrapper.count("\n") + 2, 0)
    ]
    assert names(result.documents) == ["open"]
    assert result.problems == ()


def test_items_of_a_kind_without_list_suffix_take_that_kind(tree: Path) -> None:
    text = "kind: NetworkPolicy\nmetadata: {name: w}\nitems:\n- metadata: {name: inner}\n"
    result = load_text(tree, text)
    assert [(d.kind, d.list_kind) for d in result.documents] == [("NetworkPolicy", "NetworkPolicy")]


@pytest.mark.parametrize("items", ["items: null\n", "items: []\n"])
def test_a_policy_with_empty_items_is_an_empty_list(tree: Path, items: str) -> None:
    """kubectl applies nothing of it: not the wrapper, and no item."""
    text = "kind: NetworkPolicy\nmetadata: {name: w}\nspec: {podSelector: {}}\n" + items
    result = load_text(tree, text)
    assert (result.documents, result.problems) == ((), ())


def test_a_policy_whose_items_are_not_a_list_fails_closed(tree: Path) -> None:
    text = "kind: NetworkPolicy\nmetadata: {name: w, namespace: a}\nitems: {x: 1}\n"
    result = load_text(tree, text)
    assert result.documents == ()
    (problem,) = result.problems
    assert (problem.line, problem.suspect_kind, problem.suspect_namespace) == (
        3,
        "NetworkPolicy",
        None,
    )


def test_empty_and_comment_only_documents_are_nothing(tree: Path) -> None:
    result = load_text(tree, "---\n---\n# just a comment\n---\nnull\n---\n~\n...\n")
    assert (result.documents, result.problems, result.skipped) == ((), (), {})


def test_a_broken_document_keeps_the_rest_of_its_file(tree: Path) -> None:
    text = (
        POLICY.format(name="before")
        + "---\nkind: NetworkPolicy\nmetadata:\n  namespace: team-b\nspec: [unclosed\n"
        + "---\n"
        + POLICY.format(name="after")
    )
    result = load_text(tree, text)
    assert names(result.documents) == ["before", "after"]
    (problem,) = result.problems
    assert (problem.line, problem.severity) == (14, "error")
    assert (problem.suspect_kind, problem.suspect_namespace) == ("NetworkPolicy", "team-b")


def test_unrendered_templates_get_a_hint(tree: Path) -> None:
    text = "kind: NetworkPolicy\nmetadata:\n  name: {{ .Values.name }}\n"
    (problem,) = load_text(tree, text).problems
    assert "unrendered template" in problem.message
    assert problem.suspect_kind == "NetworkPolicy"


def test_a_broken_irrelevant_document_names_no_suspect(tree: Path) -> None:
    result = load_text(tree, "{kind: Deployment, spec: {a: [}\n")
    (problem,) = result.problems
    assert (problem.suspect_kind, problem.suspect_namespace) == (None, None)


def test_documents_the_sniff_skips_are_never_parsed(tree: Path) -> None:
    # The price of not parsing what the check does not read: a syntax error in
    # a Deployment goes unreported (docs/yaml.md).
    result = load_text(tree, "kind: Deployment\nspec: {a: [}\n")
    assert (result.problems, result.skipped) == ((), {"Deployment": 1})


def test_duplicate_keys_warn_and_keep_the_last_value(tree: Path) -> None:
    text = POLICY.format(name="first") + "metadata:\n  name: second\n"
    result = load_text(tree, text)
    assert names(result.documents) == ["second"]
    (problem,) = result.problems
    assert (problem.line, problem.severity) == (9, "warning")
    assert "'metadata'" in problem.message


def test_yaml_1_1_scalars_as_kubernetes_reads_them(tree: Path) -> None:
    text = (
        "kind: NetworkPolicy\nmetadata: {name: n}\nspec:\n"
        "  a: on\n  b: 0777\n  c: 2024-01-01\n  d: 1e2\n  e: 12:30\n  f: 'yes'\n"
    )
    (document,) = load_text(tree, text).documents
    assert document.value["spec"] == {
        "a": True,
        "b": 511,
        "c": "2024-01-01",
        "d": 100.0,
        "e": "12:30",
        "f": "yes",
    }


def test_custom_tags_are_never_constructed(tree: Path) -> None:
    # go-yaml v2 ignores a collection's tag: the spec is a plain mapping.
    text = "kind: NetworkPolicy\nmetadata: {name: n}\nspec: !!python/object:os.system {}\n"
    result = load_text(tree, text)
    (document,) = result.documents
    assert document.value["spec"] == {}
    assert result.problems == ()


def test_json_files(tree: Path) -> None:
    text = '\n\n{\n  "kind": "NetworkPolicy",\n  "metadata": {"name": "j"}\n}\n'
    result = load_text(tree, text, name="p.json")
    (document,) = result.documents
    assert (document.file, document.line, document.end_line, document.index) == ("p.json", 3, 6, 0)
    assert document.value == {"kind": "NetworkPolicy", "metadata": {"name": "j"}}


def test_json_list_items_get_their_lines(tree: Path) -> None:
    text = '{"kind": "List", "items": [\n  {"kind": "Namespace", "metadata": {"name": "a"}},\n  {"kind": "Namespace", "metadata": {"name": "b"}}\n]}\n'
    result = load_text(tree, text, name="l.json")
    assert [(d.line, d.list_index) for d in result.documents] == [(2, 0), (3, 1)]


def test_json_file_holding_yaml_falls_back_to_yaml(tree: Path) -> None:
    text = POLICY.format(name="first") + "---\n" + POLICY.format(name="second")
    result = load_text(tree, text, name="x.json")
    assert names(result.documents) == ["first", "second"]


def test_json_with_repeated_keys_is_read_as_yaml_and_warns(tree: Path) -> None:
    text = '{"kind": "Namespace",\n "metadata": {"name": "a"},\n "metadata": {"name": "b"}}\n'
    result = load_text(tree, text, name="d.json")
    assert names(result.documents) == ["b"]
    assert [(p.line, p.severity) for p in result.problems] == [(3, "warning")]


def test_utf8_byte_order_mark_is_dropped(tree: Path) -> None:
    result = load_text(tree, codecs.BOM_UTF8 + POLICY.format(name="bom").encode())
    assert names(result.documents) == ["bom"]
    assert result.documents[0].line == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_byte_order_mark(tree: Path, encoding: str) -> None:
    data = POLICY.format(name="wide").encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    assert names(load_text(tree, data).documents) == ["wide"]


def test_undecodable_bytes_are_a_problem_at_line_1_naming_every_suspect(tree: Path) -> None:
    data = (
        POLICY.format(name="p").encode()
        + b"  label: caf\xe9\n---\n"
        + POLICY.format(name="q").replace("team-a", "team-z").encode()
    )
    result = load_text(tree, data)
    assert result.documents == ()
    assert [(p.line, p.suspect_kind, p.suspect_namespace) for p in result.problems] == [
        (1, "NetworkPolicy", "team-a"),
        (11, "NetworkPolicy", "team-z"),
    ]
    assert "line 9" in result.problems[0].message


def test_undecodable_bytes_without_policies(tree: Path) -> None:
    result = load_text(tree, b"kind: Service\nname: \xff\xfe\xfa\n")
    assert [(p.line, p.suspect_kind) for p in result.problems] == [(1, None)]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_byte_order_mark_is_named_and_fails_closed(tree: Path, encoding: str) -> None:
    # ASCII with a zero byte beside each character is valid UTF-8, so only
    # the pattern tells it apart.
    result = load_text(tree, POLICY.format(name="wide").encode(encoding))
    (problem,) = result.problems
    assert problem.line == 1
    assert f"{encoding.upper()} without a byte order mark" in problem.message
    assert (problem.suspect_kind, problem.suspect_namespace) == ("NetworkPolicy", "team-a")


@pytest.mark.parametrize("data", [b"a\x00b\x00c", b"\x00\x00\x00\x00", b"kind: x\x00\n"])
def test_other_zero_bytes_are_not_taken_for_utf16(tree: Path, data: bytes) -> None:
    (problem,) = load_text(tree, data).problems
    assert "UTF-16" not in problem.message


def test_stray_content_after_document_end(tree: Path) -> None:
    result = load_text(tree, "kind: Namespace\nmetadata: {name: a}\n...\nkind: NetworkPolicy\n")
    assert [d.kind for d in result.documents] == ["Namespace"]
    (problem,) = result.problems
    assert (problem.line, problem.suspect_kind) == (4, "NetworkPolicy")


def test_unusual_line_breaks_count_as_libyaml_counts_them(tree: Path) -> None:
    text = "kind: Namespace\u2028metadata: {name: a}\u2028---\u2028kind: NetworkPolicy\rmetadata: {name: b}\r"
    result = load_text(tree, text)
    assert [(d.kind, d.line, d.end_line) for d in result.documents] == [
        ("Namespace", 1, 2),
        ("NetworkPolicy", 4, 5),
    ]


def test_directories_are_walked_in_sorted_order(tree: Path) -> None:
    for name in [
        "b.yaml",
        "a/z.yml",
        "a.json",
        "a/y.yaml",
        "c/d/e.yaml",
        "skip.txt",
        ".git/x.yaml",
    ]:
        write(tree, name, "kind: Namespace\nmetadata: {name: n}\n")
    result = load(["."])
    assert [d.file for d in result.documents] == [
        "a/y.yaml",
        "a/z.yml",
        "a.json",
        "b.yaml",
        "c/d/e.yaml",
    ]
    assert result.files == 5


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("aY.yamlYAMLjsonJ ~-"), max_size=12))
def test_a_file_is_read_by_its_name_as_path_suffix_takes_it(name: str) -> None:
    """The walk tells a manifest from its name alone, without a Path."""
    if name in ("", ".", ".."):
        return  # never the name of a directory entry
    expected = Path(name).suffix.lower() in files.MANIFEST_SUFFIXES
    assert files.is_manifest_name(name) == expected


def test_paths_keep_their_order_and_files_are_read_once(tree: Path) -> None:
    write(tree, "one.yaml", "kind: Namespace\nmetadata: {name: one}\n")
    write(tree, "d/two.yaml", "kind: Namespace\nmetadata: {name: two}\n")
    result = load(["d", "one.yaml", ".", "one.yaml"])
    assert [d.file for d in result.documents] == ["d/two.yaml", "one.yaml"]


def test_explicit_files_need_no_manifest_suffix(tree: Path) -> None:
    write(tree, "rendered.txt", "kind: Namespace\nmetadata: {name: n}\n")
    assert [d.file for d in load(["rendered.txt"]).documents] == ["rendered.txt"]


def test_missing_path_is_a_problem(tree: Path) -> None:
    result = load(["nowhere.yaml"])
    (problem,) = result.problems
    assert (problem.file, problem.line) == ("nowhere.yaml", 1)


def test_symlink_loop_is_a_problem_not_a_hang(tree: Path) -> None:
    write(tree, "d/a.yaml", "kind: Namespace\nmetadata: {name: n}\n")
    (tree / "d" / "loop").symlink_to(tree / "d", target_is_directory=True)
    (tree / "d" / "self.yaml").symlink_to(tree / "d" / "self.yaml")
    result = load(["d"])
    assert [d.file for d in result.documents] == ["d/a.yaml"]
    assert sorted(p.file for p in result.problems) == ["d/loop", "d/self.yaml"]


def test_unreadable_file_is_a_problem(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tree, "secret.yaml", "kind: Namespace\n")
    write(tree, "open.yaml", "kind: Namespace\nmetadata: {name: n}\n")

    real_open = os.open

    def refuse(path: str | Path, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == "secret.yaml":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    # Tests run as root in CI, where chmod 000 does not stop a read. The
    # walk opens files with ``os.open``, looked up in its module's ``os``.
    monkeypatch.setattr(files.os, "open", refuse)
    result = load(["."])
    assert [d.file for d in result.documents] == ["open.yaml"]
    assert result.files == 1  # a file that could not be read is not counted
    (problem,) = result.problems
    assert (problem.file, problem.line, problem.message) == (
        "secret.yaml",
        1,
        "cannot read: Permission denied",
    )
    # It exists and may hold a policy for any namespace: the check fails closed.
    assert (problem.suspect_kind, problem.suspect_namespace) == ("NetworkPolicy", None)


def test_stdin(tree: Path) -> None:
    result = load(["-"], stdin=POLICY.format(name="piped").encode())
    assert [(d.file, d.line) for d in result.documents] == [(STDIN_NAME, 1)]


def test_missing_stdin_reads_as_empty(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", None)
    result = load(["-"])
    assert (result.documents, result.problems, result.files) == ((), (), 1)


def test_loading_twice_gives_equal_results(tree: Path) -> None:
    for number in range(5):
        write(tree, f"d{number % 2}/f{number}.yaml", POLICY.format(name=f"p{number}"))
    first, second = load(["."]), load(["."])
    assert first == second
    assert [d.file for d in first.documents] == sorted(d.file for d in first.documents)


@pytest.mark.parametrize(
    ("where", "named"),
    [
        ("", "."),
        ("", "a"),
        ("a", ".."),  # the named directory contains the current one
        ("a/b", "../.."),
        ("a/b", "../../a"),
        ("a", "../c"),
        ("a", "./../a/../c/"),
        ("c", "ABSOLUTE"),
    ],
)
def test_file_names_are_relative_to_the_current_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch, where: str, named: str
) -> None:
    """Names built from their directory's name agree with ``os.path.relpath``
    of each file, also where the named directory contains the current one."""
    for name in ("a/x.yaml", "a/b/y.yaml", "a/b/c/z.yaml", "c/w.yaml", "c/d/u.yaml", "v.yaml"):
        write(tree, name, POLICY.format(name=name.replace("/", "-").replace(".", "-")))
    monkeypatch.chdir(tree / where)
    root = str(tree) if named == "ABSOLUTE" else named
    result = load([root])
    expected = sorted(
        os.path.relpath(path) for path in Path(root).rglob("*.yaml") if path.is_file()
    )
    assert sorted(d.file for d in result.documents) == expected
    assert len(expected) > 1


def _set_aside(paths: list[str]) -> list[files.SourceFile]:
    """What the walk gives for ``paths``: files set aside, none read."""
    walked = list(files.read_inputs(paths, None))
    assert all(isinstance(s, files.SourceFile) and s.path is not None for s in walked)
    return [s for s in walked if isinstance(s, files.SourceFile)]


def test_the_walk_sets_files_aside_and_the_loader_reads_each_once(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk reads no regular file: it sets each one's size aside within
    the limits, and the process that loads the file reads it, once."""
    for number in range(3):
        write(tree, f"d/f{number}.yaml", POLICY.format(name=f"p{number}"))
    opened: list[str] = []
    real_open = os.open

    def counting(path: str | Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(Path(path).name)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", counting)
    walked = _set_aside(["d"])
    assert opened == []
    assert [(s.name, s.data, s.size) for s in walked] == [
        (f"d/f{n}.yaml", b"", len(POLICY.format(name=f"p{n}"))) for n in range(3)
    ]
    result = load(["d"])
    assert sorted(opened) == ["f0.yaml", "f1.yaml", "f2.yaml"]
    assert (result.files, result.bytes) == (3, sum(s.size for s in walked))


def test_a_file_that_grew_after_the_walk_fails_closed(tree: Path) -> None:
    """Only its size by the walk's status was set aside within the limits:
    what it holds now is not read, and every namespace fails closed."""
    write(tree, "grows.yaml", POLICY.format(name="p"))
    (walked,) = _set_aside(["grows.yaml"])
    with (tree / "grows.yaml").open("a") as stream:
        stream.write("# one more line\n")
    harvest = loader.load_file(walked, RELEVANT_KINDS)
    assert harvest.documents == [] and harvest.size is None
    (problem,) = harvest.problems
    assert problem.file == "grows.yaml"
    assert problem.message.startswith("not read: it grew after its size was taken")
    assert (problem.suspect_kind, problem.suspect_namespace) == ("NetworkPolicy", None)


def test_a_file_that_shrank_after_the_walk_is_read_as_it_is(tree: Path) -> None:
    write(tree, "shrinks.yaml", POLICY.format(name="first") + "# a comment to drop\n")
    (walked,) = _set_aside(["shrinks.yaml"])
    write(tree, "shrinks.yaml", POLICY.format(name="p"))
    harvest = loader.load_file(walked, RELEVANT_KINDS)
    assert names(tuple(harvest.documents)) == ["p"]
    assert harvest.size == len(POLICY.format(name="p"))


def test_a_file_that_vanished_after_the_walk_fails_closed(tree: Path) -> None:
    write(tree, "gone.yaml", POLICY.format(name="p"))
    (walked,) = _set_aside(["gone.yaml"])
    (tree / "gone.yaml").unlink()
    harvest = loader.load_file(walked, RELEVANT_KINDS)
    (problem,) = harvest.problems
    assert (problem.file, problem.message) == (
        "gone.yaml",
        "cannot read: No such file or directory",
    )
    assert problem.suspect_kind == "NetworkPolicy"
