"""The agent-sandbox controller's behaviour by version, as plain data
(AGENT-SANDBOX.md §8; DESIGN §12).

Each column of §8 is one :class:`ControllerColumn`. Every fact the checks
take from the controller's version is a field here: who writes the
NetworkPolicy and how it is named and selects, whether the default policy
exists and what its ingress peer and IPv6 excepts are, which pods carry the
template-ref-hash label, whether reserved labels are stripped, whether
``allowed-label-domains`` exists, and from which version a same-named policy
the controller does not own is refused.

Not modelled: the per-claim policy v0.3.10 briefly wrote next to the
template's one (removed in v0.3.10.post1, #607).
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

Version = tuple[int, int, int]
PolicyWriter = Literal["claim", "template"]
HashOnPods = Literal["never-written", "as-written", "stripped", "pooled"]
"""Which pods carry ``sandbox-template-ref-hash``: ``never-written`` (the
claim-era controller has no such label), ``as-written`` (copied from the pod
template as written, on any path), ``stripped`` (no pod gets it, #1044),
``pooled`` (pods whose Sandbox a claim or pool controls, never direct ones)."""


class ControllerColumn(msgspec.Struct, frozen=True):
    """One column of AGENT-SANDBOX §8."""

    title: str
    first: Version
    last: Version
    policy_writer: PolicyWriter
    default_policy: bool
    router_namespace: str | None
    """The default policy's ingress peer namespace; None: the policy's own
    namespace only (a bare podSelector peer)."""
    ipv6_except: tuple[str, ...]
    management_field: bool
    """Whether ``networkPolicyManagement`` exists (so ``Unmanaged`` counts)."""
    hash_on_pods: HashOnPods
    strips_reserved: bool
    allowed_label_domains: bool
    refuses_overwrite_from: Version | None

    def refuses_overwrite(self, version: Version) -> bool:
        """Whether a controller of this version refuses to update a
        same-named policy it does not own (#828, from v0.5.1)."""
        start = self.refuses_overwrite_from
        return start is not None and version >= start

    def contains(self, version: Version) -> bool:
        return self.first <= version <= self.last


COLUMNS: Final[tuple[ControllerColumn, ...]] = (
    ControllerColumn(
        title="up to v0.2.0",
        first=(0, 0, 0),
        last=(0, 2, 0),
        policy_writer="claim",
        default_policy=False,
        router_namespace=None,
        ipv6_except=(),
        management_field=False,
        hash_on_pods="never-written",
        strips_reserved=False,
        allowed_label_domains=False,
        refuses_overwrite_from=None,
    ),
    ControllerColumn(
        title="v0.2.1 - v0.4.6",
        first=(0, 2, 1),
        last=(0, 4, 6),
        policy_writer="template",
        default_policy=True,
        router_namespace=None,
        ipv6_except=("fc00::/7",),
        management_field=True,
        hash_on_pods="as-written",
        strips_reserved=False,
        allowed_label_domains=False,
        refuses_overwrite_from=None,
    ),
    ControllerColumn(
        title="v0.5.0 - v0.5.1",
        first=(0, 5, 0),
        last=(0, 5, 1),
        policy_writer="template",
        default_policy=True,
        router_namespace="agent-sandbox-system",
        ipv6_except=("fc00::/7", "fe80::/10"),
        management_field=True,
        hash_on_pods="stripped",
        strips_reserved=True,
        allowed_label_domains=True,
        refuses_overwrite_from=(0, 5, 1),
    ),
    ControllerColumn(
        title="v0.5.2 - v0.5.6 / main@2fd412d",
        first=(0, 5, 2),
        last=(0, 5, 6),
        policy_writer="template",
        default_policy=True,
        router_namespace="agent-sandbox-system",
        ipv6_except=("fc00::/7", "fe80::/10"),
        management_field=True,
        hash_on_pods="pooled",
        strips_reserved=True,
        allowed_label_domains=True,
        refuses_overwrite_from=(0, 5, 1),
    ),
)
"""The columns of §8, oldest first."""

NEWEST: Final = COLUMNS[-1]
NEWEST_VERSION: Final = "v0.5.2+"
"""How the report names the assumed default: the newest column."""

_VERSION: Final = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:[.+-].*)?$")


def parse_version(text: str) -> Version | None:
    """``v0.5.0``, ``0.5.0``, ``v0.3.10.post1`` or ``v0.5.6-rc1`` as a
    version triple; None for anything else (``latest``, ``main``)."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return (major, minor, patch)


def column_for(version: Version) -> ControllerColumn | None:
    """The §8 column holding the version; None past the newest known tag."""
    return next((column for column in COLUMNS if column.contains(version)), None)


class ControllerFacts(msgspec.Struct, frozen=True, cache_hash=True):
    """The controller assumed for one run: its version as written (or
    ``NEWEST_VERSION``), its triple, and its §8 column."""

    version: str
    triple: Version
    column: ControllerColumn

    @property
    def newest(self) -> bool:
        return self.column is NEWEST

    @property
    def refuses_overwrite(self) -> bool:
        return self.column.refuses_overwrite(self.triple)


DEFAULT_FACTS: Final = ControllerFacts(NEWEST_VERSION, NEWEST.last, NEWEST)
NEWEST_FACTS: Final = DEFAULT_FACTS


def facts_for(version: str) -> ControllerFacts | None:
    """The facts of a written version; None when it matches no column."""
    triple = parse_version(version)
    column = column_for(triple) if triple is not None else None
    if triple is None or column is None:
        return None
    return ControllerFacts(version, triple, column)
