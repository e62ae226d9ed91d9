"""The reporters of ``explain``, registered the way ``check``'s are
(``lint.report.reporters``): ``--format`` takes its choices from
:data:`EXPLAIN_REPORTERS`. Explain's formats take no options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from lint.explain.report import render_json, render_text
from lint.explain.sandbox import Explanation
from lint.explain.verdict import ToVerdict
from lint.report.reporters import Reporter, registry

Explained = tuple[Explanation, ToVerdict | None]
"""One explain report: the sandbox explained and, with --to, the verdict
for the destination."""


class ExplainTextReporter:
    name: Final = "text"

    def render(self, report: Explained, options: None) -> str:
        return render_text(*report)


class ExplainJsonReporter:
    name: Final = "json"

    def render(self, report: Explained, options: None) -> str:
        return render_json(*report)


EXPLAIN_REPORTERS: Final[Mapping[str, Reporter[Explained, None]]] = registry(
    ExplainTextReporter(), ExplainJsonReporter()
)
