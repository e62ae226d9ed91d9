"""The egress union decision (SEMANTICS.md §11)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from lint.decision.allowance import build_allowance
from lint.decision.egress_documents import egress_documents
from lint.decision.model import (
    Candidate,
    Decision,
    PolicyDocument,
    RuleVerdict,
    Subject,
    Translation,
    Tri,
)
from lint.decision.union import decide_union, document_verdict
from tests.decision import manifests as m

DENY_ALL = build_allowance(m.deny_all())
ALLOW_ALL = build_allowance(m.allow_all())
SUBJECT = Subject(m.NAMESPACE, m.POD_LABELS)


def _doc(
    name: str = "p",
    *,
    selects: Tri = Tri.YES,
    enforces: bool = True,
    rules: Sequence[tuple[Tri, str | None]] = (),
    unreadable: str | None = None,
    named: bool = False,
    kind: str = "NetworkPolicy",
) -> PolicyDocument:
    return PolicyDocument(
        kind=kind,
        name=name,
        selects=selects,
        enforces=enforces,
        rules=tuple(RuleVerdict(outcome, detail, i) for i, (outcome, detail) in enumerate(rules)),
        unreadable=unreadable,
        named_object=named,
    )


# --- §11.1 the verdict of one document ------------------------------------------------


@pytest.mark.parametrize(
    ("document", "verdict", "detail"),
    [
        (
            _doc(unreadable="`spec` is not an object", selects=Tri.NO),
            "not-evaluable",
            "`spec` is not an object",
        ),
        (_doc(selects=Tri.NO, rules=[(Tri.YES, "wide")]), "does-not-select", None),
        (
            _doc(selects=Tri.UNKNOWN, rules=[(Tri.YES, "wide")]),
            "not-evaluable",
            "cannot be evaluated against pod labels",
        ),
        (
            _doc(
                rules=[
                    (Tri.NO, None),
                    (Tri.UNKNOWN, "odd"),
                    (Tri.YES, "first wide"),
                    (Tri.YES, "second"),
                ]
            ),
            "widens-egress",
            "first wide",
        ),
        (_doc(enforces=False, rules=[(Tri.YES, "wide")]), "widens-egress", "wide"),
        (
            _doc(rules=[(Tri.NO, None), (Tri.UNKNOWN, "first odd"), (Tri.UNKNOWN, "second")]),
            "not-evaluable",
            "first odd",
        ),
        (_doc(enforces=False, rules=[(Tri.UNKNOWN, "odd")]), "not-evaluable", "odd"),
        (
            _doc(enforces=False, rules=[(Tri.NO, None)]),
            "not-egress-scoped",
            "default-denies nothing on egress",
        ),
        (_doc(enforces=True, rules=[(Tri.NO, None)]), "within", None),
        (_doc(enforces=True), "within", None),
    ],
)
def test_document_verdict_steps(document: PolicyDocument, verdict: str, detail: str | None) -> None:
    observed, observed_detail = document_verdict(document)
    assert observed == verdict
    if detail is None:
        assert observed_detail is None
    else:
        assert observed_detail is not None
        assert detail in observed_detail


# --- §11.2 the named-object exemption ---------------------------------------------------


@pytest.mark.parametrize(
    ("document", "verdict"),
    [
        (_doc(named=True, rules=[(Tri.YES, "pattern"), (Tri.UNKNOWN, "odd")]), "within"),
        (_doc(named=True, enforces=False, rules=[(Tri.YES, "pattern")]), "not-egress-scoped"),
        (_doc(named=True, unreadable="`spec.egress` is not a list of rules"), "not-evaluable"),
        (_doc(named=True, selects=Tri.NO), "does-not-select"),
        (_doc(named=True, selects=Tri.UNKNOWN), "not-evaluable"),
    ],
)
def test_named_object_skips_only_steps_4_and_5(document: PolicyDocument, verdict: str) -> None:
    assert document_verdict(document)[0] == verdict


# --- §11.3 precedence and summaries ---------------------------------------------------------


def test_widening_beats_undecided_and_names_the_first_widening_document() -> None:
    documents = [
        _doc("odd", rules=[(Tri.UNKNOWN, "cannot tell")]),
        _doc("first", rules=[(Tri.YES, "reaches 0.0.0.0/0")], kind="CiliumNetworkPolicy"),
        _doc("second", rules=[(Tri.YES, "reaches ::/0")]),
        _doc("within"),
    ]
    decision = decide_union(documents, DENY_ALL)
    assert decision.refusal == "policy-widens-egress"
    assert decision.summary is not None
    assert "CiliumNetworkPolicy/first" in decision.summary
    assert "selects the pod" in decision.summary
    assert "reaches 0.0.0.0/0" in decision.summary
    assert "second" not in decision.summary
    assert [e.verdict for e in decision.examined] == [
        "not-evaluable",
        "widens-egress",
        "widens-egress",
        "within",
    ]


def test_undecided_beats_no_enforcing_and_names_the_first_undecided_document() -> None:
    documents = [
        _doc("quiet", enforces=False),
        _doc("first", unreadable="`specs` is not a list of rule specs", kind="CiliumNetworkPolicy"),
        _doc("second", selects=Tri.UNKNOWN),
    ]
    decision = decide_union(documents, DENY_ALL)
    assert decision.refusal == "not-evaluable"
    assert decision.summary is not None
    assert "CiliumNetworkPolicy/first" in decision.summary
    assert "`specs` is not a list of rule specs" in decision.summary
    assert "cannot be decided" in decision.summary
    assert "second" not in decision.summary


def test_undecided_refuses_even_with_an_enforcing_document() -> None:
    decision = decide_union([_doc("within"), _doc("odd", rules=[(Tri.UNKNOWN, "x")])], DENY_ALL)
    assert decision.refusal == "not-evaluable"


@pytest.mark.parametrize(
    "documents",
    [
        [],
        [_doc(enforces=False)],
        [_doc(selects=Tri.NO)],
        [_doc(enforces=False), _doc("other", selects=Tri.NO)],
    ],
)
def test_no_enforcing_document(documents: list[PolicyDocument]) -> None:
    decision = decide_union(documents, DENY_ALL)
    assert decision.refusal == "no-enforcing-policy"
    assert decision.summary is not None
    assert "'deny-all'" in decision.summary
    assert "default-deny" in decision.summary
    assert "bounds nothing" in decision.summary
    assert len(decision.examined) == len(documents)


@pytest.mark.parametrize(
    "documents",
    [[], [_doc(enforces=False)], [_doc(selects=Tri.NO)], [_doc()]],
)
def test_allow_all_passes_without_an_enforcing_document(documents: list[PolicyDocument]) -> None:
    decision = decide_union(documents, ALLOW_ALL)
    assert (decision.refusal, decision.summary) == (None, None)
    assert len(decision.examined) == len(documents)


def test_allow_all_still_refuses_widening_and_undecided_documents() -> None:
    assert (
        decide_union([_doc(rules=[(Tri.YES, "fqdn")])], ALLOW_ALL).refusal == "policy-widens-egress"
    )
    assert decide_union([_doc(selects=Tri.UNKNOWN)], ALLOW_ALL).refusal == "not-evaluable"


def test_one_enforcing_document_passes() -> None:
    decision = decide_union([_doc("quiet", enforces=False), _doc("enforcing")], DENY_ALL)
    assert decision.refusal is None
    assert decision.summary is None
    assert [(e.name, e.verdict) for e in decision.examined] == [
        ("quiet", "not-egress-scoped"),
        ("enforcing", "within"),
    ]


def test_examined_entries_carry_kind_name_detail_and_document() -> None:
    documents = [_doc("a", unreadable="broken", kind="CiliumNetworkPolicy"), _doc("b")]
    decision = decide_union(documents, DENY_ALL)
    first, second = decision.examined
    assert (first.kind, first.name, first.verdict, first.detail) == (
        "CiliumNetworkPolicy",
        "a",
        "not-evaluable",
        "broken",
    )
    assert first.document is documents[0]
    assert (second.verdict, second.detail, second.document) == ("within", None, documents[1])


def test_document_order_never_changes_a_verdict() -> None:
    documents = [
        _doc("a", rules=[(Tri.YES, "x")]),
        _doc("b", enforces=False),
        _doc("c", selects=Tri.UNKNOWN),
        _doc("d"),
    ]
    forward = {e.name: e.verdict for e in decide_union(documents, DENY_ALL).examined}
    backward = {e.name: e.verdict for e in decide_union(documents[::-1], DENY_ALL).examined}
    assert forward == backward


# --- end to end over real manifests ------------------------------------------------------


def _decide(
    translation: Translation, *candidates: Candidate, subject: Subject = SUBJECT
) -> Decision:
    allowance = build_allowance(translation)
    documents = [
        document
        for candidate in candidates
        for document in egress_documents(candidate, subject, allowance, translation)
    ]
    return decide_union(documents, allowance)


@pytest.mark.parametrize(
    "translation",
    [
        m.deny_all(),
        m.no_network(),
        m.public_internet(),
        m.static_unnarrowed(),
        m.static_narrowed_domain(),
        m.static_narrowed_tls(),
    ],
)
def test_the_translation_itself_passes(translation: Translation) -> None:
    decision = _decide(translation, m.translation_candidate(translation))
    assert decision.refusal is None
    assert [e.verdict for e in decision.examined] == ["within"]


def test_allow_all_in_an_empty_namespace_passes() -> None:
    assert _decide(m.allow_all()).refusal is None


def test_deny_all_in_an_empty_namespace_has_no_enforcing_policy() -> None:
    decision = _decide(m.deny_all())
    assert decision.refusal == "no-enforcing-policy"
    assert decision.examined == ()


def test_same_bytes_under_another_name_widen_q2() -> None:
    translation = m.static_unnarrowed()
    decision = _decide(
        translation,
        m.translation_candidate(translation),
        m.translation_candidate(translation, name="copy"),
    )
    assert decision.refusal == "policy-widens-egress"
    assert decision.summary is not None
    assert "CiliumNetworkPolicy/copy" in decision.summary
    assert '"matchPattern":"*.pypi.org"' in decision.summary
    assert [e.verdict for e in decision.examined] == ["within", "widens-egress"]


def test_core_copy_of_the_translation_is_within() -> None:
    translation = m.deny_all()
    decision = _decide(translation, m.translation_candidate(translation, name="copy"))
    assert decision.refusal is None


def test_specs_entries_of_the_named_object_are_judged_normally() -> None:
    translation = m.static_unnarrowed()
    raw: dict[str, Any] = json.loads(json.dumps(translation.manifest))
    raw["specs"] = [json.loads(json.dumps(raw["spec"]))]
    decision = _decide(translation, Candidate("CiliumNetworkPolicy", raw, 0))
    assert decision.refusal == "policy-widens-egress"
    assert [(e.name, e.verdict) for e in decision.examined] == [
        (m.NAME, "within"),
        (m.NAME, "widens-egress"),
    ]
    assert decision.examined[1].document.spec_index == 0


def test_unreadable_document_at_the_named_name_stays_not_evaluable() -> None:
    translation = m.static_unnarrowed()
    raw = m.cilium_policy(m.NAME, spec={**translation.manifest["spec"], "egress": "x"})
    decision = _decide(translation, Candidate("CiliumNetworkPolicy", raw, 0))
    assert decision.refusal == "not-evaluable"
    assert decision.summary is not None
    assert f"CiliumNetworkPolicy/{m.NAME}" in decision.summary
    assert "`spec.egress` is not a list of rules" in decision.summary


def test_named_object_without_egress_default_deny_has_no_enforcing_policy_q12() -> None:
    translation = m.static_unnarrowed()
    raw: dict[str, Any] = json.loads(json.dumps(translation.manifest))
    raw["spec"]["enableDefaultDeny"] = {"egress": False}
    decision = _decide(translation, Candidate("CiliumNetworkPolicy", raw, 0))
    assert [e.verdict for e in decision.examined] == ["not-egress-scoped"]
    assert decision.refusal == "no-enforcing-policy"
    assert decision.summary is not None
    assert "'static'" in decision.summary


def test_allow_all_with_a_cilium_fqdn_rule_widens_q1() -> None:
    fqdn = m.cilium_policy(
        "fqdn", spec={"egress": [{"toFQDNs": [{"matchName": "api.github.com"}]}]}
    )
    entities = m.cilium_policy("world", spec={"egress": [{"toEntities": ["world"]}]})
    assert _decide(m.allow_all(), m.cilium_candidate(entities)).refusal is None
    decision = _decide(m.allow_all(), m.cilium_candidate(entities), m.cilium_candidate(fqdn))
    assert decision.refusal == "policy-widens-egress"
    assert decision.summary is not None
    assert "CiliumNetworkPolicy/fqdn" in decision.summary


def test_selector_that_cannot_be_evaluated_refuses() -> None:
    raw = m.network_policy(
        "exprs",
        spec={"podSelector": {"matchExpressions": [{"key": "a", "operator": "Gt"}]}, "egress": []},
    )
    decision = _decide(m.deny_all(), m.core_candidate(raw))
    assert decision.refusal == "not-evaluable"
    assert decision.summary is not None
    assert "NetworkPolicy/exprs" in decision.summary
    assert "pod labels" in decision.summary


def test_policy_selecting_other_pods_is_ignored() -> None:
    translation = m.deny_all()
    other = m.network_policy(
        "other", spec={"podSelector": {"matchLabels": {"app": "web"}}, "egress": [{}]}
    )
    decision = _decide(translation, m.core_candidate(other), m.translation_candidate(translation))
    assert decision.refusal is None
    assert [e.verdict for e in decision.examined] == ["does-not-select", "within"]


def test_node_scoped_spec_gives_no_examined_entry() -> None:
    raw = m.cilium_policy(
        "nodes", spec={"nodeSelector": None, "egress": [{"toEntities": ["world"]}]}
    )
    translation = m.static_unnarrowed()
    decision = _decide(translation, m.cilium_candidate(raw), m.translation_candidate(translation))
    assert [e.name for e in decision.examined] == [m.NAME]
    assert decision.refusal is None


# --- robustness over real manifests ----------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
CANDIDATE_KINDS = ("NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy")
EGRESS_VERDICTS = {
    "within",
    "widens-egress",
    "does-not-select",
    "not-egress-scoped",
    "not-evaluable",
}
EGRESS_REFUSALS = {None, "policy-widens-egress", "no-enforcing-policy", "not-evaluable"}


def _corpus_candidates() -> Iterator[tuple[Path, Candidate]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if "NetworkPolicy" not in text:
            continue
        try:
            documents = list(yaml.load_all(text, Loader=loader))
        except yaml.YAMLError:
            continue
        for position, document in enumerate(documents):
            kind = document.get("kind") if isinstance(document, dict) else None
            if kind in CANDIDATE_KINDS:
                clusterwide = kind == "CiliumClusterwideNetworkPolicy"
                yield path, Candidate(str(kind), document, position, clusterwide=clusterwide)


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_every_corpus_policy_gets_a_verdict() -> None:
    """Real manifests never crash the reading or the union, every document
    gets a vocabulary verdict, and rule indices point into ``spec.egress``."""
    translations = [
        m.deny_all(),
        m.allow_all(),
        m.no_network(),
        m.public_internet(),
        m.static_unnarrowed(),
        m.static_narrowed_tls(),
    ]
    allowances = [(t, build_allowance(t)) for t in translations]
    candidates = list(_corpus_candidates())
    assert candidates, "the corpus holds no policy objects"
    subject = Subject("default", {"app": "x"})
    for path, candidate in candidates:
        for translation, allowance in allowances:
            documents = egress_documents(candidate, subject, allowance, translation)
            decision = decide_union(documents, allowance)
            assert decision.refusal in EGRESS_REFUSALS, path
            for entry in decision.examined:
                assert entry.verdict in EGRESS_VERDICTS, path
                if entry.verdict in ("widens-egress", "not-evaluable"):
                    assert entry.detail, path
                rules = entry.document.rules
                assert [rule.index for rule in rules] == list(range(len(rules))), path
