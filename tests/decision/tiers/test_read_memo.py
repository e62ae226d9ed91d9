"""What the tier readers keep of an object for every pod (``ReadMemo``):
read once, and never handed to another object, namespace, CNI evidence or
set of CIDR groups; and the order of the documents ``build_tier_input``
gives, whatever the order of the candidates."""

from __future__ import annotations

import copy
import operator
from typing import Any

from msgspec.structs import replace

from lint.decision.model import Tri
from lint.decision.reach.model import (
    ReachCandidate,
    ReachData,
    namespace_label_view,
    pod_label_view,
)
from lint.decision.tiers.build import (
    COPY_IN_DOUBT,
    FEWEST_KEPT,
    RECENT_READINGS,
    PathFacts,
    _content_key,
    _memo_for,
    build_tier_input,
)
from lint.decision.tiers.model import (
    EVERY_ACTION,
    EVERY_PORT,
    Action,
    PodSet,
    TierDocument,
    TierInput,
    TierRule,
)
from lint.decision.tiers.read_admin import read_anp
from lint.decision.tiers.read_cilium import read_cilium_clusterwide, read_cilium_namespaced
from lint.decision.tiers.read_core import read_core
from lint.decision.tiers.reading import ReadContext, ReadMemo, namespace_pin
from tests.decision.tiers.objects import (
    CILIUM_API,
    CODES,
    NAMESPACE,
    POD_LABELS,
    anp,
    banp,
    candidates,
    cilium_np,
    cnp,
    core_np,
)

ALLOWANCE = CODES["Dn"].allowance


def context(
    namespace: str = NAMESPACE, pod: dict[str, str] = POD_LABELS, **facts: Any
) -> ReadContext:
    """A reader's context for ``pod`` in ``namespace``."""
    return ReadContext(
        namespace=namespace,
        pod=pod_label_view(pod),
        namespace_view=namespace_label_view(namespace, None),
        **facts,
    )


LOCAL_PEER = {"to": [{"podSelector": {}}], "ports": [{"port": 443}]}
WIDE = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}


def _core(obj: dict[str, Any], namespace: str | None = None, **facts: Any) -> TierDocument:
    (candidate,) = candidates([obj])
    if namespace is not None:
        candidate = ReachCandidate(candidate.api_version, candidate.kind, obj, 0, namespace)
        facts["namespace"] = namespace
    (found,) = read_core(candidate, context(**facts)).documents
    return found


def _own_namespace(document: TierDocument) -> PodSet:
    (peer,) = document.rules[0].peers or ()
    assert isinstance(peer.pod, PodSet)
    return peer.pod


def test_the_rules_are_read_once_and_the_subject_for_each_pod() -> None:
    memo = ReadMemo()
    policy = core_np({"podSelector": {"matchLabels": {"app": "a"}}, "egress": [LOCAL_PEER, WIDE]})
    chosen = _core(policy, memo=memo, pod={"app": "a"})
    other = _core(policy, memo=memo, pod={"app": "b"})
    assert other.rules is chosen.rules  # read once
    assert chosen == _core(policy, pod={"app": "a"})
    assert other == _core(policy, pod={"app": "b"})
    assert (chosen.subject, other.subject) == (Tri.YES, Tri.NO)


def test_an_object_with_no_namespace_is_read_again_in_each_namespace() -> None:
    memo = ReadMemo()
    policy = core_np({"podSelector": {}, "egress": [LOCAL_PEER]})
    del policy["metadata"]["namespace"]
    (candidate,) = candidates([policy])
    for namespace in ("first", "second"):
        (read,) = read_core(candidate, context(namespace=namespace, memo=memo)).documents
        assert _own_namespace(read).namespaces == namespace_pin(namespace)


def test_equal_objects_in_two_namespaces_keep_their_own_rules() -> None:
    memo = ReadMemo()
    policy = core_np({"podSelector": {}, "egress": [LOCAL_PEER]})
    twin = copy.deepcopy(policy)
    first = _core(policy, "first", memo=memo)
    second = _core(twin, "second", memo=memo)
    assert _own_namespace(first).namespaces == namespace_pin("first")
    assert _own_namespace(second).namespaces == namespace_pin("second")


def test_the_cni_evidence_decides_the_ip_block_again() -> None:
    memo = ReadMemo()
    policy = core_np({"podSelector": {}, "egress": [WIDE]})
    calico = _core(policy, memo=memo, calico=True)
    cilium = _core(policy, memo=memo, cilium_r=True)
    assert calico == _core(policy, calico=True)
    assert cilium == _core(policy, cilium_r=True)
    assert calico.rules[0].peers != cilium.rules[0].peers


def _group(cidrs: list[str]) -> ReachCandidate:
    raw = {
        "apiVersion": "cilium.io/v2alpha1",
        "kind": "CiliumCIDRGroup",
        "metadata": {"name": "g"},
        "spec": {"externalCIDRs": cidrs},
    }
    return ReachCandidate("cilium.io/v2alpha1", "CiliumCIDRGroup", raw)


def test_a_cilium_spec_is_read_again_for_other_cidr_groups() -> None:
    memo = ReadMemo()
    policy = cilium_np({"egress": [{"toCIDRSet": [{"cidrGroupRef": "g"}]}]})
    policy["kind"] = "CiliumClusterwideNetworkPolicy"
    del policy["metadata"]["namespace"]
    (candidate,) = candidates([policy])
    texts = []
    for cidrs in (["192.0.2.0/24"], ["198.51.100.0/24", "203.0.113.0/24"]):
        data = ReachData(cidr_groups=(_group(cidrs),))
        (kept,) = read_cilium_clusterwide(candidate, context(data=data, memo=memo)).documents
        (fresh,) = read_cilium_clusterwide(candidate, context(data=data)).documents
        assert kept == fresh
        texts.append(
            [block.cidr for peer in kept.rules[0].peers or () for block in peer.blocks or ()]
        )
    assert len(texts[0]) == 1 and len(texts[1]) == 2


def test_equal_cilium_policies_in_two_namespaces_keep_their_own_endpoints() -> None:
    memo = ReadMemo()
    policy = cilium_np({"egress": [{"toEndpoints": [{}]}]})
    twin = copy.deepcopy(policy)
    for obj, namespace in ((policy, "first"), (twin, "second")):
        candidate = ReachCandidate(CILIUM_API, "CiliumNetworkPolicy", obj, 0, namespace)
        read = read_cilium_namespaced(candidate, context(namespace=namespace, memo=memo))
        (fresh,) = read_cilium_namespaced(candidate, context(namespace=namespace)).documents
        assert read.documents == (fresh,)
        (peer,) = fresh.rules[0].peers or ()
        assert isinstance(peer.pod, PodSet) and peer.pod.namespaces == namespace_pin(namespace)


def test_a_cilium_policy_with_no_namespace_is_read_again_in_each_namespace() -> None:
    memo = ReadMemo()
    policy = cilium_np({"egress": [{"toEndpoints": [{}]}]})
    del policy["metadata"]["namespace"]
    (candidate,) = candidates([policy])
    for namespace in ("first", "second"):
        (read,) = read_cilium_namespaced(candidate, context(namespace, memo=memo)).documents
        (peer,) = read.rules[0].peers or ()
        assert isinstance(peer.pod, PodSet) and peer.pod.namespaces == namespace_pin(namespace)


def test_a_memo_keeps_what_it_read_under_the_objects_it_read() -> None:
    memo = ReadMemo()
    first, second = {"a": 1}, {"a": 1}
    assert memo.once((first,), "k", lambda: "first") == "first"
    assert memo.once((first,), "k", lambda: "again") == "first"
    assert memo.once((second,), "k", lambda: "second") == "second"
    assert memo.once((first,), "other", lambda: "other") == "other"


def _built(objects: list[dict[str, Any]], memo: ReadMemo | None, pod: dict[str, str]) -> Any:
    return build_tier_input(
        candidates(objects),
        ReachData(),
        PathFacts(NAMESPACE, pod_label_view(pod)),
        ALLOWANCE,
        memo=memo,
    ).input


def test_a_memo_changes_no_input_for_any_pod() -> None:
    objects = [
        core_np({"podSelector": {"matchLabels": {"app": "a"}}, "egress": [WIDE]}, name="a"),
        core_np({"podSelector": {}, "egress": [LOCAL_PEER]}, name="b"),
        cilium_np({"egress": [{"toEndpoints": [{}]}], "egressDeny": [{"toCIDR": ["10.0.0.0/8"]}]}),
    ]
    memo = ReadMemo()
    for pod in (POD_LABELS, {"app": "a"}, {"app": "b"}, POD_LABELS):
        assert _built(objects, memo, pod) == _built(objects, None, pod)


def test_copies_of_one_name_are_ordered_by_content_whatever_the_order_given() -> None:
    copies = [
        core_np({"podSelector": {}, "egress": [WIDE]}, name="same"),
        core_np({"podSelector": {}, "egress": [LOCAL_PEER]}, name="same"),
        core_np({"podSelector": {}, "egress": [LOCAL_PEER, WIDE]}, name="same"),
        core_np({"podSelector": {}, "egress": []}, name="other"),
    ]
    first = _built(copies, None, POD_LABELS).documents
    again = _built(list(reversed(copies)), None, POD_LABELS).documents
    strip = [(d.name, d.rules, d.types) for d in first]
    assert strip == [(d.name, d.rules, d.types) for d in again]
    assert [d.name for d in first] == ["other", "same", "same", "same"]
    assert len({d.rules for d in first}) == 4


def _admin_copies() -> list[dict[str, Any]]:
    deny = {"name": "d", "action": "Deny", "to": [{"networks": ["10.0.0.0/8"]}]}
    allow = {"name": "a", "action": "Allow", "to": [{"networks": ["0.0.0.0/0"]}]}
    return [
        anp("same", 5, [deny, allow]),
        anp("same", 5, [allow]),
        anp("same", 5, [allow, deny]),
        banp([allow]),
        cnp("tiered", "Admin", 3, [deny]),
    ]


def test_a_cluster_policy_is_read_once_for_every_namespace() -> None:
    lasting = ReadMemo()
    objects = _admin_copies()
    built = [
        build_tier_input(
            candidates(objects),
            ReachData(),
            PathFacts(namespace, pod_label_view(POD_LABELS)),
            ALLOWANCE,
            memo=ReadMemo(lasting),
        ).input
        for namespace in ("first", "second")
    ]
    first, second = (input_.documents for input_ in built)
    assert all(a.rules is b.rules for a, b in zip(first, second, strict=True))
    fresh = build_tier_input(
        candidates(objects), ReachData(), PathFacts("second", pod_label_view(POD_LABELS)), ALLOWANCE
    ).input
    assert built[1] == fresh


def test_copies_are_ordered_and_doubted_alike_with_a_memo_or_without() -> None:
    objects = _admin_copies()
    for order in (objects, list(reversed(objects))):
        kept = _built(order, ReadMemo(ReadMemo()), POD_LABELS)
        assert kept == _built(order, None, POD_LABELS)
        assert [d.subject_why for d in kept.documents if d.name == "same"] == [COPY_IN_DOUBT] * 3


def test_copies_at_other_places_are_ordered_alike_under_one_memo() -> None:
    """Copies read once and placed at other indices (other candidates
    before them) are ordered by the content kept for their reading: under
    one memo, each order given is the one made without a memo."""
    objects = _admin_copies()
    memo = ReadMemo(ReadMemo())
    extra = core_np({"podSelector": {}, "egress": []}, name="first")
    for order in (objects, list(reversed(objects)), [extra, *objects], objects):
        assert _built(order, memo, POD_LABELS) == _built(order, None, POD_LABELS)


def test_copies_in_doubt_are_made_once_for_the_pods_that_read_them_alike() -> None:
    deny = {"name": "d", "action": "Deny", "to": [{"networks": ["10.0.0.0/8"]}]}
    by_pod = {"pods": {"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "a"}}}}
    objects = [
        *_admin_copies(),
        # Copies of which one selects by the pod's labels: the other is read
        # alike for every pod, the group is not.
        anp("picky", 7, [deny], by_pod),
        anp("picky", 7, []),
        anp("fussy", 8, [deny]),
        anp("fussy", 8, [], by_pod),
    ]
    memo = ReadMemo(ReadMemo())
    seen: dict[str, list[TierDocument]] = {}
    for pod in (POD_LABELS, {"app": "a"}, {"app": "b"}, {"app": "a"}):
        kept = _built(objects, memo, pod)
        assert kept == _built(objects, None, pod)
        for name in ("same", "picky", "fussy"):
            copies = [d for d in kept.documents if d.name == name]
            assert {d.subject_why for d in copies} == {COPY_IN_DOUBT}
            # The copies every pod reads alike are the same objects each time.
            if name == "same" and name in seen:
                assert all(map(operator.is_, copies, seen[name]))
            seen[name] = copies


def test_a_document_is_written_out_as_its_repr_with_a_memo_too() -> None:
    memo = ReadMemo()
    for document in _built(_admin_copies(), None, POD_LABELS).documents:
        assert _content_key(document, memo) == repr(replace(document, ref=0))
        assert _content_key(document, memo) == _content_key(document, None)


def test_an_admin_document_is_kept_per_subject_for_the_run() -> None:
    lasting = ReadMemo()
    policy = anp("a", 1, [{"action": "Deny", "to": [{"networks": ["10.0.0.0/8"]}]}])
    policy["spec"]["subject"] = {
        "pods": {"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "a"}}}
    }
    (candidate,) = candidates([policy])
    read = {
        (namespace, app): read_anp(
            candidate, context(namespace, {"app": app}, memo=ReadMemo(lasting))
        ).documents[0]
        for namespace in ("first", "second")
        for app in ("a", "b")
    }
    assert read["first", "a"] is read["second", "a"]
    assert read["first", "b"] is read["second", "b"]
    assert (read["first", "a"].subject, read["first", "b"].subject) == (Tri.YES, Tri.NO)
    fresh = read_anp(candidate, context("second", {"app": "b"})).documents[0]
    assert read["second", "b"] == fresh


def test_only_documents_kept_for_the_run_have_their_places_kept_for_the_run() -> None:
    lasting = ReadMemo()
    memo = ReadMemo(lasting)
    documents = _built(_admin_copies(), memo, POD_LABELS).documents
    assert documents and all(_memo_for(d, memo) is lasting for d in documents)
    cilium = cilium_np({"egress": [{"toEndpoints": [{}]}]})
    cilium["kind"] = "CiliumClusterwideNetworkPolicy"
    del cilium["metadata"]["namespace"]
    (read,) = _built([cilium], memo, POD_LABELS).documents
    assert read.namespace is None and _memo_for(read, memo) is memo


DATA = ReachData()


def _enough(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``objects`` and as many other policies as make their reading kept."""
    others = [
        core_np({"podSelector": {"matchLabels": {"app": "z"}}, "egress": [WIDE]}, name=f"z{i}")
        for i in range(FEWEST_KEPT)
    ]
    return [*objects, *others]


def _path_built(
    objects: list[dict[str, Any]], memo: ReadMemo | None, facts: PathFacts
) -> TierInput:
    return build_tier_input(candidates(objects), DATA, facts, ALLOWANCE, memo=memo).input


def test_paths_whose_pods_read_alike_share_the_read_candidates() -> None:
    objects = _enough(
        [
            *_admin_copies(),
            core_np({"podSelector": {"matchLabels": {"app": "a"}}, "egress": [WIDE]}, name="a"),
            cilium_np({"egress": [{"toEndpoints": [{}]}]}),
        ]
    )
    host = {"spec": {"hostNetwork": True}}
    memo = ReadMemo(ReadMemo())
    plain = PathFacts(NAMESPACE, pod_label_view(POD_LABELS))
    first = kept = _path_built(objects, memo, plain)
    assert _path_built(objects, memo, plain).documents is kept.documents
    # Another template with the same labels: only its pod's conditions differ.
    other = PathFacts(NAMESPACE, pod_label_view(POD_LABELS), pod_template=host)
    second = _path_built(objects, memo, other)
    assert second.documents is kept.documents
    assert second == _path_built(objects, None, other)
    assert [u.name for u in second.undecidable] == ["hostNetwork"]
    assert not first.undecidable
    # What the readers read of the pod is in the key: each is read afresh.
    for facts in (
        PathFacts(NAMESPACE, pod_label_view({"app": "a"})),
        PathFacts(NAMESPACE, pod_label_view(POD_LABELS), service_account="robot"),
        PathFacts("elsewhere", pod_label_view(POD_LABELS)),
    ):
        for _ in range(2):
            found = _path_built(objects, memo, facts)
            assert found.documents is not kept.documents
            assert found == _path_built(objects, None, facts)
    # Other data (CIDR groups, namespace labels) is another reading.
    again = build_tier_input(candidates(objects), ReachData(), other, ALLOWANCE, memo=memo).input
    assert again.documents is not kept.documents
    assert again == second


def test_only_the_last_readings_of_the_candidates_are_kept() -> None:
    objects = _enough([*_admin_copies(), cilium_np({"egress": [{"toEndpoints": [{}]}]})])
    memo = ReadMemo(ReadMemo())

    def facts(number: int) -> PathFacts:
        return PathFacts(NAMESPACE, pod_label_view({"app": f"a{number}"}))

    first = _path_built(objects, memo, facts(0))
    second = _path_built(objects, memo, facts(1))
    for number in range(2, RECENT_READINGS):
        _path_built(objects, memo, facts(number))
    assert _path_built(objects, memo, facts(0)).documents is first.documents
    # The reading asked for again is the last asked: the oldest other goes.
    _path_built(objects, memo, facts(RECENT_READINGS))
    assert _path_built(objects, memo, facts(0)).documents is first.documents
    again = _path_built(objects, memo, facts(1))
    assert again.documents is not second.documents
    assert again == second == _path_built(objects, None, facts(1))


def test_a_few_candidates_are_read_again() -> None:
    objects = _admin_copies()
    assert len(objects) < FEWEST_KEPT
    memo = ReadMemo(ReadMemo())
    facts = PathFacts(NAMESPACE, pod_label_view(POD_LABELS))
    first = _path_built(objects, memo, facts)
    again = _path_built(objects, memo, facts)
    assert again.documents is not first.documents
    assert again == first


def test_the_content_key_writes_a_rule_s_actions_in_order() -> None:
    """Copies are ordered by ``_content_key``. A rule whose action cannot be
    read holds every action, and a set's own order follows the hash seed:
    the key writes them in the order of their text, and is otherwise the
    document's ``repr``."""
    rule = TierRule(EVERY_ACTION, EVERY_PORT, None, 0, ("spec", "egress", 0), "rule 0")
    one = replace(rule, actions=frozenset({Action.DENY}))
    document = TierDocument(
        "AdminNetworkPolicy", "p", None, "kube-admin", 10.0, "AdminNetworkPolicy",
        Tri.YES, Tri.YES, Tri.YES, (rule, one), ref=3,
    )  # fmt: skip
    written = _content_key(document, None)
    everything = "<Action.ALLOW: 'allow'>, <Action.DENY: 'deny'>, <Action.PASS: 'pass'>"
    assert f"actions=frozenset({{{everything}}})" in written
    assert written == repr(replace(document, ref=0)).replace(
        repr(rule.actions), f"frozenset({{{everything}}})"
    )
    single = replace(document, rules=(one,))
    assert _content_key(single, None) == repr(replace(single, ref=0))
