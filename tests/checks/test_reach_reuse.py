"""Reach reuses what it built for one path on the next (the entries of the
policies that do not select the pod, the rules each tier reader read). The
reuse must be invisible: a sandbox's reach among many others is its reach
when its entry is declared alone, two entries on one template keep their
own pods and allowances, and equal policies in two namespaces keep their
own namespace, file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lint.checks.candidates import location_of
from lint.checks.context import CheckContext, held_alike, precise_location
from lint.checks.reach import (
    _culprit,
    _culprit_finding_once,
    _listed_entries,
    _objects_of,
    _order_key,
    _place,
    _sort_key,
    _undecidable_entry,
    _unparsed,
    _unparsed_entry,
    _unselected_entry,
    tier_candidates,
)
from lint.checks.runner import CheckOptions, run_check
from lint.decision.model import EgressVerdict, IngressVerdict
from lint.decision.tiers.model import Undecidable
from lint.decision.tiers.questions import Listed
from lint.inventory import KubeObject, build_inventory
from lint.loading import load
from lint.loading.documents import LoadedDocument, LoadProblem
from lint.report.json_report import report_document
from lint.report.model import ExaminedEntry, Location

PROFILE_KEY = "sandbox.namzu.ai/egress-profile"
WIDE = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}
LOCAL = {"to": [{"podSelector": {}}], "ports": [{"port": 443}]}


def _policy(name: str, namespace: str, selector: dict[str, Any], rule: Any) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"podSelector": selector, "policyTypes": ["Egress"], "egress": [rule]},
    }


def _template(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
        "kind": "SandboxTemplate",
        "metadata": {"name": "task", "namespace": namespace},
        "spec": {"podTemplate": {"metadata": {"labels": {"app": "a"}}, "spec": {}}},
    }


def _cilium(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": "cil", "namespace": namespace},
        "spec": {"endpointSelector": {}, "egress": [{"toEndpoints": [{}]}]},
    }


def _objects(namespace: str, cilium: bool) -> list[dict[str, Any]]:
    """A namespace's policies: two that select no sandbox pod, two that
    select every one, one that selects only the `web` profile's pods; with
    ``cilium``, a Cilium policy too (without one, the `api` entry's path,
    on Cilium, reads the core policies under other evidence than `web`)."""
    return [
        _template(namespace),
        _policy("quiet-1", namespace, {"matchLabels": {"app": "z"}}, WIDE),
        _policy("quiet-2", namespace, {"matchLabels": {"app": "z"}}, LOCAL),
        _policy("for-a", namespace, {"matchLabels": {"app": "a"}}, LOCAL),
        _policy("wide-a", namespace, {"matchLabels": {"app": "a"}}, WIDE),
        _policy("web-only", namespace, {"matchLabels": {PROFILE_KEY: "web"}}, WIDE),
        *([_cilium(namespace)] if cilium else []),
    ]


ENTRIES = [
    "{template: task, namespace: sbx, egress: {profile: web, policy: {kind: deny-all}}}",
    "{template: task, namespace: sbx, egress: {profile: api, engine: cilium,"
    " policy: {kind: static, allowedHosts: [example.com]}}}",
    "{template: task, namespace: second, egress: {profile: web, policy: {kind: deny-all}}}",
]


def _sandboxes(tree: Path, config: Path, entries: list[str]) -> dict[tuple[str, ...], Any]:
    config.write_text("version: 1\nsandboxes:\n" + "".join(f"  - {e}\n" for e in entries))
    report = report_document(run_check(CheckOptions(paths=(str(tree),), config=config)))
    return {(s["namespace"], s["profile"], s["path"]): s for s in report["sandboxes"]}


def _reach(sandbox: Any) -> dict[str, Any]:
    return {entry["name"]: entry for entry in sandbox["egress"]["reach"]["examined"]}


@pytest.mark.parametrize("cilium", [False, True])
def test_reach_among_many_paths_is_reach_alone(cilium: bool, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    # Each namespace in its own file: equal policies at equal lines.
    for namespace in ("second", "sbx"):
        text = "".join(f"---\n{json.dumps(d)}\n" for d in _objects(namespace, cilium))
        (tree / f"{namespace}.yaml").write_text(text)
    joint = _sandboxes(tree, tmp_path / "together.yaml", ENTRIES)
    for index, entry in enumerate(ENTRIES):
        for key, sandbox in _sandboxes(tree, tmp_path / f"alone-{index}.yaml", [entry]).items():
            assert joint[key] == sandbox, key
    web, api = joint[("sbx", "web", "direct")], joint[("sbx", "api", "direct")]
    # One template, two entries: each keeps its pod's labels.
    assert _reach(web)["web-only"]["verdict"] != "does-not-select"
    assert _reach(api)["web-only"]["verdict"] == "does-not-select"
    # Equal policies in two namespaces: each entry names its own.
    for namespace in ("sbx", "second"):
        quiet = _reach(joint[(namespace, "web", "direct")])["quiet-1"]
        assert quiet["verdict"] == "does-not-select"
        assert quiet["namespace"] == namespace
        assert quiet["file"].endswith(f"/{namespace}.yaml")


def test_a_left_out_policy_s_entry_is_made_once_per_object(tmp_path: Path) -> None:
    """Two equal policies in two namespaces, judged under one memo: each
    gets its own entry, and the same object the same entry again."""
    path = tmp_path / "all.yaml"
    policies = [_policy("quiet", namespace, {}, WIDE) for namespace in ("first", "second")]
    path.write_text("".join(f"---\n{json.dumps(p)}\n" for p in policies))
    loaded = load([str(path)])
    inventory = build_inventory(loaded.documents, "first")
    ctx = CheckContext(inventory, loaded.problems)
    offered = [tier_candidates(ctx, namespace)[0] for namespace in ("first", "second", "first")]
    entries = [_unselected_entry(ctx, each)[1][0] for each in offered]
    assert [(e.namespace, e.location and e.location.line) for e in entries] == [
        ("first", 2),
        ("second", 4),
        ("first", 2),
    ]
    assert entries[2] is entries[0]
    assert entries[0].verdict == "does-not-select"


def test_a_culprit_is_made_once_per_entry_object_and_rule() -> None:
    """A namespace's paths list the same culprits: each is made once, and
    never handed to another rule or to an equal-looking object."""
    rules = [{"action": "Allow", "to": [{"networks": ["0.0.0.0/0"]}]}, {"action": "Deny"}]

    def admin(rules: list[Any]) -> KubeObject:
        value = {"kind": "AdminNetworkPolicy", "metadata": {"name": "x"}, "spec": {"egress": rules}}
        return KubeObject("AdminNetworkPolicy", "x", None, LoadedDocument("f.yaml", 1, 9, 0, value))

    entry = ExaminedEntry(
        "AdminNetworkPolicy",
        "x",
        None,
        str(EgressVerdict.WIDENS_EGRESS),
        "rule 0 lets out every point",
        "manifest",
        Location("f.yaml", 3),
    )
    first, other = admin(rules), admin([rules[0], {"action": "Pass"}])
    kept: dict[Any, Any] = {}
    for obj in (first, other, first):
        for path in (("spec", "egress", 0), ("spec", "egress", 1)):
            found = _culprit_finding_once(kept, entry, obj, path, None)
            assert found.culprit == _culprit(entry, obj, path, None)
            assert _culprit_finding_once(kept, entry, obj, path, None) is found
    assert len(kept) == 4
    assert _culprit(entry, first, ("spec", "egress", 0), None) != _culprit(
        entry, other, ("spec", "egress", 0), None
    )


def test_a_listed_entry_s_place_is_kept_per_entry_and_slot() -> None:
    """An entry's place in the list is worked out once per entry and slot:
    the same entry in another slot, or an equal-looking entry at another
    line, never takes a place kept for another."""

    def entry(line: int) -> ExaminedEntry:
        verdict = str(EgressVerdict.DOES_NOT_SELECT)
        return ExaminedEntry(
            "AdminNetworkPolicy", "x", None, verdict, None, "manifest", Location("f.yaml", line)
        )

    def fresh(slot: str, listed: ExaminedEntry) -> Any:
        return (_order_key(slot, listed.kind, listed.name, listed.namespace), _place(listed))

    known: dict[Any, Any] = {}
    first, later = entry(3), entry(9)
    for slot in ("admin", "network-policy", "admin"):
        for listed in (first, later):
            assert _sort_key(known, slot, listed) == fresh(slot, listed)
    assert len(known) == 4
    assert _sort_key(known, "admin", first) != _sort_key(known, "network-policy", first)
    assert _sort_key(known, "admin", first) < _sort_key(known, "admin", later)


def test_unparsed_documents_are_found_once_per_namespace_and_verdict() -> None:
    """The unparsed documents a namespace's paths fail closed on are found
    once per namespace and verdict: an ingress path never takes the egress
    verdict (their words are equal strings), nor a namespace another's."""
    problems = [
        LoadProblem("a.yaml", 3, "bad", suspect_kind="AdminNetworkPolicy"),
        LoadProblem("b.yaml", 5, "bad", suspect_kind="AdminNetworkPolicy", suspect_namespace="one"),
    ]
    ctx = CheckContext(build_inventory([], "one"), problems)
    asked: list[tuple[str, EgressVerdict | IngressVerdict]] = [
        ("one", EgressVerdict.NOT_EVALUABLE),
        ("one", IngressVerdict.NOT_EVALUABLE),
        ("two", EgressVerdict.NOT_EVALUABLE),
        ("one", EgressVerdict.NOT_EVALUABLE),
    ]
    for namespace, verdict in asked:
        found = _unparsed(ctx, namespace, verdict)
        assert [type(j.document.verdict) for j in found] == [type(verdict)] * len(found)
        lines = [j.location.line for j in found]
        assert lines == ([3, 5] if namespace == "one" else [3])


def test_an_undecidable_object_s_entry_is_made_once_per_what_it_says() -> None:
    """A namespace's paths list an undecidable object alike: its entry is
    made once, and never handed to another field, detail or object."""
    value = {"kind": "ClusterUserDefinedNetwork", "metadata": {"name": "u"}, "spec": {"a": [1]}}
    objects = [
        KubeObject(
            "ClusterUserDefinedNetwork", "u", None, LoadedDocument("f.yaml", line, 9, 0, value)
        )
        for line in (1, 20)
    ]
    ctx = CheckContext(build_inventory([], "one"), [])
    made: dict[Any, ExaminedEntry] = {}
    for obj in (*objects, objects[0]):
        for path in ((), ("spec", "a")):
            for detail in ("one reason", "another"):
                thing = Undecidable("ClusterUserDefinedNetwork", "u", detail, 0, path)
                item = Listed(0, EgressVerdict.NOT_EVALUABLE, detail, undecidable=True)
                entry = _undecidable_entry(_listed_entries(ctx), obj, thing, item)
                where = precise_location(obj, path) if path else location_of(obj)
                verdict = str(EgressVerdict.NOT_EVALUABLE)
                fresh = ExaminedEntry(
                    "ClusterUserDefinedNetwork", "u", None, verdict, detail, "manifest", where
                )
                assert entry == fresh
                assert made.setdefault((id(obj), path, detail), entry) is entry
    assert len({id(entry) for entry in made.values()}) == 8


def test_an_unparsed_document_s_entry_is_made_once_per_document() -> None:
    """The entries of a namespace's unparsed documents are made once each:
    the same document the same entry, another document its own; and
    another namespace, which finds the same documents anew, lists the same
    entries (one object for the whole run)."""
    problems = [
        LoadProblem("a.yaml", 3, "bad", suspect_kind="AdminNetworkPolicy"),
        LoadProblem("b.yaml", 5, "bad", suspect_kind="AdminNetworkPolicy"),
    ]
    ctx = CheckContext(build_inventory([], "one"), problems)
    kept: dict[Any, Any] = {}
    every: dict[Any, Any] = {}

    def entries(namespace: str, kept: dict[Any, Any]) -> list[ExaminedEntry]:
        found = _unparsed(ctx, namespace, EgressVerdict.NOT_EVALUABLE)
        return [_unparsed_entry(item, kept, every)[0] for item in found]

    first = entries("one", kept)
    again = entries("one", kept)
    assert [e.location and e.location.file for e in first] == ["a.yaml", "b.yaml"]
    assert [id(e) for e in again] == [id(e) for e in first]
    ctx.memo.begin_namespace("two")
    elsewhere = entries("two", {})
    assert [id(e) for e in elsewhere] == [id(e) for e in first]
    # Another verdict says something else: an entry of its own.
    other = [
        _unparsed_entry(item, {}, every)[0]
        for item in _unparsed(ctx, "two", IngressVerdict.NOT_EVALUABLE)
    ]
    assert not {id(e) for e in other} & {id(e) for e in first}


def test_a_namespace_s_candidates_are_indexed_by_object_once_each() -> None:
    """Each namespace's candidates get their own index by object, kept for
    the same candidates and never handed to another namespace's."""
    policies = [_policy(n, ns, {}, WIDE) for ns in ("first", "second") for n in ("a", "b")]
    documents = [
        LoadedDocument("all.yaml", 2 * i + 2, 2 * i + 2, 0, p) for i, p in enumerate(policies)
    ]
    ctx = CheckContext(build_inventory(documents, "first"), [])
    for namespace in ("first", "second", "first"):
        candidates = tier_candidates(ctx, namespace)
        objects, by_object = _objects_of(ctx, candidates)
        assert objects == tuple(id(each.obj) for each in candidates)
        assert {o: list(i) for o, i in by_object.items()} == {
            id(each.obj): [index] for index, each in enumerate(candidates)
        }
        assert {ctx.inventory.namespace(namespace).name} == {e.obj.namespace for e in candidates}


OPEN_ADMIN = {
    "apiVersion": "policy.networking.k8s.io/v1alpha1",
    "kind": "AdminNetworkPolicy",
    "metadata": {"name": "open"},
    "spec": {
        "priority": 10,
        "subject": {"namespaces": {}},
        "egress": [{"name": "all", "action": "Allow", "to": [{"networks": ["0.0.0.0/0"]}]}],
    },
}


def test_a_clusterwide_object_is_one_entry_and_culprit_in_every_namespace(
    tmp_path: Path,
) -> None:
    """Every namespace's paths list a clusterwide policy alike: its entry,
    and its culprit's finding but for the path, are made once for the run
    (a child's answer then holds them once), and each path is still named."""
    tree = tmp_path / "tree"
    tree.mkdir()
    documents = [OPEN_ADMIN, *(_template(namespace) for namespace in ("sbx", "second"))]
    (tree / "all.yaml").write_text("".join(f"---\n{json.dumps(d)}\n" for d in documents))
    config = tmp_path / "config.yaml"
    entries = [ENTRIES[0], ENTRIES[2]]
    config.write_text("version: 1\nsandboxes:\n" + "".join(f"  - {e}\n" for e in entries))
    report = run_check(CheckOptions(paths=(str(tree),), config=config))
    listed = {
        sandbox.ref.namespace: [
            entry
            for entry in sandbox.egress.reach.decision.examined.whole()
            if entry.name == "open"
        ]
        for sandbox in report.sandboxes
        if sandbox.egress.reach is not None
    }
    (first,), (second,) = listed["sbx"], listed["second"]
    assert first is second
    (finding,) = [f for f in report.findings if f.culprit and f.culprit.name == "open"]
    assert {ref.namespace for ref in finding.affected} == {"sbx", "second"}


def test_a_memo_answer_is_held_alike_only_with_the_very_objects() -> None:
    """Memos key answers by their objects' identities: an equal object, a
    different count of objects, or something kept that is no tuple is
    never taken for them."""
    first, second = ["a"], ["b"]
    assert held_alike((first, second), (first, second))
    assert not held_alike((first, ["b"]), (first, second))
    assert not held_alike((first,), (first, second))
    assert not held_alike([first, second], (first, second))
