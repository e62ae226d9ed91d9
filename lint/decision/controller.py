"""What the agent-sandbox controller does that no rendered manifest shows
(AGENT-SANDBOX.md §4, §5, §6.1, §8; SEMANTICS.md §17.3).

The controller writes one NetworkPolicy per SandboxTemplate (per claim, up
to v0.2.0) and labels pooled pods with a hash of the template name. The
linter synthesizes that policy as a core NetworkPolicy candidate and derives
pod labels the same way, each as the assumed version's §8 column says
(``controller_versions``; the newest column when none is given).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Final

from lint.decision.constants import CORE_API_VERSION, CORE_KIND, UNKNOWN_LABEL_VALUE
from lint.decision.controller_versions import NEWEST, ControllerColumn
from lint.decision.values import ABSENT, JSON, compact_json

TEMPLATE_HASH_LABEL: Final = "agents.x-k8s.io/sandbox-template-ref-hash"
"""The pod label the controller's policy selects on (AGENT-SANDBOX §4.1)."""

SANDBOX_NAME_HASH_LABEL: Final = "agents.x-k8s.io/sandbox-name-hash"
"""Set on every pod from the Sandbox's name (AGENT-SANDBOX §6.1 rule 3);
its value cannot be known offline."""
WARM_POOL_LABEL: Final = "agents.x-k8s.io/warm-pool-sandbox"
CREATED_BY_LABEL: Final = "agents.x-k8s.io/created-by"
CLAIM_UID_LABEL: Final = "agents.x-k8s.io/claim-uid"
"""What the claim-era controller's per-claim policy selects (§8, up to v0.2.0)."""

__all__ = ["UNKNOWN_LABEL_VALUE"]

RESERVED_LABEL_PREFIXES: Final = ("agents.x-k8s.io/", "extensions.agents.x-k8s.io/")
"""Pod-template label keys with these prefixes never reach a pod (§6.1)."""

CONTROLLER_POLICY_SUFFIX: Final = "-network-policy"
UNMANAGED: Final = "Unmanaged"
ROUTER_NAMESPACE: Final = "agent-sandbox-system"

_FNV_OFFSET: Final = 0x811C9DC5
_FNV_PRIME: Final = 0x01000193
_MASK32: Final = 0xFFFFFFFF

# The default policy's egress exceptions (v0.5.0+). 100.64.0.0/10 has never
# been in the controller's list, unlike namzu's public-internet exclusions.
DEFAULT_IPV4_EXCEPT: Final = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")
DEFAULT_IPV6_EXCEPT: Final = ("fc00::/7", "fe80::/10")


def name_hash(text: str) -> str:
    """``NameHash`` (AGENT-SANDBOX §5): 32-bit FNV-1a over the UTF-8 bytes,
    as 8 lowercase hex digits, zero-padded."""
    value = _FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * _FNV_PRIME) & _MASK32
    return f"{value:08x}"


def is_reserved_label(key: JSON) -> bool:
    """A reserved pod-template label key (AGENT-SANDBOX §6.1 rule 1)."""
    return isinstance(key, str) and key.startswith(RESERVED_LABEL_PREFIXES)


def strip_reserved_labels(labels: Mapping[str, JSON]) -> dict[str, JSON]:
    """The pod-template labels the controller copies to the pod: every key
    except the reserved ``agents.x-k8s.io/`` and ``extensions.agents.x-k8s.io/``
    ones (AGENT-SANDBOX §6.1 rule 1, v0.5.0+). Order is kept."""
    return {key: value for key, value in labels.items() if not is_reserved_label(key)}


def controller_policy_name(template_name: str) -> str:
    """``<template>-network-policy`` (AGENT-SANDBOX §4.1)."""
    return template_name + CONTROLLER_POLICY_SUFFIX


def is_unmanaged(template: Mapping[str, JSON], column: ControllerColumn = NEWEST) -> bool:
    """``networkPolicyManagement: Unmanaged``, where the version has the field."""
    spec = template.get("spec")
    return (
        column.management_field
        and isinstance(spec, dict)
        and spec.get("networkPolicyManagement") == UNMANAGED
    )


MANAGED_VALUES: Final = (None, "", "Managed")
"""``networkPolicyManagement`` values the controller reads as Managed (AGENT-SANDBOX §3.1, §4.1)."""


def management_problem(
    template: Mapping[str, JSON], column: ControllerColumn = NEWEST
) -> str | None:
    """Why the template's ``networkPolicyManagement`` cannot be read, when
    it cannot: a value that is none of absent, null, ``""``, ``Managed`` and
    ``Unmanaged``. The API server refuses such a template, so whether the
    controller would write its policy is unknown, and it fails closed."""
    spec = template.get("spec")
    if not column.management_field or not isinstance(spec, dict):
        return None
    value = spec.get("networkPolicyManagement")
    if value in MANAGED_VALUES or value == UNMANAGED:
        return None
    return (
        f"the template's `networkPolicyManagement` is {compact_json(value)}, neither "
        f"`Managed` nor `{UNMANAGED}`, so whether the agent-sandbox controller writes "
        "this policy cannot be known"
    )


def controller_policy(
    template: Mapping[str, JSON], namespace: str, column: ControllerColumn = NEWEST
) -> dict[str, JSON] | None:
    """The NetworkPolicy the controller writes for a SandboxTemplate object
    (AGENT-SANDBOX §4.1-§4.3, §8, SEMANTICS §17.3), or None when it writes none.

    ``Unmanaged`` gives none. Absent, null, ``""`` and ``Managed`` are
    Managed: a ``networkPolicy`` block gives the custom policy (§4.2), an
    absent or null block the default policy (§4.3), where the column has one.
    ``namespace`` is the template's (defaulted) namespace. A template with no
    usable name gives none, because the controller cannot hash it (the
    loader reports it). The claim-era column writes per-claim policies
    instead (``claim_policy``).
    """
    name = _template_name(template)
    if name is None or column.policy_writer != "template" or is_unmanaged(template, column):
        return None
    spec = template.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    block = spec.get("networkPolicy")
    selector = _hash_selector(name)
    if block is None:
        if not column.default_policy:
            return None
        return _skeleton(controller_policy_name(name), namespace, _default_spec(selector, column))
    return _skeleton(controller_policy_name(name), namespace, _custom_spec(selector, block))


def claim_policy(
    template: Mapping[str, JSON], claim_name: str, namespace: str
) -> dict[str, JSON] | None:
    """The claim-era policy (§8, up to v0.2.0): ``<claim>-network-policy``,
    selecting the claim's ``claim-uid``, written only when the template has
    a ``networkPolicy`` block. The uid is unknown offline, so a pod's
    ``claim-uid`` is present with an unknown value and the selector's outcome
    is unknown (it fails closed)."""
    spec = template.get("spec")
    block = spec.get("networkPolicy") if isinstance(spec, dict) else None
    if block is None or _template_name(template) is None:
        return None
    selector = {"matchLabels": {CLAIM_UID_LABEL: f"(uid of claim {claim_name})"}}
    return _skeleton(
        claim_name + CONTROLLER_POLICY_SUFFIX, namespace, _custom_spec(selector, block)
    )


def _template_name(template: Mapping[str, JSON]) -> str | None:
    metadata = template.get("metadata")
    if not isinstance(metadata, dict):
        return None
    name = metadata.get("name")
    return name if isinstance(name, str) and name != "" else None


def _skeleton(policy_name: str, namespace: str, spec: JSON) -> dict[str, JSON]:
    return {
        "apiVersion": CORE_API_VERSION,
        "kind": CORE_KIND,
        "metadata": {"name": policy_name, "namespace": namespace},
        "spec": spec,
    }


def _hash_selector(name: str) -> dict[str, JSON]:
    return {"matchLabels": {TEMPLATE_HASH_LABEL: name_hash(name)}}


def _selector_and_types(selector: dict[str, JSON]) -> dict[str, JSON]:
    return {"podSelector": selector, "policyTypes": ["Ingress", "Egress"]}


def _custom_spec(selector: dict[str, JSON], block: JSON) -> JSON:
    """§4.2: the block's lists copied verbatim; policyTypes always both."""
    if not isinstance(block, dict):
        # Outside the CRD schema (the API server would refuse the template).
        # No faithful policy exists, so hand the readers a spec they cannot
        # read: every decision on this namespace then fails closed.
        return copy.deepcopy(block)
    spec = _selector_and_types(selector)
    for key in ("ingress", "egress"):
        value = block.get(key, ABSENT)
        # omitempty: an absent, null or empty list is never written.
        if value is ABSENT or value is None or value == []:
            continue
        spec[key] = copy.deepcopy(value)
    return spec


def _default_spec(selector: dict[str, JSON], column: ControllerColumn) -> dict[str, JSON]:
    """§4.3: router ingress (from v0.5.0 namespace AND pod selector in one
    peer; before, the pod selector alone, same namespace) and one egress
    rule to everything outside the private ranges, on every port (§8)."""
    spec = _selector_and_types(selector)
    router: dict[str, JSON] = {"podSelector": {"matchLabels": {"app": "sandbox-router"}}}
    if column.router_namespace is not None:
        router = {
            "namespaceSelector": {
                "matchLabels": {"kubernetes.io/metadata.name": column.router_namespace}
            },
            **router,
        }
    spec["ingress"] = [{"from": [router]}]
    spec["egress"] = [
        {
            "to": [
                {"ipBlock": {"cidr": "0.0.0.0/0", "except": list(DEFAULT_IPV4_EXCEPT)}},
                {"ipBlock": {"cidr": "::/0", "except": list(column.ipv6_except)}},
            ]
        }
    ]
    return spec
