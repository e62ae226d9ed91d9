"""The admission fence for per-sandbox egress (SEMANTICS §15.2).

The sandbox host writes one CiliumNetworkPolicy per sandbox. The fence is a
ValidatingAdmissionPolicy that lets the host's ServiceAccount write only
policies of that exact shape: named after the owning claim or Sandbox,
selecting that one sandbox, and reaching nothing but hostnames and the
cluster resolver. The CEL below is ours; it follows the seven validations
§15.2 lists, in that order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

import msgspec

from lint.decision.constants import PER_SANDBOX_PREFIX
from lint.decision.translation import OWNER_API_VERSIONS
from lint.decision.validation import per_sandbox_label_key
from lint.decision.values import JSON
from lint.kinds import (
    CILIUM_NETWORK_POLICY,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
)

ADMISSION_API_VERSION: Final = VALIDATING_ADMISSION_POLICY.api_version
HOST_SERVICE_ACCOUNT: Final = "namzu-sandbox-host"
NAMESPACE_LABEL: Final = "kubernetes.io/metadata.name"

# §15.2: the DNS-name grammars of validation 7, anchored for CEL's
# find-anywhere `matches` (RE2, where `$` is the end of the text).
MATCH_NAME_PATTERN: Final = (
    r"^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?([.][a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*$"
)
MATCH_PATTERN_PATTERN: Final = (
    r"^[*][.][a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?([.][a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)+$"
)
# §15.2 validation 6: destinations a per-sandbox policy may never carry.
FORBIDDEN_DESTINATIONS: Final = (
    "toCIDR",
    "toCIDRSet",
    "toEntities",
    "toServices",
    "toGroups",
    "toNodes",
    "toRequires",
)
# §15.2 validation 5: spec keys a per-sandbox policy may never carry.
FORBIDDEN_SPEC_KEYS: Final = ("ingress", "ingressDeny", "egressDeny", "nodeSelector")


class FenceNames(msgspec.Struct, frozen=True):
    """What one ``perSandbox`` declaration fixes about its fence (§1.4)."""

    policy: str
    binding: str
    label_key: str
    namespace: str

    @property
    def username(self) -> str:
        """The host's ServiceAccount as the API server names the requester."""
        return f"system:serviceaccount:{self.namespace}:{HOST_SERVICE_ACCOUNT}"


def fence_names(per_sandbox: Mapping[str, JSON], namespace: str) -> FenceNames:
    """The fence names of a validated ``perSandbox`` object (§1.4): the
    binding defaults to ``<admissionPolicyName>-binding``."""
    policy = str(per_sandbox["admissionPolicyName"])
    binding = per_sandbox.get("admissionPolicyBindingName")
    return FenceNames(
        policy=policy,
        binding=binding if isinstance(binding, str) else f"{policy}-binding",
        label_key=per_sandbox_label_key(per_sandbox),
        namespace=namespace,
    )


def cel_string(text: str) -> str:
    """A CEL string literal for ``text``: JSON's escapes are a subset of CEL's."""
    return json.dumps(text, ensure_ascii=True)


def _cel_list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(cel_string(item) for item in items) + "]"


def fence_variables() -> list[dict[str, JSON]]:
    """The variables every validation reads (§15.2), each with its default."""
    return [
        _variable("target", 'request.operation == "DELETE" ? oldObject : object'),
        _variable("writing", 'request.operation != "DELETE"'),
        _variable(
            "owners",
            "has(variables.target.metadata.ownerReferences)"
            " ? variables.target.metadata.ownerReferences : []",
        ),
        _variable("spec", "has(variables.target.spec) ? variables.target.spec : {}"),
        _variable("egress", "has(variables.spec.egress) ? variables.spec.egress : []"),
        _variable(
            "selector",
            "has(variables.spec.endpointSelector) ? variables.spec.endpointSelector : {}",
        ),
    ]


def _variable(name: str, expression: str) -> dict[str, JSON]:
    return {"name": name, "expression": expression}


def _validation(expression: str, message: str) -> dict[str, JSON]:
    return {"expression": expression, "message": message, "reason": "Forbidden"}


def fence_validations(label_key: str) -> list[dict[str, JSON]]:
    """The seven validations of §15.2, in order. Every one but the first
    passes on DELETE, whose only check is the name prefix."""
    return [
        _name_prefix(),
        _owner_and_name(),
        _owner_kind(),
        _selector(label_key),
        _spec_shape(),
        _rule_shape(),
        _fqdn_shape(),
    ]


def _name_prefix() -> dict[str, JSON]:
    return _validation(
        f"variables.target.metadata.name.startsWith({cel_string(PER_SANDBOX_PREFIX)})",
        f"the sandbox host may only write or delete CiliumNetworkPolicies named "
        f"{PER_SANDBOX_PREFIX}<owner uid>",
    )


def _owner_and_name() -> dict[str, JSON]:
    return _validation(
        "!variables.writing || (\n"
        "  size(variables.owners) == 1 &&\n"
        '  has(variables.owners[0].uid) && variables.owners[0].uid != "" &&\n'
        f"  variables.target.metadata.name == {cel_string(PER_SANDBOX_PREFIX)}"
        " + variables.owners[0].uid\n"
        ")",
        f"a per-sandbox policy has exactly one owner, and its name is "
        f"{PER_SANDBOX_PREFIX} followed by that owner's uid",
    )


def _owner_kind() -> dict[str, JSON]:
    kinds = _cel_list(list(OWNER_API_VERSIONS))
    versions = _cel_list(list(OWNER_API_VERSIONS.values()))
    return _validation(
        "!variables.writing || variables.owners.all(owner,\n"
        f"  owner.kind in {kinds} &&\n"
        f"  owner.apiVersion in {versions} &&\n"
        "  !(has(owner.blockOwnerDeletion) && owner.blockOwnerDeletion)\n"
        ")",
        "the owner must be a SandboxClaim or a Sandbox of the agent-sandbox API groups, "
        "without blockOwnerDeletion",
    )


def _selector(label_key: str) -> dict[str, JSON]:
    key = cel_string(label_key)
    return _validation(
        "!variables.writing || (\n"
        "  has(variables.selector.matchLabels) &&\n"
        "  size(variables.selector.matchLabels) == 1 &&\n"
        "  !has(variables.selector.matchExpressions) &&\n"
        "  size(variables.owners) == 1 &&\n"
        f"  {key} in variables.selector.matchLabels &&\n"
        f"  variables.selector.matchLabels[{key}] == variables.owners[0].name\n"
        ")",
        f"a per-sandbox policy selects exactly one label, {label_key}, whose value is "
        "its owner's name",
    )


def _spec_shape() -> dict[str, JSON]:
    absent = " &&\n".join(f"  !has(variables.spec.{key})" for key in FORBIDDEN_SPEC_KEYS)
    return _validation(
        "!variables.writing || (\n"
        "  !has(variables.target.specs) &&\n"
        f"{absent} &&\n"
        "  size(variables.egress) > 0\n"
        ")",
        "a per-sandbox policy has one spec with egress rules only: no specs list, "
        "no ingress, ingressDeny, egressDeny or nodeSelector, and at least one egress rule",
    )


def _rule_shape() -> dict[str, JSON]:
    forbidden = " &&\n".join(f"  !has(rule.{name})" for name in FORBIDDEN_DESTINATIONS)
    return _validation(
        "!variables.writing || variables.egress.all(rule,\n"
        f"{forbidden} &&\n"
        "  (\n"
        "    (has(rule.toFQDNs) && !has(rule.toEndpoints)) ||\n"
        "    (has(rule.toEndpoints) && !has(rule.toFQDNs) &&\n"
        "      rule.toEndpoints.all(endpoint,\n"
        "        has(endpoint.matchLabels) &&\n"
        f"{_label_equals('endpoint.matchLabels', 'k8s:io.kubernetes.pod.namespace', 'kube-system')}"
        " &&\n"
        f"{_label_equals('endpoint.matchLabels', 'k8s:k8s-app', 'kube-dns')}) &&\n"
        "      (!has(rule.toPorts) || rule.toPorts.all(entry,\n"
        "        has(entry.ports) &&\n"
        '        entry.ports.all(port, has(port.port) && port.port == "53"))))\n'
        "  )\n"
        ")",
        "each egress rule reaches either hostnames (toFQDNs) or the kube-dns pods on "
        "port 53 (toEndpoints), and nothing else: no CIDRs, entities, services, groups, "
        "nodes or toRequires",
    )


def _label_equals(labels: str, key: str, value: str) -> str:
    quoted = cel_string(key)
    return f"        {quoted} in {labels} && {labels}[{quoted}] == {cel_string(value)}"


def _fqdn_shape() -> dict[str, JSON]:
    name = cel_string(MATCH_NAME_PATTERN)
    pattern = cel_string(MATCH_PATTERN_PATTERN)
    return _validation(
        "!variables.writing || variables.egress.all(rule,\n"
        "  !has(rule.toFQDNs) || (size(rule.toFQDNs) > 0 && rule.toFQDNs.all(fqdn,\n"
        "    has(fqdn.matchName) != has(fqdn.matchPattern) &&\n"
        "    (has(fqdn.matchName)\n"
        f"      ? fqdn.matchName.matches({name})\n"
        f"      : fqdn.matchPattern.matches({pattern}))))\n"
        ")",
        "every toFQDNs entry is either one DNS name (matchName) or a *. pattern over at "
        "least two labels (matchPattern), never both",
    )


def fence_policy(names: FenceNames) -> dict[str, JSON]:
    """The ValidatingAdmissionPolicy (§15.2): fail closed, matching the host's
    own writes and deletes of ``cilium.io/v2`` CiliumNetworkPolicies."""
    return {
        "apiVersion": ADMISSION_API_VERSION,
        "kind": VALIDATING_ADMISSION_POLICY.name,
        "metadata": {"name": names.policy},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [CILIUM_NETWORK_POLICY.group],
                        "apiVersions": [CILIUM_NETWORK_POLICY.versions[0]],
                        "operations": ["CREATE", "UPDATE", "DELETE"],
                        "resources": [CILIUM_NETWORK_POLICY.resource],
                    }
                ]
            },
            "matchConditions": [
                {
                    "name": "only-the-sandbox-host",
                    "expression": f"request.userInfo.username == {cel_string(names.username)}",
                }
            ],
            "variables": fence_variables(),
            "validations": fence_validations(names.label_key),
        },
    }


def fence_binding(names: FenceNames) -> dict[str, JSON]:
    """The binding (§15.2): deny, in the sandbox namespace only."""
    return {
        "apiVersion": ADMISSION_API_VERSION,
        "kind": VALIDATING_ADMISSION_POLICY_BINDING.name,
        "metadata": {"name": names.binding},
        "spec": {
            "policyName": names.policy,
            "validationActions": ["Deny"],
            "matchResources": {
                "namespaceSelector": {"matchLabels": {NAMESPACE_LABEL: names.namespace}}
            },
        },
    }
