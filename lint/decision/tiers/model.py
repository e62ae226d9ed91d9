"""What the exact tier model reads (CLUSTER-POLICIES.md §12.1, §12.2, §12.3.2).

This is the contract between the readers (one per kind, which turn objects
into documents and rules) and the engine (which evaluates the tiers over the
destination space). A reader says *what a rule matches*, never a verdict:
three-valued parts for the pod side (``subject``, ``types``, ``credit``) and
exact sets for the destination side (ports, addresses, owners, names), with
``Tri.UNKNOWN`` wherever the manifests cannot tell.

Everything here is frozen plain data: no I/O, no YAML.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, TypeAlias

import msgspec

from lint.decision.model import Allowance, Cidr, Tri
from lint.decision.reach.common import StrictSelector

# --- Actions and protocols (§12.1, §12.3) -----------------------------------------------


class Action(StrEnum):
    """What a matching rule does. Calico ``Log`` is no action: its reader skips it."""

    ALLOW = "allow"
    DENY = "deny"
    PASS = "pass"


ALLOW_ONLY: Final = frozenset({Action.ALLOW})
EVERY_ACTION: Final = frozenset({Action.ALLOW, Action.DENY, Action.PASS})


class Protocol(StrEnum):
    """The protocol part of a point (§12.1). ``OTHER`` is any IP protocol but these."""

    TCP = "TCP"
    UDP = "UDP"
    SCTP = "SCTP"
    ICMP = "ICMP"
    OTHER = "OTHER"


PORTED: Final = (Protocol.TCP, Protocol.UDP, Protocol.SCTP)
"""The protocols whose points carry a port, 1 to 65535."""


# --- What a rule matches: ports (§12.2.1) ----------------------------------------------


class PortSpan(msgspec.Struct, frozen=True):
    """Ports ``low``..``high`` (inclusive, 1-65535) of one ported protocol."""

    protocol: Protocol
    low: int
    high: int


class Ports(msgspec.Struct, frozen=True):
    """The protocol-and-port part of a rule (§12.2.1).

    ``every``: no port list, every protocol and port (ICMP and OTHER
    included). Otherwise the union of ``spans``, plus ICMP when ``icmp``, plus
    every OTHER point when ``other``, plus the OTHER points of the IP protocol
    numbers in ``other_numbers`` (a Calico numeric protocol other than 6, 17
    and 132; an OTHER point's port is its protocol number, 0-255).
    ``unreadable``: the part cannot be read, so it
    matches every point with ``Tri.UNKNOWN``. ``exclude`` (Calico
    ``notProtocol``/``notPorts``) removes the points it matches.
    """

    spans: tuple[PortSpan, ...] = ()
    every: bool = False
    icmp: bool = False
    other: bool = False
    unreadable: bool = False
    other_numbers: tuple[int, ...] = ()
    exclude: Ports | None = None


EVERY_PORT: Final = Ports(every=True)
UNREADABLE_PORTS: Final = Ports(unreadable=True)


# --- What a rule matches: peers by owner (§12.2.2) ----------------------------------------


class CidrBlock(msgspec.Struct, frozen=True):
    """One address range less its excepts (every cidr already masked)."""

    cidr: Cidr
    excepts: tuple[Cidr, ...] = ()


class PodSet(msgspec.Struct, frozen=True):
    """Pods chosen by labels (a selector peer, §12.2.2).

    A point's owner ``POD(ns, pod)`` is in the set when ``namespaces``
    matches its namespace labels (None: every namespace) and ``pods`` its
    pod labels (None: every pod), and it is not in ``exclude`` (Calico
    ``notSelector``). A namespace-local peer (no namespace selector) names
    its namespace with a ``kubernetes.io/metadata.name`` requirement.
    ``exact`` False: the selector cannot be read or translated, so the test
    is ``Tri.UNKNOWN`` on every pod (§12.7).
    """

    namespaces: StrictSelector | None
    pods: StrictSelector | None
    exact: bool = True
    exclude: PodSet | None = None


class PeerMatch(msgspec.Struct, frozen=True):
    """One peer of a rule, as what it matches for each owner (§12.2.2).

    ``peer(p) = address_test(p) and owner_part(p)``, Kleene ``and``:

    - ``blocks``: None means no address condition; otherwise the address
      must lie in one of the blocks (``Tri.YES``/``Tri.NO``).
    - ``out``, ``node``: the owner part for ``OUT`` and ``NODE`` points.
    - ``pod``: the owner part for ``POD`` points: a constant, or a label
      test (a ``PodSet``). With a ``PodSet``, a ``NODE`` point is matched
      only as a host-networked pod: ``node and`` the label test on that
      pod's labels, and a plain node never (so a core, Calico or Cilium
      selector peer has ``node=M``, an ANP/CNP one ``node=N``).
    - On a name point (§12.1) the peer gives ``on_name``, unless ``names``
      is set (an FQDN peer): then ``Tri.YES``/``Tri.NO`` by name, exact or
      ``*.``-wildcard as the kind's reader wrote them.

    ``text`` is how a detail names the peer. ``by_name``: an FQDN peer
    (its address parts say only that a resolved name may land anywhere),
    which a question may ask to match on name points only. ``one_label``:
    a ``*.`` in ``names`` stands for exactly one label, as Cilium reads a
    ``matchPattern``; otherwise for one or more, as the network-policy API
    reads ``domainNames``.
    """

    text: str
    blocks: tuple[CidrBlock, ...] | None = None
    out: Tri = Tri.YES
    pod: Tri | PodSet = Tri.YES
    node: Tri = Tri.YES
    on_name: Tri = Tri.UNKNOWN
    names: tuple[str, ...] | None = None
    by_name: bool = False
    one_label: bool = False


UNREADABLE_PEER_TEXT: Final = "a destination that cannot be read"


def unreadable_peer(text: str = UNREADABLE_PEER_TEXT) -> PeerMatch:
    """A peer that cannot be read: it may match every point (§12.2)."""
    return PeerMatch(text, out=Tri.UNKNOWN, pod=Tri.UNKNOWN, node=Tri.UNKNOWN, on_name=Tri.UNKNOWN)


# --- Rules and documents (§12.2, §12.3) ---------------------------------------------------


# Its hash is kept once worked out: the evaluator hashes every path's steps,
# their rules and the slots' outcomes many times over.
class TierRule(msgspec.Struct, frozen=True, cache_hash=True):
    """One rule, as what it matches (§12.2).

    ``actions`` is the rule's action, or every action of its kind when the
    action cannot be read. ``peers`` None means the rule names no destination
    and matches every point. ``index`` is the rule's index in its list and
    ``path`` its JSON path inside the object (for file and line). ``text`` is
    a short description for details ("rule 0").
    """

    actions: frozenset[Action]
    ports: Ports
    peers: tuple[PeerMatch, ...] | None
    index: int
    path: tuple[str | int, ...]
    text: str


class Slot(StrEnum):
    """The fixed slots of §12.3.2; a Calico tier is named by its tier name."""

    ADMIN = "kube-admin"
    NETWORK_POLICY = "default"
    BASELINE = "kube-baseline"


SLOT_ORDER: Final[dict[str, float]] = {
    Slot.ADMIN: 1_000,
    Slot.NETWORK_POLICY: 1_000_000,
    Slot.BASELINE: 10_000_000,
}
"""The order keys of the built-in slots (§12.3.2), Calico's own orders."""


class TierDocument(msgspec.Struct, frozen=True):
    """One policy document, as the engine sees it (§12.2, §12.3.3).

    - ``kind`` is the display kind (``lint.kinds.display_kind``); ``name``
      and ``namespace`` (None for cluster-scoped) name the object.
    - ``slot``: a ``Slot`` value, or a Calico tier name.
    - ``order``: the sort key inside the slot: ANP/CNP ``priority``, Calico
      ``order`` (``float('inf')`` when absent), a core NetworkPolicy's 1000
      (Calico's order for a converted one, read only in the Calico form);
      None where nothing orders (Cilium, the BaselineAdminNetworkPolicy).
    - ``tie_class``: documents of equal ``order`` and different tie classes
      tie (§12.3.1); equal ``order`` and the same class run by name.
    - ``subject``, ``types``, ``credit``: §12.2, as ``Tri``; each has a
      ``*_why`` fragment for details when it is ``Tri.UNKNOWN``.
    - ``rules``: the egress rules in order (for core NetworkPolicy and
      Cilium ``egress``, every action is ALLOW). ``deny_rules``: Cilium
      ``egressDeny``.
    - ``isolates``: for the NetworkPolicy slot in API form, whether the
      document isolates the pod when it selects it: core NetworkPolicy with
      Egress in its effective types; Cilium with default deny not disabled;
      a Calico ``default``-tier policy governing egress (both CNIs: its
      rules then count by action, Deny with the denies, Allow and Pass with
      the allows).
    - ``unreadable``: why the document cannot be read (§12.7): it then has
      one rule with subject and peer ``Tri.UNKNOWN`` and every action.
    - ``ref``: an opaque handle the caller gives back to its own object
      (an index), never read by the engine.
    """

    kind: str
    name: str
    namespace: str | None
    slot: str
    order: float | None
    tie_class: str
    subject: Tri
    types: Tri
    credit: Tri
    rules: tuple[TierRule, ...]
    deny_rules: tuple[TierRule, ...] = ()
    isolates: bool = False
    unreadable: str | None = None
    subject_why: str | None = None
    credit_why: str | None = None
    ref: int = 0


class CalicoTier(msgspec.Struct, frozen=True):
    """A Calico tier other than the built-in ones (§12.3.2).

    ``order`` None: the tier's position is unknown (no ``Tier`` manifest, or
    an order that cannot be read): the engine tries every gap. ``pass_by_default``
    None: the default action is unknown (both are tried).
    """

    name: str
    order: float | None
    pass_by_default: bool | None = False


class Undecidable(msgspec.Struct, frozen=True):
    """A §7 object or pod condition: every point's verdict gains ``allow``,
    and this is its undecided document (§12.7)."""

    kind: str
    name: str
    detail: str
    ref: int = 0
    path: tuple[str | int, ...] = ()
    """The JSON path inside the object of what makes it undecidable (for
    file and line), when one field does."""


class TierInput(msgspec.Struct, frozen=True):
    """Everything the engine needs for one pod on one acquisition path.

    ``calico_form``: the NetworkPolicy slot is Calico's ``default`` tier
    (CALICO and not CILIUM-R, §12.3.3). ``cilium_r``: CILIUM-R (§12.4).
    ``default_tier_passes``: DEFTIER is false, so the ``default`` tier's end
    action is Pass (§5.11). ``allowance`` is the declared allowance, read
    two-valued (§12.1); ``namespace`` is the sandbox namespace (an allowance
    selector destination without a namespace selector means it).
    """

    namespace: str
    allowance: Allowance
    documents: tuple[TierDocument, ...]
    tiers: tuple[CalicoTier, ...] = ()
    undecidable: tuple[Undecidable, ...] = ()
    calico_form: bool = False
    cilium_r: bool = False
    default_tier_passes: bool = False


Owner: TypeAlias = str
"""``OUT``, ``POD`` or ``NODE`` (§12.1)."""
OWNERS: Final[tuple[Owner, ...]] = ("OUT", "POD", "NODE")
