"""A JSON report past ``--max-report-bytes`` is cut from a capped writer's
memo (``JsonWriter.members``): each examined entry is capped and encoded
once, however many sandboxes list it, and the cut must still be the bytes
issue 15's cut of the whole text gave, its count of capped strings
counting every occurrence of a shared entry."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lint.report.bounded import QUOTE_LIMIT
from lint.report.examined import EXAMINED_MODES, Examined
from lint.report.json_report import JsonWriter, bounded_json, render_json
from lint.report.model import (
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    IngressReport,
    Location,
    NamedReport,
    ReachReport,
    Report,
    SandboxRef,
    SandboxReport,
    SkippedEntry,
    examined_list,
)
from tests.report.reference_fit import fit_json


def long(tag: str) -> str:
    """A value past the cap, not ASCII, so sizes are counted in UTF-8."""
    return f"{tag}-" + "é" * QUOTE_LIMIT


def entry(name: str, verdict: str, detail: str | None, file: str | None) -> ExaminedEntry:
    location = None if file is None else Location(file, 7)
    return ExaminedEntry("NetworkPolicy", name, "ns", verdict, detail, "manifest", location)


SHARED = entry(long("name"), "selects", long("detail"), long("file"))
QUIET = entry("quiet", "does-not-select", long("quiet"), None)
PLAIN = entry("plain", "selects", "short", "p.yaml")
EXAMINED = examined_list([SHARED, QUIET, PLAIN, SHARED])
"""One list, shared by sandboxes, that holds one entry twice."""


def sandbox(template: str, full: bool) -> SandboxReport:
    """A sandbox with a long string in every field that can hold one
    (``full``), or a bare one that shares the examined list."""
    decision = DecisionReport(long("refusal") if full else None, long("summary"), EXAMINED)
    skipped = (SkippedEntry("Policy", long("skipped"), long("reason"), Location(long("f"), 1)),)
    egress = EgressReport(
        policy_kind="deny-all",
        engine=long("engine") if full else "core",
        verify="union",
        expected_kind="NetworkPolicy",
        expected_name=long("expected"),
        named=NamedReport(long("result"), None, long("named"), None) if full else None,
        union=decision,
        reach=ReachReport(decision, skipped) if full else None,
    )
    ingress = IngressReport(1024, decision, decision) if full else None
    return SandboxReport(
        ref=SandboxRef(long("ns"), template, long("profile"), "direct", long("claim")),
        pod_labels={long("key"): long("label"), "a": "1"},
        egress=egress,
        ingress=ingress,
        declaration=None,
        host=long("host") if full else "namzu",
        workload_kind=long("kind") if full else None,
        environment=long("env") if full else None,
    )


REPORT = Report(
    defaults_applied=False,
    sandboxes=(sandbox("one", True), sandbox("two", False), sandbox("three", True)),
    findings=(),
    parse_errors=(),
)


def _long_strings(value: Any) -> int:
    """The strings past the cap in a JSON value, every occurrence."""
    if isinstance(value, str):
        return int(len(value) > QUOTE_LIMIT)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return sum(map(_long_strings, items))


@pytest.mark.parametrize("examined", EXAMINED_MODES)
def test_a_cut_of_shared_long_entries_is_the_reference_cut(examined: Examined) -> None:
    """Capping enough, sandboxes left out, only the skeleton: every cut
    gives the reference's bytes and counts."""
    text = render_json(REPORT, examined)
    size = len(text.encode("utf-8"))
    for limit in (size - 1, size // 2, size // 4, 1):
        chunks, truncated = bounded_json(REPORT, examined, limit)
        assert ("".join(chunks), truncated) == fit_json(text, limit), limit


def _in_entries(value: Any) -> int:
    """The long strings in the examined lists of a JSON value."""
    if isinstance(value, dict):
        return sum(
            _long_strings(item) if key == "examined" else _in_entries(item)
            for key, item in value.items()
        )
    return sum(map(_in_entries, value)) if isinstance(value, list) else 0


def test_capped_strings_count_each_occurrence_of_a_shared_entry() -> None:
    """The shared list sits in four decisions of each full sandbox and one
    of the bare one, and holds the shared entry (three long strings) twice
    and the quiet one (one) once: 9 * (2 * 3 + 1) capped in entries, each
    sandbox counting its own."""
    sandboxes = json.loads(render_json(REPORT))["sandboxes"]
    measures = list(JsonWriter(REPORT, capped=True)._sandbox_measures())
    assert [count for _, count in measures] == list(map(_long_strings, sandboxes))
    assert _in_entries(sandboxes) == 9 * (2 * 3 + 1)


def test_the_capped_writer_encodes_each_entry_once() -> None:
    """Its memo holds one capped text per distinct entry, and an entry
    without a long string keeps the text the whole report writes."""
    writer = JsonWriter(REPORT, capped=True)
    measures = list(writer._sandbox_measures())
    assert len(measures) == 3
    assert sorted(writer._counts.values()) == [0, 1, 3]
    assert writer._texts[id(PLAIN)] in render_json(REPORT)
