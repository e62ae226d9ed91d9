"""Port lists: reading, coverage and description (SEMANTICS.md §7)."""

from __future__ import annotations

from lint.decision.model import PortRange, PortSet
from lint.decision.values import JSON, Unreadable


def read_port_list(entries: list[JSON] | None | Unreadable, default_protocol: str | None) -> PortSet | Unreadable:
    """§7.1. ``entries`` is the list reader's result for the field
    (None = absent or null). Core passes ``"TCP"``, Cilium passes None."""
    raise NotImplementedError


class CiliumPortsError:
    """A failed Cilium ``toPorts`` read (§7.3); ``detail`` says which of the
    four problems it is."""

    def __init__(self, detail: str) -> None:
        self.detail = detail


def read_cilium_ports(rule: dict[str, JSON]) -> PortSet | CiliumPortsError:
    """§7.3: a Cilium rule's ports from its ``toPorts``."""
    raise NotImplementedError


def covers(allowed: PortSet, wanted: PortRange) -> bool:
    """§7.4: does the allowed port set cover the wanted range."""
    raise NotImplementedError


def wanted_ranges(ports: PortSet) -> tuple[PortRange, ...]:
    """§9.4: ``all`` is wanted as one range with no protocol and no start."""
    raise NotImplementedError


def covers_dns_port(ports: PortSet) -> bool:
    """§9.4 "covers the DNS port"."""
    raise NotImplementedError


def describe_ports(ports: PortSet) -> str:
    """§7.5, with quirk Q7 not copied (``every port``)."""
    raise NotImplementedError
