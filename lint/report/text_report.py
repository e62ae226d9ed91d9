"""``--format text``: a report a person reads in a terminal or a PR log.

Grouped by sandbox and path; every finding gives file:line, rule id, a
summary, the examined policies with their verdicts, and the remedy. Lines
are wrapped to 80 columns. Text taken from the input is escaped, so a
control character in a policy name cannot rewrite the screen.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from itertools import compress, repeat
from operator import attrgetter, ne
from typing import Final

from lint.decision.model import EgressRefusal, EgressVerdict, IngressRefusal
from lint.report.bounded import bounded
from lint.report.escaping import escape
from lint.report.model import ControllerReport, DecisionReport, Finding, Report, SandboxReport
from lint.rules import level_rank, rule_ids_for

WIDTH = 80
_COLOURS = {"error": "31", "warning": "33", "note": "36", "ok": "32", "dim": "2"}


class _Painter:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, style: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m"


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(
        escape(bounded(text)),
        WIDTH,
        initial_indent=indent,
        subsequent_indent=" " * len(indent) + "  ",
        break_long_words=True,
        break_on_hyphens=False,
    ) or [indent]


def render_text(report: Report, *, colour: bool = False, show_suppressed: bool = False) -> str:
    paint = _Painter(colour)
    lines: list[str] = []
    if report.controller is not None:
        lines.extend([*_wrap(controller_line(report.controller), ""), ""])
    if report.declaration_file is not None:
        lines.extend([f"declarations: {escape(report.declaration_file)}", ""])
    if report.defaults_applied:
        lines.extend(_defaults_note())
    # Each sandbox's findings, gathered once: a scan of every finding per
    # sandbox grew with the square of the sandboxes (issue 18).
    by_sandbox: dict[tuple[object, str | None], list[Finding]] = {}
    for finding in report.findings:
        by_sandbox.setdefault((finding.sandbox, finding.environment), []).append(finding)
    for sandbox in report.sandboxes:
        own = by_sandbox.get((sandbox.ref, sandbox.environment), [])
        lines.extend(_sandbox_block(sandbox, own, paint, show_suppressed))
    general = [f for f in report.findings if f.sandbox is None]
    if any(show_suppressed or not f.suppressed for f in general):
        lines.append("general")
        for finding in general:
            if show_suppressed or not finding.suppressed:
                lines.extend(_finding_block(finding, None, paint))
        lines.append("")
    if report.stale_baseline:
        count = len(report.stale_baseline)
        lines.extend(
            _wrap(
                f"baseline: {count} stale entr{'y' if count == 1 else 'ies'} "
                "no longer match any finding: " + ", ".join(report.stale_baseline),
                "",
            )
        )
    lines.append(_summary(report, paint))
    return "\n".join(lines) + "\n"


_SOURCES: Final = {
    "flag": "from --controller-version",
    "declaration": "from agentSandbox.version",
    "image-tag": "from the image tag",
    "default": "assumed: the newest column of §8",
}


def controller_line(controller: ControllerReport) -> str:
    """``agent-sandbox controller v0.5.0 (from the image tag at FILE:LINE)``."""
    source = _SOURCES.get(controller.source, controller.source)
    if controller.location is not None:
        source += f" at {controller.location.file}:{controller.location.line}"
    return f"agent-sandbox controller {controller.version} ({source})"


def _defaults_note() -> list[str]:
    text = (
        "No .egress-lint.yaml was found, so every SandboxTemplate was checked against "
        "the default intent `deny-all` with `engine: core`. Declare the intended egress "
        "in .egress-lint.yaml (see docs/declarations.md)."
    )
    return [*_wrap(text, "note: "), ""]


def _sandbox_block(
    sandbox: SandboxReport, findings: Iterable[Finding], paint: _Painter, show_suppressed: bool
) -> list[str]:
    ref = sandbox.ref
    own = [
        f
        for f in findings
        if f.sandbox == ref
        and f.environment == sandbox.environment
        and (show_suppressed or not f.suppressed)
    ]
    status = paint("FAIL", "error") if own else paint("ok", "ok")
    profile = f" profile {ref.profile}" if ref.profile else ""
    egress = sandbox.egress
    target = ref.template
    if sandbox.workload_kind is not None:
        target = f"{sandbox.workload_kind}/{ref.template}"
    environment = f" in {sandbox.environment}" if sandbox.environment is not None else ""
    claim = f", claim {ref.claim}" if ref.claim else ""
    heading = f"{ref.namespace}/{target}{profile} [{ref.path} path{claim}]{environment}"
    lines = [f"{status} {escape(heading)}"]
    expects = (
        "no named object (host: none)"
        if egress.expected_kind is None
        else f"{egress.expected_kind}/{egress.expected_name}"
    )
    intent = f"egress {egress.policy_kind} ({egress.engine}), expects {expects}"
    lines.extend(_wrap(intent, "     "))
    for finding in own:
        lines.extend(_finding_block(finding, sandbox, paint))
    lines.append("")
    return lines


def _finding_block(finding: Finding, sandbox: SandboxReport | None, paint: _Painter) -> list[str]:
    location = finding.location
    where = f"{location.file}:{location.line}"
    if location.source:
        line = f":{location.source_line}" if location.source_line is not None else ""
        where += f" (from {location.source}{line})"
    tag = " (suppressed)" if finding.suppressed else ""
    if finding.environment is not None and sandbox is None:
        tag += f" in {finding.environment}"
    lines = [f"  {paint(finding.level, finding.level)} {escape(where)} {finding.rule_id}{tag}"]
    lines.extend(_wrap(finding.message, "    "))
    decision = _decision_for(finding, sandbox)
    if decision is not None and decision.examined:
        lines.extend(_examined_block(decision, paint))
    if finding.remedy:
        lines.extend(_wrap("fix: " + finding.remedy, "    "))
    return lines


_VERDICT: Final = attrgetter("verdict")


def _examined_block(decision: DecisionReport, paint: _Painter) -> list[str]:
    """Every examined policy that selects the pod, then a count of those
    that do not: in a large namespace they are most, and say nothing."""
    lines = [paint("    examined:", "dim")]
    # Both vocabularies use the word: IngressVerdict.DOES_NOT_SELECT is equal.
    # Counted and skipped at C speed: in a large namespace they are nearly all.
    examined = decision.examined
    verdicts = list(map(_VERDICT, examined))
    quiet = verdicts.count(EgressVerdict.DOES_NOT_SELECT)
    for entry in compress(examined, map(ne, verdicts, repeat(EgressVerdict.DOES_NOT_SELECT))):
        text = f"{entry.kind}/{entry.name}: {entry.verdict}"
        if entry.detail:
            text += f" ({entry.detail})"
        lines.extend(_wrap(text, "      - "))
    if quiet:
        noun = "policy does" if quiet == 1 else "policies do"
        lines.extend(_wrap(f"and {quiet} {noun} not select the pod", "      "))
    return lines


_UNION_RULES: Final = rule_ids_for(EgressRefusal)
_INGRESS_RULES: Final = rule_ids_for(IngressRefusal)
_REACH_RULES: Final = frozenset({"egress-reach-widens", "egress-reach-not-evaluable"})


def _decision_for(finding: Finding, sandbox: SandboxReport | None) -> DecisionReport | None:
    if sandbox is None:
        return None
    if finding.rule_id in _UNION_RULES:
        return sandbox.egress.union
    if finding.rule_id in _REACH_RULES:
        reach = sandbox.egress.reach
        return reach.decision if reach is not None else None
    if finding.rule_id in _INGRESS_RULES:
        return sandbox.ingress.decision if sandbox.ingress is not None else None
    return None


def _summary(report: Report, paint: _Painter) -> str:
    active = [f for f in report.findings if not f.suppressed]
    counts = {
        level: sum(1 for f in active if f.level == level) for level in ("error", "warning", "note")
    }
    suppressed = len(report.findings) - len(active)
    parts = [f"{n} {level}{'s' if n != 1 else ''}" for level, n in counts.items()]
    text = (
        f"{len(report.sandboxes)} sandbox path(s) checked, "
        + ", ".join(parts)
        + (f", {suppressed} suppressed" if suppressed else "")
    )
    worst = max((level_rank(f.level) for f in active), default=0)
    style = "error" if worst >= 3 else "warning" if worst == 2 else "ok"
    return paint(text, style)
