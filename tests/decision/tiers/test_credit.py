"""Credit (``credit``): the manifests' evidence (CALICO, CILIUM-R), the
declaration's ``cluster.enforces``, the credit of each kind, and how
``build_tier_input`` carries them into the documents."""

from __future__ import annotations

import random
from typing import Any

import pytest

from lint.decision.model import EgressRefusal, Tri
from lint.decision.tiers.credit import Evidence, credits, manifest_evidence
from lint.kinds import ENFORCEABLE, ENFORCES_WORDS, NETWORK_POLICY
from tests.decision.tiers.objects import (
    ALL2,
    anp,
    ask,
    banp,
    build,
    candidates,
    cilium_np,
    cnp,
    core_np,
    gnp,
    tier,
)

ANP_KEY = "AdminNetworkPolicy"
GNP_KEY = "GlobalNetworkPolicy.projectcalico.org"
CNP_KEY = "CiliumNetworkPolicy"


@pytest.mark.parametrize(
    ("objects", "cilium", "evidence"),
    [
        ([], False, Evidence(False, False)),
        ([], True, Evidence(False, True)),
        ([gnp("g", {})], False, Evidence(True, False)),
        ([tier("t", {})], False, Evidence(True, False)),
        ([cilium_np({})], False, Evidence(False, True)),
        ([gnp("g", {}), cilium_np({})], False, Evidence(True, True)),
        ([core_np({}), anp("a", 1, [])], False, Evidence(False, False)),
    ],
)
def test_manifest_evidence(objects: list[Any], cilium: bool, evidence: Evidence) -> None:
    assert manifest_evidence(candidates(objects), cilium) == evidence


def test_without_a_declaration_the_api_kinds_are_uncredited() -> None:
    found = credits(Evidence(calico=True), None)
    for word in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"):
        credit = found[word]
        assert credit.value is Tri.UNKNOWN
        assert credit.why is not None and "cluster.enforces" in credit.why and word in credit.why
    assert found[GNP_KEY].value is Tri.YES
    assert found[CNP_KEY].value is Tri.YES
    assert NETWORK_POLICY.key not in found


def test_calico_is_uncredited_when_cilium_policies_are_there_too() -> None:
    credit = credits(Evidence(calico=True, cilium_r=True), None)[GNP_KEY]
    assert credit.value is Tri.UNKNOWN and credit.why is not None and "Calico" in credit.why


def test_a_declaration_decides_alone() -> None:
    found = credits(Evidence(calico=True), frozenset({"AdminNetworkPolicy"}))
    assert found[ANP_KEY].value is Tri.YES
    assert found[ANP_KEY].why is not None and "lists AdminNetworkPolicy" in (
        found[ANP_KEY].why or ""
    )
    assert found[GNP_KEY].value is Tri.UNKNOWN and "Calico" in (found[GNP_KEY].why or "")
    assert found[CNP_KEY].value is Tri.UNKNOWN


def test_every_enforceable_kind_has_a_credit() -> None:
    found = credits(Evidence(), frozenset(ENFORCES_WORDS))
    keys = {kind.key for kinds in ENFORCEABLE.values() for kind in kinds}
    assert set(found) == keys and all(c.value is Tri.YES for c in found.values())


def test_documents_carry_their_credit_and_why() -> None:
    built = build([anp("a", 10, [{"action": "Deny", **ALL2}])], "Dn", enforces=None)
    (document,) = [d for d in built.input.documents if d.kind == ANP_KEY]
    assert document.credit is Tri.UNKNOWN and "AdminNetworkPolicy" in (document.credit_why or "")
    built = build([anp("a", 10, [{"action": "Deny", **ALL2}])], "Dn")
    (document,) = [d for d in built.input.documents if d.kind == ANP_KEY]
    assert document.credit is Tri.YES


def test_an_uncredited_deny_never_bounds_and_a_credited_one_does() -> None:
    objects = [banp([{"action": "Deny", **ALL2}])]
    uncredited, _ = ask(build(objects, "Dn", enforces=frozenset()), "8.8.8.8:443/TCP")
    credited, _ = ask(
        build(objects, "Dn", enforces=frozenset({"BaselineAdminNetworkPolicy"})), "8.8.8.8:443/TCP"
    )
    assert uncredited.refusal is EgressRefusal.NOT_EVALUABLE
    assert credited.refusal is None


@pytest.mark.parametrize(
    ("objects", "code", "calico_form", "cilium_r"),
    [
        ([gnp("g", {})], "D", True, False),
        ([gnp("g", {}), cilium_np({})], "D", False, True),
        ([], "DC", False, True),
        ([core_np({})], "D", False, False),
    ],
)
def test_the_evidence_decides_the_form_whatever_is_declared(
    objects: list[Any], code: str, calico_form: bool, cilium_r: bool
) -> None:
    for enforces in (None, frozenset(), frozenset(ENFORCES_WORDS)):
        built = build(objects, code, enforces=enforces).input
        assert (built.calico_form, built.cilium_r) == (calico_form, cilium_r)


def test_the_input_does_not_depend_on_the_order_of_the_objects() -> None:
    objects = [
        anp("a", 10, [{"action": "Deny", **ALL2}]),
        anp("b", 10, [{"action": "Allow", **ALL2}]),
        cnp("c", "Baseline", 1, [{"action": "Deny", **ALL2}]),
        gnp("g", {"selector": "all()", "tier": "x", "egress": [{"action": "Pass"}]}),
        tier("x", {"order": 10}),
        core_np({"podSelector": {}, "egress": [{}]}, name="np1"),
        core_np({"podSelector": {}, "egress": [{}]}, name="np1"),
    ]
    first = build(objects).input
    shuffled = objects[:]
    random.Random(7).shuffle(shuffled)
    again = build(shuffled).input
    strip = [(d.kind, d.name, d.slot, d.order, d.rules) for d in first.documents]
    assert strip == [(d.kind, d.name, d.slot, d.order, d.rules) for d in again.documents]
    assert first.tiers == again.tiers
