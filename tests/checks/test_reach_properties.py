"""Properties of reach, the second egress decision (CLUSTER-POLICIES §1.5,
§11), over generated manifest sets, through the whole check:

- reach never passes where the union refuses;
- adding any new-kind object never turns a reach refusal into a pass;
- shuffling the documents (and the files they sit in) leaves reach unchanged.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import report_document
from tests.minimal_tree import DECLARATION, TEMPLATE

NAMED_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: task-egress, namespace: sbx}
spec:
  podSelector:
    matchLabels: {sandbox.namzu.ai/template: task}
  policyTypes: [Egress]
  egress:
    - to:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: kube-system}
      ports:
        - {protocol: UDP, port: 53}
        - {protocol: TCP, port: 53}
"""

_SUBJECTS = (
    "namespaces: {}",
    "namespaces: {matchLabels: {kubernetes.io/metadata.name: sbx}}",
    "namespaces: {matchLabels: {kubernetes.io/metadata.name: other}}",
    "namespaces: {matchLabels: {team: a}}",
    "pods: {namespaceSelector: {}, podSelector: {matchLabels: {sandbox.namzu.ai/template: task}}}",
)
_ANP_PEERS = (
    "networks: [0.0.0.0/0]",
    "networks: [10.0.0.0/8]",
    "namespaces: {matchLabels: {kubernetes.io/metadata.name: kube-system}}",
    "nodes: {}",
    "domainNames: [example.com]",
)
_CALICO_SELECTORS = ("all()", "has(app)", "sandbox.namzu.ai/template == 'task'", "app == 'x'")
_CILIUM_PEERS = ("toEntities: [world]", "toCIDR: [10.0.0.0/8]", "toEndpoints: [{}]")


def _anp(name: str, subject: str, action: str, peer: str, baseline: bool) -> str:
    kind = "BaselineAdminNetworkPolicy" if baseline else "AdminNetworkPolicy"
    priority = "" if baseline else "\n  priority: 5"
    return (
        f"apiVersion: policy.networking.k8s.io/v1alpha1\nkind: {kind}\n"
        f"metadata: {{name: {name}}}\nspec:{priority}\n  subject: {{{subject}}}\n"
        f"  egress:\n    - {{name: r, action: {action}, to: [{{{peer}}}]}}\n"
    )


def _cnp(name: str, tier: str, subject: str, action: str, peer: str) -> str:
    return (
        "apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\n"
        f"metadata: {{name: {name}}}\nspec:\n  tier: {tier}\n  priority: 5\n"
        f"  subject: {{{subject}}}\n  egress:\n    - {{name: r, action: {action}, to: [{{{peer}}}]}}\n"
    )


def _calico(name: str, selector: str, action: str, namespaced: bool) -> str:
    kind = "NetworkPolicy" if namespaced else "GlobalNetworkPolicy"
    namespace = ", namespace: sbx" if namespaced else ""
    return (
        f"apiVersion: projectcalico.org/v3\nkind: {kind}\n"
        f'metadata: {{name: {name}{namespace}}}\nspec:\n  selector: "{selector}"\n'
        f"  types: [Egress]\n  egress:\n    - action: {action}\n"
    )


def _cilium(name: str, peer: str) -> str:
    return (
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\n"
        f"metadata: {{name: {name}, namespace: sbx}}\nspec:\n"
        "  endpointSelector: {matchLabels: {sandbox.namzu.ai/template: task}}\n"
        f"  egress:\n    - {peer}\n"
    )


def _core(name: str, wide: bool) -> str:
    rule = "egress: [{}]" if wide else "egress: []"
    return (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        f"metadata: {{name: {name}, namespace: sbx}}\nspec:\n  podSelector: {{}}\n"
        f"  policyTypes: [Egress]\n  {rule}\n"
    )


_NAMES = st.sampled_from(("a", "b", "c"))

NEW_KIND: st.SearchStrategy[str] = st.one_of(
    st.builds(
        _anp,
        _NAMES,
        st.sampled_from(_SUBJECTS),
        st.sampled_from(("Allow", "Deny", "Pass")),
        st.sampled_from(_ANP_PEERS),
        st.booleans(),
    ),
    st.builds(
        _cnp,
        _NAMES,
        st.sampled_from(("Admin", "Baseline")),
        st.sampled_from(_SUBJECTS),
        st.sampled_from(("Accept", "Deny", "Pass")),
        st.sampled_from(_ANP_PEERS),
    ),
    st.builds(
        _calico,
        _NAMES,
        st.sampled_from(_CALICO_SELECTORS),
        st.sampled_from(("Allow", "Deny", "Pass")),
        st.booleans(),
    ),
    st.builds(_cilium, _NAMES, st.sampled_from(_CILIUM_PEERS)),
    st.just(
        "apiVersion: k8s.ovn.org/v1\nkind: EgressFirewall\n"
        "metadata: {name: default, namespace: sbx}\nspec: {egress: []}\n"
    ),
)
ANY_OBJECT = st.one_of(NEW_KIND, st.builds(_core, _NAMES, st.booleans()))
OBJECTS = st.lists(ANY_OBJECT, max_size=5)


def _check(documents: list[str], files: int = 1) -> dict[str, Any]:
    """The JSON report of checking the template, the named policy and
    ``documents`` spread over ``files`` files, in the order given."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".egress-lint.yaml").write_text(DECLARATION, encoding="utf-8")
        everything = [TEMPLATE, NAMED_POLICY, *documents]
        for number in range(files):
            chunk = everything[number::files]
            text = "---\n".join(chunk)
            (root / f"m{number}.yaml").write_text(text, encoding="utf-8")
        options = CheckOptions(paths=(str(root),), config=root / ".egress-lint.yaml")
        report = report_document(run_check(options))
    sandbox: dict[str, Any] = report["sandboxes"][0]
    return sandbox


def _reach_facts(sandbox: dict[str, Any]) -> tuple[Any, ...]:
    """What reach decides, without the files and lines that order moves."""
    reach = sandbox["egress"]["reach"]
    examined = sorted(
        json.dumps([e["kind"], e["name"], e["verdict"], e["detail"]]) for e in reach["examined"]
    )
    skipped = sorted(json.dumps([s["kind"], s["name"], s["reason"]]) for s in reach["skipped"])
    return reach["refusal"], reach["summary"], tuple(examined), tuple(skipped)


_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(OBJECTS)
def test_reach_never_passes_where_the_union_refuses(documents: list[str]) -> None:
    egress = _check(documents)["egress"]
    if egress["union"]["refusal"] is not None:
        assert egress["reach"]["refusal"] is not None


@_SETTINGS
@given(OBJECTS, NEW_KIND)
def test_adding_a_new_kind_object_turns_a_refusal_into_a_pass_only_by_what_it_decides(
    documents: list[str], added: str
) -> None:
    # The cluster's tiers are not monotone: a Deny, or a tier the new object
    # makes apply with its end-of-tier deny, may stop what was let out. So a
    # refusal may turn into a pass, but only through the added object itself:
    # reach reads it as selecting the pod and within the allowance, never
    # as undecided or as not selecting.
    before = _check(documents)["egress"]["reach"]["refusal"]
    after = _check([*documents, added])["egress"]["reach"]
    if before is not None and after["refusal"] is None:
        name = re.search(r"name: (\w+)", added)
        assert name is not None
        verdicts = {
            entry["verdict"]
            for entry in after["examined"]
            if entry["name"] == name.group(1) and entry["namespace"] in (None, "sbx")
        }
        assert "within" in verdicts, (verdicts, after["examined"])


@_SETTINGS
@given(st.lists(ANY_OBJECT, min_size=1, max_size=5), st.randoms(), st.integers(1, 3))
def test_shuffling_documents_leaves_reach_unchanged(
    documents: list[str], random: Any, files: int
) -> None:
    shuffled = list(documents)
    random.shuffle(shuffled)
    assert _reach_facts(_check(documents)) == _reach_facts(_check(shuffled, files))


def test_two_copies_of_one_name_are_named_in_the_same_order_either_way() -> None:
    # Found by the shuffling property: the summary named whichever copy was
    # loaded first.
    copies = [_cilium("a", "toEntities: [world]"), _cilium("a", "toCIDR: [10.0.0.0/8]")]
    forward = _reach_facts(_check(copies))
    assert forward == _reach_facts(_check(copies[::-1]))
    assert forward[0] == "policy-widens-egress"


def test_a_deny_copy_of_a_passing_policy_does_not_hide_it() -> None:
    # Found by the property above: two GlobalNetworkPolicies named `a`, one
    # passing the pod on to the default allow, one denying. The cluster keeps
    # one of them; judged as if both applied, the Deny hid the Pass and the
    # refusal turned into a pass.
    documents = [
        _calico("a", "all()", "Deny", True),
        _calico("a", "all()", "Pass", False),
        _anp("a", "namespaces: {}", "Deny", "networks: [0.0.0.0/0]", False),
    ]
    added = _calico("a", "all()", "Deny", False)
    before = _check(documents)["egress"]["reach"]
    after = _check([*documents, added])["egress"]["reach"]
    assert before["refusal"] is not None
    assert after["refusal"] == "not-evaluable"
    assert "the cluster keeps only one of them" in after["summary"]


def test_identical_copies_are_one_policy() -> None:
    documents = [_calico("a", "all()", "Deny", False)]
    alone = _check(documents)["egress"]["reach"]
    doubled = _check([*documents, *documents])["egress"]["reach"]
    assert alone["refusal"] == doubled["refusal"]
    assert alone["summary"] == doubled["summary"]


def test_an_unparsed_network_policy_leaves_reach_undecided_under_the_namzu_host() -> None:
    # Reach reads NetworkPolicies too: a document that may be one and cannot
    # be parsed must leave its answer undecided, not drop out of it. The
    # union draws the finding; reach does not draw a second one.
    broken = _core("wide", True).replace("kind: NetworkPolicy", "kind: []")
    report = _check([broken])
    assert report["egress"]["reach"]["refusal"] == "not-evaluable"
    assert report["egress"]["union"]["refusal"] == "not-evaluable"


def test_a_cilium_rule_whose_to_ports_is_not_a_list_fails_closed() -> None:
    # Found by the mutation audit (a corpus SNI rule's `toPorts` turned into
    # `{}`): read as "no port", the rule matched nothing and the refusal
    # went away. A value of the wrong type is unreadable.
    for broken in ("toPorts: {}", "toPorts: ''", "toPorts: 7"):
        report = _check([_cilium("odd", broken)])
        assert report["egress"]["reach"]["refusal"] is not None, broken
    # The empty rule is still Cilium's default deny with no allow.
    assert _check([_cilium("deny", "{}")])["egress"]["reach"]["refusal"] is None
