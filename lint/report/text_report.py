"""``--format text``: a report a person reads in a terminal or a PR log.

One line per sandbox path, ``ok`` or ``FAIL`` with the culprits' names;
then the findings, grouped by culprit, most severe first (DESIGN §10): each
gives file:line, what the culprit does to how many sandbox paths, the paths,
what it lets out in words (``lint.report.words``) and the remedy. The full
examined list of each decision is shown only with ``--verbose``. Lines are
wrapped at word boundaries within 80 columns. Text taken from the input is
escaped, so a control character in a policy name cannot rewrite the screen.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from typing import Final

import msgspec

from lint.report.bounded import bounded
from lint.report.escaping import escape
from lint.report.messages import finding_words, remedy_words, rule_place
from lint.report.model import (
    ControllerReport,
    Culprit,
    DecisionReport,
    Finding,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.report.ordering import finding_key, findings_by_path
from lint.report.words import in_words
from lint.rules import level_rank

WIDTH = 80
AFFECTED_SHOWN = 10
"""Affected paths listed per finding without ``--verbose``."""
_COLOURS = {"error": "31", "warning": "33", "note": "36", "ok": "32", "dim": "2"}


class _Painter:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, style: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m"


def wrap(text: str, indent: str, *, hang: str = "  ", width: int = WIDTH) -> list[str]:
    """``text`` escaped and wrapped at word boundaries within ``width``
    columns; a word longer than a line is kept whole rather than cut."""
    return textwrap.wrap(
        escape(bounded(text)),
        width,
        initial_indent=indent,
        subsequent_indent=" " * len(indent) + hang,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]


_wrap = wrap


class TextOptions(msgspec.Struct, frozen=True):
    colour: bool = False
    show_suppressed: bool = False
    verbose: bool = False
    """Every examined policy of every decision, and every affected path."""
    quiet: bool = False
    """The findings only."""


def render_text(
    report: Report,
    *,
    colour: bool = False,
    show_suppressed: bool = False,
    verbose: bool = False,
    quiet: bool = False,
) -> str:
    """The text report in one string: ``text_chunks`` joined."""
    return "".join(text_chunks(report, TextOptions(colour, show_suppressed, verbose, quiet)))


def text_chunks(report: Report, options: TextOptions) -> Iterator[str]:
    """The text report, a block of whole lines at a time (the preamble, a
    sandbox, a finding, the summary), each line ending in a newline."""
    for block in _blocks(report, options):
        if block:
            yield "\n".join(block) + "\n"


def _blocks(report: Report, options: TextOptions) -> Iterator[list[str]]:
    paint = _Painter(options.colour)
    quiet = options.quiet
    shown = [f for f in report.findings if options.show_suppressed or not f.suppressed]
    if not quiet:
        yield _preamble(report)
        by_path = findings_by_path(shown)
        for sandbox in report.sandboxes:
            own = by_path.get((sandbox.ref, sandbox.environment), [])
            yield _sandbox_block(sandbox, own, paint, options)
        if report.sandboxes:
            yield [""]
    for finding in sorted(shown, key=_severity_first):
        yield [*_finding_block(finding, paint, options), ""]
    if report.stale_baseline and not quiet:
        count = len(report.stale_baseline)
        yield _wrap(
            f"baseline: {count} stale entr{'y' if count == 1 else 'ies'} "
            "no longer match any finding: " + ", ".join(report.stale_baseline),
            "",
        )
    if not quiet:
        yield [_summary(report, paint)]


def _severity_first(finding: Finding) -> tuple[object, ...]:
    return (-level_rank(finding.level), finding_key(finding))


def _preamble(report: Report) -> list[str]:
    lines: list[str] = []
    if report.controller is not None:
        lines.extend([*_wrap(controller_line(report.controller), ""), ""])
    if report.declaration_file is not None:
        lines.extend([f"declarations: {escape(report.declaration_file)}", ""])
    if report.defaults_applied:
        lines.extend(_defaults_note())
    return lines


_SOURCES: Final = {
    "flag": "from --controller-version",
    "declaration": "from agentSandbox.version",
    "image-tag": "from the image tag",
    "version-label": "from the app.kubernetes.io/version label",
    "default": "assumed: the newest version egress-lint knows",
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
        "the default intent `deny-all` with `engine: core` and `host: none`: only what "
        "the cluster lets its pods reach, on the paths the manifests make possible. "
        "Declare the intended egress in .egress-lint.yaml; if the namzu host creates "
        "these sandboxes, declare each template there (`host: namzu` is the default) so "
        "that its named policy and its own checks apply too (see docs/declarations.md)."
    )
    return [*_wrap(text, "note: "), ""]


def _heading(sandbox: SandboxReport) -> str:
    ref = sandbox.ref
    profile = f" profile {ref.profile}" if ref.profile else ""
    target = ref.template
    if sandbox.workload_kind is not None:
        target = f"{sandbox.workload_kind}/{ref.template}"
    environment = f" in {sandbox.environment}" if sandbox.environment is not None else ""
    claim = f", claim {ref.claim}" if ref.claim else ""
    return f"{ref.namespace}/{target}{profile} [{ref.path} path{claim}]{environment}"


def _sandbox_block(
    sandbox: SandboxReport,
    findings: Sequence[Finding],
    paint: _Painter,
    options: TextOptions,
) -> list[str]:
    """One line: ``ok`` or ``FAIL`` and the names of the culprits of the
    sandbox's own ``findings``; with ``--verbose``, the intent and every
    decision's examined list."""
    failing = [f for f in findings if not f.suppressed]
    status = paint("FAIL", "error") if failing else paint("ok  ", "ok")
    text = _heading(sandbox)
    if failing:
        text += ": " + ", ".join(dict.fromkeys(culprit_name(f) for f in failing))
    lines = _led("FAIL" if failing else "ok  ", status, text, "   ")
    if options.verbose:
        lines.extend(_verbose_block(sandbox, paint))
    return lines


def culprit_name(finding: Finding) -> str:
    """What to change: the culprit (the template, for the controller's
    policy), else the rule id."""
    culprit = finding.culprit
    if culprit is None:
        return finding.rule_id
    if culprit.origin == "synthesized" and culprit.template is not None:
        return f"SandboxTemplate/{culprit.template}"
    return f"{culprit.kind}/{culprit.name}"


def _verbose_block(sandbox: SandboxReport, paint: _Painter) -> list[str]:
    egress = sandbox.egress
    expects = (
        "no named object (host: none)"
        if egress.expected_kind is None
        else f"{egress.expected_kind}/{egress.expected_name}"
    )
    lines = _wrap(f"egress {egress.policy_kind} ({egress.engine}), expects {expects}", "     ")
    decisions: list[tuple[str, DecisionReport | None]] = [
        ("union", egress.union),
        ("reach", egress.reach.decision if egress.reach is not None else None),
        ("ingress", sandbox.ingress.decision if sandbox.ingress is not None else None),
    ]
    for name, decision in decisions:
        if decision is not None and decision.examined:
            lines.extend(_examined_block(name, decision, paint))
    return lines


def _examined_block(name: str, decision: DecisionReport, paint: _Painter) -> list[str]:
    """Every examined policy that selects the pod, then a count of those
    that do not: in a large namespace they are most, and say nothing."""
    lines = [paint(f"     {name} examined:", "dim")]
    selecting = decision.examined.selecting()
    quiet = len(decision.examined) - len(selecting)
    for entry in selecting:
        text = f"{entry.kind}/{entry.name}: {entry.verdict}"
        if entry.detail:
            text += f" ({in_words(entry.detail, entry.namespace)})"
        lines.extend(_wrap(text, "       - ", hang="    "))
    if quiet:
        noun = "policy does" if quiet == 1 else "policies do"
        lines.extend(_wrap(f"and {quiet} {noun} not select the pod", "       "))
    return lines


def _where(finding: Finding) -> str:
    location = finding.location
    where = f"{location.file}:{location.line}"
    if location.source:
        line = f":{location.source_line}" if location.source_line is not None else ""
        where += f" (from {location.source}{line})"
    return where


def _finding_block(finding: Finding, paint: _Painter, options: TextOptions) -> list[str]:
    tag = " (suppressed)" if finding.suppressed else ""
    if finding.environment is not None:
        tag += f" in {finding.environment}"
    culprit = finding.culprit
    level = paint(finding.level, finding.level)
    if culprit is None:
        lines = _led(finding.level, level, f"{_where(finding)}  {finding.rule_id}{tag}")
        lines.extend(_wrap(finding_words(finding), "  "))
        if finding.location_note:
            lines.extend(_wrap(f"where: {finding.location_note}", "  "))
        lines.extend(_paths_block(finding.paths, options))
    else:
        count = len(finding.paths)
        noun = "sandbox path" if count == 1 else "sandbox paths"
        what = f"{culprit.kind}/{culprit.name}"
        head = f"{_where(finding)}  {culprit_name(finding)} "
        if culprit.origin == "synthesized":
            head += f"makes the controller write {what}, which "
        head += f"{culprit.verb} {count} {noun}{tag}"
        lines = _led(finding.level, level, head)
        lines.extend(_wrap(f"rule {finding.rule_id}", "  "))
        if finding.location_note:
            lines.extend(_wrap(f"where: {finding.location_note}", "  "))
        if culprit.origin == "synthesized":
            lines.extend(
                _wrap(
                    f"the agent-sandbox controller will write {what} for this template, "
                    "selecting its pooled pods",
                    "  ",
                )
            )
        lines.extend(_paths_block(finding.paths, options))
        label = "lets out" if culprit.verb.startswith("widens") else "why"
        for clause, place in _clauses(culprit, finding.location.file):
            at = "" if place is None else f" ({place})"
            lines.extend(_wrap(f"{label}{at}: {in_words(clause, culprit.namespace)}", "  "))
    remedy = remedy_words(finding)
    if remedy:
        lines.extend(_wrap("fix: " + remedy, "  "))
    if finding.remedy_yaml:
        lines.extend("      " + escape(line) for line in finding.remedy_yaml.splitlines())
    return lines


def _clauses(culprit: Culprit, file: str) -> list[tuple[str, str | None]]:
    """What each offending rule lets out, with its place when the culprit
    has more than one rule (``rule_place``: one rule sits on the
    finding's line)."""
    rules = culprit.rules
    if len(rules) < 2:
        return [(clause, None) for clause in culprit.lets_out]
    return [(r.lets_out, rule_place(r.location, file)) for r in rules]


def _led(word: str, painted: str, text: str, hang: str = "  ") -> list[str]:
    """``text`` wrapped after a leading word (a level, ``ok``, ``FAIL``),
    which is painted after wrapping so its colour codes take no columns."""
    lines = _wrap(text, " " * (len(word) + 1), hang=hang)
    lines[0] = f"{painted} {lines[0][len(word) + 1 :]}"
    return lines


def _paths_block(paths: Sequence[SandboxRef], options: TextOptions) -> list[str]:
    if not paths:
        return []
    shown = paths if options.verbose else paths[:AFFECTED_SHOWN]
    lines = ["  affects:"]
    for ref in shown:
        profile = f" profile {ref.profile}" if ref.profile else ""
        claim = f", claim {ref.claim}" if ref.claim else ""
        lines.extend(
            _wrap(f"{ref.namespace}/{ref.template}{profile} [{ref.path} path{claim}]", "    - ")
        )
    if len(shown) < len(paths):
        lines.append(f"    and {len(paths) - len(shown)} more (--verbose lists them)")
    return lines


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
