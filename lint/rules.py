"""The rule table: every finding egress-lint can emit, in one place.

`egress-lint rules`, the SARIF rule catalog and docs/rules.md are all
produced from this table, so a rule exists exactly when it is listed here.
``OUTCOME_RULES`` is the one map from a decision's outcome (a refusal, or a
named object missing or mismatched) to the rule it is reported under.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from lint.decision.model import EgressRefusal, IngressRefusal, NamedOutcome

Level = Literal["error", "warning", "note"]
LEVELS: tuple[Level, ...] = ("error", "warning", "note")


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    level: Level
    summary: str
    help: str
    remedy: str
    example: str
    """The scenario under fixtures/scenarios/ that triggers the rule."""


RULES: tuple[Rule, ...] = (
    Rule(
        "named-policy-missing",
        "error",
        "The egress policy the sandbox host expects is not in the manifests.",
        "The host never creates its own egress policy: it reads the object of the "
        "translated kind and name and refuses every sandbox create when it is absent.",
        "Apply the manifest `egress-lint generate` writes for this declaration.",
        "named-missing",
    ),
    Rule(
        "named-policy-mismatch",
        "error",
        "The named egress policy differs from the translation of the declared intent.",
        "The host compares the named object field by field (specs, selector, "
        "policyTypes, egress, ownerReferences) with the exact translation; any "
        "difference refuses every sandbox create.",
        "Replace the object with the manifest `egress-lint generate` writes.",
        "named-mismatch",
    ),
    Rule(
        "egress-policy-widens",
        "error",
        "A policy selecting the sandbox pod lets out more than the declared egress intent.",
        "Kubernetes unions every policy that selects a pod, so one wider policy widens "
        "egress however exactly the named object matches.",
        "Narrow or delete the policy the finding names (for the controller's policy, "
        "change its SandboxTemplate) so it stays inside the declared egress.",
        "cilium-widens",
    ),
    Rule(
        "no-enforcing-egress-policy",
        "error",
        "No policy puts the sandbox pod in egress default-deny.",
        "Without an egress-enforcing policy that selects the pod, the declared "
        "translation bounds nothing: the pod can reach everything.",
        "Apply a policy whose selector matches the pod labels and which enforces Egress "
        "(the baseline policy is the example; `egress-lint generate` writes one).",
        "no-enforcing",
    ),
    Rule(
        "egress-not-evaluable",
        "error",
        "The sandbox pod's egress cannot be decided from the manifests.",
        "A policy that may select the pod cannot be read or evaluated offline. "
        "egress-lint fails closed: an unreadable policy is never a pass.",
        "Fix or remove the policy the finding names, so it can be judged.",
        "not-evaluable",
    ),
    Rule(
        "agent-port-open",
        "error",
        "A policy selecting the sandbox pod admits a wide-open peer on the agent port.",
        "The agent port is the sandbox's control channel; any pod or address that can "
        "reach it can drive the sandbox.",
        "Narrow the ingress rule to the host's pods, or declare `ingress: unverified` when "
        "the port is closed somewhere egress-lint cannot see.",
        "ingress-port-open",
    ),
    Rule(
        "no-ingress-covering-policy",
        "error",
        "No policy enforces ingress on the sandbox pod.",
        "Without an ingress-enforcing policy, every pod in the cluster can reach the agent port.",
        "Apply a policy selecting the template label that closes the agent port (the "
        "baseline policy is the example), or declare `ingress: unverified`.",
        "ingress-no-covering",
    ),
    Rule(
        "ingress-not-evaluable",
        "error",
        "Whether the agent port is closed cannot be decided from the manifests.",
        "A policy that may select the pod cannot be read or evaluated offline; "
        "egress-lint fails closed.",
        "Fix or remove the unreadable policy, or declare `ingress: unverified`.",
        "ingress-not-evaluable",
    ),
    Rule(
        "template-not-found",
        "error",
        "A declaration names a SandboxTemplate that is not in the manifests.",
        "Without the template, its pod labels and the controller's policy are unknown.",
        "Render the template into the checked manifests, fix the name or namespace, or mark "
        "the entry `external: true` and give its `podLabels`.",
        "template-not-found",
    ),
    Rule(
        "label-domain-not-allowed",
        "error",
        "A label key the host puts on claims is outside the controller's allowed-label-domains.",
        "The agent-sandbox controller refuses claim labels whose domain it does not allow "
        "(default `sandbox.users.io`); every claim with that profile would be rejected.",
        "Add the key's domain to `allowed-label-domains` in the agent-sandbox-config "
        "ConfigMap, or use a label key under an allowed domain.",
        "label-domains",
    ),
    Rule(
        "admission-fence-missing",
        "error",
        "The per-sandbox admission fence or its binding is not in the manifests.",
        "The host refuses every per-sandbox policy write until it can read both the "
        "ValidatingAdmissionPolicy and its binding.",
        "Apply the fence `egress-lint generate` writes under the declared names.",
        "fence-missing",
    ),
    Rule(
        "claim-profile-undeclared",
        "warning",
        "A SandboxClaim carries an egress profile that no declaration covers.",
        "The pod of that claim gets a profile label whose egress nobody checked.",
        "Declare the profile for the claim's template, or remove the label from the claim.",
        "claim-profile",
    ),
    Rule(
        "controller-policy-conflict",
        "warning",
        "A rendered NetworkPolicy has the name the agent-sandbox controller writes for a "
        "managed template.",
        "From v0.5.1 the controller refuses to update a same-named policy it does not own, "
        "so the template's reconcile fails.",
        "Rename the policy, or set `networkPolicyManagement: Unmanaged` on the template.",
        "controller-conflict",
    ),
    Rule(
        "unnamed-policy",
        "warning",
        "A policy object has no usable metadata.name.",
        "Such an object cannot be applied; it is judged under an `(unnamed #i)` name.",
        "Give the object a name.",
        "unnamed-policy",
    ),
    Rule(
        "parse-error",
        "error",
        "A document could not be read.",
        "egress-lint fails closed: a document that might hold a policy and cannot be read "
        "makes the decisions it could affect not evaluable.",
        "Fix the YAML or JSON at the reported line.",
        "parse-error",
    ),
    Rule(
        "load-warning",
        "warning",
        "A document was read, but something in it is ambiguous (a duplicate key, for example).",
        "The API server would read the document in one particular way; egress-lint reads it "
        "the same way and says so.",
        "Remove the ambiguity at the reported line.",
        "duplicate-key",
    ),
    Rule(
        "egress-reach-widens",
        "error",
        "A cluster policy the sandbox host does not read lets the sandbox pod out beyond "
        "its declared egress.",
        "The host accepts the sandbox on the union's account, but the cluster enforces "
        "more than the host reads: AdminNetworkPolicy, ClusterNetworkPolicy, Calico "
        "policies, and Cilium policies under `engine: core`. One of them selects the pod "
        "and allows a destination outside the declared egress (see "
        "docs/cluster-policies.md).",
        "Narrow the cluster policy's subject so that it does not select the sandbox "
        "namespace, or change the named rule.",
        "reach-calico-global-policy",
    ),
    Rule(
        "egress-reach-not-evaluable",
        "error",
        "Whether the cluster lets the sandbox pod out cannot be decided from the manifests.",
        "A cluster policy the host does not read may select the pod and cannot be judged "
        "offline: its subject needs labels the manifests do not state, a rule names "
        "domains or nodes, or its kind is one egress-lint recognises only to fail closed.",
        "State the namespace's labels (a Namespace manifest, or `namespaces:` in the "
        "declaration file), change the named rule, or remove the object or suppress the "
        "finding with a reason.",
        "reach-antrea-cluster-policy",
    ),
    Rule(
        "duplicate-object",
        "warning",
        "Two objects of one kind have the same namespace and name.",
        "Only one of them can exist in the cluster, and which one depends on the order "
        "they are applied; egress-lint judges both, and the wider verdict stands.",
        "Delete or rename one of the two objects.",
        "duplicate-policy",
    ),
    Rule(
        "namespace-labels-disagree",
        "warning",
        "The declaration file states labels for a namespace that its Namespace manifest "
        "contradicts.",
        "A Namespace manifest wins over the declaration file's `namespaces:` entry: the "
        "manifest is what the cluster holds, so the stated labels are not the ones selectors see.",
        "Make the `namespaces:` entry agree with the manifest, or remove it.",
        "namespace-labels",
    ),
    Rule(
        "controller-upgrade-widens",
        "warning",
        "A newer agent-sandbox controller would let the sandbox pod out where the assumed "
        "version does not.",
        "What the controller writes and which pods carry the label its policy selects on "
        "change with its version (egress-lint knows each released version's behaviour). Below "
        "the newest known version each "
        "path is judged again as the newer versions would run it; this warning names the "
        "first upgrade that turns a passing decision into a refusal, and what opens.",
        "Fix the policy or template the message names before upgrading the controller, for "
        "example give the template a `networkPolicy` block or set "
        "`networkPolicyManagement: Unmanaged`.",
        "controller-v0.5.0",
    ),
    Rule(
        "controller-version-unknown",
        "warning",
        "The agent-sandbox controller version given is not one egress-lint knows.",
        "egress-lint knows the controller's behaviour for each released version; a tag it "
        "does not know is judged as the newest known version.",
        "Give `--controller-version` or `agentSandbox.version` as a known tag (vX.Y.Z), or "
        "check that the newest known version still describes the deployed controller.",
        "controller-version-unknown",
    ),
    Rule(
        "path-not-declared",
        "warning",
        "A declaration's `paths` leaves out an acquisition path the manifests imply.",
        "A SandboxWarmPool or SandboxClaim naming the template makes pooled pods, and a "
        "pool keeps unclaimed warm pods; their labels differ, so each path is judged on "
        "its own. A path left out of `paths` is not checked at all.",
        "Add the path to `paths`, or remove `paths` to check every path the manifests imply.",
        "path-not-declared",
    ),
    Rule(
        "foreign-sandbox-template",
        "note",
        "A SandboxTemplate of another API group was skipped.",
        "Only `extensions.agents.x-k8s.io` SandboxTemplates are agent-sandbox templates; "
        "another vendor's kind of the same name has other fields and is not checked.",
        "Nothing to do when the object is meant for another controller.",
        "foreign-template",
    ),
    Rule(
        "ingress-peers-cover-everything",
        "warning",
        "An ingress rule's peers together admit every address of a family on the agent "
        "port, and the host counts the port as closed.",
        "The host accepts this; the network may not. The host knows a peer as wide open "
        "only by its text, `0.0.0.0/0` or `::/0`, so peers "
        "split into `0.0.0.0/1` and `128.0.0.0/1`, or `::/0` written long-form as "
        "`0:0:0:0:0:0:0:0/0`, pass its check while admitting every source all the same. "
        "The warning changes no verdict.",
        "Narrow the rule's peers to the sources that need the agent port, such as the host's pods.",
        "host-accepts-network-may-not",
    ),
    Rule(
        "nat-prefix-reaches-private",
        "warning",
        "The egress allowance takes in a NAT64 prefix, whose addresses map back to IPv4, "
        "private ranges included.",
        "The host accepts this; the network may not. The `public-internet` allowance "
        "excludes private IPv4 ranges but leaves `64:ff9b::/96` (RFC 6052) and "
        "`64:ff9b:1::/48` (RFC 8215) in `::/0`. On a cluster with NAT64 (and DNS64), "
        "`64:ff9b::10.0.0.1` reaches 10.0.0.1 through the gateway. The warning changes "
        "no verdict.",
        "Add `64:ff9b::/96` and `64:ff9b:1::/48` to the policy's `exceptCidrs`, or make "
        "sure the cluster runs no NAT64 gateway the pod can reach.",
        "host-accepts-network-may-not",
    ),
    Rule(
        "clusterwide-endpoints-admit-every-pod",
        "warning",
        "A CiliumClusterwideNetworkPolicy admits `fromEndpoints: [{}]` on the agent port: "
        "every pod of the cluster.",
        "The host accepts this; the network may not. The host reads an empty endpoint "
        "selector as closed: in a namespaced policy it means "
        "the policy's own namespace, but in a clusterwide policy it selects every "
        "endpoint of every namespace. The warning changes no verdict.",
        "Give the selector the labels of the pods that need the agent port (with a "
        "`k8s:io.kubernetes.pod.namespace` label to keep them in one namespace).",
        "host-accepts-network-may-not",
    ),
    Rule(
        "suppression-malformed",
        "warning",
        "An `egress-lint.io/ignore` annotation suppresses nothing.",
        "A suppression must name existing rule ids and give a reason "
        "(`<rule-id>[,<rule-id>] reason=<why>`); one with a typo in a rule id, or "
        "without `reason=`, is not honoured, and its findings still count.",
        "Correct the rule id (see `egress-lint rules`) or add `reason=<why>`.",
        "suppression-malformed",
    ),
    Rule(
        "template-undeclared",
        "warning",
        "A SandboxTemplate in the manifests is named by no declaration.",
        "Its pods' egress is not checked at all. Without a declaration file every "
        "template is checked against the default intent, and this is a note that says so.",
        "Add a declaration for the template to .egress-lint.yaml, stating the egress it "
        "is meant to have.",
        "template-undeclared",
    ),
    Rule(
        "declaration-note",
        "note",
        "A declaration setting is accepted but probably does not say what was meant.",
        "The sandbox host accepts the setting, so the run does not fail; the note says "
        "what it does instead (docs/declarations.md, Notes).",
        "Change the setting at the reported line to say what is meant.",
        "declaration-note",
    ),
)

"""The rules, in the order SARIF indexes them: a new rule goes last, so the
``ruleIndex`` of every earlier one stays."""

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    """The rule with that id; an unknown id is a programming error."""
    return RULES_BY_ID[rule_id]


Outcome: TypeAlias = EgressRefusal | IngressRefusal | NamedOutcome
"""A decision's outcome that is a finding."""

OUTCOME_RULES: Final[tuple[tuple[Outcome, str], ...]] = (
    (NamedOutcome.MISSING, "named-policy-missing"),
    (NamedOutcome.MISMATCH, "named-policy-mismatch"),
    (EgressRefusal.POLICY_WIDENS_EGRESS, "egress-policy-widens"),
    (EgressRefusal.NO_ENFORCING_POLICY, "no-enforcing-egress-policy"),
    (EgressRefusal.NOT_EVALUABLE, "egress-not-evaluable"),
    (IngressRefusal.PORT_OPEN, "agent-port-open"),
    (IngressRefusal.NO_COVERING_POLICY, "no-ingress-covering-policy"),
    (IngressRefusal.NOT_EVALUABLE, "ingress-not-evaluable"),
)
"""Each outcome and the id of the rule it is reported under."""

# Keyed by vocabulary too: ``not-evaluable`` is a word of both refusals.
_RULE_OF_OUTCOME: Final[Mapping[tuple[type, str], str]] = {
    (type(outcome), outcome): rule_id for outcome, rule_id in OUTCOME_RULES
}


def rule_for(outcome: Outcome) -> Rule:
    """The rule an outcome is reported under; ``NamedOutcome.MATCH`` and
    strings outside the vocabularies are programming errors (KeyError)."""
    return rule(_RULE_OF_OUTCOME[(type(outcome), outcome)])


def rule_ids_for(vocabulary: type[Outcome]) -> frozenset[str]:
    """The ids of the rules one vocabulary's outcomes are reported under."""
    return frozenset(rule_id for outcome, rule_id in OUTCOME_RULES if type(outcome) is vocabulary)


def level_rank(level: str) -> int:
    """error > warning > note; used by --fail-on."""
    return {"error": 3, "warning": 2, "note": 1}.get(level, 0)
