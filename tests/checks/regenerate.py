"""Rewrite fixtures/scenarios/*/expected.json from the current code.

Run `python -m tests.checks.regenerate`, then review every diff by hand:
an expected file is a claim about SEMANTICS.md, not a recording.
"""

from __future__ import annotations

import json

from tests.checks.scenario_runner import SCENARIOS, normalise, run_scenario
from tests.checks.test_scenarios import EXTRA_ARGS


def main() -> None:
    for directory in sorted(p for p in SCENARIOS.iterdir() if p.is_dir()):
        outcome = run_scenario(directory.name, *EXTRA_ARGS.get(directory.name, ()))
        expected = {"exitCode": outcome.exit_code, "report": normalise(outcome.report)}
        text = json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
        (directory / "expected.json").write_text(text, encoding="utf-8")
        print(f"{directory.name}: exit {outcome.exit_code}")


if __name__ == "__main__":
    main()
