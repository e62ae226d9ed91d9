"""The named-object comparison (SEMANTICS.md §12, §17.1)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from lint.decision.model import Translation
from lint.decision.named import compare_named
from tests.decision.manifests import (
    deny_all,
    no_network,
    public_internet,
    static_unnarrowed,
)

OWNER = {
    "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
    "kind": "SandboxClaim",
    "name": "namzu-task-7f3a9c2e41b8",
    "uid": "00000000-0000-4000-8000-7f3a9c2e41b8",
}


def per_sandbox() -> Translation:
    """§15.1's example: a per-sandbox policy with one owner reference."""
    manifest = json.loads(
        json.dumps(
            {
                "apiVersion": "cilium.io/v2",
                "kind": "CiliumNetworkPolicy",
                "metadata": {
                    "name": "namzu-sbx-00000000-0000-4000-8000-7f3a9c2e41b8",
                    "namespace": "namzu-sandboxes",
                    "ownerReferences": [OWNER],
                },
                "spec": {
                    "endpointSelector": {
                        "matchLabels": {
                            "sandbox.namzu.ai/per-sandbox-egress": "namzu-task-7f3a9c2e41b8"
                        }
                    },
                    "egress": [
                        {
                            "toEndpoints": [
                                {
                                    "matchLabels": {
                                        "k8s:io.kubernetes.pod.namespace": "kube-system",
                                        "k8s:k8s-app": "kube-dns",
                                    }
                                }
                            ],
                            "toPorts": [
                                {
                                    "ports": [{"port": "53", "protocol": "ANY"}],
                                    "rules": {"dns": [{"matchPattern": "*"}]},
                                }
                            ],
                        },
                        {
                            "toFQDNs": [
                                {"matchName": "registry.npmjs.org"},
                                {"matchName": "example.com"},
                                {"matchPattern": "*.example.com"},
                            ]
                        },
                    ],
                },
            }
        )
    )
    name = manifest["metadata"]["name"]
    return Translation("CiliumNetworkPolicy", "static", "namzu-sandboxes", name, manifest)


def applied(translation: Translation) -> dict[str, Any]:
    """The translation's manifest as the operator applied it (a fresh copy)."""
    return copy.deepcopy(translation.manifest)


ALL_TRANSLATIONS = [deny_all, no_network, public_internet, static_unnarrowed, per_sandbox]


# --- check 0 and the passing case ----------------------------------------------------


@pytest.mark.parametrize("build", ALL_TRANSLATIONS)
def test_the_translation_itself_matches(build: Any) -> None:
    translation = build()
    assert compare_named(applied(translation), translation).result == "match"


@pytest.mark.parametrize("build", [deny_all, static_unnarrowed])
def test_missing_object(build: Any) -> None:
    translation = build()
    result = compare_named(None, translation)
    assert result.result == "missing"
    assert result.field is None
    assert result.detail is not None
    for fact in (translation.kind, translation.namespace, translation.name, "never creates"):
        assert fact in result.detail


def test_key_order_does_not_matter() -> None:
    translation = deny_all()
    obj = applied(translation)
    obj["spec"] = dict(reversed(list(obj["spec"].items())))
    obj["spec"]["egress"][0] = dict(reversed(list(obj["spec"]["egress"][0].items())))
    assert compare_named(obj, translation).result == "match"


def test_extra_spec_keys_and_metadata_are_not_compared() -> None:
    """Quirk Q12: only the selector, policyTypes, egress (and owners) count."""
    translation = static_unnarrowed()
    obj = applied(translation)
    obj["spec"]["enableDefaultDeny"] = {"egress": False}
    obj["spec"]["egressDeny"] = [{"toEntities": ["world"]}]
    obj["spec"]["ingress"] = [{}]
    obj["metadata"]["labels"] = {"team": "x"}
    obj["metadata"]["annotations"] = {"a": "b"}
    obj["status"] = {"anything": True}
    assert compare_named(obj, translation).result == "match"


# --- check 1: specs --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "result"),
    [
        pytest.param("absent", "match", id="absent"),
        pytest.param(None, "match", id="null"),
        pytest.param([], "mismatch", id="empty-list"),
        pytest.param([{"egress": [{}]}], "mismatch", id="list"),
        pytest.param("junk", "mismatch", id="not-a-list"),
    ],
)
@pytest.mark.parametrize("build", [deny_all, static_unnarrowed])
def test_specs(specs: Any, result: str, build: Any) -> None:
    translation = build()
    obj = applied(translation)
    if specs != "absent":
        obj["specs"] = specs
    outcome = compare_named(obj, translation)
    assert outcome.result == result
    if result == "mismatch":
        assert outcome.field == "specs"
        assert outcome.detail is not None
        assert json.dumps(specs, separators=(",", ":")) in outcome.detail
        assert "never emits" in outcome.detail


def test_specs_message_is_kind_specific() -> None:
    cilium = compare_named({**applied(static_unnarrowed()), "specs": []}, static_unnarrowed())
    core = compare_named({**applied(deny_all()), "specs": []}, deny_all())
    assert cilium.detail is not None
    assert core.detail is not None
    assert "either spec or specs enforce" in cilium.detail
    assert "no such field" in core.detail
    for detail in (cilium.detail, core.detail):
        assert "would go unread" in detail


def test_specs_checked_before_selector() -> None:
    translation = deny_all()
    obj = applied(translation)
    obj["specs"] = []
    obj["spec"]["podSelector"] = {}
    assert compare_named(obj, translation).field == "specs"


# --- check 2: selector ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "selector",
    [
        pytest.param("absent", id="absent"),
        pytest.param(None, id="null"),
        pytest.param({}, id="empty"),
        pytest.param({"matchLabels": {"sandbox.namzu.ai/template": "other"}}, id="other-value"),
        pytest.param(
            {
                "matchLabels": {
                    "sandbox.namzu.ai/template": "namzu-task",
                    "sandbox.namzu.ai/egress-profile": "x",
                }
            },
            id="extra-label",
        ),
        pytest.param(
            {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}, "matchExpressions": []},
            id="extra-empty-expressions",
        ),
    ],
)
@pytest.mark.parametrize(
    ("build", "key"), [(deny_all, "podSelector"), (static_unnarrowed, "endpointSelector")]
)
def test_selector_mismatch(selector: Any, build: Any, key: str) -> None:
    translation = build()
    obj = applied(translation)
    if selector == "absent":
        del obj["spec"][key]
    else:
        obj["spec"][key] = selector
    outcome = compare_named(obj, translation)
    assert outcome.result == "mismatch"
    assert outcome.field == "selector"
    assert outcome.detail is not None
    assert f"spec.{key}" in outcome.detail
    expected = translation.manifest["spec"][key]
    assert json.dumps(expected, separators=(",", ":")) in outcome.detail
    shown = "absent" if selector == "absent" else json.dumps(selector, separators=(",", ":"))
    assert shown in outcome.detail


def test_core_object_uses_pod_selector_not_endpoint_selector() -> None:
    translation = deny_all()
    obj = applied(translation)
    obj["spec"]["endpointSelector"] = obj["spec"].pop("podSelector")
    assert compare_named(obj, translation).field == "selector"


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        # An absent or null spec reads as {}: the selector is then absent.
        pytest.param("absent", "selector", id="absent"),
        pytest.param(None, "selector", id="null"),
        # A spec that is not an object: every field read from it is absent.
        pytest.param(["podSelector"], "selector", id="list"),
        pytest.param("spec", "selector", id="string"),
    ],
)
def test_spec_absent_null_or_not_an_object(spec: Any, field: str) -> None:
    translation = deny_all()
    obj = applied(translation)
    if spec == "absent":
        del obj["spec"]
    else:
        obj["spec"] = spec
    outcome = compare_named(obj, translation)
    assert outcome.field == field
    assert outcome.detail is not None
    assert "spec.podSelector is absent" in outcome.detail


def test_number_types_matter_in_selector_values() -> None:
    translation = static_unnarrowed()
    obj = applied(translation)
    translation.manifest["spec"]["endpointSelector"]["matchLabels"]["n"] = "53"
    obj["spec"]["endpointSelector"]["matchLabels"]["n"] = 53
    assert compare_named(obj, translation).field == "selector"


# --- check 3: policyTypes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy_types", "passes"),
    [
        (["Egress"], True),
        (["Ingress", "Egress"], True),
        (["Egress", "Egress"], True),
        (["Ingress"], False),
        (["egress"], False),
        ("Egress", False),
    ],
)
def test_policy_types(policy_types: Any, passes: bool) -> None:
    translation = deny_all()
    obj = applied(translation)
    if policy_types == "absent":
        del obj["spec"]["policyTypes"]
    else:
        obj["spec"]["policyTypes"] = policy_types
    outcome = compare_named(obj, translation)
    if passes:
        assert outcome.result == "match"
    else:
        assert outcome.field == "policyTypes"
        assert outcome.detail is not None
        assert "spec.policyTypes" in outcome.detail
        assert '"Egress"' in outcome.detail
        assert "enforces nothing" in outcome.detail
        shown = "absent" if policy_types == "absent" else json.dumps(policy_types)
        assert shown.replace(", ", ",") in outcome.detail


def test_policy_types_not_compared_for_cilium() -> None:
    translation = static_unnarrowed()
    obj = applied(translation)
    obj["spec"]["policyTypes"] = ["Ingress"]
    assert compare_named(obj, translation).result == "match"


@pytest.mark.parametrize("policy_types", [[], None, "absent"])
def test_policy_types_read_as_stored(policy_types: Any) -> None:
    """An absent, null or empty policyTypes is stored with Egress when the
    object has an egress rule (deny-all's DNS rule), and without it when it
    has none (no-network's ``egress: []``): the host reads back the stored
    object (SEMANTICS §5.3)."""
    with_rule = applied(deny_all())
    without_rule = applied(no_network())
    for obj in (with_rule, without_rule):
        if policy_types == "absent":
            del obj["spec"]["policyTypes"]
        else:
            obj["spec"]["policyTypes"] = policy_types
    assert compare_named(with_rule, deny_all()).result == "match"
    outcome = compare_named(without_rule, no_network())
    assert outcome.field == "policyTypes"
    assert outcome.detail is not None
    assert "enforces nothing" in outcome.detail


def test_policy_types_checked_before_egress() -> None:
    translation = no_network()
    obj = applied(translation)
    obj["spec"]["policyTypes"] = ["Ingress"]
    obj["spec"]["egress"] = [{}]
    assert compare_named(obj, translation).field == "policyTypes"


def test_selector_checked_before_policy_types() -> None:
    translation = deny_all()
    obj = applied(translation)
    obj["spec"]["policyTypes"] = []
    obj["spec"]["podSelector"] = {}
    assert compare_named(obj, translation).field == "selector"


# --- check 4: egress ----------------------------------------------------------------------------


@pytest.mark.parametrize("build", [deny_all, public_internet, static_unnarrowed])
def test_egress_must_equal(build: Any) -> None:
    translation = build()
    obj = applied(translation)
    obj["spec"]["egress"] = [*obj["spec"]["egress"], {}]
    outcome = compare_named(obj, translation)
    assert outcome.field == "egress"
    assert outcome.detail is not None
    assert "spec.egress" in outcome.detail
    expected = json.dumps(translation.manifest["spec"]["egress"], separators=(",", ":"))
    assert expected in outcome.detail


@pytest.mark.parametrize(
    ("change", "result"),
    [
        # §0.4: 53 equals 53.0, but never "53"; array order and case count.
        pytest.param(lambda e: e[0]["ports"][0].update(port=53.0), "match", id="float-equal"),
        pytest.param(lambda e: e[0]["ports"][0].update(port="53"), "mismatch", id="string"),
        pytest.param(lambda e: e[0]["ports"][0].update(port=True), "mismatch", id="bool"),
        pytest.param(lambda e: e[0]["ports"].reverse(), "mismatch", id="array-order"),
        pytest.param(lambda e: e[0]["ports"][0].update(protocol="udp"), "mismatch", id="case"),
        pytest.param(lambda e: e[0].update(to=None), "mismatch", id="null-vs-list"),
    ],
)
def test_egress_equality_is_strict_and_typed(change: Any, result: str) -> None:
    translation = deny_all()
    obj = applied(translation)
    change(obj["spec"]["egress"])
    assert compare_named(obj, translation).result == result


def test_egress_absent_against_non_empty_translation_says_absent() -> None:
    translation = deny_all()
    obj = applied(translation)
    del obj["spec"]["egress"]
    outcome = compare_named(obj, translation)
    assert outcome.field == "egress"
    assert outcome.detail is not None
    assert "spec.egress is absent" in outcome.detail


def test_egress_null_against_non_empty_translation_fails() -> None:
    translation = static_unnarrowed()
    obj = applied(translation)
    obj["spec"]["egress"] = None
    outcome = compare_named(obj, translation)
    assert outcome.field == "egress"
    assert outcome.detail is not None
    assert "spec.egress is null" in outcome.detail


# --- §17.1: the no-network exception ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("egress", "result"),
    [
        pytest.param([], "match", id="empty-list"),
        pytest.param("absent", "match", id="absent-equals-empty"),
        pytest.param(None, "match", id="null-equals-empty"),
        pytest.param([{}], "mismatch", id="non-empty-still-fails"),
        pytest.param({}, "mismatch", id="object-fails"),
    ],
)
def test_no_network_absent_egress_equals_empty(egress: Any, result: str) -> None:
    translation = no_network()
    obj = applied(translation)
    if egress == "absent":
        del obj["spec"]["egress"]
    else:
        obj["spec"]["egress"] = egress
    outcome = compare_named(obj, translation)
    assert outcome.result == result
    if result == "mismatch":
        assert outcome.field == "egress"
        assert outcome.detail is not None
        assert "expected []" in outcome.detail


def test_no_network_exception_does_not_cover_policy_types() -> None:
    translation = no_network()
    obj = applied(translation)
    del obj["spec"]["egress"]
    del obj["spec"]["policyTypes"]
    assert compare_named(obj, translation).field == "policyTypes"


# --- check 5: ownerReferences ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("owners", "result"),
    [
        pytest.param([OWNER], "match", id="exact"),
        pytest.param(
            [{"apiVersion": "v1", "kind": "X", "name": "y", "uid": "z"}, OWNER],
            "match",
            id="among-others",
        ),
        pytest.param([dict(reversed(list(OWNER.items())))], "match", id="key-order"),
        pytest.param([{**OWNER, "controller": True}], "mismatch", id="extra-key-is-not-equal"),
        pytest.param([{**OWNER, "uid": "other"}], "mismatch", id="other-uid"),
        pytest.param([], "mismatch", id="empty"),
        pytest.param(OWNER, "mismatch", id="object-not-list"),
        pytest.param("junk", "mismatch", id="string-not-list"),
        pytest.param(None, "mismatch", id="null"),
        pytest.param("absent", "mismatch", id="absent"),
    ],
)
def test_owner_references(owners: Any, result: str) -> None:
    translation = per_sandbox()
    obj = applied(translation)
    if owners == "absent":
        del obj["metadata"]["ownerReferences"]
    else:
        obj["metadata"]["ownerReferences"] = owners
    outcome = compare_named(obj, translation)
    assert outcome.result == result
    if result == "mismatch":
        assert outcome.field == "ownerReferences"
        assert outcome.detail is not None
        assert "metadata.ownerReferences" in outcome.detail
        assert json.dumps(OWNER, separators=(",", ":")) in outcome.detail


def test_owner_references_ignored_when_translation_has_none() -> None:
    translation = static_unnarrowed()
    obj = applied(translation)
    obj["metadata"]["ownerReferences"] = "junk"
    assert compare_named(obj, translation).result == "match"


def test_owner_references_checked_last() -> None:
    translation = per_sandbox()
    obj = applied(translation)
    obj["metadata"]["ownerReferences"] = []
    obj["spec"]["egress"] = []
    assert compare_named(obj, translation).field == "egress"
