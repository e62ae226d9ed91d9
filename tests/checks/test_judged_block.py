"""A path's judged entries are the full scan's (``judging.Judged``).

The check lays a scope's shared ``does-not-select`` entries out once, in a
block, and puts each path's visited candidates in their places; verdict
searches read only the entries that are not ``does-not-select``. Over
generated namespaces and a run of pods judged one after another (so blocks
are filled, rebuilt and reused), every form of a path's list must equal
judging every candidate for that pod alone, and the refusal found from the
selecting entries must be the full list's.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from lint.checks.candidates import Sourced, cilium_candidates, with_synthesized
from lint.checks.context import CheckContext, Origin, examined_entries
from lint.checks.egress import union_context
from lint.checks.judging import COPY_NOT_ISOLATING, Judged, Judging, Scope, judged_entries
from lint.checks.reach_candidates import reach_data
from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import document_name as _document_name
from lint.decision.egress_documents import egress_documents
from lint.decision.ingress import (
    examine_ingress,
    ingress_documents,
    ingress_refusal,
    summarize_ingress,
)
from lint.decision.model import Candidate, EgressVerdict, PolicyDocument, Subject, Tri
from lint.decision.selection_index import ScopeSelection
from lint.decision.union import examine, summarize_union, union_refusal
from lint.inventory import Inventory, build_inventory
from lint.loading import load
from lint.report.model import ExaminedEntry
from tests.decision.manifests import NAME, NAMESPACE, deny_all

PORT = 8888
TRANSLATION = deny_all()
ALLOWANCE = build_allowance(TRANSLATION)

_selector = st.sampled_from(
    [
        {},
        {"matchLabels": {"app": "a"}},
        {"matchLabels": {"app": "b", "tier": "x"}},
        {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}},
        {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
        {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["a"]}]},
        {"matchExpressions": [{"key": "app", "operator": "Bogus"}]},
        "x",
    ]
)
_egress = st.sampled_from(
    [[], [{}], [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}], [{"to": "x"}], "x"]
)
_ingress = st.sampled_from([[], [{}], [{"ports": [{"port": PORT}]}], [{"ports": [{"port": 80}]}]])
_types = st.sampled_from([None, ["Egress"], ["Ingress"], ["Egress", "Ingress"]])
_name = st.sampled_from(["a", "b", NAME])


@st.composite
def _core(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"podSelector": draw(_selector), "egress": draw(_egress)}
    spec["ingress"] = draw(_ingress)
    types = draw(_types)
    if types is not None:
        spec["policyTypes"] = types
    return _object("networking.k8s.io/v1", "NetworkPolicy", draw(_name), spec)


def _cilium_selector(selector: Any) -> Any:
    if isinstance(selector, dict) and "matchLabels" in selector:
        return {"matchLabels": {f"k8s:{k}": v for k, v in selector["matchLabels"].items()}}
    return selector


@st.composite
def _cilium_spec(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"endpointSelector": _cilium_selector(draw(_selector))}
    if draw(st.booleans()):
        spec["egress"] = draw(st.sampled_from([[{}], [{"toCIDR": ["10.0.0.0/8"]}]]))
    if draw(st.booleans()):
        spec["ingress"] = draw(st.sampled_from([[{}], [{"fromEntities": ["world"]}]]))
    return spec


@st.composite
def _cilium(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]))
    if draw(st.booleans()):
        body = {"spec": draw(_cilium_spec())}
    else:
        body = {"specs": draw(st.lists(_cilium_spec(), min_size=1, max_size=3))}
    made = _object("cilium.io/v2", kind, draw(_name), {})
    del made["spec"]
    if kind.startswith("CiliumClusterwide"):
        del made["metadata"]["namespace"]
    return {**made, **body}


def _object(api: str, kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    metadata = {"name": name, "namespace": NAMESPACE}
    return {"apiVersion": api, "kind": kind, "metadata": metadata, "spec": spec}


_pods = st.lists(
    st.dictionaries(
        st.sampled_from(["app", "tier", "sandbox.namzu.ai/template"]),
        st.sampled_from(["a", "b", "x", "namzu-task"]),
        max_size=3,
    ),
    min_size=1,
    max_size=5,
)


def _inventory(objects: list[dict[str, Any]]) -> tuple[Inventory, Any]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "all.yaml"
        path.write_text("".join(f"---\n{json.dumps(o)}\n" for o in objects))
        loaded = load([str(path)])
    return build_inventory(loaded.documents, NAMESPACE), loaded.problems


def _judging(subject: Subject, direction: str, inventory: Inventory) -> Judging:
    groups = reach_data(inventory, {}).cidr_groups
    if direction == "ingress":

        def read_ingress(candidate: Candidate) -> list[PolicyDocument]:
            return ingress_documents(candidate, subject, PORT, groups)

        return Judging(read_ingress, examine_ingress, ("ingress", PORT), "ingress", subject)

    def read(candidate: Candidate) -> list[PolicyDocument]:
        return egress_documents(candidate, subject, ALLOWANCE, TRANSLATION, groups)

    named = (TRANSLATION.kind, TRANSLATION.name)
    return Judging(read, examine, union_context(TRANSLATION), "egress", subject, named)


def _full_scan(
    inventory: Inventory, with_cilium: bool, judging: Judging
) -> tuple[list[ExaminedEntry], list[Any]]:
    """Every candidate judged for this pod alone, in §5.1 order."""
    namespace = inventory.namespace(NAMESPACE)
    sourced: list[Sourced] = with_synthesized(namespace, ())
    if with_cilium:
        sourced += cilium_candidates(namespace, inventory)
    return _judged_one_by_one(sourced, judging)


def _judged_one_by_one(
    sourced: list[Sourced], judging: Judging
) -> tuple[list[ExaminedEntry], list[Any]]:
    """``sourced`` judged for this pod alone, each candidate in turn."""
    entries: list[ExaminedEntry] = []
    examined: list[Any] = []
    split = _split_copies(sourced, judging)
    for item in sourced:
        documents = judging.read(item.candidate)
        judged = [_copy_verdict(judging.examine(d), split.get(id(item))) for d in documents]
        origins: dict[int, Origin] = {id(document): item for document in documents}
        entries += examined_entries(judged, origins, judging.rules_key)
        examined += judged
    return entries, examined


def _isolates(document: Any) -> bool:
    return document.selects is Tri.YES and document.enforces and document.unreadable is None


def _split_copies(sourced: list[Sourced], judging: Judging) -> dict[int, str]:
    """Issue 26: the isolating copies of a name some copy of which does not
    isolate the pod, each with the places of those that do not."""
    if judging.rules_key != "egress":
        return {}
    by_name: dict[tuple[str, str], list[Sourced]] = {}
    for item in sourced:
        by_name.setdefault((item.candidate.kind, _document_name(item.candidate)), []).append(item)
    split: dict[int, str] = {}
    for copies in by_name.values():
        isolating = [c for c in copies if any(map(_isolates, judging.read(c.candidate)))]
        others = [c for c in copies if c not in isolating]
        if isolating and others:
            places = ", ".join(f"{c.obj.document.file}:{c.obj.document.line}" for c in others)
            split.update((id(c), places) for c in isolating)
    return split


def _copy_verdict(examined: Any, places: str | None) -> Any:
    if places is None or examined.verdict != EgressVerdict.WITHIN:
        return examined
    detail = COPY_NOT_ISOLATING.format(places=places)
    return replace(examined, verdict=EgressVerdict.NOT_EGRESS_SCOPED, detail=detail)


def _decided(direction: str, examined: list[Any]) -> tuple[Any, Any]:
    """The whole list's refusal and summary."""
    if direction == "ingress":
        decision = summarize_ingress(examined, PORT)
    else:
        decision = summarize_union(examined, ALLOWANCE)
    return decision.refusal, decision.summary


def _searched(direction: str, selecting: list[Any]) -> tuple[Any, Any]:
    """The refusal and summary as the check finds them, from the selecting
    entries alone."""
    if direction == "ingress":
        return ingress_refusal(selecting, PORT)
    return union_refusal(selecting, ALLOWANCE)


def _assert_same(judged: Judged, entries: list[ExaminedEntry], examined: list[Any]) -> None:
    assert judged.report() == tuple(entries)
    assert [j.entry for j in judged.entries()] == entries
    assert [(e.kind, e.name, e.verdict, e.detail) for e in judged.examined()] == [
        (e.kind, e.name, e.verdict, e.detail) for e in examined
    ]
    selecting = [e for e in entries if e.verdict != "does-not-select"]
    assert [j.entry for j in judged.selecting] == selecting


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policies=st.lists(st.one_of(_core(), _cilium()), max_size=8),
    pods=_pods,
    direction=st.sampled_from(["egress", "ingress"]),
    with_cilium=st.booleans(),
)
def test_a_paths_entries_are_the_full_scans(
    policies: list[dict[str, Any]], pods: list[dict[str, str]], direction: str, with_cilium: bool
) -> None:
    inventory, problems = _inventory(policies)
    ctx = CheckContext(inventory, problems)  # one memo for every pod: blocks are reused
    scope = Scope(NAMESPACE, None, False, with_cilium)
    for labels in pods:
        subject = Subject(NAMESPACE, labels)
        judging = _judging(subject, direction, inventory)
        judged = judged_entries(ctx, scope, labels, judging)
        entries, examined = _full_scan(inventory, with_cilium, judging)
        _assert_same(judged, entries, examined)
        selecting = [j.examined for j in judged.selecting]
        assert _searched(direction, selecting) == _decided(direction, examined)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policies=st.lists(st.one_of(_core(), _cilium()), max_size=8),
    labels=_pods.map(lambda pods: pods[0]),
    direction=st.sampled_from(["egress", "ingress"]),
)
def test_a_shared_entry_that_selects_is_still_searched(
    policies: list[dict[str, Any]], labels: dict[str, str], direction: str
) -> None:
    """Were the index to leave out a candidate that selects the pod, its
    shared entries would not be ``does-not-select``; they are searched all
    the same, so the first pod's verdicts do not rest on the index."""
    inventory, problems = _inventory(policies)
    ctx = CheckContext(inventory, problems)
    subject = Subject(NAMESPACE, labels)
    judging = _judging(subject, direction, inventory)
    with pytest.MonkeyPatch.context() as patch:
        # An index that visits only the candidates it can say nothing about.
        patch.setattr(
            ScopeSelection, "selecting", lambda self, _: {*self.core.always, *self.cilium.always}
        )
        judged = judged_entries(ctx, Scope(NAMESPACE, None, False, True), labels, judging)
    entries, examined = _full_scan(inventory, True, judging)
    _assert_same(judged, entries, examined)


def _scan_of(inventory: Inventory, scope: Scope, judging: Judging) -> tuple[list[Any], list[Any]]:
    """The full scan of what ``scope`` reads: the Cilium candidates alone
    for reach's reading of them under engine core."""
    if not scope.only_cilium:
        return _full_scan(inventory, scope.with_cilium, judging)
    sourced = cilium_candidates(inventory.namespace(NAMESPACE), inventory)
    return _judged_one_by_one(list(sourced), judging)


SCOPES = [
    Scope(NAMESPACE, None, False, False),
    Scope(NAMESPACE, None, False, True),
    Scope(NAMESPACE, None, False, True, only_cilium=True),
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policies=st.lists(st.one_of(_core(), _cilium()), max_size=8),
    visits=st.lists(
        st.tuples(_pods.map(lambda pods: pods[0]), st.sampled_from(SCOPES)),
        min_size=1,
        max_size=8,
    ),
    direction=st.sampled_from(["egress", "ingress"]),
)
def test_scopes_that_share_a_run_see_each_others_fills(
    policies: list[dict[str, Any]], visits: list[tuple[dict[str, str], Scope]], direction: str
) -> None:
    """The scopes of a namespace share the slots of the runs they read (its
    NetworkPolicies, its Cilium policies): a slot one scope fills is laid
    out in every other's block. Pods judged in turn in any of them get the
    entries judging every candidate of their scope gives."""
    inventory, problems = _inventory(policies)
    ctx = CheckContext(inventory, problems)
    for labels, scope in visits:
        subject = Subject(NAMESPACE, labels)
        judging = _judging(subject, direction, inventory)
        judged = judged_entries(ctx, scope, labels, judging, placeholders=not scope.only_cilium)
        entries, examined = _scan_of(inventory, scope, judging)
        _assert_same(judged, entries, examined)
    runs = [key for key in ctx.memo.scopes if isinstance(key, tuple) and key[0] == "quiet-run"]
    # One set of slots per run and direction, whichever scopes read it.
    assert len(runs) <= 2
