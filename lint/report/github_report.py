"""``--format github``: GitHub Actions workflow commands, one annotation per
unsuppressed finding (``::error file=…,line=…,title=…::message``).

The runner turns each into an annotation on the file and line, shown on
the pull request's diff and in the job summary. A finding in a rendered
chart is placed on the template its ``# Source:`` names, as in SARIF; one
in a stream that is no file (``<stdin>``, a render) carries no ``file``.
Values are escaped the way GitHub's toolkit escapes them
(``@actions/core``'s ``command.ts``: ``%``, line ends, and ``:`` and ``,``
in properties), other control characters are shown as escapes, so a
message cannot end the command early or start another; the command line
then writes these lines in the ``annotations`` style of
``lint.report.escaping``, which lets only this shape of line start with
``::`` and rewrites ``##[`` in them too.
"""

from __future__ import annotations

from typing import Final

from lint.report.escaping import escape
from lint.report.messages import placed_message, remedy_words
from lint.report.model import Finding, Report

_COMMAND: Final = {"error": "error", "warning": "warning", "note": "notice"}


def render_github(report: Report) -> str:
    active = [f for f in report.findings if not f.suppressed]
    lines = [_annotation(f) for f in active]
    suppressed = len(report.findings) - len(active)
    lines.append(
        f"egress-lint: {len(active)} finding(s), {suppressed} suppressed, "
        f"{len(report.sandboxes)} sandbox path(s) checked"
    )
    return "\n".join(lines) + "\n"


def _annotation(finding: Finding) -> str:
    file, line = annotated_place(finding)
    properties = [f"file={_property(file)}", f"line={line}"] if file is not None else []
    properties.append(f"title={_property(f'egress-lint {finding.rule_id}')}")
    return f"::{_COMMAND[finding.level]} {','.join(properties)}::{_data(_message(finding))}"


def annotated_place(finding: Finding) -> tuple[str | None, int]:
    """The committed file and line a finding is shown at: the chart
    template when Helm named one, else the file read; None for a stream."""
    location = finding.location
    if location.source is not None:
        return location.source, max(1, location.source_line or 1)
    if location.file.startswith("<"):
        return None, max(1, location.line)
    return location.file, max(1, location.line)


def _message(finding: Finding) -> str:
    text = placed_message(finding)
    location = finding.location
    if location.source is not None or location.file.startswith("<"):
        text += f"\nRead at {location.file}:{location.line}."
    remedy = remedy_words(finding)
    if remedy:
        text += f"\nFix: {remedy}"
    return text


def _data(text: str) -> str:
    """A message's text as one annotation's data: its own line ends as
    ``%0A``, every other control character (a carriage return included)
    as a visible escape, so nothing in it can end the line early."""
    lines = (escape(line).replace("%", "%25") for line in text.split("\n"))
    return "%0A".join(lines)


def _property(text: str) -> str:
    """A property's value: as data, and no ``:`` or ``,`` that would end it."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")
