"""Property tests over the whole decision: translation, allowance, policy
reading and the union (SEMANTICS §3, §4, §5, §11)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import egress_documents
from lint.decision.model import Allowance, Candidate, Decision, Subject, Translation
from lint.decision.translation import translate
from lint.decision.union import decide_union

NAMESPACE = "sbx"
TEMPLATE = "task"

_label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
_host = st.builds(
    lambda labels, wild: ("." if wild else "") + ".".join(labels),
    st.lists(_label, min_size=2, max_size=3).filter(lambda ls: not ls[-1].isdigit()),
    st.booleans(),
)
_port = st.integers(min_value=1, max_value=65535)
_ports = st.lists(_port, min_size=1, max_size=3)
_cidr = st.sampled_from(["203.0.113.0/24", "198.51.100.7/32", "2001:db8::/32", "10.0.0.1/8"])


@st.composite
def _narrowing(draw: st.DrawFn, hosts: list[str]) -> dict[str, Any] | None:
    if not draw(st.booleans()):
        return None
    narrowing: dict[str, Any] = {}
    if draw(st.booleans()):
        narrowing["ports"] = draw(_ports)
    exact = [h for h in hosts if not h.startswith(".")]
    if hosts and draw(st.booleans()):
        chosen = draw(st.sampled_from(hosts))
        narrowing["hostPorts"] = {chosen: draw(_ports)}
    if draw(st.booleans()):
        narrowing["dnsNames"] = draw(
            st.one_of(
                st.just(True), st.builds(dict), st.just({"searchSuffixes": ["corp.internal"]})
            )
        )
    if len(exact) == len(hosts) and draw(st.booleans()):
        narrowing["tlsServerNames"] = True
        if draw(st.booleans()):
            narrowing["tlsPorts"] = draw(_ports)
    return narrowing


@st.composite
def egress_configs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["deny-all", "allow-all", "no-network", "public-internet", "static", "resolver"]
        )
    )
    egress: dict[str, Any] = {"policy": {"kind": kind}}
    if kind in ("static", "resolver"):
        hosts = draw(st.lists(_host, max_size=4))
        egress["policy"]["allowedHosts"] = hosts
        egress["engine"] = "cilium"
        narrowing = draw(_narrowing(hosts))
        if narrowing is not None:
            egress["ciliumNarrowing"] = narrowing
    else:
        egress["engine"] = draw(st.sampled_from(["core", "cilium"]))
    if kind == "public-internet" and draw(st.booleans()):
        egress["policy"]["exceptCidrs"] = draw(st.lists(_cidr, max_size=3))
    if draw(st.booleans()):
        egress["profile"] = draw(_label)
    return egress


def _subject(translation: Translation) -> Subject:
    spec = translation.manifest["spec"]
    selector = spec.get("podSelector") or spec.get("endpointSelector")
    return Subject(NAMESPACE, dict(selector["matchLabels"]))


def _decide(
    policies: list[tuple[str, Any]], translation: Translation, allowance: Allowance
) -> Decision:
    subject = _subject(translation)
    documents = []
    positions: dict[str, int] = {}
    for kind, raw in policies:
        position = positions.get(kind, 0)
        positions[kind] = position + 1
        documents.extend(
            egress_documents(Candidate(kind, raw, position), subject, allowance, translation)
        )
    return decide_union(documents, allowance)


@settings(max_examples=150, deadline=None)
@given(egress_configs())
def test_translation_is_within_its_own_allowance(egress: dict[str, Any]) -> None:
    """§11.2: the named object, applied alone, never refuses its own
    translation: its one document is `within` and enforcing."""
    translation = translate(egress, TEMPLATE, NAMESPACE)
    allowance = build_allowance(translation)
    decision = _decide([(translation.kind, translation.manifest)], translation, allowance)
    assert decision.refusal is None, decision.summary
    assert [e.verdict for e in decision.examined] == ["within"]


# A small universe of policies, good and bad, for the union properties.
_PEERS = [
    {"ipBlock": {"cidr": "0.0.0.0/0"}},
    {"ipBlock": {"cidr": "169.254.169.254/32"}},
    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}},
    {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    },
    {"podSelector": {}},
    "not a peer",
]
_PORTS = [
    None,
    [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
    [{"protocol": "TCP", "port": 443}],
    [{"protocol": "TCP", "port": "https"}],
]
_SELECTORS = [
    {},
    {"matchLabels": {"sandbox.namzu.ai/template": TEMPLATE}},
    {"matchLabels": {"sandbox.namzu.ai/template": "other"}},
    {"matchExpressions": [{"key": "sandbox.namzu.ai/template", "operator": "Exists"}]},
    None,
]


@st.composite
def core_policies(draw: st.DrawFn, name: str) -> dict[str, Any]:
    rules = []
    for _ in range(draw(st.integers(0, 2))):
        rule: dict[str, Any] = {}
        peers = draw(st.lists(st.sampled_from(_PEERS), max_size=2))
        if peers:
            rule["to"] = peers
        ports = draw(st.sampled_from(_PORTS))
        if ports is not None:
            rule["ports"] = ports
        rules.append(rule)
    spec: dict[str, Any] = {"podSelector": draw(st.sampled_from(_SELECTORS))}
    if draw(st.booleans()):
        spec["policyTypes"] = ["Egress"]
    spec["egress"] = rules
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


_policy_sets = st.integers(1, 5).flatmap(
    lambda n: st.tuples(*[core_policies(f"p{i}") for i in range(n)]).map(list)
)
_fixed_translation = translate({"policy": {"kind": "deny-all"}}, TEMPLATE, NAMESPACE)


@settings(max_examples=150, deadline=None)
@given(_policy_sets, st.randoms(use_true_random=False))
def test_union_does_not_depend_on_document_order(policies: list[dict[str, Any]], rnd: Any) -> None:
    """§11.3: which document a summary names depends on order; the refusal
    and every document's verdict do not."""
    allowance = build_allowance(_fixed_translation)
    shuffled = list(policies)
    rnd.shuffle(shuffled)
    first = _decide([("NetworkPolicy", p) for p in policies], _fixed_translation, allowance)
    second = _decide([("NetworkPolicy", p) for p in shuffled], _fixed_translation, allowance)
    assert first.refusal == second.refusal
    assert sorted((e.name, e.verdict) for e in first.examined) == sorted(
        (e.name, e.verdict) for e in second.examined
    )


@settings(max_examples=150, deadline=None)
@given(_policy_sets, core_policies("extra"))
def test_adding_a_policy_never_turns_a_refusal_into_a_pass(
    policies: list[dict[str, Any]], extra: dict[str, Any]
) -> None:
    """§11.3: a widening or undecided document stays in the union whatever
    is added, so `policy-widens-egress` and `not-evaluable` never become a
    pass. (`no-enforcing-policy` is different by design: adding an
    enforcing policy is its remedy.)"""
    allowance = build_allowance(_fixed_translation)
    before = _decide([("NetworkPolicy", p) for p in policies], _fixed_translation, allowance)
    after = _decide(
        [("NetworkPolicy", p) for p in [*policies, extra]], _fixed_translation, allowance
    )
    if before.refusal in ("policy-widens-egress", "not-evaluable"):
        assert after.refusal is not None
        if before.refusal == "policy-widens-egress":
            assert after.refusal == "policy-widens-egress"
    if before.refusal is not None and after.refusal is None:
        assert before.refusal == "no-enforcing-policy"
