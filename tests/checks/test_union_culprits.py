"""A union culprit is made once for the paths of a namespace that blame one
object alike (``culprits._culprit_of``): paths whose pods read other labels
judge the object again into equal entries, and take the culprit made first;
a culprit whose rules or object differ is never handed to them."""

from __future__ import annotations

import operator
from typing import Any

from lint.checks.candidates import Sourced, cilium_candidates, unparsed_placeholders
from lint.checks.context import CheckContext, JudgedEntry
from lint.checks.culprits import RefusalContext, _culprit_of, _made_culprit
from lint.checks.judging import Scope, _placeholders, _prepared
from lint.decision.allowance import build_allowance
from lint.decision.model import (
    Candidate,
    EgressVerdict,
    Examined,
    PolicyDocument,
    RuleVerdict,
    Tri,
)
from lint.inventory import KubeObject, build_inventory
from lint.loading.documents import LoadedDocument, LoadProblem
from lint.report.model import ExaminedEntry, Location, SandboxRef
from lint.rules import culprit_rules
from tests.decision.manifests import deny_all

WIDE: dict[str, Any] = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}
LOCAL: dict[str, Any] = {"to": [{"podSelector": {}}]}
WIDENS = str(EgressVerdict.WIDENS_EGRESS)


def _sourced(line: int) -> Sourced:
    value = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "x", "namespace": "team"},
        "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [WIDE, LOCAL]},
    }
    obj = KubeObject("NetworkPolicy", "x", "team", LoadedDocument("f.yaml", line, 9, 0, value))
    return Sourced(Candidate("NetworkPolicy", value, 0), "manifest", obj, ("spec",))


def _judged(sourced: Sourced, both: bool) -> JudgedEntry:
    """A fresh judgement of the object: rule 0 widens, and rule 1 too when ``both``."""
    rules = (
        RuleVerdict(Tri.YES, "lets out 0.0.0.0/0", 0),
        RuleVerdict(Tri.YES if both else Tri.NO, "lets out pods" if both else None, 1),
    )
    document = PolicyDocument("NetworkPolicy", "x", Tri.YES, True, rules)
    examined = Examined(
        "NetworkPolicy", "x", EgressVerdict.WIDENS_EGRESS, rules[0].detail, document
    )
    entry = ExaminedEntry(
        "NetworkPolicy", "x", "team", WIDENS, rules[0].detail, "manifest", Location("f.yaml", 3)
    )
    return JudgedEntry(examined, entry, sourced)


def _refusal(memo: dict[Any, Any]) -> RefusalContext:
    translation = deny_all()
    return RefusalContext(
        sandbox=SandboxRef("team", "t", None, "direct"),
        declaration=Location("config.yaml", 1),
        rule_id="egress-widens",
        remedy="",
        culprit_rules=culprit_rules("union"),
        rules_key="egress",
        allowance=build_allowance(translation),
        memo=memo,
    )


def test_paths_that_judge_an_object_alike_share_its_culprit() -> None:
    memo: dict[Any, Any] = {}
    refusal = _refusal(memo)
    blamed = refusal.culprit_rules[WIDENS]
    first, other = _sourced(1), _sourced(20)
    made: dict[tuple[int, bool], Any] = {}
    for sourced in (first, other, first):
        for both in (False, True, False):
            judged = _judged(sourced, both)  # a fresh judgement each time
            culprit, _ = _culprit_of(judged, refusal, blamed, None)
            assert culprit == _made_culprit(judged, refusal, blamed, None)
            assert made.setdefault((id(sourced), both), culprit) is culprit
    # One rule or two: two culprits (two clauses), never one for both.
    assert made[(id(first), False)] != made[(id(first), True)]
    assert len({id(culprit) for culprit in made.values()}) == 4


def test_a_namespace_s_scopes_share_its_unparsed_documents() -> None:
    """Every scope of a namespace fails closed on the same unparsed
    documents, found once: one placeholder each, so their culprits are made
    once; another namespace finds its own."""
    problems = [
        LoadProblem("a.yaml", 3, "bad", suspect_kind="NetworkPolicy"),
        LoadProblem("b.yaml", 5, "bad", suspect_kind="NetworkPolicy", suspect_namespace="one"),
    ]
    ctx = CheckContext(build_inventory([], "one"), problems)
    seen: dict[str, Any] = {}
    for namespace, pooled in (("one", False), ("one", True), ("two", False), ("one", False)):
        found = _placeholders(ctx, Scope(namespace, None, pooled, False))
        assert list(found) == unparsed_placeholders(problems, namespace)
        assert all(map(operator.is_, found, seen.setdefault(namespace, found)))
    assert [p.location.file for p in seen["one"]] == ["a.yaml", "b.yaml"]
    assert [p.location.file for p in seen["two"]] == ["a.yaml"]


def test_the_cilium_policies_alone_are_prepared_once_for_every_template() -> None:
    """A scope of the Cilium policies alone (reach's reading of them under
    engine core) holds no controller policy: every template of a pooled
    path shares one preparation, equal to the namespace's Cilium policies;
    a full pooled scope keeps its own per template."""
    cilium = {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": "c", "namespace": "one"},
        "spec": {"endpointSelector": {}, "egress": [{"toEndpoints": [{}]}]},
    }
    templates = [
        {
            "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
            "kind": "SandboxTemplate",
            "metadata": {"name": name, "namespace": "one"},
            "spec": {"podTemplate": {"metadata": {"labels": {"app": name}}, "spec": {}}},
        }
        for name in ("t1", "t2")
    ]
    documents = [
        LoadedDocument("all.yaml", 2 * i + 2, 2 * i + 2, 0, value)
        for i, value in enumerate([cilium, *templates])
    ]
    inventory = build_inventory(documents, "one")
    ctx = CheckContext(inventory, [])
    namespace = inventory.namespace("one")
    first, second = (namespace.named("SandboxTemplate", name) for name in ("t1", "t2"))
    alone = [_prepared(ctx, Scope("one", t, True, True, only_cilium=True)) for t in (first, second)]
    assert alone[0] is alone[1]
    assert [p.item for p in alone[0].candidates] == cilium_candidates(namespace, inventory)
    full = [_prepared(ctx, Scope("one", t, True, True)) for t in (first, second)]
    assert full[0] is not full[1]
