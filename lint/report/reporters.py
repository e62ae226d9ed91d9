"""Reporters: one interface for every output format, and the registry of
``check``'s formats (text, json, sarif, github, markdown) that ``--format`` takes its choices from.

A reporter turns a finished report into text and writes nothing; the
command line writes it. :func:`registry` builds the name -> reporter
mapping of every command that has formats the same way (``check`` here,
``explain`` in ``lint.explain.reporters``, ``rules`` in ``lint.cli.rules``),
so a new reporter shows up in ``--format`` and its ``--help`` by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Protocol, TypeVar

from lint.report.json_report import render_json
from lint.report.model import Report
from lint.report.text_report import render_text

ReportT_contra = TypeVar("ReportT_contra", contravariant=True)
OptionsT_contra = TypeVar("OptionsT_contra", contravariant=True)
ReportT = TypeVar("ReportT")
OptionsT = TypeVar("OptionsT")


class Reporter(Protocol[ReportT_contra, OptionsT_contra]):
    """One output format: its ``--format`` name, and the text it makes."""

    @property
    def name(self) -> str: ...

    def render(self, report: ReportT_contra, options: OptionsT_contra) -> str: ...


def registry(
    *reporters: Reporter[ReportT, OptionsT],
) -> Mapping[str, Reporter[ReportT, OptionsT]]:
    """The reporters by name, in the order given: the order ``--format``
    lists them in, the first being its default."""
    by_name = {reporter.name: reporter for reporter in reporters}
    if len(by_name) != len(reporters):
        raise ValueError(f"two reporters share a name: {[r.name for r in reporters]}")
    return MappingProxyType(by_name)


@dataclass(frozen=True)
class RenderOptions:
    """What a check reporter is told besides the report. Each format reads
    the fields it has a use for."""

    colour: bool = False
    """text: paint levels with terminal colours."""
    show_suppressed: bool = False
    """text: list suppressed findings too."""
    verbose: bool = False
    """text: every decision's examined list, and every affected path."""
    quiet: bool = False
    """text: the findings only."""
    helm_chart_root: str | None = None
    """sarif: the chart directory that '# Source:' template paths are relative to."""
    category: str = "egress-lint"
    """sarif: the automationDetails category."""


class TextReporter:
    name: Final = "text"

    def render(self, report: Report, options: RenderOptions) -> str:
        return render_text(
            report,
            colour=options.colour,
            show_suppressed=options.show_suppressed,
            verbose=options.verbose,
            quiet=options.quiet,
        )


class JsonReporter:
    name: Final = "json"

    def render(self, report: Report, options: RenderOptions) -> str:
        return render_json(report)


class SarifReporter:
    """SARIF is imported when asked for: a ``check`` in a pre-commit hook
    never pays for it at start-up."""

    name: Final = "sarif"

    def render(self, report: Report, options: RenderOptions) -> str:
        from lint.report.sarif_report import SarifOptions, render_sarif  # noqa: PLC0415

        return render_sarif(report, SarifOptions(options.helm_chart_root, options.category))


class GithubReporter:
    """GitHub Actions annotations (``lint.report.github_report``)."""

    name: Final = "github"

    def render(self, report: Report, options: RenderOptions) -> str:
        from lint.report.github_report import render_github  # noqa: PLC0415

        return render_github(report)


class MarkdownReporter:
    """A Markdown summary (``lint.report.markdown_report``)."""

    name: Final = "markdown"

    def render(self, report: Report, options: RenderOptions) -> str:
        from lint.report.markdown_report import render_markdown  # noqa: PLC0415

        return render_markdown(report)


TEMPLATE_LINE_FORMATS: Final = frozenset({"text", "sarif", "github", "markdown"})
"""The check formats that show a Helm finding's template line
(``Location.source_line``). The others never read it, so a run in them
skips the search for template lines (``lint.render.lines``); a test holds
each of them to the same bytes with and without that search."""

CHECK_REPORTERS: Final[Mapping[str, Reporter[Report, RenderOptions]]] = registry(
    TextReporter(), JsonReporter(), SarifReporter(), GithubReporter(), MarkdownReporter()
)
