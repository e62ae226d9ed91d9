"""The rule table is the one place rules are written (issue 27, item 8).

Every outcome that offends maps to exactly one rule; every remedy a finding
gives is a case of its rule's remedies, and every case is given by some
finding; the SARIF catalog and ``egress-lint rules`` list what findings
carry; and no module outside ``lint/rules.py`` writes a remedy sentence.

The findings are those the fixtures produce: each scenario's reviewed
``expected.json`` and the JSON ``check`` output of every fixture tree pinned
under ``tests/golden/outputs/`` (both are compared with the live output by
their own tests, so they are what the code prints)."""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lint.decision.model import (
    EgressRefusal,
    EgressVerdict,
    IngressRefusal,
    IngressVerdict,
    NamedOutcome,
)
from lint.rules import (
    _MAX_REMEMBERED_REMEDIES,
    _REMEMBERED_REMEDIES,
    RULES,
    RULES_BY_ID,
    Decision,
    Outcome,
    culprit_rules,
    level_of,
    remedy_text,
    rule_for,
    verb,
)
from tests.checks.scenario_runner import REPO, SCENARIOS, run_cli

GOLDEN = REPO / "tests" / "golden" / "outputs"

OFFENDING: dict[Decision, frozenset[Outcome]] = {
    "named": frozenset({NamedOutcome.MISSING, NamedOutcome.MISMATCH}),
    "union": frozenset({*EgressRefusal, EgressVerdict.WIDENS_EGRESS, EgressVerdict.NOT_EVALUABLE}),
    "ingress": frozenset(
        {*IngressRefusal, IngressVerdict.OPENS_AGENT_PORT, IngressVerdict.NOT_EVALUABLE}
    ),
    # Reach blames documents by verdict; of its refusals only the one with no
    # document to blame is a finding of its own.
    "reach": frozenset(
        {
            EgressVerdict.WIDENS_EGRESS,
            EgressVerdict.NOT_EVALUABLE,
            EgressRefusal.NO_ENFORCING_POLICY,
        }
    ),
    "ingress-reach": frozenset({EgressVerdict.NOT_EVALUABLE}),
}
"""What each decision reports as a finding: its refusals and the verdicts
that put a document to blame (a pass such as ``within`` or ``covers`` is none)."""


def _rules_of(decision: Decision, outcome: Outcome) -> list[str]:
    return [
        each.id
        for each in RULES
        for of, said in each.outcomes
        if of == decision and type(said) is type(outcome) and said == outcome
    ]


@pytest.mark.parametrize(
    ("decision", "outcome"),
    [(d, o) for d, outcomes in OFFENDING.items() for o in sorted(outcomes)],
)
def test_every_offending_outcome_maps_to_exactly_one_rule(
    decision: Decision, outcome: Outcome
) -> None:
    assert len(_rules_of(decision, outcome)) == 1


def test_the_table_maps_no_outcome_that_does_not_offend() -> None:
    for each in RULES:
        for decision, outcome in each.outcomes:
            assert outcome in OFFENDING[decision], (each.id, decision, outcome)


def test_a_verdict_word_of_two_vocabularies_keeps_its_rules_apart() -> None:
    # ``not-evaluable`` is one string in every vocabulary and decision.
    assert rule_for(EgressRefusal.NOT_EVALUABLE).id == "egress-not-evaluable"
    assert rule_for(IngressRefusal.NOT_EVALUABLE).id == "ingress-not-evaluable"
    assert culprit_rules("union")[EgressVerdict.NOT_EVALUABLE] == "egress-not-evaluable"
    assert culprit_rules("reach")[EgressVerdict.NOT_EVALUABLE] == "egress-reach-not-evaluable"
    assert culprit_rules("ingress")[IngressVerdict.NOT_EVALUABLE] == "ingress-not-evaluable"
    assert culprit_rules("reach")[EgressVerdict.WIDENS_EGRESS] == "egress-reach-widens"


def test_every_rule_that_blames_a_document_has_a_verb() -> None:
    for decision in OFFENDING:
        for rule_id in culprit_rules(decision).values():
            assert verb(rule_id).endswith((" of", " for")), rule_id
    with pytest.raises(KeyError):
        verb("parse-error")


def test_an_unknown_remedy_case_is_refused() -> None:
    with pytest.raises(KeyError, match="no remedy for case 'controller'"):
        remedy_text("no-enforcing-egress-policy", "controller")
    assert remedy_text("parse-error") == RULES_BY_ID["parse-error"].remedy


def test_a_case_fills_its_placeholders() -> None:
    text = remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/x")
    assert text.startswith("Narrow or delete NetworkPolicy/x so")
    rendered = remedy_text("render-needed", "unrendered", directory="c", flag="--helm", key="helm")
    assert (
        "`egress-lint check --helm c`" in rendered and "{name: <environment>, helm: c}" in rendered
    )


def test_equal_remedies_are_one_string() -> None:
    """Thousands of findings give the same remedy: each is made once and
    shared, so a child's answer holds it once; other values make another."""
    first = remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/x")
    again = remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/x")
    other = remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/y")
    assert first is again
    assert other != first and "NetworkPolicy/y" in other
    assert remedy_text("parse-error") is remedy_text("parse-error")
    # Remembering remedies never lets an unknown case through.
    with pytest.raises(KeyError, match="no remedy for case 'controller'"):
        remedy_text("no-enforcing-egress-policy", "controller")


def test_remembered_remedies_are_bounded() -> None:
    for number in range(_MAX_REMEMBERED_REMEDIES + 10):
        remedy_text("egress-policy-widens", "culprit", what=f"NetworkPolicy/p{number}")
        assert len(_REMEMBERED_REMEDIES) <= _MAX_REMEMBERED_REMEDIES
    last = remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/again")
    assert last == remedy_text("egress-policy-widens", "culprit", what="NetworkPolicy/again")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_no_remedy_proposes_weakening_the_check(rule) -> None:  # type: ignore[no-untyped-def]
    for text in rule.remedies.values():
        assert "named-object-only" not in text and "verify:" not in text
        assert text.endswith((".", ":")), text


# --- the remedies and levels the findings carry ----------------------------------------------


def _golden_reports() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON ``check`` report pinned under tests/golden/outputs/."""
    for path in sorted(GOLDEN.glob("*.txt")):
        sections = path.read_text(encoding="utf-8").split("\n=== ")
        for section in sections:
            head, _, rest = section.partition("\n")
            if " check " not in head or "--format json" not in head:
                continue
            body = rest.partition("--- stdout\n")[2].rpartition("--- stderr")[0]
            if body.strip():
                yield f"{path.name}: {head}", json.loads(body)


def _scenario_reports() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(SCENARIOS.glob("*/expected.json")):
        yield path.parent.name, json.loads(path.read_text(encoding="utf-8"))["report"]


def _findings() -> list[tuple[str, dict[str, Any]]]:
    found = [
        (where, finding)
        for where, report in (*_scenario_reports(), *_golden_reports())
        for finding in report.get("findings", [])
    ]
    assert len(found) > 100, "the fixtures' findings were not found"
    return found


def _pattern(template: str) -> re.Pattern[str]:
    """A remedy case as a pattern: each ``{placeholder}`` matches any text."""
    parts = re.split(r"(\{\{|\}\}|\{[a-z_]+\})", template)
    out = ""
    for part in parts:
        if part in ("{{", "}}"):
            out += re.escape(part[0])
        elif re.fullmatch(r"\{[a-z_]+\}", part):
            out += ".+?"
        else:
            out += re.escape(part)
    return re.compile(out, re.DOTALL)


_PATTERNS = {
    (each.id, case): _pattern(text) for each in RULES for case, text in each.remedies.items()
}


def _cases_of(rule_id: str, remedy: str) -> list[str]:
    return [
        case
        for (of, case), pattern in _PATTERNS.items()
        if of == rule_id and pattern.fullmatch(remedy)
    ]


def test_every_finding_carries_a_remedy_of_its_rule_and_its_level() -> None:
    for where, finding in _findings():
        rule = RULES_BY_ID[finding["ruleId"]]
        assert finding["level"] in {rule.level, *rule.level_cases.values()}, where
        assert _cases_of(rule.id, finding["remedy"]), (where, finding["ruleId"], finding["remedy"])


_REFUSAL_WITHOUT_A_PLACE = ("named", "unnamed", "refusal")
NOT_IN_A_FIXTURE: frozenset[tuple[str, str]] = frozenset(
    {
        # The catalog's text of the rules whose findings always name a case.
        *(
            (rule_id, "default")
            for decision in OFFENDING
            for rule_id in culprit_rules(decision).values()
            if RULES_BY_ID[rule_id].remedy not in RULES_BY_ID[rule_id].cases.values()
        ),
        ("no-enforcing-egress-policy", "default"),
        ("no-ingress-covering-policy", "default"),
        ("render-needed", "default"),
        # A refusal whose blamed documents all lack a place falls back on the
        # refusal's own remedy; every fixture's blamed document has a place.
        *(
            (rule_id, case)
            for decision in ("union", "ingress")
            for rule_id in culprit_rules(decision).values()
            for case in _REFUSAL_WITHOUT_A_PLACE
            if case in RULES_BY_ID[rule_id].cases
        ),
        # The controller's policy is blamed on its template; in the fixtures it
        # only ever widens egress.
        ("egress-not-evaluable", "controller"),
        ("agent-port-open", "controller"),
        ("ingress-not-evaluable", "controller"),
    }
)
"""Cases no fixture gives, each for the reason its comment says."""


def _renders_findings() -> list[tuple[str, dict[str, Any]]]:
    """The findings of the one scenario checked through its ``renders:``
    (its chart fails to render), when helm is there to try."""
    if shutil.which("helm") is None:
        return []
    outcome = run_cli(["check", "--renders", "--format", "json"], SCENARIOS / "render-failed")
    return [("render-failed --renders", f) for f in outcome.report["findings"]]


def test_every_remedy_and_level_case_is_given_by_some_finding() -> None:
    findings = [*_findings(), *_renders_findings()]
    given = {
        (finding["ruleId"], case)
        for _, finding in findings
        for case in _cases_of(finding["ruleId"], finding["remedy"])
    }
    exempt = set(NOT_IN_A_FIXTURE)
    if not _renders_findings():
        exempt.add(("render-failed", "default"))
    assert sorted(set(_PATTERNS) - given - exempt) == [], "remedy cases no finding gives"
    assert not exempt & given, "a case exempted as in no fixture is in one: drop the exemption"
    levels = {(f["ruleId"], f["level"]) for _, f in findings}
    for each in RULES:
        for case, level in each.level_cases.items():
            assert (each.id, level) in levels, (each.id, case)
    with pytest.raises(KeyError, match="no level for case"):
        level_of("parse-error", "defaults")


# --- the catalog ------------------------------------------------------------------------------


def test_the_catalogs_list_the_table() -> None:
    listed = json.loads(run_cli(["rules", "--format", "json"], REPO).stdout)
    expected = [
        {"id": r.id, "level": r.level, "summary": r.summary, "help": r.help, "remedy": r.remedy}
        for r in RULES
    ]
    assert listed == expected
    log = json.loads(
        run_cli(["check", ".", "--format", "sarif"], SCENARIOS / "cilium-widens").stdout
    )
    driver = log["runs"][0]["tool"]["driver"]["rules"]
    assert [(r["id"], r["defaultConfiguration"]["level"]) for r in driver] == [
        (r.id, r.level) for r in RULES
    ]
    for result in log["runs"][0]["results"]:
        assert driver[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == RULES_BY_ID[result["ruleId"]].level


# --- no remedy text outside the table ---------------------------------------------------------


def _fragments() -> set[str]:
    """The pieces of every remedy between its placeholders, long enough to
    be a sentence of its own rather than a common phrase."""
    pieces: set[str] = set()
    for each in RULES:
        for text in each.remedies.values():
            pieces.update(p for p in re.split(r"\{[a-z_]*\}", text) if len(p.strip()) >= 30)
    return pieces


def _modules() -> list[Path]:
    root = REPO / "lint"
    return [p for p in sorted(root.rglob("*.py")) if p != root / "rules.py"]


def test_no_module_outside_the_table_writes_a_remedy() -> None:
    fragments = _fragments()
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "remedy":
                assert not isinstance(node.value, ast.Constant | ast.JoinedStr), (
                    f"{path}:{node.value.lineno}: a remedy written in place"
                )
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for fragment in fragments:
                    assert fragment not in node.value, f"{path}:{node.lineno}: {fragment!r}"
