"""``--format sarif``: one SARIF 2.1.0 log with one run, shaped for GitHub
code scanning (INTEGRATIONS.md §1).

Every result has a region with ``startLine >= 1``, and every artifact URI
is percent-encoded and relative to a ``uriBaseId`` the run defines in
``originalUriBaseIds``, never an absolute ``file://`` URI
(``lint.report.uris``). A finding in a Helm
rendered document is placed on the chart template named by ``# Source:``,
with the rendered location as a related location, because code scanning
only shows results on committed files.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import msgspec

from lint import __version__
from lint.loading.rendered import chart_file
from lint.report.fingerprints import fingerprint
from lint.report.messages import placed_message, remedy_words
from lint.report.model import Finding, Report
from lint.report.uris import UriBases, uri_bases
from lint.report.words import in_words
from lint.rules import RULES, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/egress-lint/egress-lint"
_SEVERITY = {"error": "8.9", "warning": "6.9", "note": "3.9"}
_RULE_INDEX = {rule.id: index for index, rule in enumerate(RULES)}


class SarifOptions(msgspec.Struct, frozen=True):
    helm_chart_root: str | None = None
    category: str = "egress-lint"


def render_sarif(report: Report, options: SarifOptions | None = None) -> str:
    """The SARIF log in one string: ``sarif_chunks`` joined."""
    return "".join(sarif_chunks(report, options))


def sarif_chunks(report: Report, options: SarifOptions | None = None) -> Iterator[str]:
    """The SARIF log, indented by two, one result at a time: the bytes
    ``json.dumps(log, indent=2)`` writes for the whole log, without holding
    it. Each result sits four levels deep, so its own lines are indented
    by eight more; the encoder escapes every newline inside a string, so
    each line break in its text is one of the layout's."""
    options = options or SarifOptions()
    run: dict[str, Any] = {
        "tool": {"driver": _driver()},
        "automationDetails": {"id": f"{options.category}/check"},
    }
    # Every base a location names, before the results that name them; a run
    # without results names none and keeps the bytes it always had.
    bases = uri_bases(path for finding in report.findings for path in _paths(finding, options))
    if report.findings:
        run["originalUriBaseIds"] = bases.definitions()
    run["results"] = []
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    skeleton = json.dumps(log, indent=2, ensure_ascii=False)
    if not report.findings:
        yield skeleton + "\n"
        return
    # The key is written once: a `"` inside any string is escaped.
    before, _, after = skeleton.partition('"results": []')
    yield before + '"results": ['
    for index, finding in enumerate(report.findings):
        text = json.dumps(_result(finding, options, bases), indent=2, ensure_ascii=False)
        yield ("," if index else "") + _RESULT_BREAK + text.replace("\n", _RESULT_BREAK)
    yield "\n" + " " * (_RESULT_DEPTH - 1) * 2 + "]" + after + "\n"


_RESULT_DEPTH = 4
"""log, runs, the run, results: a result's first line is indented by eight."""
_RESULT_BREAK = "\n" + " " * _RESULT_DEPTH * 2


def _driver() -> dict[str, Any]:
    return {
        "name": "egress-lint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(rule) for rule in RULES],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    markdown = (
        f"**{rule.summary}**\n\n{rule.help}\n\n**How to fix:** {rule.remedy}\n\n"
        f"See `docs/rules.md#{rule.id}`."
    )
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": f"{rule.summary} {rule.help}"[:1024]},
        "help": {"text": f"{rule.help} How to fix: {rule.remedy}", "markdown": markdown},
        "defaultConfiguration": {"level": rule.level},
        "properties": {
            "security-severity": _SEVERITY[rule.level],
            "tags": ["security", "kubernetes", "network-policy"],
            "precision": "very-high" if rule.level == "error" else "high",
        },
    }


def _places(
    finding: Finding, options: SarifOptions
) -> tuple[tuple[str, int], list[tuple[str, int]]]:
    """The (file, line) of a result's location and of each related
    location: a Helm finding sits on its chart template, with the rendered
    location first among the related ones."""
    location = finding.location
    related = [(r.file, r.line) for r in finding.related]
    if location.source is None:
        return (location.file, location.line), related
    template = template_uri(location.source, options.helm_chart_root) or location.file
    return (template, location.source_line or 1), [(location.file, location.line), *related]


def _paths(finding: Finding, options: SarifOptions) -> Iterator[str]:
    primary, related = _places(finding, options)
    yield primary[0]
    yield from (path for path, _ in related)
    yield from (path for (path, _), _ in _rule_places(finding, options))


def _rule_places(finding: Finding, options: SarifOptions) -> list[tuple[tuple[str, int], str]]:
    """Each offending rule of a culprit with more than one, at its own line
    (on its chart template, for a Helm culprit), with what it lets out."""
    culprit = finding.culprit
    if culprit is None or len(culprit.rules) < 2:
        return []
    places = []
    for rule in culprit.rules:
        location = rule.location
        if location is None:
            continue
        if location.source is None:
            place = (location.file, location.line)
        else:
            template = template_uri(location.source, options.helm_chart_root) or location.file
            place = (template, location.source_line or 1)
        places.append((place, in_words(rule.lets_out, culprit.namespace)))
    return places


def _physical(place: tuple[str, int], bases: UriBases) -> dict[str, Any]:
    path, line = place
    return {
        "physicalLocation": {
            "artifactLocation": bases.location(path),
            "region": {"startLine": max(1, line)},
        }
    }


def template_uri(source: str, chart_root: str | None) -> str:
    """Map ``<chart>/templates/x.yaml`` to the template in the chart
    directory: the chart name is replaced by ``chart_root`` when given (the
    mapping the loader applies to a rendered chart's own documents)."""
    return chart_file(source, chart_root)


def _result(finding: Finding, options: SarifOptions, bases: UriBases) -> dict[str, Any]:
    primary_place, related_places = _places(finding, options)
    primary = _physical(primary_place, bases)
    related = [_physical(place, bases) for place in related_places]
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": _RULE_INDEX[finding.rule_id],
        "level": finding.level,
        "message": {"text": _message(finding)},
        "locations": [primary],
        "partialFingerprints": {
            "primaryLocationLineHash": f"{_alert_hash(finding)}:1",
            "egressLintFingerprint/v1": fingerprint(finding),
        },
    }
    if finding.environment is not None:
        result["properties"] = {"environment": finding.environment}
    related += [
        {**_physical(place, bases), "message": {"text": text}}
        for place, text in _rule_places(finding, options)
    ]
    if related:
        result["relatedLocations"] = [{"id": i, **loc} for i, loc in enumerate(related)]
    if finding.suppressed:
        result["suppressions"] = [
            {
                "kind": finding.suppression_kind or "external",
                "justification": finding.justification or "",
            }
        ]
    return result


def _alert_hash(finding: Finding) -> str:
    """The identity code scanning gives an alert: the finding's fingerprint
    (the one baselines use, the same in every environment, so one baseline
    entry covers the culprit everywhere), and its environment, so the same
    culprit in two environments is two alerts."""
    own = fingerprint(finding)
    if finding.environment is None:
        return own
    return hashlib.sha256(f"{own}\x1f{finding.environment}".encode()).hexdigest()[:32]


def _message(finding: Finding) -> str:
    text = placed_message(finding)
    remedy = remedy_words(finding)
    if remedy:
        text += f" Fix: {remedy}"
    if finding.remedy_yaml:
        text += f"\n\n{finding.remedy_yaml}"
    return text


def _namespace(finding: Finding) -> str | None:
    return finding.culprit.namespace if finding.culprit is not None else None
