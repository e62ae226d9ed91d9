"""Reporters: one interface for every output format, and the registry of
``check``'s formats (text, json, sarif, github, markdown) that ``--format`` takes its choices from.

A reporter turns a finished report into text and writes nothing; the
command line writes it. A ``check`` reporter also gives its text in chunks
(:class:`CheckReporter`), which the command line writes as they come, so a
large report is never held whole. :func:`registry` builds the name -> reporter
mapping of every command that has formats the same way (``check`` here,
``explain`` in ``lint.explain.reporters``, ``rules`` in ``lint.cli.rules``),
so a new reporter shows up in ``--format`` and its ``--help`` by itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

import msgspec

from lint.report.escaping import Style
from lint.report.examined import Examined

if TYPE_CHECKING:
    from lint.report.model import Report

ReportT_contra = TypeVar("ReportT_contra", contravariant=True)
OptionsT_contra = TypeVar("OptionsT_contra", contravariant=True)


class Reporter(Protocol[ReportT_contra, OptionsT_contra]):
    """One output format: its ``--format`` name, and the text it makes."""

    @property
    def name(self) -> str: ...

    def render(self, report: ReportT_contra, options: OptionsT_contra) -> str: ...


AnyReporter = TypeVar("AnyReporter", bound=Reporter[Any, Any])


def registry(*reporters: AnyReporter) -> Mapping[str, AnyReporter]:
    """The reporters by name, in the order given: the order ``--format``
    lists them in, the first being its default."""
    by_name = {reporter.name: reporter for reporter in reporters}
    if len(by_name) != len(reporters):
        raise ValueError(f"two reporters share a name: {[r.name for r in reporters]}")
    return MappingProxyType(by_name)


class RenderOptions(msgspec.Struct, frozen=True):
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
    examined: Examined = "all"
    """json: every examined entry, or only those that select the pod (``--examined``)."""


class CheckReporter(Reporter["Report", RenderOptions], Protocol):
    """A ``check`` format, which also gives its text as chunks to write one
    after the other; ``render`` is those chunks joined."""

    @property
    def style(self) -> Style:
        """How the command line makes the format's text safe to show
        (``lint.report.escaping.neutralise``): ``json`` for JSON and SARIF,
        whose encoder escapes every C0 control character itself, so their
        text holds no terminal escape sequence and is written without
        click's search for them; ``annotations`` for the GitHub format's
        own workflow commands; ``text`` for the rest."""
        ...

    @property
    def shows_template_lines(self) -> bool:
        """True when the format shows a Helm finding's template line
        (``Location.source_line``). For the others the check skips the
        search for template lines (``lint.render.lines``); a test holds
        each of them to the same bytes whatever that line is."""
        ...

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]: ...


class TextReporter:
    """The text report, imported when asked for, as the formats after it:
    a ``check`` that writes JSON never pays for it at start-up."""

    name: Final = "text"
    style: Final[Style] = "text"
    shows_template_lines: Final = True

    def render(self, report: Report, options: RenderOptions) -> str:
        return "".join(self.chunks(report, options))

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]:
        from lint.report.text_report import TextOptions, text_chunks  # noqa: PLC0415

        text = TextOptions(options.colour, options.show_suppressed, options.verbose, options.quiet)
        return text_chunks(report, text)


class JsonReporter:
    """The JSON report whole; the command line bounds it by
    ``--max-report-bytes`` before it writes it (``lint.report.json_report.bounded_json``).
    Its writer is imported when asked for, so ``--format`` is parsed
    without the report model."""

    name: Final = "json"
    style: Final[Style] = "json"
    shows_template_lines: Final = False

    def render(self, report: Report, options: RenderOptions) -> str:
        return "".join(self.chunks(report, options))

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]:
        from lint.report.json_report import JsonWriter  # noqa: PLC0415

        return JsonWriter(report, options.examined).chunks()


class SarifReporter:
    """SARIF is imported when asked for: a ``check`` in a pre-commit hook
    never pays for it at start-up."""

    name: Final = "sarif"
    style: Final[Style] = "json"
    shows_template_lines: Final = True

    def render(self, report: Report, options: RenderOptions) -> str:
        return "".join(self.chunks(report, options))

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]:
        from lint.report.sarif_report import SarifOptions, sarif_chunks  # noqa: PLC0415

        return sarif_chunks(report, SarifOptions(options.helm_chart_root, options.category))


class GithubReporter:
    """GitHub Actions annotations (``lint.report.github_report``): one
    line per unsuppressed finding, so written in one piece."""

    name: Final = "github"
    style: Final[Style] = "annotations"
    shows_template_lines: Final = True

    def render(self, report: Report, options: RenderOptions) -> str:
        from lint.report.github_report import render_github  # noqa: PLC0415

        return render_github(report)

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]:
        return (self.render(report, options),)


class MarkdownReporter:
    """A Markdown summary (``lint.report.markdown_report``), written in one piece."""

    name: Final = "markdown"
    style: Final[Style] = "text"
    shows_template_lines: Final = True

    def render(self, report: Report, options: RenderOptions) -> str:
        from lint.report.markdown_report import render_markdown  # noqa: PLC0415

        return render_markdown(report)

    def chunks(self, report: Report, options: RenderOptions) -> Iterable[str]:
        return (self.render(report, options),)


CHECK_REPORTERS: Final[Mapping[str, CheckReporter]] = registry(
    TextReporter(), JsonReporter(), SarifReporter(), GithubReporter(), MarkdownReporter()
)
