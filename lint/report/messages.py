"""A finding in words, the one wording every format a person reads takes
(text, SARIF, GitHub annotations, Markdown, baseline files; ``explain``
says its details through ``in_words`` too): its message and remedy with
every peer and selector said in words (``finding_words``,
``remedy_words``), and, for the one-line formats, where it applies after
the rule's own message (``placed_message``). The JSON report alone keeps the
exact raw detail, for programs."""

from __future__ import annotations

from lint.report.bounded import bounded
from lint.report.model import Culprit, Finding, Location, SandboxRef
from lint.report.words import in_words

AFFECTED_NAMED = 5
"""Sandbox paths a one-line message names before it counts the rest."""


def finding_words(finding: Finding) -> str:
    """The finding's message with its peers and selectors in words (a
    selector peer without a namespace selector means the culprit's own
    namespace), and, for a culprit of several offending rules, each rule's
    own line after its path: a one-line format shows them all at once."""
    culprit = finding.culprit
    namespace = culprit.namespace if culprit is not None else None
    text = finding.message
    if culprit is not None and len(culprit.rules) > 1:
        for rule in culprit.rules:
            place = rule_place(rule.location, finding.location.file)
            if place is not None:
                text = text.replace(f"{rule.path}: ", f"{rule.path} ({place}): ", 1)
    return in_words(text, namespace)


def rule_place(location: Location | None, file: str) -> str | None:
    """Where a rule is, said shortly: its template line for a Helm render,
    its file and line when that is not the finding's file, else its line."""
    if location is None:
        return None
    if location.source is not None and location.source_line is not None:
        return f"{location.source}:{location.source_line}"
    if location.file != file:
        return f"{location.file}:{location.line}"
    return f"line {location.line}"


def remedy_words(finding: Finding) -> str | None:
    """The finding's remedy in words, when it has one."""
    return in_words(finding.remedy) if finding.remedy else None


def placed_message(finding: Finding) -> str:
    """The message in words, then the sandbox paths it is about (the first
    five, then a count) and its environment."""
    text = bounded(finding_words(finding))
    if len(finding.affected) > 1 or (finding.affected and finding.culprit is not None):
        named = [_path(ref) for ref in finding.affected[:AFFECTED_NAMED]]
        rest = len(finding.affected) - len(named)
        more = f" and {rest} more" if rest else ""
        text += f" (sandbox paths: {', '.join(named)}{more})"
    elif finding.sandbox is not None:
        ref = finding.sandbox
        profile = f", profile {ref.profile}" if ref.profile else ""
        text += f" (sandbox {ref.namespace}/{ref.template}{profile}, {ref.path} path)"
    if finding.environment is not None:
        text += f" [environment {finding.environment}]"
    return text


def culprit_message(culprit: Culprit, paths: int) -> str:
    """``NetworkPolicy/x widens egress of 3 sandbox paths: spec.egress[0]:
    ...``; for the controller's policy, who writes it and for which pods.
    Every message built from a culprit's raw values is built here."""
    noun = "sandbox path" if paths == 1 else "sandbox paths"
    lets_out = "; ".join(culprit.lets_out)
    what = f"{culprit.kind}/{culprit.name}"
    if culprit.origin == "synthesized" and culprit.template is not None:
        return (
            f"the agent-sandbox controller will write {what} for SandboxTemplate/"
            f"{culprit.template}, selecting its pooled pods; it {culprit.verb} {paths} "
            f"{noun}: {lets_out}{_beyond(culprit)}"
        )
    return f"{what} {culprit.verb} {paths} {noun}: {lets_out}{_beyond(culprit)}"


def _beyond(culprit: Culprit) -> str:
    return ", beyond the declared egress" if culprit.verb.startswith("widens") else ""


def _path(ref: SandboxRef) -> str:
    profile = f" profile {ref.profile}" if ref.profile else ""
    return f"{ref.namespace}/{ref.template}{profile} {ref.path}"
