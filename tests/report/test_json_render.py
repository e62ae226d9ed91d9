"""``render_json`` writes each examined entry's text once and splices it in;
the bytes must be exactly those of the report's JSON value written compactly.
The report is streamed (issue 18): ``JsonWriter`` measures it without
writing it and writes it a decision at a time, and a report past
``--max-report-bytes`` is cut to the bytes issue 15 cut it to."""

from __future__ import annotations

import contextlib
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.report import json_report
from lint.report.examined import EXAMINED_MODES, Examined
from lint.report.json_report import (
    JsonWriter,
    _examined,
    bounded_json,
    render_json,
    report_document,
)
from lint.report.model import (
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    IngressReport,
    Location,
    NamedReport,
    Report,
    SandboxRef,
    SandboxReport,
    examined_list,
)
from lint.report.sarif_report import (
    SCHEMA_URI,
    SarifOptions,
    _driver,
    _paths,
    _result,
    render_sarif,
    sarif_chunks,
)
from lint.report.uris import uri_bases
from tests.checks.scenario_runner import DEMO, SCENARIOS
from tests.report.reference_fit import fit_json

TREES = [DEMO, *sorted(p for p in SCENARIOS.iterdir() if p.is_dir())]


def compact(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_fixture_reports_render_to_their_json_value(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    report = run_check(CheckOptions(paths=(".",)))
    assert render_json(report) == compact(report_document(report))


@functools.cache
def _report(tree: Path) -> Report:
    with contextlib.chdir(tree):
        return run_check(CheckOptions(paths=(".",)))


@pytest.mark.parametrize("examined", EXAMINED_MODES)
@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_the_streamed_report_is_its_value_encoded_whole(tree: Path, examined: Examined) -> None:
    """The chunks, joined, are ``report_document`` written compactly, and
    the size measured without writing them is their size in UTF-8."""
    report = _report(tree)
    whole = compact(report_document(report, examined))
    writer = JsonWriter(report, examined)
    assert writer.size() == len(whole.encode("utf-8"))
    assert "".join(writer.chunks()) == whole
    chunks, truncated = bounded_json(report, examined, len(whole.encode("utf-8")))
    assert truncated is None
    assert "".join(chunks) == whole


def _list_texts(report: Report) -> list[str]:
    """The text of every decision's examined list."""
    decisions: list[DecisionReport | None] = []
    for sandbox in report.sandboxes:
        reach = sandbox.egress.reach
        decisions += [sandbox.egress.union, reach.decision if reach else None]
        if sandbox.ingress is not None:
            decisions += [sandbox.ingress.decision, sandbox.ingress.reach]
    return [
        json.dumps([_examined(e) for e in d.examined], ensure_ascii=False, separators=(",", ":"))
        for d in decisions
        if d is not None
    ]


def test_no_chunk_holds_more_than_one_decisions_list() -> None:
    """The report is never built whole: its largest chunk is one examined
    list or a sandbox's skeleton, far less than the report."""
    report = _report(DEMO)
    chunks = list(JsonWriter(report).chunks())
    longest = max(map(len, _list_texts(report)))
    assert len(report.sandboxes) > 3
    assert max(map(len, chunks)) <= max(longest, 2048) < len("".join(chunks)) / 3


@pytest.mark.parametrize("examined", EXAMINED_MODES)
@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_a_report_past_the_bound_is_cut_to_the_bytes_of_issue_15(
    tree: Path, examined: Examined
) -> None:
    """Strings capped, then entries left out, then only the skeleton: the
    streamed cut writes what issue 15's cut of the whole text wrote."""
    report = _report(tree)
    text = render_json(report, examined)
    size = len(text.encode("utf-8"))
    for limit in {size - 1, size // 2, size // 5, 600, 1}:
        chunks, truncated = bounded_json(report, examined, limit)
        assert ("".join(chunks), truncated) == fit_json(text, limit), limit


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_the_streamed_sarif_log_is_the_log_dumped_whole(tree: Path) -> None:
    report = _report(tree)
    options = SarifOptions(category="c")
    bases = uri_bases(path for f in report.findings for path in _paths(f, options))
    run = {
        "tool": {"driver": _driver()},
        "automationDetails": {"id": "c/check"},
        # The bases the locations use, when there are any.
        **({"originalUriBaseIds": bases.definitions()} if report.findings else {}),
        "results": [_result(f, options, bases) for f in report.findings],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    whole = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    assert render_sarif(report, options) == whole
    # One chunk per result, and the log around them.
    chunks = list(sarif_chunks(report, options))
    assert len(chunks) == (len(report.findings) + 2 if report.findings else 1)


def _entry(name: str, location: Location | None, detail: str | None) -> ExaminedEntry:
    return ExaminedEntry(
        kind="NetworkPolicy",
        name=name,
        namespace=None if location is None else "ns",
        verdict="does-not-select",
        detail=detail,
        origin="manifest",
        location=location,
    )


def test_shared_and_odd_entries_render_to_their_json_value() -> None:
    """One entry object under two sandboxes, entries without a location or
    namespace, text that needs escaping, and sandboxes without a union or
    ingress decision."""
    shared = _entry('quote " and \\ back', Location("a\u2028b.yaml", 3), "tab\there \x00 é 😀")
    lone = _entry("no-location", None, None)
    decision = DecisionReport(None, None, examined_list([shared, lone, shared]))

    def sandbox(template: str, union: DecisionReport | None, ingress: bool) -> SandboxReport:
        egress = EgressReport(
            policy_kind="deny-all",
            engine="core",
            verify="union" if union else "named-object-only",
            expected_kind="NetworkPolicy",
            expected_name=f"{template}-egress",
            named=NamedReport("missing", None, None, None),
            union=union,
        )
        return SandboxReport(
            ref=SandboxRef("ns", template, None, "direct"),
            pod_labels={"b": "2", "a": "1"},
            egress=egress,
            ingress=IngressReport(1024, decision) if ingress else None,
            declaration=None,
        )

    report = Report(
        defaults_applied=True,
        sandboxes=(sandbox("one", decision, True), sandbox("two", None, False)),
        findings=(),
        parse_errors=(),
    )
    rendered = render_json(report)
    assert rendered == compact(report_document(report))
    entries = json.loads(rendered)["sandboxes"][0]["egress"]["union"]["examined"]
    assert entries[0] == entries[2] and entries[0]["detail"] == "tab\there \x00 é 😀"


def test_a_list_measured_after_a_wide_entry_is_measured_in_bytes() -> None:
    """A list of ASCII entries is measured by its texts' lengths; once an
    entry with wider UTF-8 bytes (or a ``##[`` to escape) is met, every
    list after it is measured in bytes, the ASCII lists before it too."""
    plain = _entry("plain", Location("a.yaml", 1), "ascii")
    wide = _entry("wide", Location("b.yaml", 2), "é 😀 ##[x")
    lists = [(plain,), (plain, wide), (wide, plain, wide), (plain, plain)]
    sandboxes = tuple(
        SandboxReport(
            ref=SandboxRef("ns", f"t{index}", None, "direct"),
            pod_labels={},
            egress=EgressReport("deny-all", "core", "union", None, None, None, None),
            ingress=IngressReport(1, DecisionReport(None, None, examined_list(examined))),
            declaration=None,
        )
        for index, examined in enumerate(lists)
    )
    report = Report(defaults_applied=False, sandboxes=sandboxes, findings=(), parse_errors=())
    writer = JsonWriter(report)
    text = compact(report_document(report)).replace("##[", "##\\u005b")
    assert writer.size() == len(text.encode("utf-8"))
    assert "".join(writer.chunks()) == compact(report_document(report))


def test_lists_past_the_kept_texts_are_looked_up_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``KEPT_PARTS`` entry texts kept on lists, a list keeps none and
    is looked up again when written: the same size and bytes."""
    report = _report(DEMO)
    whole = compact(report_document(report))
    monkeypatch.setattr(json_report, "KEPT_PARTS", 3)
    writer = JsonWriter(report)
    assert writer.size() == len(whole.encode("utf-8"))
    lists = list(writer._lists.values())
    assert any(listed.parts is None and listed.entries for listed in lists)
    assert sum(len(listed.parts or ()) for listed in lists) <= 3
    assert "".join(writer.chunks()) == whole


@pytest.mark.parametrize(("kept_bytes", "encoded"), [(json_report.KEPT_TAIL_BYTES, 1), (8, 2)])
def test_the_tail_measured_is_written_without_encoding_it_again(
    monkeypatch: pytest.MonkeyPatch, kept_bytes: int, encoded: int
) -> None:
    """The findings and the rest of the tail are encoded once to be
    measured and kept for the writing; past ``KEPT_TAIL_BYTES`` they are
    encoded again instead. The same size and bytes either way."""
    report = _report(DEMO)
    whole = compact(report_document(report))
    assert report.findings
    monkeypatch.setattr(json_report, "KEPT_TAIL_BYTES", kept_bytes)
    calls: list[object] = []
    real = json_report._tail

    def counting(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(json_report, "_tail", counting)
    writer = JsonWriter(report)
    assert writer.size() == len(whole.encode("utf-8"))
    assert "".join(writer.chunks()) == whole
    assert len(calls) == encoded
    # A second writing encodes the tail afresh: what was kept is given once.
    assert "".join(writer.chunks()) == whole
    assert len(calls) == encoded + 1
