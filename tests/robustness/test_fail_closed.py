"""Fail-closed audit (issue 7, item 2): breaking any field of any policy never
turns a refusal into a pass.

Every field of every policy shape in the fixtures (the demo, each scenario,
the rendered Helm chart, and small trees for shapes they lack) is replaced
by a wrong type, null or junk, or deleted, and the check is run in-process
on the result (SEMANTICS §17.7: a policy that cannot be read fails closed).
A deterministic sample of the corpus policies is audited the same way; set
``EGRESS_LINT_EXHAUSTIVE=1`` to audit every corpus policy (about 300,000
mutations, about half an hour on two cores). ``audit.py`` defines flips, fail-opens
and their exceptions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.report.model import SandboxRef
from tests.robustness.audit import AuditResult, audit, classify, flips
from tests.robustness.mutate import DELETE, Mutation, apply, category, mutations
from tests.robustness.outcome import Checker, Verdicts, outcomes
from tests.robustness.synthetic import synthetic_trees
from tests.robustness.trees import CORPUS, FIXTURES, Tree, corpus_trees, fixture_trees

CORPUS_SAMPLE = 60
CORPUS_SEED = 7
EXHAUSTIVE = os.environ.get("EGRESS_LINT_EXHAUSTIVE") == "1"

RESULTS: list[AuditResult] = []
"""Every audit of this session, for the summary in ``conftest.py``."""

FIXTURE_TREES = [*fixture_trees(), *synthetic_trees()]


def _run(tree: Tree, tmp_path: Path) -> AuditResult:
    result = audit(tree, tmp_path)
    RESULTS.append(result)
    return result


def _report(result: AuditResult) -> str:
    return "\n".join(flip.describe() for flip in result.fail_open)


@pytest.mark.slow
@pytest.mark.parametrize("tree", FIXTURE_TREES, ids=[tree.name for tree in FIXTURE_TREES])
def test_no_mutation_of_a_fixture_policy_fails_open(tree: Tree, tmp_path: Path) -> None:
    result = _run(tree, tmp_path)
    assert sum(result.mutations.values()) > 0
    assert result.fail_open == [], _report(result)


def _corpus_trees() -> list[Tree]:
    return list(corpus_trees(CORPUS_SAMPLE, CORPUS_SEED))


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present")
@pytest.mark.parametrize("tree", _corpus_trees(), ids=lambda tree: tree.name)
def test_no_mutation_of_a_sampled_corpus_policy_fails_open(tree: Tree, tmp_path: Path) -> None:
    result = _run(tree, tmp_path)
    assert result.fail_open == [], _report(result)


@pytest.mark.slow
@pytest.mark.skipif(
    not EXHAUSTIVE, reason="set EGRESS_LINT_EXHAUSTIVE=1 to audit every corpus policy"
)
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present")
def test_no_mutation_of_any_corpus_policy_fails_open(tmp_path: Path) -> None:
    failures = []
    for number, tree in enumerate(corpus_trees(None, CORPUS_SEED)):
        workdir = tmp_path / str(number)
        workdir.mkdir()
        failures += _run(tree, workdir).fail_open
    assert failures == [], "\n".join(flip.describe() for flip in failures)


# The audit must be able to fail.

_REF = SandboxRef("sbx", "task", None, "direct")
_WIDENS = {_REF: Verdicts("policy-widens-egress", "match", None)}
_PASSES = {_REF: Verdicts(None, "match", None)}
_TREE = Tree("t", ({"kind": "NetworkPolicy", "spec": {"policyTypes": ["Egress"]}},), None)


@pytest.mark.parametrize(
    ("path", "replacement", "outcome"),
    [
        (("spec",), 0, "fail-open"),
        (("spec",), None, "flip"),
        (("spec",), {}, "flip"),
        (("spec",), DELETE, "flip"),
        (("spec", "policyTypes", 0), 0, "sanctioned"),
    ],
)
def test_a_flip_is_a_fail_open_only_after_a_type_change(
    path: tuple[str | int, ...], replacement: Any, outcome: str
) -> None:
    original = {"kind": "NetworkPolicy", "spec": {"policyTypes": ["Egress"]}}
    value: Any = original
    for step in path:
        value = value[step]
    mutation = Mutation(0, path, value, replacement, category(path, value, replacement))
    result = AuditResult("t")
    for flip in flips(_TREE, mutation, _WIDENS, _PASSES):
        classify(result, _TREE, flip)
    assert len(result.flips) == 1
    assert len(result.fail_open) == (outcome == "fail-open")
    assert len(result.sanctioned) == (outcome == "sanctioned")


def test_a_refusal_that_stays_a_refusal_is_no_flip() -> None:
    other = {_REF: Verdicts("not-evaluable", "mismatch", "port-open")}
    mutation = Mutation(0, ("spec",), {}, 0, "type-change")
    assert flips(_TREE, mutation, _WIDENS, other) == []
    assert [f.decision for f in flips(_TREE, mutation, _WIDENS, {})] == ["sandbox"]


# Minimal reproducers of the known fail-opens (audit.KNOWN_BUGS), outside
# the loading layer: they pass once the owner fixes them.

_TYPED_LIST_ITEM = """\
apiVersion: v1
kind: Namespace
metadata: {name: sbx}
---
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: task, namespace: sbx}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {metadata: {labels: {app: task}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: baseline, namespace: sbx}
spec: {podSelector: {}, policyTypes: [Egress], egress: []}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicyList
items:
- apiVersion: networking.k8s.io/v1
  {kind}
  metadata: {name: widening, namespace: sbx}
  spec:
    podSelector: {}
    policyTypes: [Egress]
    egress: [{to: [{ipBlock: {cidr: 0.0.0.0/0}}]}]
"""
_DECLARATION = "version: 1\nsandboxes:\n  - template: task\n    namespace: sbx\n    egress: {policy: {kind: deny-all}}\n    ingress: unverified\n"


@pytest.mark.parametrize("kind_line", ["kind: 0", "kind: null", "", "kind: [NetworkPolicy]"])
def test_a_typed_list_item_without_a_readable_kind_is_still_judged(
    kind_line: str, tmp_path: Path
) -> None:
    manifests = tmp_path / "m.yaml"
    manifests.write_text(_TYPED_LIST_ITEM.replace("{kind}", kind_line), encoding="utf-8")
    config = tmp_path / ".egress-lint.yaml"
    config.write_text(_DECLARATION, encoding="utf-8")
    report = run_check(CheckOptions(paths=(str(manifests),), config=config))
    (sandbox,) = outcomes(report).values()
    assert sandbox.union is not None


def test_mutations_cover_every_field_and_class() -> None:
    document = {"kind": "NetworkPolicy", "spec": {"egress": [{"ports": [{"port": 443}]}]}}
    found = mutations([document])
    paths = {mutation.path for mutation in found}
    assert paths == {
        ("kind",),
        ("spec",),
        ("spec", "egress"),
        ("spec", "egress", 0),
        ("spec", "egress", 0, "ports"),
        ("spec", "egress", 0, "ports", 0),
        ("spec", "egress", 0, "ports", 0, "port"),
    }
    port = [m for m in found if m.path[-1] == "port"]
    assert {m.category for m in port} == {"same-type", "null", "delete", "type-change"}
    # 0 is the port's own type (int-or-string, and 443 is a number): "junk" too.
    assert {repr(m.replacement) for m in port if m.category == "same-type"} == {"0", "''", "'junk'"}
    deleted = apply([document], Mutation(0, ("spec", "egress"), None, DELETE, "delete"))
    assert deleted[0] == {"kind": "NetworkPolicy", "spec": {}}
    assert document["spec"]["egress"], "apply must not change the original"


@pytest.mark.parametrize(
    ("path", "original", "replacement", "expected"),
    [
        (("spec", "egress"), [], {}, "type-change"),
        (("spec", "egress"), [], ["junk"], "same-type"),
        (("spec", "egress"), {"to": []}, [], "from-ill-typed"),  # a corpus bad-path test
        (("spec", "enableDefaultDeny", "egress"), False, "junk", "type-change"),
        (("spec", "enableDefaultDeny", "egress"), False, True, "same-type"),
        (("spec", "egress", 0, "ports", 0, "port"), 443, "https", "same-type"),
        (("spec", "egress", 0, "ports", 0, "port"), ["tbd"], 0, "from-ill-typed"),
        (("spec", "egress", 0, "ports", 0, "endPort"), 450, "450", "type-change"),
        (("metadata", "labels", "team"), "a", 0, "type-change"),  # not in the schema
        (("metadata", "name"), None, "x", "from-null"),
        (("metadata", "name"), "x", None, "null"),
    ],
)
def test_mutation_classes_follow_the_api_server_s_types(
    path: tuple[str | int, ...], original: Any, replacement: Any, expected: str
) -> None:
    assert category(path, original, replacement) == expected


def test_the_checker_reads_each_tree_as_its_files_do(tmp_path: Path) -> None:
    tree = next(tree for tree in FIXTURE_TREES if tree.name == "demo")
    checker = Checker(tree, tmp_path)
    with checker.running():
        streamed = checker.run(tree.documents)
    config = FIXTURES / "demo" / ".egress-lint.yaml"
    files = outcomes(run_check(CheckOptions(paths=(str(config.parent),), config=config)))
    assert streamed == files
