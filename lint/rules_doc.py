"""docs/rules.md, generated from the rule table so the two cannot drift."""

from __future__ import annotations

from pathlib import Path

from lint.rules import RULES, Rule

HEADER = """# Rules

Every finding egress-lint emits has one of these rule ids. The ids are
stable: code scanning, baselines and suppression annotations refer to them.
`egress-lint rules` prints the same list. This page is generated from the
rule table in `lint/rules.py` (`python -m lint.rules_doc > docs/rules.md`);
a test fails when the two differ.

A finding can be suppressed with an annotation on the offending object,
`egress-lint.io/ignore: "<rule-id>[,<rule-id>] reason=<why>"`, or with a
baseline file (`--baseline`, written by `--write-baseline`). Suppressed
findings stay in every report and do not count for the exit code.

Each example is a fixture under `fixtures/scenarios/` that triggers the
rule; `fixtures/demo/` without `widening-policy.yaml` is a tree that
triggers none.
"""


def _example(rule: Rule, scenarios: Path) -> list[str]:
    directory = scenarios / rule.example
    lines = [f"Example (`fixtures/scenarios/{rule.example}/`):", ""]
    for name in (".egress-lint.yaml", "manifests.yaml"):
        path = directory / name
        if path.exists():
            lines += [
                f"`{name}`:",
                "",
                "```yaml",
                path.read_text(encoding="utf-8").rstrip(),
                "```",
                "",
            ]
    return lines


def render_rules_doc(scenarios: Path) -> str:
    lines = [HEADER]
    lines += ["| id | level | summary |", "|---|---|---|"]
    lines += [f"| [`{r.id}`](#{r.id}) | {r.level} | {r.summary} |" for r in RULES]
    lines.append("")
    for rule in RULES:
        lines += [f"## {rule.id}", "", f"Level: **{rule.level}**. {rule.summary}", ""]
        lines += [rule.help, "", f"**How to fix.** {rule.remedy}", ""]
        lines += _example(rule, scenarios)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    root = Path(__file__).resolve().parents[1]
    print(render_rules_doc(root / "fixtures" / "scenarios"), end="")
