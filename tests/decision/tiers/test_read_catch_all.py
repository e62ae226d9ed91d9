"""The §7 reader of the tier model (``read_catch_all``) and the table's
fail-closed rows: objects and pod conditions become undecidable."""

from __future__ import annotations

from lint.decision.model import EgressRefusal
from lint.decision.reach.model import ReachData, ReachSubject, pod_label_view
from lint.decision.tiers.build import (
    PATH_REF,
    PathFacts,
    build_tier_input,
    path_facts_of,
    reader_for,
)
from lint.decision.tiers.read_catch_all import read_catch_all
from lint.kinds import CATCH_ALL_KINDS, NETWORK_POLICY, SANDBOX_TEMPLATE, identify
from tests.decision.tiers.objects import (
    CODES,
    NAMESPACE,
    POD_LABELS,
    ask,
    build,
    candidates,
    context,
)

ANTREA = {
    "apiVersion": "crd.antrea.io/v1beta1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "antrea", "namespace": NAMESPACE},
    "spec": {},
}


def test_a_catch_all_object_is_undecidable_and_refuses_through_both_questions() -> None:
    (found,) = read_catch_all(candidates([ANTREA])[0], context()).undecidable
    assert found.name == "antrea" and "fail closed" in found.detail
    reach_answer, explained = ask(build([ANTREA], "D"), "8.8.8.8:443/TCP")
    assert reach_answer.refusal is EgressRefusal.NOT_EVALUABLE and reach_answer.undecidable
    assert (explained.verdict, explained.exit_status) == ("undecided", 1)


def test_a_namespaced_catch_all_object_of_another_namespace_is_nothing() -> None:
    other = {**ANTREA, "metadata": {"name": "antrea", "namespace": "elsewhere"}}
    assert read_catch_all(candidates([other])[0], context()).undecidable == ()


def test_an_unknown_policy_kind_fails_closed() -> None:
    unknown = {
        "apiVersion": "example.com/v1",
        "kind": "FancyNetworkPolicy",
        "metadata": {"name": "f"},
    }
    (found,) = build([unknown]).input.undecidable
    assert found.kind == "FancyNetworkPolicy.example.com"


def test_the_cilium_never_config_map_counts_only_under_cilium() -> None:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cilium-config", "namespace": "kube-system"},
        "data": {"enable-policy": "never"},
    }
    assert build([config], "D").input.undecidable == ()
    (found,) = build([config], "DC").input.undecidable
    assert found.kind == "ConfigMap"


def test_pod_conditions_are_undecidable_with_the_path_ref() -> None:
    template = {
        "metadata": {"annotations": {"k8s.v1.cni.cncf.io/networks": "net"}},
        "spec": {"hostNetwork": True},
    }
    built = build_tier_input(
        (),
        ReachData(),
        PathFacts(NAMESPACE, pod_label_view(POD_LABELS), pod_template=template),
        CODES["D"].allowance,
    )
    assert [(u.kind, u.ref) for u in built.input.undecidable] == [
        ("pod condition", PATH_REF),
        ("pod condition", PATH_REF),
    ]


def test_the_table_has_a_reader_for_every_catch_all_kind_and_none_for_data() -> None:
    assert all(reader_for(kind) is read_catch_all for kind in CATCH_ALL_KINDS)
    assert reader_for(identify("example.io/v9", "OtherNetworkPolicy")) is read_catch_all
    assert reader_for(SANDBOX_TEMPLATE) is None
    assert reader_for(NETWORK_POLICY) is not None


def test_path_facts_come_from_the_reach_subject() -> None:
    template = {"spec": {"hostNetwork": True}}
    subject = ReachSubject(
        namespace=NAMESPACE,
        pod=pod_label_view(POD_LABELS),
        service_account="runner",
        allowance=CODES["D"].allowance,
        iso=False,
        cilium=False,
        pod_template=template,
    )
    facts = path_facts_of(subject)
    assert (facts.namespace, facts.service_account, facts.pod_template) == (
        NAMESPACE,
        "runner",
        template,
    )
    built = build_tier_input((), ReachData(), facts, CODES["D"].allowance)
    assert [u.name for u in built.input.undecidable] == ["hostNetwork"]
