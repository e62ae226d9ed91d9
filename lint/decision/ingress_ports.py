"""Does an ingress rule reach TCP ``agentPort``? (SEMANTICS.md §13.2)

Three readings of a string port exist (quirk Q9): egress uses ``Number()``,
core ingress also demands canonical decimal text, Cilium ingress uses
``Number()`` alone. The two ingress readings live here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lint.decision.model import Tri
from lint.decision.values import (
    ABSENT,
    JSON,
    UNREADABLE,
    compact_json,
    format_number,
    is_integer,
    is_number,
    js_number,
    js_trim,
    read_list,
)

# A port reach: YES/NO/UNKNOWN, and for UNKNOWN what to blame in details.
Reach = tuple[Tri, str | None]


def _in_span(port: float, end_port: JSON, agent_port: int) -> bool:
    """The port is the agent port, or ``port < agentPort <= endPort``."""
    if port == agent_port:
        return True
    return is_number(end_port) and port < agent_port <= end_port


def _core_numeric(text: str) -> float | None:
    """Core ingress reads a string port as a number only when ``Number()``
    gives an integer whose canonical text is the trimmed string (§13.2, Q9)."""
    number = js_number(text)
    if is_integer(number) and format_number(number) == js_trim(text):
        return number
    return None


def _core_entry_reach(entry: JSON, agent_port: int) -> Tri | None:
    """One core ports entry: YES, UNKNOWN (marked), or None (no match)."""
    if not isinstance(entry, dict):
        return Tri.UNKNOWN
    protocol = entry.get("protocol", "TCP")
    if not isinstance(protocol, str):
        return Tri.UNKNOWN
    if protocol != "TCP":  # case-sensitive on purpose (Q8): `tcp` is skipped
        return None
    end_port = entry.get("endPort", ABSENT)
    if end_port is not ABSENT and not is_number(end_port):
        return Tri.UNKNOWN
    port = entry.get("port", ABSENT)
    if port is ABSENT:
        return Tri.YES
    if isinstance(port, str):
        port = _core_numeric(port)
        if port is None:
            return Tri.UNKNOWN  # a named port cannot be resolved offline
    if not is_number(port):
        return Tri.UNKNOWN
    return Tri.YES if _in_span(port, end_port, agent_port) else None


def core_port_reach(rule: Mapping[str, JSON], agent_port: int) -> Reach:
    """§13.2 core: does the rule's ``ports`` reach TCP ``agent_port``? A
    match anywhere wins over entries that could not be read."""
    entries = read_list(rule, "ports")
    if entries is UNREADABLE:
        return Tri.UNKNOWN, f"`ports` is not a list ({compact_json(rule.get('ports'))}), so it"
    if not entries:
        return Tri.YES, None
    return _first_match(
        (
            f"the ports entry {compact_json(entry)} (a named port or a malformed entry)",
            _core_entry_reach(entry, agent_port),
        )
        for entry in entries
    )


def _first_match(outcomes: Iterable[tuple[str, Tri | None]]) -> Reach:
    """YES at the first match, even after entries that could not be read;
    otherwise UNKNOWN blaming the first marked entry, or NO."""
    marked: list[str] = []
    for culprit, outcome in outcomes:
        if outcome is Tri.YES:
            return Tri.YES, None
        if outcome is Tri.UNKNOWN:
            marked.append(culprit)
    return (Tri.UNKNOWN, marked[0]) if marked else (Tri.NO, None)


def _cilium_port_reach(port_entry: JSON, agent_port: int) -> Tri | None:
    """One Cilium port entry: YES, UNKNOWN (marked), or None (no match)."""
    if not isinstance(port_entry, dict):
        return Tri.UNKNOWN
    protocol = port_entry.get("protocol", "ANY")
    if not isinstance(protocol, str):
        return Tri.UNKNOWN
    if protocol.upper() not in ("TCP", "ANY"):
        return None
    end_port = port_entry.get("endPort", ABSENT)
    if end_port is not ABSENT and not is_number(end_port):
        return Tri.UNKNOWN
    port = port_entry.get("port", ABSENT)
    if port is ABSENT:
        return Tri.YES
    if isinstance(port, str):
        port = js_number(port)  # plain Number(): "0x400" is 1024 here (Q9)
    if not is_integer(port):
        return Tri.UNKNOWN
    return Tri.YES if _in_span(port, end_port, agent_port) else None


def _cilium_entry_outcomes(
    entries: list[JSON], agent_port: int
) -> Iterable[tuple[str, Tri | None]]:
    for entry in entries:
        shown = f"the `toPorts` entry {compact_json(entry)}"
        if not isinstance(entry, dict):
            yield shown, Tri.UNKNOWN
            continue
        ports = read_list(entry, "ports")
        if ports is UNREADABLE:
            yield f"{shown} (its `ports` is not a list)", Tri.UNKNOWN
            continue
        if not ports:
            yield shown, Tri.YES  # an entry without ports reaches every port
            return
        for port_entry in ports:
            port_shown = f"the `toPorts` port entry {compact_json(port_entry)}"
            yield port_shown, _cilium_port_reach(port_entry, agent_port)


def cilium_port_reach(rule: Mapping[str, JSON], agent_port: int) -> Reach:
    """§13.2 Cilium: does the rule's ``toPorts`` reach TCP ``agent_port``?
    Protocols are uppercased and absent means ANY (Q8)."""
    entries = read_list(rule, "toPorts")
    if entries is UNREADABLE:
        return Tri.UNKNOWN, f"`toPorts` is not a list ({compact_json(rule.get('toPorts'))}), so it"
    if not entries:
        return Tri.YES, None
    return _first_match(_cilium_entry_outcomes(entries, agent_port))
