"""``--format json``: the versioned report of REPORT.md, field for field,
written as it is produced.

Scripts outside the repository depend on this shape; adding a field is
allowed, renaming or dropping one needs a new ``schemaVersion``.

:class:`JsonWriter` writes the report in chunks (its head, then each
sandbox's pieces, then the findings and the tail) and can say how many
bytes that text has without writing it, so a report within
``--max-report-bytes`` is measured, then streamed, and never held whole
(issue 18). ``report_document`` builds the same value in one piece; it is
the reference the writer is held to. A report past the bound is cut by
``lint.report.bounded.fit_document`` from a capped writer's sandboxes,
their examined entries capped and encoded once each, as the writer's are.
"""

from __future__ import annotations

import itertools
import json
import operator
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any, Final, cast

from lint import __version__
from lint.report.bounded import (
    QUOTE_LIMIT,
    Encoded,
    capped_strings,
    fit_document,
    report_size,
)
from lint.report.examined import Examined
from lint.report.model import (
    ControllerReport,
    Culprit,
    CulpritRule,
    DecisionReport,
    ExaminedEntry,
    ExaminedList,
    Finding,
    IngressReport,
    Location,
    NamedReport,
    ReachReport,
    Report,
    SandboxRef,
    SandboxReport,
    SkippedEntry,
)

SCHEMA_VERSION = 1

NOT_SELECTING: Final = "notSelecting"
"""The member that counts, under ``--examined selecting``, the entries left out."""


def report_document(report: Report, examined: Examined = "all") -> dict[str, Any]:
    """The report as the JSON value REPORT.md describes, built in one piece.
    ``JsonWriter`` writes the same value faster, without holding it."""
    document = _head(report)
    document["sandboxes"] = [_sandbox(s, examined) for s in report.sandboxes]
    document.update(_tail(report))
    return document


def render_json(report: Report, examined: Examined = "all") -> str:
    """The report as compact JSON with a final newline, in one string: the
    bytes of ``report_document`` written compactly. Same input, same bytes."""
    return "".join(JsonWriter(report, examined).chunks())


def bounded_json(
    report: Report, examined: Examined, limit: int
) -> tuple[Iterable[str], dict[str, Any] | None]:
    """The report's text within ``limit`` UTF-8 bytes (``--max-report-bytes``)
    as chunks, and its ``truncated`` member when it had to be cut
    (``fit_document``). The report is measured first, then written: two
    passes over the model, none over a text held whole."""
    writer = JsonWriter(report, examined)
    size = writer.size()
    if size <= limit:
        return writer.chunks(), None
    members = writer.members()
    del writer  # its memo of whole texts gives way to the capped writer's
    return fit_document(members, size, limit)


KEPT_PARTS: Final = 1 << 22
"""Entry texts a writer keeps on its examined lists between measuring and
writing them (a reference each, 32 MiB in all): past it, a list is looked
up in the memo again when it is written, so a report of tens of millions
of entries adds no more than that to memory."""

KEPT_TAIL_BYTES: Final = 1 << 23
"""The most text of the findings and the rest of the report's tail a
writer keeps between measuring and writing it (8 MiB): past it, the tail
is encoded again when it is written."""

# Compact, so the C encoder writes it. Pipe the report through `jq` to read it.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_escape = encode_basestring  # what `_encode` writes for a str


class _Entries:
    """One decision's examined list as written: the entries listed (or, in
    full, the list as the check holds it: ``held``), what closes the list
    (``]``, and under ``selecting`` the count left out), and, once
    measured, the texts of its entries in order (``parts``, references into
    the writer's memo, while ``KEPT_PARTS`` allows), the bytes of the
    entries with their commas and, for a capped writer, how many strings
    its entries had capped."""

    __slots__ = ("_entries", "close", "count", "held", "parts", "size")

    def __init__(
        self,
        entries: tuple[ExaminedEntry, ...] | None,
        close: str,
        held: ExaminedList | None = None,
    ) -> None:
        self._entries = entries
        self.held = held
        self.close = close
        self.parts: list[str] | None = None
        self.size = -1
        self.count = 0

    @property
    def entries(self) -> tuple[ExaminedEntry, ...]:
        if self._entries is None:
            assert self.held is not None
            self._entries = self.held.whole()
        return self._entries


_Piece = str | _Entries


class JsonWriter:
    """The JSON report of ``report``: its text in chunks (``chunks``), its
    size in UTF-8 bytes without writing it (``size``), and its value member
    by member for a report cut to fit (``members``).

    A large tree lists the same examined entry under many sandboxes (the
    check reuses one entry for every sandbox that judged the document the
    same way), so each distinct entry is encoded once, and its text and
    size kept, by identity; the report keeps every entry alive while it is
    written, so no id is reused meanwhile. A sandbox's size is then its
    skeleton's plus the sizes of its entries, summed at C speed, and the
    text of a list is its entries' texts joined. A decision's list is kept
    by the identity of its tuple, which sandboxes share too.

    A ``capped`` writer writes the sandboxes of a report cut to fit
    (``members``), every string past ``QUOTE_LIMIT`` capped as
    ``capped_strings`` caps the value. Its memo holds each entry's capped
    text, size and count of capped strings, so a sandbox's capped size is
    its capped skeleton's plus its entries' sizes, and each occurrence of
    a shared entry counts its capped strings again.
    """

    def __init__(self, report: Report, examined: Examined = "all", *, capped: bool = False) -> None:
        self.report = report
        self.examined = examined
        self.capped = capped
        self._texts: dict[int, str] = {}
        self._sizes: dict[int, int] = {}
        self._counts: dict[int, int] = {}
        self._lists: dict[int, _Entries] = {}
        self._shared: dict[int, list[str]] = {}
        """The texts of each shared stretch of entries, by its identity."""
        self._kept = 0
        """The texts kept on lists (``_Entries.parts``), all lists together."""
        self._plain = True
        """Whether every text in the memo has as many UTF-8 bytes as
        characters (ASCII, nothing to escape), so a list's size is the sum
        of its texts' lengths."""
        self._measured_pieces: list[list[_Piece]] = []
        self._measured_tail: list[str] | None = None
        """The tail's text as ``size`` measured it, while ``KEPT_TAIL_BYTES`` allows."""

    def chunks(self) -> Iterator[str]:
        """The report's text, a piece at a time: each piece is at most one
        decision's examined list, so the text is never held whole."""
        measured, self._measured_pieces = self._measured_pieces, []
        tail, self._measured_tail = self._measured_tail, None
        yield f'{_encode(_head(self.report))[:-1]},"sandboxes":['
        for index, sandbox in enumerate(self.report.sandboxes):
            if index:
                yield ","
            yield from self._text(measured[index] if measured else self._pieces(sandbox, [0]))
        yield from self._tail_chunks() if tail is None else tail

    def size(self) -> int:
        """The bytes ``chunks`` writes, in UTF-8, without writing them. The
        sandboxes' pieces are kept for the ``chunks`` that follows: text of
        their skeletons and shared lists, a small part of the report; so is
        the tail's text, up to ``KEPT_TAIL_BYTES``."""
        sandboxes = self.report.sandboxes
        total = report_size(f'{_encode(_head(self.report))[:-1]},"sandboxes":[')
        total += max(len(sandboxes) - 1, 0)
        self._measured_pieces = [self._pieces(sandbox, [0]) for sandbox in sandboxes]
        total += sum(self._size(pieces)[0] for pieces in self._measured_pieces)
        return total + self._tail_size()

    def _tail_size(self) -> int:
        """The tail's bytes, its text kept for ``chunks`` while it is short."""
        kept: list[str] | None = []
        size = 0
        for chunk in self._tail_chunks():
            size += report_size(chunk)
            if kept is not None:
                kept.append(chunk)
                if size > KEPT_TAIL_BYTES:
                    kept = None
        self._measured_tail = kept
        return size

    def members(self) -> list[tuple[str, Any]]:
        """The report's value as top-level members in order, for
        ``fit_document``: its sandboxes capped and encoded by a capped
        writer (``Encoded``), the rest as values."""
        writer = self if self.capped else JsonWriter(self.report, self.examined, capped=True)
        sandboxes = Encoded(writer._sandbox_measures, writer._sandbox_chunks)
        head, tail = _head(self.report).items(), _tail(self.report).items()
        return [*head, ("sandboxes", sandboxes), *tail]

    def _sandbox_measures(self) -> Iterator[tuple[int, int]]:
        """Each sandbox's size in UTF-8 and its count of capped strings."""
        for sandbox in self.report.sandboxes:
            counter = [0]
            yield self._size(self._pieces(sandbox, counter), counter[0])

    def _sandbox_chunks(self, count: int) -> Iterator[str]:
        """The text of the first ``count`` sandboxes, with their commas."""
        for index, sandbox in enumerate(itertools.islice(self.report.sandboxes, count)):
            if index:
                yield ","
            yield from self._text(self._pieces(sandbox, [0]))

    def _size(self, pieces: list[_Piece], count: int = 0) -> tuple[int, int]:
        """The bytes of a sandbox's pieces and its capped strings: ``count``
        in its skeleton and those of its examined lists."""
        size = 0
        for piece in pieces:
            if isinstance(piece, str):
                size += report_size(piece)
            else:
                size += self._measured(piece) + report_size(piece.close)
                count += piece.count
        return size, count

    def _text(self, pieces: list[_Piece]) -> Iterator[str]:
        """A sandbox's text, its examined lists joined from the memo."""
        for piece in pieces:
            if isinstance(piece, str):
                yield piece
            else:
                yield self._joined(piece)
                yield piece.close

    def _value(self, value: Any, counter: list[int]) -> str:
        """``value`` encoded, capped for a capped writer (its capped strings
        added to ``counter``)."""
        return _encode(capped_strings(value, counter) if self.capped else value)

    def _tail_chunks(self) -> Iterator[str]:
        """``],"findings":[``, each finding, then the rest of the tail:
        findings can be many, each listing every path it affects."""
        tail = _tail(self.report)
        findings = tail.pop("findings")
        yield '],"findings":['
        for index, finding in enumerate(findings):
            yield f",{_encode(finding)}" if index else _encode(finding)
        yield f"],{_encode(tail)[1:]}\n"

    def _pieces(self, sandbox: SandboxReport, counter: list[int]) -> list[_Piece]:
        """The sandbox as text pieces around its decisions' examined lists;
        a capped writer adds the strings it capped in them to ``counter``."""
        document = _sandbox(sandbox, None)
        egress = document.pop("egress")
        del document["ingress"], egress["union"], egress["reach"]
        # `host` and `workload` (issue 17) come last, after `ingress`.
        extra = {key: document.pop(key) for key in ("host", "workload") if key in document}
        trailer = f",{self._value(extra, counter)[1:-1]}" if extra else ""
        value = self._value
        pieces: list[_Piece] = [
            f'{value(document, counter)[:-1]},"egress":{value(egress, counter)[:-1]},"union":'
        ]
        union, reach, ingress = sandbox.egress.union, sandbox.egress.reach, sandbox.ingress
        self._decision(pieces, union, {}, counter)
        pieces.append('},"reach":' if union is not None else 'null,"reach":')
        if reach is None:
            pieces.append("null")
        else:
            self._decision(pieces, reach.decision, {}, counter)
            skipped = value([_skipped(s) for s in reach.skipped], counter)
            pieces.append(f',"skipped":{skipped}}}')
        pieces.append('},"ingress":')
        self._ingress(pieces, ingress, counter)
        claim = sandbox.ref.claim
        claimed = "" if claim is None else f',"claim":{value(claim, counter)}'
        pieces.append(f"{trailer}{claimed}}}")
        return pieces

    def _ingress(
        self, pieces: list[_Piece], ingress: IngressReport | None, counter: list[int]
    ) -> None:
        """The sandbox's ``ingress`` member, up to the sandbox's trailer."""
        if ingress is None:
            pieces.append("null")
            return
        self._decision(pieces, ingress.decision, {"agentPort": ingress.agent_port}, counter)
        pieces.append(',"reach":')
        if ingress.reach is None:
            pieces.append("null}")
        else:
            self._decision(pieces, ingress.reach, {}, counter)
            pieces.append("}}")

    def _decision(
        self,
        pieces: list[_Piece],
        decision: DecisionReport | None,
        head: dict[str, Any],
        counter: list[int],
    ) -> None:
        """A decision up to the end of its examined list (and its count of
        entries left out); the caller writes the members after it and
        closes it with ``}``."""
        if decision is None:
            return
        fields = self._value({**head, **_decision(decision, None)}, counter)
        pieces += (f'{fields[:-1]},"examined":[', self._entries(decision.examined))

    def _entries(self, examined: ExaminedList) -> _Entries:
        known = self._lists.get(id(examined))
        if known is not None:
            return known
        if self.examined == "all":
            listed = _Entries(None, "]", examined)
        else:
            kept = examined.selecting()
            listed = _Entries(kept, f'],"{NOT_SELECTING}":{len(examined) - len(kept)}')
        self._lists[id(examined)] = listed
        return listed

    def _measured(self, listed: _Entries) -> int:
        if listed.size < 0:
            parts = self._parts(listed)
            if self._plain:  # every text's UTF-8 bytes are its characters
                size = sum(map(len, parts))
            else:
                size = sum(map(self._sizes.__getitem__, map(id, listed.entries)))
            listed.size = size + max(len(parts) - 1, 0)
            if self.capped:  # each occurrence of an entry counts its strings
                listed.count = sum(map(self._counts.__getitem__, map(id, listed.entries)))
        return listed.size

    def _joined(self, listed: _Entries) -> str:
        return ",".join(self._parts(listed))

    def _parts(self, listed: _Entries) -> list[str]:
        """The texts of the list's entries, in order, kept on the list while
        ``KEPT_PARTS`` allows: a list is then looked up in the memo once,
        when it is measured, and its text joined from them whenever it is
        written."""
        parts = listed.parts
        if parts is None:
            held = listed.held
            if held is None or self.capped:
                parts = self._texts_of(listed.entries)
            else:
                parts = self._spliced(held)
            if self._kept + len(parts) <= KEPT_PARTS:
                listed.parts = parts
                self._kept += len(parts)
        return parts

    def _texts_of(self, entries: tuple[ExaminedEntry, ...]) -> list[str]:
        """The texts of ``entries``, in order."""
        found = list(map(self._texts.get, map(id, entries)))
        if not all(found):  # no text is empty: some entries are new
            self._learn(entries, found)
        return cast("list[str]", found)

    def _spliced(self, held: ExaminedList) -> list[str]:
        """The texts of a list held as shared entries with its own cut in:
        the shared entries' texts are looked up once for every list that
        shares them, and each list's are copied from them at C speed."""
        shared = self._shared.get(id(held.shared))
        if shared is None:
            shared = self._shared[id(held.shared)] = self._texts_of(held.shared.entries)
        if not held.cuts and not held.tail:
            return shared
        parts: list[str] = []
        at = 0
        for cut in held.cuts:
            parts += shared[at : cut.start]
            parts += self._texts_of(cut.placed)
            at = cut.stop
        parts += shared[at:]
        parts += self._texts_of(held.tail)
        return parts

    def _learn(self, entries: tuple[ExaminedEntry, ...], found: list[str | None]) -> None:
        """Encode the entries not seen before, the ``None`` of ``found``,
        and fill them in. Most of a list's entries were in lists before it,
        so they are passed over at C speed."""
        texts = self._texts
        for index in itertools.compress(itertools.count(), map(operator.not_, found)):
            entry = entries[index]
            key = id(entry)
            text = texts.get(key)
            if text is None:  # else: the same entry twice in one list
                text, self._counts[key] = (
                    _capped_entry_text(entry) if self.capped else (_entry_text(entry), 0)
                )
                texts[key] = text
                size = self._sizes[key] = report_size(text)
                self._plain = self._plain and size == len(text)
            found[index] = text


def _head(report: Report) -> dict[str, Any]:
    return {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "egress-lint", "version": __version__},
        "defaultsApplied": report.defaults_applied,
    }


def _controller(controller: ControllerReport) -> dict[str, Any]:
    return {
        "version": controller.version,
        "column": controller.column,
        "source": controller.source,
        **_file_line(controller.location),
    }


def _tail(report: Report) -> dict[str, Any]:
    tail: dict[str, Any] = {
        "findings": [_finding(f) for f in report.findings],
        "parseErrors": [
            {"file": e.file, "line": e.line, "message": e.message} for e in report.parse_errors
        ],
    }
    if report.stale_baseline:
        tail["staleBaseline"] = list(report.stale_baseline)
    if report.controller is not None:
        # Added last, so every earlier field keeps its place (REPORT.md).
        tail["controller"] = _controller(report.controller)
    return tail


def _entry_text(entry: ExaminedEntry) -> str:
    """``_examined(entry)`` encoded, field by field: the encoder's own
    string escaping without building a dict per entry."""
    location = entry.location
    file, line = (None, None) if location is None else (location.file, location.line)
    return (
        f'{{"kind":{_string(entry.kind)},"name":{_string(entry.name)}'
        f',"namespace":{_string(entry.namespace)},"verdict":{_string(entry.verdict)}'
        f',"detail":{_string(entry.detail)},"origin":{_string(entry.origin)}'
        f',"file":{_string(file)},"line":{"null" if line is None else line}}}'
    )


def _capped_entry_text(entry: ExaminedEntry) -> tuple[str, int]:
    """The entry's text with its long strings capped, and how many were:
    most entries have none, and keep the text ``_entry_text`` writes."""
    fields = (entry.kind, entry.name, entry.namespace, entry.verdict, entry.detail, entry.origin)
    location = entry.location
    if not any(
        len(field) > QUOTE_LIMIT for field in (*fields, location and location.file) if field
    ):
        return _entry_text(entry), 0
    counter = [0]
    return _encode(capped_strings(_examined(entry), counter)), counter[0]


def _string(text: str | None) -> str:
    return "null" if text is None else _escape(text)


def _ref(ref: SandboxRef) -> dict[str, Any]:
    result: dict[str, Any] = {
        "namespace": ref.namespace,
        "template": ref.template,
        "profile": ref.profile,
        "path": ref.path,
    }
    if ref.claim is not None:
        result["claim"] = ref.claim
    return result


def _sandbox(sandbox: SandboxReport, examined: Examined | None) -> dict[str, Any]:
    """The sandbox's value; with ``examined`` None, without its decisions'
    examined lists and its ``claim`` (``JsonWriter`` writes those itself)."""
    egress = sandbox.egress
    result = _ref(sandbox.ref)
    # A pooled pod's claims go last, after every field a sandbox had before.
    claim = result.pop("claim", None)
    if sandbox.environment is not None:
        result["environment"] = sandbox.environment
    result["podLabels"] = dict(sorted(sandbox.pod_labels.items()))
    result["egress"] = {
        "policyKind": egress.policy_kind,
        "engine": egress.engine,
        "verify": egress.verify,
        "expected": (
            None
            if egress.expected_kind is None
            else {"kind": egress.expected_kind, "name": egress.expected_name}
        ),
        "named": None if egress.named is None else _named(egress.named),
        "union": _decision(egress.union, examined) if egress.union is not None else None,
        "reach": _reach(egress.reach, examined) if egress.reach is not None else None,
    }
    ingress = sandbox.ingress
    result["ingress"] = (
        None
        if ingress is None
        else {
            "agentPort": ingress.agent_port,
            **_decision(ingress.decision, examined),
            "reach": None if ingress.reach is None else _decision(ingress.reach, examined),
        }
    )
    # Last, and only when not the default: namzu template reports keep their bytes.
    if sandbox.host != "namzu":
        result["host"] = sandbox.host
    if sandbox.workload_kind is not None:
        result["workload"] = {"kind": sandbox.workload_kind, "name": sandbox.ref.template}
    if claim is not None and examined is not None:
        result["claim"] = claim
    return result


def _reach(reach: ReachReport, examined: Examined | None) -> dict[str, Any]:
    skipped = [_skipped(s) for s in reach.skipped]
    return {**_decision(reach.decision, examined), "skipped": skipped}


def _skipped(entry: SkippedEntry) -> dict[str, Any]:
    return {
        "kind": entry.kind,
        "name": entry.name,
        "reason": entry.reason,
        **_file_line(entry.location),
    }


def _named(named: NamedReport) -> dict[str, Any]:
    return {
        "result": named.result,
        "field": named.field,
        "detail": named.detail,
        **_file_line(named.location),
    }


def _decision(decision: DecisionReport, examined: Examined | None) -> dict[str, Any]:
    """The decision's fields; ``examined`` None leaves the list out, for a
    caller that writes it itself. Under ``selecting`` the list keeps the
    entries that select the pod, and ``notSelecting`` counts the others."""
    result: dict[str, Any] = {"refusal": decision.refusal, "summary": decision.summary}
    if examined == "all":
        result["examined"] = [_examined(e) for e in decision.examined]
    elif examined == "selecting":
        kept = [_examined(e) for e in decision.examined.selecting()]
        result["examined"] = kept
        result[NOT_SELECTING] = len(decision.examined) - len(kept)
    return result


def _examined(entry: ExaminedEntry) -> dict[str, Any]:
    return {
        "kind": entry.kind,
        "name": entry.name,
        "namespace": entry.namespace,
        "verdict": entry.verdict,
        "detail": entry.detail,
        "origin": entry.origin,
        **_file_line(entry.location),
    }


def _file_line(location: Location | None) -> dict[str, Any]:
    if location is None:
        return {"file": None, "line": None}
    return {"file": location.file, "line": location.line}


def _finding(finding: Finding) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "level": finding.level,
        "message": finding.message,
        "file": finding.location.file,
        "line": finding.location.line,
        "sandbox": _ref(finding.sandbox) if finding.sandbox is not None else None,
        "suppressed": finding.suppressed,
    }
    if finding.location.source is not None:
        result["source"] = finding.location.source
    if finding.environment is not None:
        result["environment"] = finding.environment
    if finding.remedy:
        result["remedy"] = finding.remedy
    # Added by issue 13, after every earlier field: the paths a culprit
    # affects (``sandbox`` stays the first), the culprit, a paste-able block.
    affected = finding.affected or ((finding.sandbox,) if finding.sandbox is not None else ())
    result["affected"] = [_ref(ref) for ref in affected]
    if finding.culprit is not None:
        result["culprit"] = _culprit(finding.culprit)
    if finding.remedy_yaml is not None:
        result["remedyYaml"] = finding.remedy_yaml
    return result


def _culprit(culprit: Culprit) -> dict[str, Any]:
    return {
        "kind": culprit.kind,
        "namespace": culprit.namespace,
        "name": culprit.name,
        "origin": culprit.origin,
        "template": culprit.template,
        "letsOut": list(culprit.lets_out),
        "contentHash": culprit.content_hash,
        # Added by issue 27, last: every offending rule at its own line.
        "rules": [_culprit_rule(rule) for rule in culprit.rules],
    }


def _culprit_rule(rule: CulpritRule) -> dict[str, Any]:
    location = rule.location
    return {
        "path": rule.path,
        "letsOut": rule.lets_out,
        "file": location.file if location is not None else None,
        "line": location.line if location is not None else None,
    }
