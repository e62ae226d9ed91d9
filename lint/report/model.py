"""The result of a check run, as every reporter sees it (REPORT.md).

Reporters take a :class:`Report` and return text; they never compute a
verdict. Field names follow the JSON contract. Records hold plain values: a
verdict, refusal or named result is the ``str`` of the decision's enum
member, because ``marshal`` sends records between processes and refuses
subclasses of ``str``: a field typed ``str`` goes as it is
(``lint.parallel.records``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Final, Literal, overload

import msgspec

Origin = Literal["manifest", "synthesized", "generated", "declaration"]


class Location(msgspec.Struct, frozen=True):
    """A file and 1-based line. ``source`` is the Helm template path named
    by a ``# Source:`` comment, when there is one."""

    file: str
    line: int
    source: str | None = None
    source_line: int | None = None


class SandboxRef(msgspec.Struct, frozen=True):
    namespace: str
    template: str
    profile: str | None
    path: str
    claim: str | None = None
    """The SandboxClaims whose labels a pooled pod carries (issue 14)."""


class ObjectRef(msgspec.Struct, frozen=True):
    """The object a finding is about, for suppression annotations."""

    kind: str
    name: str
    namespace: str | None
    annotations: tuple[tuple[str, str], ...] = ()


class CulpritRule(msgspec.Struct, frozen=True):
    """One offending rule of a culprit: its key path (``spec.egress[1]``),
    what it lets out, and its own line, when it has one in a file."""

    path: str
    lets_out: str
    location: Location | None = None


class Culprit(msgspec.Struct, frozen=True):
    """The document a finding is about, as a person changes it (DESIGN §10):
    its kind, namespace and name, whether it was read from a manifest or is
    the policy the controller will write, what it lets out beyond the
    allowance (one clause per distinct allowance, with the rule index), and
    a content hash of the offending rule, so a baseline entry never covers
    another rule or another object."""

    kind: str
    name: str
    namespace: str | None
    origin: str
    verb: str
    """What the culprit does: ``widens egress``, ``cannot be evaluated``,
    ``opens the agent port``."""
    lets_out: tuple[str, ...]
    content_hash: str
    template: str | None = None
    """For a synthesized policy, the SandboxTemplate that makes the controller write it."""
    rules: tuple[CulpritRule, ...] = ()
    """Every offending rule, in rule order (``lets_out`` holds their
    clauses); empty when the culprit is a whole document (unreadable)."""


class Finding(msgspec.Struct, frozen=True):
    rule_id: str
    level: str
    message: str
    location: Location
    sandbox: SandboxRef | None = None
    remedy: str = ""
    related: tuple[Location, ...] = ()
    subject: ObjectRef | None = None
    suppressed: bool = False
    justification: str | None = None
    suppression_kind: str | None = None
    environment: str | None = None
    """The ``renders:`` environment the finding was found in, if any."""
    affected: tuple[SandboxRef, ...] = ()
    """Every sandbox path a culprit's finding affects, in sandbox order;
    ``sandbox`` is the first of them (issue 13)."""
    culprit: Culprit | None = None
    remedy_yaml: str | None = None
    """A block the user can paste, when the remedy shows one."""
    location_note: str | None = None
    """Why ``location`` is not the line that wrote the object (a Kustomize
    object whose file, or whose patch, could not be told); the message
    carries it too."""

    @property
    def paths(self) -> tuple[SandboxRef, ...]:
        """Every sandbox path the finding is about: ``affected``, else its
        one ``sandbox``, else none."""
        if self.affected:
            return self.affected
        return () if self.sandbox is None else (self.sandbox,)


class ExaminedEntry(msgspec.Struct, frozen=True):
    kind: str
    name: str
    namespace: str | None
    verdict: str
    detail: str | None
    origin: Origin
    location: Location | None


class NamedReport(msgspec.Struct, frozen=True):
    result: str
    field: str | None
    detail: str | None
    location: Location | None


QUIET_VERDICT: Final = "does-not-select"
"""The verdict of an entry whose document does not select the pod, in the
egress and the ingress vocabulary alike: most entries of a large
namespace, and the ones that say nothing."""


class SharedEntries(msgspec.Struct, frozen=True, eq=False):
    """Examined entries many decisions list alike (every policy of a
    namespace that selects none of their pods), made once, with the places
    of those that are not quiet."""

    entries: tuple[ExaminedEntry, ...]
    loud: tuple[int, ...]


def shared_entries(entries: Sequence[ExaminedEntry]) -> SharedEntries:
    listed = tuple(entries)
    return SharedEntries(
        listed, tuple(i for i, e in enumerate(listed) if e.verdict != QUIET_VERDICT)
    )


class Cut(msgspec.Struct, frozen=True):
    """Where a decision's own entries replace a stretch of the shared ones:
    ``shared.entries[start:stop]`` becomes ``placed`` (an empty stretch
    inserts, an empty ``placed`` removes)."""

    start: int
    stop: int
    placed: tuple[ExaminedEntry, ...]


class ExaminedList(msgspec.Struct, frozen=True, eq=False):
    """A decision's examined entries, in order: shared entries with the
    decision's own cut in (``cuts``, in order and apart), then ``tail``.

    In one namespace of N pods, each decision lists the N policies that
    select other pods: held whole, the lists of a run would grow as N².
    Held as the shared entries and a few cuts, each costs what its own
    entries do; it is put together only when it is read whole (a JSON
    report), one list at a time. ``selecting`` and ``len`` answer without
    putting it together."""

    shared: SharedEntries
    cuts: tuple[Cut, ...] = ()
    tail: tuple[ExaminedEntry, ...] = ()

    def whole(self) -> tuple[ExaminedEntry, ...]:
        entries = self.shared.entries
        if not self.cuts and not self.tail:
            return entries
        pieces: list[tuple[ExaminedEntry, ...]] = []
        at = 0
        for cut in self.cuts:
            pieces += (entries[at : cut.start], cut.placed)
            at = cut.stop
        pieces += (entries[at:], self.tail)
        return tuple(chain.from_iterable(pieces))

    def selecting(self) -> tuple[ExaminedEntry, ...]:
        """The entries that are not quiet, in order."""
        entries, loud = self.shared.entries, self.shared.loud
        found: list[ExaminedEntry] = []
        at = 0
        for cut in self.cuts:
            found += _between(entries, loud, at, cut.start)
            found += [e for e in cut.placed if e.verdict != QUIET_VERDICT]
            at = cut.stop
        found += _between(entries, loud, at, len(entries))
        found += [e for e in self.tail if e.verdict != QUIET_VERDICT]
        return tuple(found)

    def __len__(self) -> int:
        cut = sum(len(c.placed) - (c.stop - c.start) for c in self.cuts)
        return len(self.shared.entries) + cut + len(self.tail)

    def __iter__(self) -> Iterator[ExaminedEntry]:
        return iter(self.whole())

    def __reversed__(self) -> Iterator[ExaminedEntry]:
        return reversed(self.whole())

    @overload
    def __getitem__(self, index: int) -> ExaminedEntry: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[ExaminedEntry, ...]: ...
    def __getitem__(self, index: int | slice) -> ExaminedEntry | tuple[ExaminedEntry, ...]:
        return self.whole()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ExaminedList | tuple | list):
            return self.whole() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.whole())

    def __repr__(self) -> str:
        return f"ExaminedList({self.whole()!r})"

    def __contains__(self, entry: object) -> bool:
        return entry in self.whole()

    def index(self, entry: ExaminedEntry) -> int:
        return self.whole().index(entry)

    def count(self, entry: ExaminedEntry) -> int:
        return self.whole().count(entry)


# A Struct cannot also derive from an abstract class; it is registered as the
# sequence it is (every method of one is above).
Sequence.register(ExaminedList)


def _between(
    entries: tuple[ExaminedEntry, ...], loud: tuple[int, ...], start: int, stop: int
) -> list[ExaminedEntry]:
    return [entries[i] for i in loud[bisect_left(loud, start) : bisect_left(loud, stop)]]


def examined_list(entries: Sequence[ExaminedEntry] = ()) -> ExaminedList:
    """A decision's examined entries, none of them shared with another's."""
    return ExaminedList(shared_entries(entries))


class DecisionReport(msgspec.Struct, frozen=True):
    refusal: str | None
    summary: str | None
    examined: ExaminedList


class SkippedEntry(msgspec.Struct, frozen=True):
    """An object reach does not judge (CLUSTER-POLICIES §11 Q6): staged, or
    for host endpoints only."""

    kind: str
    name: str
    reason: str
    location: Location | None


class ReachReport(msgspec.Struct, frozen=True):
    """The reach decision (CLUSTER-POLICIES §11): ``decision.examined`` lists
    only the documents beyond the union's."""

    decision: DecisionReport
    skipped: tuple[SkippedEntry, ...] = ()


class EgressReport(msgspec.Struct, frozen=True):
    policy_kind: str
    engine: str
    verify: str
    expected_kind: str | None
    """None when no host reads an object back by name (``host: none``)."""
    expected_name: str | None
    named: NamedReport | None
    """None when there is no named object to compare (``host: none``)."""
    union: DecisionReport | None
    reach: ReachReport | None = None


class IngressReport(msgspec.Struct, frozen=True):
    agent_port: int
    decision: DecisionReport
    reach: DecisionReport | None = None
    """The minimal fail-closed rule of CLUSTER-POLICIES §8 over the new kinds."""


class SandboxReport(msgspec.Struct, frozen=True):
    ref: SandboxRef
    pod_labels: dict[str, str]
    egress: EgressReport
    ingress: IngressReport | None
    declaration: Location | None
    host: str = "namzu"
    workload_kind: str | None = None
    """The kind of a declared workload (issue 17); None for a SandboxTemplate."""
    environment: str | None = None
    """The ``renders:`` environment this sandbox was checked in, if any."""


class ParseErrorReport(msgspec.Struct, frozen=True):
    file: str
    line: int
    message: str


class ControllerReport(msgspec.Struct, frozen=True):
    """The agent-sandbox controller version the run assumed (DESIGN §12):
    ``version`` as written, the AGENT-SANDBOX §8 ``column`` it falls in,
    ``source`` (``flag``, ``declaration``, ``image-tag``, ``version-label``
    or ``default``) and, for all but a flag and the default, where it was
    read."""

    version: str
    column: str
    source: str
    location: Location | None = None


class Report(msgspec.Struct, frozen=True):
    defaults_applied: bool
    sandboxes: tuple[SandboxReport, ...]
    findings: tuple[Finding, ...]
    parse_errors: tuple[ParseErrorReport, ...]
    declaration_file: str | None = None
    skipped: dict[str, int] = msgspec.field(default_factory=dict)
    files: int = 0
    stale_baseline: tuple[str, ...] = ()
    controller: ControllerReport | None = None
