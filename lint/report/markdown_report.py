"""``--format markdown``: a summary for a pull request or a job summary
(``$GITHUB_STEP_SUMMARY``): one table of culprits, each with every sandbox
path it affects, and one table of the sandboxes checked.

A culprit is what a person changes (DESIGN §10): findings of one rule at
one place about one object, whatever sandboxes they concern, are one row.
Text from the input is escaped, so a name cannot break the table, write
HTML, link or load an image.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from lint.report.bounded import bounded
from lint.report.escaping import escape
from lint.report.github_report import annotated_place
from lint.report.messages import finding_words
from lint.report.model import Finding, Report, SandboxRef, SandboxReport
from lint.report.ordering import findings_by_path


@dataclass
class _Culprit:
    first: Finding
    sandboxes: list[str] = field(default_factory=list)


def render_markdown(report: Report) -> str:
    active = [f for f in report.findings if not f.suppressed]
    lines = ["## egress-lint", "", _headline(report, active), ""]
    if active:
        lines += _culprit_table(active)
    if report.sandboxes:
        lines += _sandbox_table(report)
    return "\n".join(lines) + "\n"


def _headline(report: Report, active: list[Finding]) -> str:
    levels = Counter(f.level for f in active)
    suppressed = len(report.findings) - len(active)
    counts = ", ".join(f"{levels[level]} {level}" for level in ("error", "warning", "note"))
    status = "**No findings.**" if not active else f"**{len(active)} finding(s)** ({counts})."
    extra = f" {suppressed} suppressed." if suppressed else ""
    return f"{status}{extra} {len(report.sandboxes)} sandbox path(s) checked."


def _culprit_table(active: list[Finding]) -> list[str]:
    culprits: dict[tuple[object, ...], _Culprit] = {}
    for finding in active:
        key = (
            finding.rule_id,
            finding.level,
            annotated_place(finding),
            finding.subject,
            finding.environment,
            finding.message if finding.sandbox is None else "",
        )
        culprit = culprits.setdefault(key, _Culprit(finding))
        culprit.sandboxes.extend(_sandbox_name(ref) for ref in dict.fromkeys(finding.paths))
    lines = [
        "| Level | Rule | Culprit | Where | What | Affected sandboxes |",
        "|---|---|---|---|---|---|",
    ]
    for culprit in culprits.values():
        finding = culprit.first
        affected = "<br>".join(_cell(s) for s in dict.fromkeys(culprit.sandboxes)) or "—"
        lines.append(
            f"| {finding.level} | `{finding.rule_id}` | {_cell(_culprit_text(finding))} "
            f"| {_where(finding)} | {_cell(finding_words(finding))} | {affected} |"
        )
    return [*lines, ""]


def _culprit_text(finding: Finding) -> str:
    """The object to change, when the finding names one."""
    subject = finding.subject
    if subject is None:
        return "—"
    namespace = f"{subject.namespace}/" if subject.namespace else ""
    return f"{subject.kind} {namespace}{subject.name}"


def _where(finding: Finding) -> str:
    file, line = annotated_place(finding)
    shown = f"{file}:{line}" if file is not None else f"{finding.location.file}:{line}"
    environment = f" ({finding.environment})" if finding.environment is not None else ""
    return f"`{_code(shown)}`{_cell(environment)}"


def _sandbox_name(ref: SandboxRef) -> str:
    profile = f" profile {ref.profile}" if ref.profile else ""
    return f"{ref.namespace}/{ref.template}{profile} ({ref.path})"


def _sandbox_table(report: Report) -> list[str]:
    with_environment = any(s.environment is not None for s in report.sandboxes)
    head = "| Sandbox | Path |" + (" Environment |" if with_environment else "") + " Result |"
    rule = "|---|---|" + ("---|" if with_environment else "") + "---|"
    lines = [head, rule]
    by_path = findings_by_path(f for f in report.findings if not f.suppressed)
    for sandbox in report.sandboxes:
        own = len(by_path.get((sandbox.ref, sandbox.environment), ()))
        lines.append(_sandbox_row(sandbox, own, with_environment))
    return [*lines, ""]


def _sandbox_row(sandbox: SandboxReport, own: int, with_environment: bool) -> str:
    ref = sandbox.ref
    result = "ok" if not own else f"{own} finding(s)"
    profile = f" profile {ref.profile}" if ref.profile else ""
    environment = f" {_cell(sandbox.environment or '')} |" if with_environment else ""
    return (
        f"| {_cell(f'{ref.namespace}/{ref.template}{profile}')} | {_cell(ref.path)} |"
        f"{environment} {result} |"
    )


_MARKUP: Final = str.maketrans(
    {
        "\\": "\\\\",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "|": "\\|",
        "`": "\\`",
        "\r": " ",
        "\n": " ",
    }
)
"""What a cell escapes: backslashes (so none escapes what follows), HTML
(autolinks included), a pipe that would end the cell, code spans, and the
line ends that would end the table."""


def _cell(text: str) -> str:
    """Text safe in a table cell: no HTML, no link or image, no pipes, one
    line, no control character, quotes capped."""
    # A link or an image needs `](` (a reference needs a definition, which
    # only a line of its own can give): with the parenthesis escaped, a
    # name neither links nor loads an image.
    return escape(bounded(text).translate(_MARKUP).replace("](", "]\\("))


def _code(text: str) -> str:
    """Text inside a code span in a table: no backticks, no pipes, one
    line, no control character. A backslash, which a code span cannot
    escape, is shown as ``\\x5c``, so it cannot take a pipe's escape away."""
    text = text.replace("\\", "\\x5c").replace("`", "'").replace("|", "\\|")
    return escape(text.replace("\r", " ").replace("\n", " "))
