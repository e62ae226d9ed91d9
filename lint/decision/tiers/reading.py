"""What every tier reader shares (CLUSTER-POLICIES.md §12.2, §12.2.1, §12.2.2).

A reader turns one object into what its rules match (``model``), never a
verdict. This module holds the context a reader is given (the pod, its
namespace, the data-only objects, the credit of each kind, the CNI
evidence), the result it hands back, and the conversions from the shapes
the older readers of ``lint.decision.reach`` produce (``PortSet``, wanted
peers, label selectors as JSON) into the tier vocabulary, and ``ReadMemo``,
where a caller that reads the same objects for many pods lets the readers
keep what does not depend on the pod.

Pure: plain data in, frozen results out (a ``ReadMemo`` is the caller's,
handed in; the module holds no state of its own).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Final, TypeAlias, TypeVar, cast

import msgspec
from msgspec.structs import replace

from lint.decision.frozen import equal_without
from lint.decision.model import ALL_PORTS, CidrPeer, PortRange, PortSet, SelectorPeer, Tri
from lint.decision.reach.common import (
    Requirement,
    StrictSelector,
    normalise_domain,
    read_strict_selector,
)
from lint.decision.reach.model import (
    NAMESPACE_NAME_LABEL,
    DomainPeer,
    LabelValue,
    LabelView,
    NodesPeer,
    ReachData,
    Skipped,
    UnknownValue,
    UnreadablePeer,
    WantedPeer,
)
from lint.decision.tiers.model import (
    EVERY_ACTION,
    EVERY_PORT,
    PORTED,
    UNREADABLE_PORTS,
    Action,
    CalicoTier,
    CidrBlock,
    PeerMatch,
    PodSet,
    Ports,
    PortSpan,
    Protocol,
    TierDocument,
    TierRule,
    Undecidable,
    unreadable_peer,
)
from lint.decision.values import ABSENT, JSON, Absent, compact_json

MIN_PORT: Final = 1
MAX_PORT: Final = 65535
MAX_PROTOCOL: Final = 255
OTHER_NUMBERS: Final = {"UDPLITE": 136}
"""Named IP protocols other than TCP, UDP, SCTP and ICMP, by number."""


class Credit(msgspec.Struct, frozen=True):
    """``credit(d)`` of one kind (§12.4) and, when it is not ``Y`` by the
    manifests alone, why (naming the ``cluster.enforces`` entry)."""

    value: Tri
    why: str | None = None


CREDITED: Final = Credit(Tri.YES)


R = TypeVar("R")


Question: TypeAlias = tuple[Callable[[LabelView, str], object], str]
"""One question a reader asked of the pod's label view: the method, the key."""


class TracedView(LabelView, frozen=True):
    """A pod's label view (``seen``) that notes each question a reader asks
    of it, with its answer (``ReadMemo.traced``). Readers ask a view only
    through ``lookup``, ``is_present`` and ``value_unknown``; its own fields
    say nothing is known, so a reader that read them instead would read
    another pod than it does without a memo, which the tests comparing the
    two would show."""

    seen: LabelView = msgspec.field(default_factory=LabelView)
    asked: list[tuple[Question, object]] = msgspec.field(default_factory=list)

    def lookup(self, key: str) -> LabelValue:
        answer = self.seen.lookup(key)
        self.asked.append(((LabelView.lookup, key), answer))
        return answer

    def is_present(self, key: str) -> bool | UnknownValue:
        answer = self.seen.is_present(key)
        self.asked.append(((LabelView.is_present, key), answer))
        return answer

    def value_unknown(self, key: str) -> bool:
        answer = self.seen.value_unknown(key)
        self.asked.append(((LabelView.value_unknown, key), answer))
        return answer


MAX_TRACES: Final = 4
"""The most sets of questions kept for one object (``ReadMemo.traced``):
a reader asks the same questions whatever the answers, but for a few
branches."""


class ReadMemo:
    """What readers read of an object that does not depend on the pod (its
    rules), kept by a caller that reads the same objects for many pods and
    hands the memo in (``build_tier_input``): the check holds one per
    namespace it judges. It holds no other state, so a run that passes none
    reads everything afresh.

    An answer is kept under the identities of the objects it was read from
    (``held``) and the plain values that also decide it (``key``). The
    objects are kept with the answer, so an id is never reused while the
    memo lives, and an equal object elsewhere is never taken for it.
    """

    __slots__ = ("_known", "_recent", "_tokens", "_traced", "lasting")

    def __init__(self, lasting: ReadMemo | None = None) -> None:
        self._known: dict[Hashable, tuple[tuple[object, ...], Any]] = {}
        self._recent: dict[Hashable, tuple[tuple[object, ...], Any]] = {}
        self._tokens: dict[Hashable, tuple[object, int]] = {}
        self._traced: dict[tuple[int, int], tuple[object, dict[Any, dict[Any, Any]]]] = {}
        self.lasting = lasting
        """Where reads that depend on the object alone (not on the
        namespace) are kept: a caller keeps it for the whole run, since a
        cluster-scoped policy is read again for every namespace's pods."""

    def once(self, held: tuple[object, ...], key: Hashable, read: Callable[[], R]) -> R:
        """``read()``, once per objects ``held`` (by identity) and ``key``."""
        full = (tuple(map(id, held)), key)
        hit = self._known.get(full)
        # Equal keys hold as many identities: the objects compare at C speed.
        if hit is not None and all(map(operator.is_, hit[0], held)):
            return cast(R, hit[1])
        value = read()
        self._known[full] = (held, value)
        return value

    def recent(
        self, held: tuple[object, ...], key: Hashable, read: Callable[[], R], keep: int
    ) -> R:
        """``once``, among the ``keep`` answers asked for last only: for
        large answers of which many are asked for once and the others soon
        again."""
        full = (tuple(map(id, held)), key)
        recent = self._recent
        hit = recent.pop(full, None)
        if hit is None or not all(map(operator.is_, hit[0], held)):
            hit = (held, read())
        recent[full] = hit  # the last asked for comes last
        if len(recent) > keep:
            del recent[next(iter(recent))]
        return cast(R, hit[1])

    def token(self, held: object, key: Hashable) -> int:
        """A small number standing for ``held`` (by identity) and ``key``
        while the memo lives: what a run of ``traced`` calls shares, hashed
        once instead of once per call."""
        full = (id(held), key)
        hit = self._tokens.get(full)
        if hit is None or hit[0] is not held:
            hit = self._tokens[full] = (held, len(self._tokens))
        return hit[1]

    def traced(
        self,
        held: object,
        token: int,
        view: LabelView,
        read: Callable[[LabelView], R],
    ) -> R:
        """``read(view)``, once per object ``held`` (by identity), ``token``
        (the rest of what decides the reading, from ``token``) and the
        answers ``view`` gives to the questions the reading asked of its
        view. ``read`` must depend on nothing else, and ask its view only
        what a ``TracedView`` notes: then a view that answers those
        questions alike leads it down the same way to the same result, so
        pods whose labels differ only where the object does not look share
        one reading."""
        full = (id(held), token)
        entry = self._traced.get(full)
        if entry is None or entry[0] is not held:
            entry = self._traced[full] = (held, {})
        traces = entry[1]
        for questions, answered in traces.items():
            found = answered.get(tuple([ask(view, label) for ask, label in questions]), _NONE)
            if found is not _NONE:
                return cast(R, found)
        traced = TracedView(complete=False, seen=view)
        value = read(traced)
        questions = tuple(question for question, _ in traced.asked)
        if questions in traces or len(traces) < MAX_TRACES:
            answers = tuple(answer for _, answer in traced.asked)
            traces.setdefault(questions, {})[answers] = value
        return value


_NONE: Final = object()
"""No reading kept (``ReadMemo.traced``)."""


class ReadContext(msgspec.Struct, frozen=True):
    """What a reader knows besides its object.

    ``namespace`` is the sandbox namespace, ``pod`` the pod's label view,
    ``namespace_view`` the sandbox namespace's (§2.3). ``credits`` maps a
    kind's key (``lint.kinds.Kind.key``) to its credit; a kind not listed is
    credited. ``calico`` and ``cilium_r`` are the evidence of §12.4, which
    the core ``ipBlock`` reading depends on (§12.2.2). ``memo`` keeps what
    a reader reads of an object whatever the pod (``ReadMemo``).
    """

    namespace: str
    pod: LabelView
    namespace_view: LabelView
    service_account: str = "default"
    data: ReachData = msgspec.field(default_factory=ReachData)
    credits: Mapping[str, Credit] = msgspec.field(default_factory=dict)
    calico: bool = False
    cilium_r: bool = False
    pod_template: JSON = None
    pod_annotations: Mapping[str, JSON] = msgspec.field(default_factory=dict)
    memo: ReadMemo | None = None
    """Where readers keep what they read of an object for any pod (None:
    nothing is kept)."""

    __eq__ = equal_without("memo")  # what is read, not where it is kept
    __hash__ = None  # type: ignore[assignment]  # it holds dicts: never hashed

    def credit(self, key: str) -> Credit:
        return self.credits.get(key, CREDITED)

    def remembered(self, held: tuple[object, ...], key: Hashable, read: Callable[[], R]) -> R:
        """``read()`` through the memo, when there is one (``ReadMemo.once``)."""
        memo = self.memo
        return read() if memo is None else memo.once(held, key, read)

    def remembered_everywhere(
        self, held: tuple[object, ...], key: Hashable, read: Callable[[], R]
    ) -> R:
        """``remembered`` for a read that depends on the object alone, in
        the memo's ``lasting`` part when it has one."""
        memo = self.memo
        if memo is None:
            return read()
        return (memo.lasting or memo).once(held, key, read)


class Read(msgspec.Struct, frozen=True):
    """What one object gives the tier model: documents, Calico tiers, §7
    undecidable objects, and what is skipped (staged, host endpoints)."""

    documents: tuple[TierDocument, ...] = ()
    tiers: tuple[CalicoTier, ...] = ()
    undecidable: tuple[Undecidable, ...] = ()
    skipped: tuple[Skipped, ...] = ()


NOTHING: Final = Read()


def tri(value: bool) -> Tri:
    return Tri.YES if value else Tri.NO


def shell(
    kind: str,
    name: str,
    namespace: str | None,
    slot: str,
    order: float | None,
    tie_class: str,
    credit: Credit,
    ref: int,
) -> TierDocument:
    """A document with its identity, place and credit, selecting nothing
    yet: readers fill in the rest with ``replace``."""
    return TierDocument(
        kind=kind,
        name=name,
        namespace=namespace,
        slot=slot,
        order=order,
        tie_class=tie_class,
        subject=Tri.NO,
        types=Tri.NO,
        credit=credit.value,
        rules=(),
        credit_why=credit.why,
        ref=ref,
    )


def unreadable_document(
    base: TierDocument,
    detail: str,
    path: tuple[str | int, ...] = (),
    actions: frozenset[Action] = EVERY_ACTION,
) -> TierDocument:
    """§12.2, §12.7: a document that cannot be read has one rule, subject
    and peer ``M``, every action of its kind."""
    rule = TierRule(
        actions=actions,
        ports=UNREADABLE_PORTS,
        peers=(unreadable_peer(),),
        index=0,
        path=path,
        text="the document",
    )
    return replace(
        base,
        subject=Tri.UNKNOWN,
        types=Tri.UNKNOWN,
        rules=(rule,),
        unreadable=detail,
        subject_why=detail,
    )


# --- Ports (§12.2.1) -----------------------------------------------------------------------


def span(protocol: Protocol, low: int | None = None, high: int | None = None) -> PortSpan:
    """One span; ``low`` None is every port of the protocol."""
    if low is None:
        return PortSpan(protocol, MIN_PORT, MAX_PORT)
    return PortSpan(protocol, low, low if high is None else high)


def every_ported(low: int | None = None, high: int | None = None) -> tuple[PortSpan, ...]:
    """TCP, UDP and SCTP on the same ports (Cilium ``ANY``, §12.2.1)."""
    return tuple(span(protocol, low, high) for protocol in PORTED)


def _valid_port(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and MIN_PORT <= value <= MAX_PORT


def ported_protocol(text: str | None) -> Protocol | None:
    """TCP, UDP or SCTP by name (any case), else None."""
    if text is None:
        return None
    upper = text.upper()
    return next((protocol for protocol in PORTED if protocol.value == upper), None)


def ports_of_port_set(ports: PortSet, named_port: bool = False) -> Ports:
    """A ``PortSet`` of the older readers as §12.2.1 ports. ``all`` (or a
    named port) is every protocol and port; a range with no protocol is TCP,
    UDP and SCTP; a protocol this model does not port (``ICMP``, a number)
    is ICMP or OTHER; a port outside 1-65535 cannot be read."""
    if named_port or ports == ALL_PORTS:
        return EVERY_PORT
    spans: list[PortSpan] = []
    numbers: list[int] = []
    icmp = other = False
    for entry in ports:
        read = _range_spans(entry)
        if read is None:
            return UNREADABLE_PORTS
        if isinstance(read, tuple):
            spans.extend(read)
        elif isinstance(read, int):
            numbers.append(read)
        elif read == "icmp":
            icmp = True
        else:
            other = True
    return Ports(
        spans=tuple(spans), icmp=icmp, other=other, other_numbers=tuple(sorted(set(numbers)))
    )


def _range_spans(entry: PortRange) -> tuple[PortSpan, ...] | str | int | None:
    if entry.protocol is not None and ported_protocol(entry.protocol) is None:
        upper = entry.protocol.upper()
        if upper in ("ICMP", "ICMPV6"):
            return "icmp"
        if upper.isascii() and upper.isdigit() and int(upper) <= MAX_PROTOCOL:
            return int(upper)
        return OTHER_NUMBERS.get(upper, "other")
    start, end = entry.start, entry.end
    if start is None:
        low, high = None, None
    elif not _valid_port(start) or (end is not None and not _valid_port(end)):
        return None
    else:
        low, high = int(start), int(start if end is None else end)
        if high < low:
            return None
    protocol = ported_protocol(entry.protocol)
    if protocol is None:
        return every_ported(low, high)
    return (span(protocol, low, high),)


# --- Selectors (§2.2, §12.2.2) -----------------------------------------------------------------

EVERY_POD_SET: Final = PodSet(None, None)
UNKNOWN_POD_SET: Final = PodSet(None, None, exact=False)


def namespace_pin(namespace: str) -> StrictSelector:
    """The namespace-local peer's namespace: ``kubernetes.io/metadata.name``."""
    return StrictSelector(((NAMESPACE_NAME_LABEL, namespace),), ())


def strict_or_none(raw: JSON | Absent) -> StrictSelector | str | None:
    """A selector as a ``PodSet`` part: None for absent or empty (every
    object), the strict selector, or why it cannot be read."""
    if raw is ABSENT:
        return None
    read = read_strict_selector(raw)
    if isinstance(read, str):
        return read
    return None if read.is_empty else read


def pod_set(
    namespace_selector: JSON | Absent, pod_selector: JSON | Absent, own_namespace: str | None
) -> PodSet:
    """A selector peer as a ``PodSet``. An absent namespace selector means
    ``own_namespace`` (None: every namespace); a part that cannot be read
    makes the set inexact (``M`` on every pod, §12.7)."""
    namespaces: StrictSelector | str | None
    if namespace_selector is ABSENT:
        namespaces = None if own_namespace is None else namespace_pin(own_namespace)
    else:
        namespaces = strict_or_none(namespace_selector)
    pods = strict_or_none(pod_selector)
    if isinstance(namespaces, str) or isinstance(pods, str):
        return UNKNOWN_POD_SET
    return PodSet(namespaces, pods)


def and_selectors(*parts: StrictSelector | None) -> StrictSelector | None:
    """The conjunction of selectors (None parts select everything)."""
    labels: list[tuple[str, str]] = []
    requirements: list[Requirement] = []
    for part in parts:
        if part is None:
            continue
        labels.extend(part.labels)
        requirements.extend(part.requirements)
    if not labels and not requirements:
        return None
    return StrictSelector(tuple(labels), tuple(requirements))


# --- Peers (§12.2.2) ---------------------------------------------------------------------------


def cidr_block(peer: CidrPeer) -> CidrBlock:
    return CidrBlock(peer.cidr, tuple(peer.excepts))


def address_peer(
    text: str, blocks: tuple[CidrBlock, ...], out: Tri, pod: Tri, node: Tri
) -> PeerMatch:
    """An address peer: ``blocks`` tested, then the owner parts."""
    return PeerMatch(text, blocks=blocks, out=out, pod=pod, node=node, on_name=Tri.UNKNOWN)


def network_peer(peer: CidrPeer) -> PeerMatch:
    """ANP/CNP ``networks``, Calico ``nets``: the address test for every owner."""
    return address_peer(peer.text, (cidr_block(peer),), Tri.YES, Tri.YES, Tri.YES)


def selector_peer(
    text: str, pods: PodSet, node: Tri = Tri.UNKNOWN, blocks: tuple[CidrBlock, ...] | None = None
) -> PeerMatch:
    """A selector peer: ``N`` for OUT and on name points, the label test on
    pods, ``node`` for NODE (``N`` for ANP/CNP, ``M`` for the others)."""
    return PeerMatch(text, blocks=blocks, out=Tri.NO, pod=pods, node=node, on_name=Tri.NO)


def maybe_peer(text: str) -> PeerMatch:
    """A peer whose addresses are not in the manifests (nodes of a Service,
    ``global()``, ``toServices``): ``M`` for every owner."""
    return unreadable_peer(text)


def fqdn_peer(text: str, names: tuple[str, ...] | None, *, one_label: bool = False) -> PeerMatch:
    """An FQDN peer: ``M`` on addresses; on name points by name (or ``M``
    when ``names`` is None: a pattern this model cannot express).
    ``one_label``: Cilium's reading of ``*.`` (``PeerMatch.one_label``)."""
    return PeerMatch(
        text,
        out=Tri.UNKNOWN,
        pod=Tri.UNKNOWN,
        node=Tri.UNKNOWN,
        on_name=Tri.UNKNOWN,
        names=names,
        by_name=True,
        one_label=one_label,
    )


def nodes_peer(text: str, empty: bool) -> PeerMatch:
    """ANP/CNP ``nodes``: ``N``/``N``/``M``, ``Y`` on nodes for the empty selector."""
    return PeerMatch(
        text, out=Tri.NO, pod=Tri.NO, node=Tri.YES if empty else Tri.UNKNOWN, on_name=Tri.UNKNOWN
    )


def wanted_peer_match(peer: WantedPeer, *, admin: bool) -> PeerMatch:
    """One wanted peer of the older readers as what it matches. ``admin``:
    the network-policy API's reading (selector peers never match nodes)."""
    if isinstance(peer, CidrPeer):
        return network_peer(peer)
    if isinstance(peer, SelectorPeer):
        return selector_peer(
            peer.text,
            pod_set(peer.namespace_selector, peer.pod_selector, None),
            node=Tri.NO if admin else Tri.UNKNOWN,
        )
    if isinstance(peer, NodesPeer):
        return nodes_peer(peer.text, peer.empty)
    if isinstance(peer, DomainPeer):
        if not isinstance(peer.entry, str):
            return unreadable_peer(f"a domain entry is not a string: {compact_json(peer.entry)}")
        return fqdn_peer(peer.text, (normalise_domain(peer.entry),))
    if isinstance(peer, UnreadablePeer):
        return unreadable_peer(peer.detail)
    # ``Everything`` as a peer: every point.
    return PeerMatch(peer.text, on_name=Tri.YES)


def subject_text(text: str, outcome: Tri) -> str | None:
    """The ``subject_why`` fragment when the subject is ``M``."""
    return f"{text} cannot be matched offline" if outcome is Tri.UNKNOWN else None
