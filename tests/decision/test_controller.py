"""The agent-sandbox controller facts (AGENT-SANDBOX.md §4, §5, §6.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lint.decision.controller import (
    TEMPLATE_HASH_LABEL,
    controller_policy,
    management_problem,
    name_hash,
    strip_reserved_labels,
)

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

# --- §5 NameHash -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sandbox", "da1fd924"),
        ("test-template", "69155462"),
        ("test-pool", "59733166"),
        ("python-sandbox-template", "d274c066"),
        ("", "811c9dc5"),
        ("namzu-task", "76da2a90"),
    ],
)
def test_name_hash_vectors(text: str, expected: str) -> None:
    assert name_hash(text) == expected


def test_name_hash_is_eight_lowercase_hex_digits_zero_padded() -> None:
    # Scan for an input whose hash has a leading zero nibble, to prove padding.
    padded = next(name_hash(f"t{i}") for i in range(10_000) if name_hash(f"t{i}")[0] == "0")
    assert len(padded) == 8
    for i in range(200):
        value = name_hash(f"template-{i}")
        assert len(value) == 8
        assert value == value.lower()
        int(value, 16)


def test_name_hash_uses_utf8_bytes() -> None:
    # "é" is two UTF-8 bytes; hashing code points instead would differ.
    expected = 0x811C9DC5
    for byte in "é".encode():
        expected = ((expected ^ byte) * 0x01000193) % 2**32
    assert name_hash("é") == f"{expected:08x}"


def test_hash_label_key() -> None:
    assert TEMPLATE_HASH_LABEL == "agents.x-k8s.io/sandbox-template-ref-hash"


# --- §6.1 reserved keys ------------------------------------------------------------


def test_strip_reserved_labels() -> None:
    labels = {
        "app": "x",
        "agents.x-k8s.io/sandbox-template-ref-hash": "deadbeef",
        "extensions.agents.x-k8s.io/anything": "y",
        "agents.x-k8s.io/claim-uid": "u",
        "sub.agents.x-k8s.io/kept": "k",  # not the prefix itself
        "agents.x-k8s.io": "no-slash",  # a name, not the prefix
        "sandbox.namzu.ai/template": "namzu-task",
    }
    assert strip_reserved_labels(labels) == {
        "app": "x",
        "sub.agents.x-k8s.io/kept": "k",
        "agents.x-k8s.io": "no-slash",
        "sandbox.namzu.ai/template": "namzu-task",
    }


def test_strip_reserved_labels_keeps_order_and_does_not_mutate() -> None:
    labels = {"b": "1", "agents.x-k8s.io/x": "2", "a": "3"}
    assert list(strip_reserved_labels(labels)) == ["b", "a"]
    assert "agents.x-k8s.io/x" in labels


# --- §4 the policy -------------------------------------------------------------------

HASH_SELECTOR = {"matchLabels": {TEMPLATE_HASH_LABEL: "76da2a90"}}

DEFAULT_POLICY: dict[str, Any] = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "namzu-task-network-policy", "namespace": "namzu-sandboxes"},
    "spec": {
        "podSelector": HASH_SELECTOR,
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [
                    {
                        "namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": "agent-sandbox-system"}
                        },
                        "podSelector": {"matchLabels": {"app": "sandbox-router"}},
                    }
                ]
            }
        ],
        "egress": [
            {
                "to": [
                    {
                        "ipBlock": {
                            "cidr": "0.0.0.0/0",
                            "except": [
                                "10.0.0.0/8",
                                "172.16.0.0/12",
                                "192.168.0.0/16",
                                "169.254.0.0/16",
                            ],
                        }
                    },
                    {"ipBlock": {"cidr": "::/0", "except": ["fc00::/7", "fe80::/10"]}},
                ]
            }
        ],
    },
}


def template(
    spec: Any = None, *, name: str = "namzu-task", with_spec: bool = True
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
        "kind": "SandboxTemplate",
        "metadata": {"name": name},
    }
    if with_spec:
        obj["spec"] = {"podTemplate": {"spec": {"containers": []}}} if spec is None else spec
    return obj


def as_bytes(value: Any) -> str:
    """Key order is part of the facts, so compare the serialised form."""
    return json.dumps(value)


@pytest.mark.parametrize(
    "management",
    [pytest.param(None, id="absent"), "", "Managed", pytest.param("null", id="null")],
)
def test_managed_without_block_gives_default_policy(management: str | None) -> None:
    spec: dict[str, Any] = {"podTemplate": {"spec": {}}}
    if management == "null":
        spec["networkPolicyManagement"] = None
    elif management is not None:
        spec["networkPolicyManagement"] = management
    policy = controller_policy(template(spec), "namzu-sandboxes")
    assert as_bytes(policy) == as_bytes(DEFAULT_POLICY)


def test_network_policy_null_means_absent() -> None:
    spec: dict[str, Any] = {"podTemplate": {"spec": {}}, "networkPolicy": None}
    assert as_bytes(controller_policy(template(spec), "namzu-sandboxes")) == as_bytes(
        DEFAULT_POLICY
    )


@pytest.mark.parametrize("block", [None, {}, {"egress": [{}]}])
def test_unmanaged_gives_no_policy(block: Any) -> None:
    spec: dict[str, Any] = {"networkPolicyManagement": "Unmanaged"}
    if block is not None:
        spec["networkPolicy"] = block
    assert controller_policy(template(spec), "ns") is None


def test_custom_block_copies_lists_verbatim() -> None:
    ingress = [
        {"from": [{"podSelector": {"matchLabels": {"app": "host"}}}], "ports": [{"port": 1024}]}
    ]
    egress = [{"ports": [{"port": 443, "protocol": "TCP"}]}]
    spec = {
        "networkPolicyManagement": "Managed",
        "networkPolicy": {"egress": egress, "ingress": ingress, "podSelector": {"ignored": True}},
    }
    policy = controller_policy(template(spec), "team-a")
    assert as_bytes(policy) == as_bytes(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "namzu-task-network-policy", "namespace": "team-a"},
            "spec": {
                "podSelector": HASH_SELECTOR,
                "policyTypes": ["Ingress", "Egress"],
                "ingress": ingress,
                "egress": egress,
            },
        }
    )


def test_custom_block_is_copied_not_shared() -> None:
    egress = [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]
    policy = controller_policy(template({"networkPolicy": {"egress": egress}}), "ns")
    assert policy is not None
    policy["spec"]["egress"][0]["to"].clear()
    assert egress[0]["to"]


@pytest.mark.parametrize(
    ("block", "spec_keys"),
    [
        ({}, ["podSelector", "policyTypes"]),
        ({"ingress": [], "egress": []}, ["podSelector", "policyTypes"]),
        ({"ingress": None, "egress": None}, ["podSelector", "policyTypes"]),
        ({"egress": [{}]}, ["podSelector", "policyTypes", "egress"]),
        ({"ingress": [{}]}, ["podSelector", "policyTypes", "ingress"]),
    ],
)
def test_custom_block_omits_empty_lists_and_always_sets_both_types(
    block: dict[str, Any], spec_keys: list[str]
) -> None:
    # Any object, even {}, is the custom policy: it replaces the default.
    policy = controller_policy(template({"networkPolicy": block}), "ns")
    assert policy is not None
    assert list(policy["spec"]) == spec_keys
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["podSelector"] == HASH_SELECTOR


def test_custom_block_policy_types_are_ignored() -> None:
    block = {"policyTypes": ["Egress"], "egress": [{}]}
    policy = controller_policy(template({"networkPolicy": block}), "ns")
    assert policy is not None
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]


def test_selector_hashes_only_the_name() -> None:
    policy = controller_policy(template(name="sandbox"), "other-ns")
    assert policy is not None
    assert policy["metadata"] == {"name": "sandbox-network-policy", "namespace": "other-ns"}
    assert policy["spec"]["podSelector"] == {"matchLabels": {TEMPLATE_HASH_LABEL: "da1fd924"}}


def test_non_object_block_fails_closed_with_unreadable_spec() -> None:
    policy = controller_policy(template({"networkPolicy": ["not", "an", "object"]}), "ns")
    assert policy is not None
    assert not isinstance(policy["spec"], dict)


def test_template_without_spec_gets_default_policy() -> None:
    policy = controller_policy(template(with_spec=False), "namzu-sandboxes")
    assert as_bytes(policy) == as_bytes(DEFAULT_POLICY)


@pytest.mark.parametrize("metadata", [{}, {"name": ""}, {"name": 5}, None])
def test_template_without_a_name_gets_none(metadata: Any) -> None:
    assert controller_policy({"kind": "SandboxTemplate", "metadata": metadata}, "ns") is None


# --- robustness over real templates ------------------------------------------------------


def _corpus_templates() -> list[tuple[str, dict[str, Any]]]:
    yaml = pytest.importorskip("yaml")
    found = []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(CORPUS.rglob("*.y*ml")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "SandboxTemplate" not in text:
            continue
        try:
            docs = list(yaml.load_all(text, Loader=loader))
        except Exception:  # unparseable corpus files are kept on purpose
            continue
        found += [
            (str(path), doc)
            for doc in docs
            if isinstance(doc, dict) and doc.get("kind") == "SandboxTemplate"
        ]
    return found


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_corpus_templates_synthesize_a_policy_or_none() -> None:
    templates = _corpus_templates()
    assert templates, "the corpus holds SandboxTemplates"
    outcomes = set()
    for _, obj in templates:
        policy = controller_policy(obj, "ns")
        raw_spec = obj.get("spec")
        spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
        if spec.get("networkPolicyManagement") == "Unmanaged" or not obj["metadata"].get("name"):
            assert policy is None
            outcomes.add("none")
            continue
        assert policy is not None
        assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
        outcomes.add("custom" if spec.get("networkPolicy") is not None else "default")
    # The corpus is known to hold all three cases (AGENT-SANDBOX §9).
    assert outcomes == {"none", "custom", "default"}


@pytest.mark.parametrize(
    ("value", "readable"),
    [
        (None, True),
        ("", True),
        ("Managed", True),
        ("Unmanaged", True),
        ("managed", False),
        ([], False),
        (True, False),
    ],
)
def test_which_network_policy_management_values_are_read(value: object, readable: bool) -> None:
    template = {"metadata": {"name": "t"}, "spec": {"networkPolicyManagement": value}}
    assert (management_problem(template) is None) is readable
