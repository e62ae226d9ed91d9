"""Verdicts, refusals and error classes are enums whose values are the words
the reports always printed; one table maps each outcome to its rule; and
report records carry plain strings, which ``marshal`` can send between
processes."""

from __future__ import annotations

import marshal
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.decision.model import (
    EgressRefusal,
    EgressVerdict,
    ErrorClass,
    IngressRefusal,
    IngressVerdict,
    NamedOutcome,
)
from lint.explain.verdict import Verdict as DestinationVerdict
from lint.report.model import Report
from lint.rules import OUTCOME_RULES, RULES_BY_ID, rule_for, rule_ids_for
from tests.checks.scenario_runner import DEMO, SCENARIOS

# Written out by hand: the words as the decision, the checks and the
# declaration errors spelled them before they were enums.
WORDS: dict[type[StrEnum], list[str]] = {
    EgressVerdict: [
        "within",
        "widens-egress",
        "does-not-select",
        "not-egress-scoped",
        "not-evaluable",
    ],
    EgressRefusal: ["policy-widens-egress", "no-enforcing-policy", "not-evaluable"],
    IngressVerdict: [
        "covers",
        "opens-agent-port",
        "does-not-select",
        "not-ingress-scoped",
        "not-evaluable",
    ],
    IngressRefusal: ["port-open", "no-covering-policy", "not-evaluable"],
    NamedOutcome: ["match", "missing", "mismatch"],
    ErrorClass: [
        "policy-config",
        "host",
        "unenforceable-policy",
        "narrowing-unsupported",
        "profile-config",
        "per-sandbox-config",
    ],
    DestinationVerdict: ["allowed", "partly-allowed", "denied", "unknown"],
}

RULE_OF = {
    NamedOutcome.MISSING: "named-policy-missing",
    NamedOutcome.MISMATCH: "named-policy-mismatch",
    EgressRefusal.POLICY_WIDENS_EGRESS: "egress-policy-widens",
    EgressRefusal.NO_ENFORCING_POLICY: "no-enforcing-egress-policy",
    IngressRefusal.PORT_OPEN: "agent-port-open",
    IngressRefusal.NO_COVERING_POLICY: "no-ingress-covering-policy",
}


@pytest.mark.parametrize("vocabulary", list(WORDS), ids=lambda v: v.__name__)
def test_members_are_the_words_reports_print(vocabulary: type[StrEnum]) -> None:
    assert [member.value for member in vocabulary] == WORDS[vocabulary]
    for member in vocabulary:
        assert f"{member}" == str(member) == member.value
        assert type(str(member)) is str


def _outcomes() -> list[EgressRefusal | IngressRefusal | NamedOutcome]:
    named = [outcome for outcome in NamedOutcome if outcome is not NamedOutcome.MATCH]
    return [*EgressRefusal, *IngressRefusal, *named]


def test_every_outcome_has_exactly_one_rule_that_exists() -> None:
    listed = sorted((type(outcome).__name__, outcome.value) for outcome, _ in OUTCOME_RULES)
    assert listed == sorted((type(outcome).__name__, outcome.value) for outcome in _outcomes())
    rule_ids = [rule_id for _, rule_id in OUTCOME_RULES]
    assert len(rule_ids) == len(set(rule_ids))
    assert set(rule_ids) <= set(RULES_BY_ID)


def test_rules_are_the_ones_each_outcome_was_reported_under() -> None:
    for outcome, rule_id in RULE_OF.items():
        assert rule_for(outcome).id == rule_id
    # The word both refusals share reaches a rule of its own decision.
    assert rule_for(EgressRefusal.NOT_EVALUABLE).id == "egress-not-evaluable"
    assert rule_for(IngressRefusal.NOT_EVALUABLE).id == "ingress-not-evaluable"


def test_a_match_or_a_plain_word_has_no_rule() -> None:
    with pytest.raises(KeyError):
        rule_for(NamedOutcome.MATCH)
    with pytest.raises(KeyError):
        rule_for("not-evaluable")  # type: ignore[arg-type]


def test_each_decision_s_rules_are_its_own() -> None:
    union = rule_ids_for(EgressRefusal)
    ingress = rule_ids_for(IngressRefusal)
    assert union == {"egress-policy-widens", "no-enforcing-egress-policy", "egress-not-evaluable"}
    assert ingress == {"agent-port-open", "no-ingress-covering-policy", "ingress-not-evaluable"}


def _values(value: Any) -> list[Any]:
    """Every scalar a report holds, through its records, tuples and dicts."""
    if isinstance(value, msgspec.Struct):
        found = [getattr(value, name) for name in value.__struct_fields__]
        return [scalar for item in found for scalar in _values(item)]
    if isinstance(value, tuple | list):
        return [scalar for item in value for scalar in _values(item)]
    if isinstance(value, dict):
        return [scalar for pair in value.items() for scalar in _values(pair)]
    return [value]


def _report(tree: Path, monkeypatch: pytest.MonkeyPatch) -> Report:
    monkeypatch.chdir(tree)
    config = tree / ".egress-lint.yaml"
    return run_check(CheckOptions(paths=(".",), config=config if config.is_file() else None))


@pytest.mark.parametrize("tree", [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())])
def test_report_records_hold_plain_strings(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _report(tree, monkeypatch)
    records = (report.sandboxes, report.findings)
    values = _values(records)
    assert not [value for value in values if isinstance(value, Enum)]
    assert not [value for value in values if isinstance(value, str) and type(value) is not str]
    # What a child process sends back: marshal refuses any subclass of str.
    marshal.dumps(values)
