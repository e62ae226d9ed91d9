"""``--format github`` and ``--format markdown``: snapshots of both on the
demo tree and on a report made to hold every case (a chart template, a
stream, a suppressed finding, environments, text that must be escaped),
and the escaping itself asserted outright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from lint.checks.runner import CheckOptions, run_check
from lint.report.model import (
    EgressReport,
    Finding,
    Location,
    NamedReport,
    ObjectRef,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.report.reporters import CHECK_REPORTERS, RenderOptions

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def at_repo() -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(REPO)
    try:
        yield
    finally:
        os.chdir(previous)


def _render(fmt: str, report: Report) -> str:
    return CHECK_REPORTERS[fmt].render(report, RenderOptions())


REF = SandboxRef("sbx", "task", None, "direct")
POLICY = ObjectRef("NetworkPolicy", "debug|egress", "sbx")


def _sandbox(environment: str) -> SandboxReport:
    egress = EgressReport(
        "deny-all",
        "core",
        "union",
        "NetworkPolicy",
        "task-egress",
        NamedReport("match", None, None, None),
        None,
    )
    return SandboxReport(REF, {}, egress, None, None, environment=environment)


def _made_report() -> Report:
    widening = Finding(
        "egress-policy-widens",
        "error",
        "widens egress: 0.0.0.0/0 on every port, 100% open",
        Location("<helm template charts/app (dev)>", 15, "charts/app/templates/x,y:z.yaml", 14),
        sandbox=REF,
        remedy="Narrow it.\nOr delete it.",
        subject=POLICY,
        environment="dev",
    )
    streamed = Finding(
        "egress-policy-widens",
        "error",
        "widens egress",
        Location("<stdin>", 3),
        sandbox=REF,
        subject=POLICY,
        environment="prod",
    )
    general = Finding("parse-error", "error", "bad <b>YAML</b> | here", Location("a.yaml", 2))
    suppressed = Finding(
        "load-warning", "warning", "repeated key", Location("b.yaml", 7), suppressed=True
    )
    note = Finding("load-warning", "note", "a note", Location("c.yaml", 1))
    return Report(
        defaults_applied=False,
        sandboxes=(_sandbox("prod"), _sandbox("dev")),
        findings=(widening, streamed, general, suppressed, note),
        parse_errors=(),
    )


@pytest.mark.parametrize("fmt", ["github", "markdown"])
def test_demo_tree(fmt: str, snapshot: SnapshotAssertion, at_repo: None) -> None:
    report = run_check(CheckOptions(paths=("fixtures/demo",)))
    assert report.findings
    assert _render(fmt, report) == snapshot


@pytest.mark.parametrize("fmt", ["github", "markdown"])
def test_every_case(fmt: str, snapshot: SnapshotAssertion) -> None:
    assert _render(fmt, _made_report()) == snapshot


def test_github_annotations_are_escaped_and_placed() -> None:
    lines = _render("github", _made_report()).splitlines()
    assert lines[0].startswith(
        "::error file=charts/app/templates/x%2Cy%3Az.yaml,line=14,"
        "title=egress-lint egress-policy-widens::"
    )
    assert "100%25 open" in lines[0] and "%0AFix: Narrow it.%0AOr delete it." in lines[0]
    assert lines[1].startswith("::error title=egress-lint egress-policy-widens::")  # a stream
    assert lines[2].startswith("::error file=a.yaml,line=2,")
    assert lines[3].startswith("::notice file=c.yaml,line=1,")  # suppressed: no annotation
    assert lines[4] == "egress-lint: 4 finding(s), 1 suppressed, 2 sandbox path(s) checked"
    assert all("\n" not in line for line in lines)


def test_markdown_cells_cannot_break_the_table() -> None:
    text = _render("markdown", _made_report())
    rows = [line for line in text.splitlines() if line.startswith("| error")]
    assert len(rows) == 3
    assert all(row.count(" | ") == 5 for row in rows)  # six cells, no stray pipe
    assert "&lt;b&gt;YAML&lt;/b&gt; \\| here" in text
    assert "debug\\|egress" in text
    assert "| sbx/task | direct | dev | 1 finding(s) |" in text


def test_markdown_counts_each_paths_own_unsuppressed_findings_once() -> None:
    """A row counts the findings about its path in its environment: a
    finding that lists the path twice counts once, a suppressed one not at
    all, one of another path or environment not at all."""
    other = SandboxRef("sbx", "other", None, "direct")

    def finding(*paths: SandboxRef, environment: str = "prod", suppressed: bool = False) -> Finding:
        return Finding(
            "egress-policy-widens",
            "error",
            "widens",
            Location("a.yaml", 1),
            sandbox=paths[0],
            environment=environment,
            suppressed=suppressed,
            affected=paths,
        )

    report = Report(
        defaults_applied=False,
        sandboxes=(_sandbox("prod"), _sandbox("dev")),
        findings=(
            finding(REF, REF),
            finding(other, REF),
            finding(REF, suppressed=True),
            finding(REF, environment="dev"),
            finding(other),
        ),
        parse_errors=(),
    )
    rows = [line for line in _render("markdown", report).splitlines() if "| direct |" in line]
    assert rows == [
        "| sbx/task | direct | prod | 2 finding(s) |",
        "| sbx/task | direct | dev | 1 finding(s) |",
    ]
