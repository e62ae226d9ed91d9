"""``egress-lint rules``: the rule table (``lint.rules``) as a list, in the
formats of :data:`RULES_REPORTERS`, registered the way ``check``'s are."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final

import click

from lint.cli.options import format_option
from lint.cli.writing import write_standard
from lint.report.reporters import Reporter, registry
from lint.rules import RULES, Rule


class RulesTextReporter:
    """One line per rule: id, level, summary, in aligned columns."""

    name: Final = "text"

    def render(self, report: Sequence[Rule], options: None) -> str:
        width = max(len(r.id) for r in report)
        return "".join(f"{r.id:<{width}}  {r.level:<7}  {r.summary}\n" for r in report)


class RulesJsonReporter:
    name: Final = "json"

    def render(self, report: Sequence[Rule], options: None) -> str:
        entries = [
            {"id": r.id, "level": r.level, "summary": r.summary, "help": r.help, "remedy": r.remedy}
            for r in report
        ]
        return json.dumps(entries, indent=2) + "\n"


RULES_REPORTERS: Final[Mapping[str, Reporter[Sequence[Rule], None]]] = registry(
    RulesTextReporter(), RulesJsonReporter()
)


@click.command("rules")
@format_option(RULES_REPORTERS)
def rules_command(fmt: str) -> None:
    """List every rule id with its level and summary."""
    text = RULES_REPORTERS[fmt].render(RULES, None)
    write_standard((text,), to_stderr=False, style="json" if fmt == "json" else "text")
