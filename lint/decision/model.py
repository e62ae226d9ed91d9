"""The value types that cross module boundaries inside the decision engine.

Each type names the SEMANTICS.md section that defines it. They are frozen so
that results can be shared and memoised safely.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, StrEnum
from typing import Literal, TypeAlias

import msgspec

from lint.decision.values import JSON, Absent


class Tri(Enum):
    """A three-way answer: selector matches (§6.2), rule verdicts (§10, §13)."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"

    # Each member is a singleton, so identity is equality; the inherited
    # hash runs Python code, and tuples of answers are hashed per cell.
    __hash__ = object.__hash__


# --- Ports (§7) ---------------------------------------------------------------


class PortRange(msgspec.Struct, frozen=True):
    """One port range (§7.1). ``protocol`` None means every protocol; ``start``
    None means every port on that protocol; ``end`` None means ``start`` only."""

    protocol: str | None
    start: int | float | None = None
    end: int | float | None = None


AllPorts: TypeAlias = Literal["all"]
ALL_PORTS: AllPorts = "all"
PortSet: TypeAlias = AllPorts | tuple[PortRange, ...]
"""``"all"`` (every protocol, every port) or a tuple of ranges."""


# --- CIDRs (§8) ---------------------------------------------------------------


class Cidr(msgspec.Struct, frozen=True):
    """A parsed CIDR (§8.1), its base already masked to the prefix."""

    family: Literal[4, 6]
    base: int
    prefix: int


# --- Peers (§9) ---------------------------------------------------------------


class Everything(msgspec.Struct, frozen=True):
    """The allowance-side peer that reaches every address (§9)."""

    text: str = "every destination"


class CidrPeer(msgspec.Struct, frozen=True, eq=False):
    """An ipBlock-like peer (§9.1). ``text`` is how details name it."""

    cidr: Cidr
    excepts: tuple[Cidr, ...]
    text: str


class SelectorPeer(msgspec.Struct, frozen=True, eq=False):
    """A selector peer that keeps the raw selector objects (§9.1, §9.5).
    A selector that is not there is ``ABSENT``."""

    namespace_selector: JSON | Absent
    pod_selector: JSON | Absent
    text: str


Peer: TypeAlias = Everything | CidrPeer | SelectorPeer


# --- The allowance (§4) -----------------------------------------------------------


class Destination(msgspec.Struct, frozen=True):
    peer: Peer
    ports: PortSet


class FqdnGrant(msgspec.Struct, frozen=True):
    host: str
    ports: PortSet


DnsNames: TypeAlias = Literal["all"] | tuple[str, ...]


class NamedRef(msgspec.Struct, frozen=True):
    """The translation's ``{kind, name}`` (§4)."""

    kind: str
    name: str


class Allowance(msgspec.Struct, frozen=True):
    """What the translated manifest lets out (§4).

    ``cluster_terms``: the entry is ``host: none`` (issue 28), so no host
    vocabulary binds it and the allowance is read as the cluster reads it:
    ``fqdn_patterns`` (the ``matchPattern`` grants of ``allowHosts``, ``host``
    being the pattern) count for the host's checks too, and a port on every protocol (Cilium
    ``ANY``) is TCP, UDP and SCTP on that port. Under the namzu host both
    stay off and §4.1, §7.4 apply as written."""

    destinations: tuple[Destination, ...]
    fqdns: tuple[FqdnGrant, ...]
    dns_narrowed_to: DnsNames
    permits_everything: bool
    permits_nothing: bool
    policy_kind: str
    named_object: NamedRef
    fqdn_patterns: tuple[FqdnGrant, ...] = ()
    """The ``matchPattern`` entries of the translated manifest, with their
    ports. Under the namzu host the host's own checks never read them
    (§4.1); the cluster's reach counts the names they match as declared,
    since the manifest that declares them is the one the operator applies."""
    cluster_terms: bool = False


# --- Translation (§3) ---------------------------------------------------------


class Translation(msgspec.Struct, frozen=True):
    """The one manifest the operator is expected to apply (§3).

    ``companion`` is a second manifest an ``allow`` intent with
    ``allowHosts`` needs beside its NetworkPolicy: the CiliumNetworkPolicy
    whose §4.1 allowance adds the hosts (issue 17). ``named`` is False when
    no host reads the object back by name (``host: none``): then no
    document is exempt from rule judgement (§11.2) and no named comparison
    runs (§12)."""

    kind: str
    policy_kind: str
    namespace: str
    name: str
    manifest: dict[str, JSON]
    companion: dict[str, JSON] | None = None
    named: bool = True


class ErrorClass(StrEnum):
    """The reference's error class of a refused declaration (§2.1)."""

    POLICY_CONFIG = "policy-config"
    HOST = "host"
    UNENFORCEABLE_POLICY = "unenforceable-policy"
    NARROWING_UNSUPPORTED = "narrowing-unsupported"
    PROFILE_CONFIG = "profile-config"
    PER_SANDBOX_CONFIG = "per-sandbox-config"


class ConfigRefusal(Exception):
    """A refused declaration (§2). ``field`` is the path under
    ``config.egress`` (for example ``policy.exceptCidrs``), ``error_class``
    the reference's error class, ``message`` our own wording."""

    def __init__(self, field: str, error_class: ErrorClass, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.error_class = error_class
        self.message = message


# --- Policy documents and verdicts (§5, §10, §13) -----------------------------------


class RuleVerdict(msgspec.Struct, frozen=True):
    """A rule verdict (§10, §13.3). ``outcome`` YES means the rule lets out
    something beyond the translation (egress) or opens the agent port
    (ingress); NO means it stays inside / closed; UNKNOWN cannot be decided.
    ``index`` is the rule's position in its list, for locating it."""

    outcome: Tri
    detail: str | None = None
    index: int = 0


class PolicyDocument(msgspec.Struct, frozen=True):
    """One judged policy document (§5.2).

    ``spec_index`` is None for a core policy or a Cilium ``spec`` document,
    and ``i`` for ``specs[i]``. ``enforces`` is enforcesEgress for egress
    documents and enforcesIngress for ingress documents.
    """

    kind: str
    name: str
    selects: Tri
    enforces: bool
    rules: tuple[RuleVerdict, ...] = ()
    unreadable: str | None = None
    named_object: bool = False
    spec_index: int | None = None


class Candidate(msgspec.Struct, frozen=True):
    """A policy object offered to a decision (§5.1, §17.3).

    ``raw`` is the object as loaded (possibly not a dict: an unreadable list
    entry). ``position`` is its index in its own kind's (name-sorted) list,
    used for the ``(unnamed #i)`` name. ``clusterwide`` marks a
    CiliumClusterwideNetworkPolicy.
    """

    kind: str
    raw: JSON
    position: int
    clusterwide: bool = False
    unreadable: str | None = None
    """Why the object cannot be known at all, when it cannot: a policy the
    controller writes from a template it cannot read. It fails closed."""


class Subject(msgspec.Struct, frozen=True):
    """The pod a decision is about: its namespace and labels (§5.4, §14)."""

    namespace: str
    labels: Mapping[str, str] = msgspec.field(default_factory=dict)


# Verdict vocabularies (the table at the top of SEMANTICS.md). The members
# are strings, so reports print and compare them as the words they stand for;
# members of two vocabularies that share a word compare equal.


class EgressVerdict(StrEnum):
    """The verdict of one document in the union decision (§11.1)."""

    WITHIN = "within"
    WIDENS_EGRESS = "widens-egress"
    DOES_NOT_SELECT = "does-not-select"
    NOT_EGRESS_SCOPED = "not-egress-scoped"
    NOT_EVALUABLE = "not-evaluable"


class EgressRefusal(StrEnum):
    """Why the union decision refuses (§11.3)."""

    POLICY_WIDENS_EGRESS = "policy-widens-egress"
    NO_ENFORCING_POLICY = "no-enforcing-policy"
    NOT_EVALUABLE = "not-evaluable"


class IngressVerdict(StrEnum):
    """The verdict of one document in the agent-port decision (§13.4)."""

    COVERS = "covers"
    OPENS_AGENT_PORT = "opens-agent-port"
    DOES_NOT_SELECT = "does-not-select"
    NOT_INGRESS_SCOPED = "not-ingress-scoped"
    NOT_EVALUABLE = "not-evaluable"


class IngressRefusal(StrEnum):
    """Why the agent-port decision refuses (§13.4)."""

    PORT_OPEN = "port-open"
    NO_COVERING_POLICY = "no-covering-policy"
    NOT_EVALUABLE = "not-evaluable"


class NamedOutcome(StrEnum):
    """The result of the named-object comparison (§12)."""

    MATCH = "match"
    MISSING = "missing"
    MISMATCH = "mismatch"


Verdict: TypeAlias = EgressVerdict | IngressVerdict
Refusal: TypeAlias = EgressRefusal | IngressRefusal


class Examined(msgspec.Struct, frozen=True):
    """One examined entry ``{kind, name, verdict, detail?}`` (§11.1, §13.4),
    with the document it came from so reports can locate it."""

    kind: str
    name: str
    verdict: Verdict
    detail: str | None
    document: PolicyDocument


class Decision(msgspec.Struct, frozen=True):
    """The result of the union (§11.3) or ingress (§13.4) decision.
    ``refusal`` is None when the decision passes. ``examined`` is always
    complete, in document order."""

    refusal: Refusal | None
    summary: str | None
    examined: tuple[Examined, ...]


class NamedResult(msgspec.Struct, frozen=True):
    """The named-object comparison (§12). ``field`` is one of ``specs``,
    ``selector``, ``policyTypes``, ``egress``, ``ownerReferences`` for a
    mismatch."""

    result: NamedOutcome
    field: str | None = None
    detail: str | None = None
