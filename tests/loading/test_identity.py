"""Objects whose kind or namespace cannot be read (``identity.py``): the API
server refuses them whole, and the check must not read them as harmless."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks.runner import CheckOptions, run_check
from tests.loading.helpers import load_text, write

BODY = "metadata: {name: p, namespace: team}\nspec: {podSelector: {}}\n"


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("cilium.io/v2", "CiliumNetworkPolicy"),
        ("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy"),
    ],
)
@pytest.mark.parametrize(
    "kind_line", ["", "kind: null\n", "kind: 0\n", "kind: ''\n", "kind: [x]\n"]
)
def test_a_policy_group_object_without_a_kind_fails_closed(
    tree: Path, api_version: str, kind: str, kind_line: str
) -> None:
    result = load_text(tree, f"---\napiVersion: {api_version}\n{kind_line}{BODY}")
    assert result.documents == ()
    (problem,) = result.problems
    assert (problem.line, problem.severity) == (2, "error")
    assert api_version in problem.message
    assert (problem.suspect_kind, problem.suspect_namespace) == (kind, "team")


@pytest.mark.parametrize("api_version", ["apps/v1", "v1", "example.com/v1", "0"])
def test_other_objects_without_a_kind_are_counted(tree: Path, api_version: str) -> None:
    result = load_text(tree, f"apiVersion: {api_version}\n{BODY}")
    assert (result.problems, dict(result.skipped)) == ((), {"(no kind)": 1})


def test_an_object_without_any_identity_is_counted(tree: Path) -> None:
    result = load_text(tree, "replicas: 3\n")
    assert (result.problems, dict(result.skipped)) == ((), {"(no kind)": 1})


def test_a_list_item_without_a_kind_in_a_policy_group_fails_closed(tree: Path) -> None:
    text = "kind: List\nitems:\n- apiVersion: networking.k8s.io/v1\n  metadata: {namespace: team}\n"
    (problem,) = load_text(tree, text).problems
    assert (problem.line, problem.suspect_kind, problem.suspect_namespace) == (
        3,
        "NetworkPolicy",
        "team",
    )


@pytest.mark.parametrize(
    ("metadata", "what"),
    [
        ("{name: p, namespace: 0}", "metadata.namespace is not a string"),
        ("{name: p, namespace: [team]}", "metadata.namespace is not a string"),
        ("{name: p, namespace: {}}", "metadata.namespace is not a string"),
        ("[p]", "metadata is not an object"),
        ("junk", "metadata is not an object"),
    ],
)
def test_a_policy_whose_namespace_cannot_be_read_fails_every_namespace_closed(
    tree: Path, metadata: str, what: str
) -> None:
    text = (
        f"apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {metadata}\nspec: {{}}\n"
    )
    result = load_text(tree, text)
    assert len(result.documents) == 1  # still judged, in the defaulted namespace
    (problem,) = result.problems
    assert problem.line == 1
    assert what in problem.message
    assert (problem.suspect_kind, problem.suspect_namespace) == ("CiliumNetworkPolicy", None)


@pytest.mark.parametrize("metadata", ["{name: p}", "{name: p, namespace: null}", "null", "{}"])
def test_an_absent_or_null_namespace_is_the_defaulted_one(tree: Path, metadata: str) -> None:
    text = f"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {metadata}\n"
    assert load_text(tree, text).problems == ()


def test_another_kind_whose_namespace_cannot_be_read_is_a_problem_only(tree: Path) -> None:
    text = "kind: SandboxTemplate\nmetadata: {name: t, namespace: 12}\n"
    (problem,) = load_text(tree, text).problems
    assert (problem.suspect_kind, problem.suspect_namespace) == (None, None)


DECLARATION = """\
version: 1
sandboxes:
  - template: task
    namespace: sbx
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""
MANIFESTS = """\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: task, namespace: sbx}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {metadata: {labels: {app: task}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: task-egress, namespace: sbx}
spec: {podSelector: {}, policyTypes: [Egress], egress: []}
---
apiVersion: networking.k8s.io/v1
%s
"""


@pytest.mark.parametrize(
    "broken",
    [
        "kind: 7\nmetadata: {name: widening, namespace: sbx}\nspec: {podSelector: {}, egress: [{}]}",
        "kind: NetworkPolicy\nmetadata: {name: widening, namespace: 7}\n"
        "spec: {podSelector: {}, egress: [{}]}",
    ],
)
def test_the_check_comes_out_not_evaluable(tree: Path, broken: str) -> None:
    write(tree, "m.yaml", MANIFESTS % broken)
    write(tree, ".egress-lint.yaml", DECLARATION)
    report = run_check(CheckOptions(paths=("m.yaml",), config=tree / ".egress-lint.yaml"))
    (sandbox,) = report.sandboxes
    assert sandbox.egress.union is not None
    assert sandbox.egress.union.refusal == "not-evaluable"
