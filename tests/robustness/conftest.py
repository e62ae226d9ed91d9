"""The fail-closed audit's totals, printed after the run."""

from __future__ import annotations

import sys
from collections import Counter

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    audit_module = sys.modules.get("tests.robustness.test_fail_closed")
    results = getattr(audit_module, "RESULTS", None)
    if not results:
        return
    mutations: Counter[str] = Counter()
    for result in results:
        mutations.update(result.mutations)
    flips = sum(len(r.flips) for r in results)
    terminalreporter.write_sep("-", "fail-closed audit")
    terminalreporter.write_line(
        f"{len(results)} trees, {sum(mutations.values())} mutations "
        f"({', '.join(f'{n} {c}' for c, n in sorted(mutations.items()))}); "
        f"{flips} refusals turned into passes, of which "
        f"{sum(len(r.sanctioned) for r in results)} prescribed by SEMANTICS.md, "
        f"{sum(len(r.known) for r in results)} known bugs, "
        f"{sum(len(r.fail_open) for r in results)} fail-open"
    )
