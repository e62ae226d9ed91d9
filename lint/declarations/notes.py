"""Non-failing notes about a declaration entry.

They point at settings the sandbox host accepts but that probably do not
mean what the operator wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lint.decision.validation import narrowing_active
from lint.decision.values import ABSENT, JSON, compact_json, is_object
from lint.declarations.entries import DeclarationNote
from lint.declarations.fieldpaths import join_path

_KNOWN_VERIFY = ("union", "named-object-only")


def entry_notes(
    egress: Mapping[str, JSON], prefix: str, file: str, line_at: Callable[[str], int]
) -> list[DeclarationNote]:
    """Notes for one entry's merged egress. ``prefix`` is the entry's field
    path (``sandboxes[0]``); ``line_at`` finds the line of a path inside
    the entry."""
    notes: list[DeclarationNote] = []

    def note(field: str, message: str) -> None:
        notes.append(DeclarationNote(join_path(prefix, field), file, line_at(field), message))

    verify = egress.get("verify", ABSENT)
    if verify is not ABSENT and verify not in _KNOWN_VERIFY:
        note(
            "egress.verify",
            f"verify is {compact_json(verify)}, which is neither `union` nor "
            "`named-object-only`, so the union check stays on (only `named-object-only` "
            "turns it off).",
        )
    narrowing = egress.get("ciliumNarrowing", ABSENT)
    # `{}` is how an entry drops a default narrowing: nothing to warn about.
    if is_object(narrowing) and narrowing and not narrowing_active(narrowing):
        note(
            "egress.ciliumNarrowing",
            "ciliumNarrowing sets none of ports, hostPorts (with a host), dnsNames or "
            "tlsServerNames: true, so it is inactive, neither checked nor applied (the host "
            "applies a narrowing only when one of them is set).",
        )
    return notes
