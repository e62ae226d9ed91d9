"""The rule table: every finding egress-lint can emit, in one place.

`egress-lint rules`, the SARIF rule catalog and docs/rules.md are all
produced from this table, so a rule exists exactly when it is listed here.
Each rule also holds the outcomes it reports (a decision's refusal, or the
verdict of a document that is to blame), the verb its culprit findings use,
and its remedies by case: decision and check modules say which outcome and
which case, and take every word from here (``remedy_text``, ``verb``,
``culprit_rules``, ``rule_for``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeAlias

import msgspec

from lint.decision.model import (
    EgressRefusal,
    EgressVerdict,
    IngressRefusal,
    IngressVerdict,
    NamedOutcome,
)

Level = Literal["error", "warning", "note"]
LEVELS: tuple[Level, ...] = ("error", "warning", "note")


Decision = Literal["named", "union", "ingress", "reach", "ingress-reach"]
"""The decision an outcome comes from: the named-object comparison, the
host's union and agent-port decisions, and the cluster's reach over egress
and over the agent port. One verdict word means different rules in
different decisions (a widening document of the union or of reach)."""

Outcome: TypeAlias = EgressRefusal | IngressRefusal | NamedOutcome | EgressVerdict | IngressVerdict
"""A decision's outcome that is a finding: a refusal, a named object missing
or mismatched, or the verdict of a document that is to blame."""

_NO_CASES: Final[Mapping[str, str]] = MappingProxyType({})
_NO_LEVELS: Final[Mapping[str, Level]] = MappingProxyType({})


class Rule(msgspec.Struct, frozen=True):
    id: str
    level: Level
    summary: str
    help: str
    remedy: str
    """The remedy the catalog shows, and a finding's unless it names a case."""
    example: str
    """The scenario under fixtures/scenarios/ that triggers the rule."""
    outcomes: tuple[tuple[Decision, Outcome], ...] = ()
    """The outcomes reported under this rule, each with its decision."""
    verb: str | None = None
    """How a culprit finding says what the culprit does to the sandbox."""
    cases: Mapping[str, str] = msgspec.field(default_factory=lambda: _NO_CASES)
    """Remedies by case besides the catalog's, with ``{placeholders}`` the
    caller fills in (``remedy_text``)."""
    level_cases: Mapping[str, Level] = msgspec.field(default_factory=lambda: _NO_LEVELS)
    """Levels by case besides the catalog's ``level`` (``level_of``)."""

    @property
    def remedies(self) -> Mapping[str, str]:
        """Every remedy of the rule by case; ``default`` is the catalog's."""
        return {"default": self.remedy, **self.cases}


# Remedy texts more than one rule gives, written once.
_CONTROLLER_REMEDY: Final = (
    "Change SandboxTemplate/{template}, which makes the controller write this policy: "
    "set `networkPolicyManagement: Unmanaged` and apply your own policies, or give it "
    "a `spec.networkPolicy` block that stays inside the declared egress, for example:"
)
"""A culprit the controller writes: the template is what a person changes."""
_UNION_NOT_EVALUABLE: Final = "Fix or remove the policy that cannot be evaluated."
_REACH_REMEDY: Final = (
    "Narrow the cluster policy's subject so that it does not select the sandbox "
    "namespace, or change the named rule; for a kind egress-lint cannot judge, remove "
    "the object or suppress the finding with a reason."
)
_REACH_WIDENS_REMEDY: Final = (
    "Narrow the cluster policy's subject so that it does not select the sandbox "
    "namespace, or change the named rule so that it stays inside the declared egress."
)
"""The catalog's and the finding's remedy alike: a widening cluster policy
was judged, so the remove-or-suppress advice of an unjudged kind is not its."""
_CLOSE_IT: Final = (
    "or declare `ingress: unverified` when the port is closed somewhere the linter cannot see."
)
_NOT_EVALUABLE_VERB: Final = "cannot be evaluated for"


RULES: tuple[Rule, ...] = (
    Rule(
        "named-policy-missing",
        "error",
        "The egress policy the sandbox host expects is not in the manifests.",
        "The host never creates its own egress policy: it reads the object of the "
        "translated kind and name and refuses every sandbox create when it is absent.",
        "Apply the manifest `egress-lint generate` writes for this declaration.",
        "named-missing",
        outcomes=(("named", NamedOutcome.MISSING),),
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
        outcomes=(("named", NamedOutcome.MISMATCH),),
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
        outcomes=(
            ("union", EgressRefusal.POLICY_WIDENS_EGRESS),
            ("union", EgressVerdict.WIDENS_EGRESS),
        ),
        verb="widens egress of",
        cases=MappingProxyType(
            {
                "culprit": "Narrow or delete {what} so it stays inside the declared egress: "
                "Kubernetes unions every policy that selects the pod, so another policy "
                "cannot take it back.",
                "controller": _CONTROLLER_REMEDY,
                "named": "Narrow or delete the widening policy so it stays inside the "
                "configured translation: Kubernetes unions every policy that selects the pod.",
                "unnamed": "Narrow or delete this policy so it stays inside the declared "
                "intent: Kubernetes unions every policy that selects the pod.",
            }
        ),
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
        outcomes=(
            ("union", EgressRefusal.NO_ENFORCING_POLICY),
            ("reach", EgressRefusal.NO_ENFORCING_POLICY),
        ),
        cases=MappingProxyType(
            {
                "named": "Apply a policy whose selector matches these pod labels and which "
                "enforces Egress (the reference deployment's baseline policy is an example).",
                "unnamed": "Apply a policy whose selector matches these pod labels and which "
                "enforces Egress (`egress-lint generate` writes one from the declaration).",
            }
        ),
    ),
    Rule(
        "egress-not-evaluable",
        "error",
        "The sandbox pod's egress cannot be decided from the manifests.",
        "A policy that may select the pod cannot be read or evaluated offline. "
        "egress-lint fails closed: an unreadable policy is never a pass.",
        "Fix or remove the policy the finding names, so it can be judged.",
        "not-evaluable",
        outcomes=(
            ("union", EgressRefusal.NOT_EVALUABLE),
            ("union", EgressVerdict.NOT_EVALUABLE),
        ),
        verb=_NOT_EVALUABLE_VERB,
        cases=MappingProxyType(
            {
                "culprit": "Fix or remove {what} so it can be judged; until then the pod's "
                "egress cannot be decided and the check fails closed.",
                "controller": _CONTROLLER_REMEDY,
                "named": _UNION_NOT_EVALUABLE,
                "unnamed": _UNION_NOT_EVALUABLE,
            }
        ),
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
        outcomes=(
            ("ingress", IngressRefusal.PORT_OPEN),
            ("ingress", IngressVerdict.OPENS_AGENT_PORT),
        ),
        verb="opens the agent port of",
        cases=MappingProxyType(
            {
                "culprit": "Narrow or delete the rule of {what} that admits a wide-open "
                "source on the agent port: Kubernetes unions every selecting policy, so "
                "another policy cannot close it.",
                "controller": _CONTROLLER_REMEDY,
                "refusal": "Narrow or delete the rule that admits a wide-open source on the "
                "agent port (Kubernetes unions every selecting policy, so another policy "
                "cannot close it), then keep a policy selecting the template label that "
                f"closes the port; {_CLOSE_IT}",
            }
        ),
    ),
    Rule(
        "no-ingress-covering-policy",
        "error",
        "No policy enforces ingress on the sandbox pod.",
        "Without an ingress-enforcing policy, every pod in the cluster can reach the agent port.",
        "Apply a policy selecting the template label that closes the agent port (the "
        "baseline policy is the example), or declare `ingress: unverified`.",
        "ingress-no-covering",
        outcomes=(("ingress", IngressRefusal.NO_COVERING_POLICY),),
        cases=MappingProxyType(
            {
                "refusal": "Apply a policy selecting the template label that enforces "
                "Ingress and closes the port (the reference baseline "
                f"`namzu-sandbox-baseline` admits only the host's pods); {_CLOSE_IT}",
            }
        ),
    ),
    Rule(
        "ingress-not-evaluable",
        "error",
        "Whether the agent port is closed cannot be decided from the manifests.",
        "A policy that may select the pod cannot be read or evaluated offline; "
        "egress-lint fails closed.",
        "Fix or remove the unreadable policy, or declare `ingress: unverified`.",
        "ingress-not-evaluable",
        outcomes=(
            ("ingress", IngressRefusal.NOT_EVALUABLE),
            ("ingress", IngressVerdict.NOT_EVALUABLE),
            ("ingress-reach", EgressVerdict.NOT_EVALUABLE),
        ),
        verb=_NOT_EVALUABLE_VERB,
        cases=MappingProxyType(
            {
                "culprit": "Fix or remove {what} so it can be judged; until then whether the "
                "agent port is closed cannot be decided and the check fails closed.",
                "controller": _CONTROLLER_REMEDY,
                "refusal": "Fix or remove the policy that cannot be read, and apply a policy "
                f"selecting the template label that closes the port; {_CLOSE_IT}",
                "reach": _REACH_REMEDY,
            }
        ),
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
        "render-needed",
        "error",
        "A Helm chart or Kustomize directory was named among the paths to check.",
        "Its files are templates and patches, not the manifests the cluster gets, so "
        "egress-lint does not read them; any policy they render could select a sandbox, so "
        "every sandbox fails closed until the chart or overlay is checked rendered.",
        "Check it rendered: pass the chart with `--helm DIR` or the overlay with "
        "`--kustomize DIR`, or list it under `renders:` in .egress-lint.yaml.",
        "render-needed",
        cases=MappingProxyType(
            {
                "unrendered": "Check {directory} rendered: `egress-lint check {flag} "
                "{directory}`, or list it in .egress-lint.yaml as `renders: [{{name: "
                "<environment>, {key}: {directory}}}]`.",
            }
        ),
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
        _REACH_WIDENS_REMEDY,
        "reach-calico-global-policy",
        outcomes=(("reach", EgressVerdict.WIDENS_EGRESS),),
        cases=MappingProxyType({"reach": _REACH_WIDENS_REMEDY}),
        verb="can let the pod out, in a real cluster, beyond the declared egress of",
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
        outcomes=(("reach", EgressVerdict.NOT_EVALUABLE),),
        verb="cannot be evaluated, so the cluster's reach cannot be decided, for",
        cases=MappingProxyType({"reach": _REACH_REMEDY}),
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
        # Without a declaration file every template is checked: a note, not a warning.
        level_cases=MappingProxyType({"defaults": "note"}),
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
    Rule(
        "render-failed",
        "error",
        "A `renders:` environment could not be rendered.",
        "Its chart or overlay failed to render, was refused before the tool ran (a path "
        "outside the repository, a reference that would be fetched), or the tool ran past "
        "the time or output limit. Nothing of the environment can be read, so it fails "
        "closed: each of its sandboxes fails, with this one finding. The other "
        "environments are checked as usual.",
        "Fix the chart, values or overlay so that the render the message quotes succeeds; "
        "for a trusted repository, raise `--render-timeout` or the size limits, or give "
        "`--allow-remote-render`.",
        "render-failed",
    ),
    Rule(
        "controller-versions-disagree",
        "warning",
        "Two sources of the agent-sandbox controller version disagree.",
        "The manifests run agent-sandbox controllers of different versions, or one of "
        "another version than `agentSandbox.version` says. What the controller writes "
        "depends on its version: with two controllers in the manifests the newest known "
        "version is assumed, and over a declared version the one the manifests run wins.",
        "Run one controller version, and make `agentSandbox.version` name it (or remove "
        "`agentSandbox.version` when the manifests hold the controller).",
        "controller-versions-disagree",
    ),
    Rule(
        "agent-sandbox-invalid",
        "error",
        "An agent-sandbox object lacks a field its CustomResourceDefinition requires.",
        "The API server refuses the object on apply (a SandboxTemplate without "
        "`spec.podTemplate`, a SandboxWarmPool without `spec.sandboxTemplateRef`, ...), so "
        "the sandboxes that depend on it never start as the manifests describe.",
        "Add the field the message names, at the object's line.",
        "agent-sandbox-invalid",
    ),
    Rule(
        "agent-sandbox-unknown-field",
        "warning",
        "An agent-sandbox object has a field its CustomResourceDefinition does not know.",
        "The API server refuses the object (kubectl validates strictly by default) or drops "
        "the field, so what it says has no effect: `spec.template` on a SandboxTemplate gives "
        "the pods no labels. The message names the nearest field the definition knows.",
        "Rename the field to the one the message suggests, or remove it.",
        "agent-sandbox-invalid",
    ),
)

"""The rules, in the order SARIF indexes them: a new rule goes last, so the
``ruleIndex`` of every earlier one stays."""

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    """The rule with that id; an unknown id is a programming error."""
    return RULES_BY_ID[rule_id]


RefusalOutcome: TypeAlias = EgressRefusal | IngressRefusal | NamedOutcome
"""A refusal, or a named object missing or mismatched."""

_DECISION_OF_REFUSAL: Final[Mapping[type, Decision]] = {
    NamedOutcome: "named",
    EgressRefusal: "union",
    IngressRefusal: "ingress",
}

# Keyed by decision and vocabulary too: ``not-evaluable`` is a word of every
# vocabulary, and a widening document means one rule in the union, another in reach.
_RULE_OF_OUTCOME: Final[Mapping[tuple[Decision, type, str], str]] = {
    (decision, type(outcome), outcome): each.id
    for each in RULES
    for decision, outcome in each.outcomes
}

OUTCOME_RULES: Final[tuple[tuple[RefusalOutcome, str], ...]] = tuple(
    (outcome, each.id)
    for each in RULES
    for decision, outcome in each.outcomes
    if isinstance(outcome, EgressRefusal | IngressRefusal | NamedOutcome)
    and decision == _DECISION_OF_REFUSAL[type(outcome)]
)
"""Each refusal of the host's decisions and the id of the rule it is reported under."""


def rule_for(outcome: RefusalOutcome) -> Rule:
    """The rule a refusal of the host's decisions is reported under;
    ``NamedOutcome.MATCH`` and strings outside the vocabularies are
    programming errors (KeyError)."""
    decision = _DECISION_OF_REFUSAL[type(outcome)]
    return rule(_RULE_OF_OUTCOME[(decision, type(outcome), outcome)])


def rule_ids_for(vocabulary: type[RefusalOutcome]) -> frozenset[str]:
    """The ids of the rules one vocabulary's outcomes are reported under."""
    return frozenset(rule_id for outcome, rule_id in OUTCOME_RULES if type(outcome) is vocabulary)


def culprit_rules(decision: Decision) -> Mapping[str, str]:
    """The verdicts of ``decision`` that put a document to blame, each with
    the id of the rule its finding is reported under."""
    return MappingProxyType(
        {
            outcome: rule_id
            for (of, vocabulary, outcome), rule_id in _RULE_OF_OUTCOME.items()
            if of == decision and vocabulary in (EgressVerdict, IngressVerdict)
        }
    )


def verb(rule_id: str) -> str:
    """How a culprit finding of the rule says what its culprit does; a rule
    without culprits is a programming error (KeyError)."""
    said = rule(rule_id).verb
    if said is None:
        raise KeyError(f"rule {rule_id!r} reports no culprit")
    return said


_REMEDIES_BY_ID: Final[Mapping[str, Mapping[str, str]]] = {each.id: each.remedies for each in RULES}
"""Each rule's remedies by case, gathered once: a finding asks for one."""


def remedy_text(rule_id: str, case: str = "default", **values: str) -> str:
    """The rule's remedy for ``case``, its placeholders filled with
    ``values``. An unknown case is a programming error (KeyError): every
    remedy a finding gives is written in this table. Equal remedies are
    one string (``_REMEMBERED_REMEDIES``): thousands of findings give the
    same few, and a child's answer then holds each once."""
    key = (rule_id, case, *values.items())
    known = _REMEMBERED_REMEDIES.get(key)
    if known is not None:
        return known
    remedies = _REMEDIES_BY_ID[rule_id]
    if case not in remedies:
        raise KeyError(f"rule {rule_id!r} has no remedy for case {case!r}")
    text = remedies[case].format(**values)
    if len(_REMEMBERED_REMEDIES) >= _MAX_REMEMBERED_REMEDIES:
        _REMEMBERED_REMEDIES.clear()
    _REMEMBERED_REMEDIES[key] = text
    return text


_REMEMBERED_REMEDIES: dict[tuple[object, ...], str] = {}
"""Each remedy made lately, by rule, case and values (in the order given)."""
_MAX_REMEMBERED_REMEDIES: Final = 4096


def level_of(rule_id: str, case: str = "default") -> Level:
    """The rule's level for ``case``; ``default`` is the catalog's. An
    unknown case is a programming error (KeyError)."""
    each = rule(rule_id)
    if case == "default":
        return each.level
    if case not in each.level_cases:
        raise KeyError(f"rule {rule_id!r} has no level for case {case!r}")
    return each.level_cases[case]


def level_rank(level: str) -> int:
    """error > warning > note; used by --fail-on."""
    return {"error": 3, "warning": 2, "note": 1}.get(level, 0)
