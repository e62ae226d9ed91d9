"""Which kinds of object the check reads (DESIGN §2.1).

The loader constructs documents of these kinds only; every other kind is
counted and skipped. List wrappers are always opened, because their items can
be of any kind.
"""

from __future__ import annotations

from typing import Final

RELEVANT_KINDS: Final = frozenset(
    {
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
        "SandboxTemplate",
        "SandboxWarmPool",
        "SandboxClaim",
        "Sandbox",
        "Namespace",
        "ConfigMap",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "Role",
        "RoleBinding",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
    }
)
"""The kinds DESIGN §2.1 reads."""

POLICY_KINDS: Final = frozenset(
    {
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
    }
)
"""Kinds whose unreadable copy must fail the check closed (SEMANTICS §17.7)."""

TYPED_POLICY_LISTS: Final = frozenset({"NetworkPolicyList", "CiliumNetworkPolicyList"})
"""Lists whose non-object items are still policies of the listed kind (§5.1)."""

CONFIG_MAP_NAME: Final = "agent-sandbox-config"
"""The only ConfigMap the check reads (AGENT-SANDBOX.md §7)."""

NO_KIND: Final = "(no kind)"
"""Key in ``skipped`` for objects without a string ``kind``."""

NOT_AN_OBJECT: Final = "(not an object)"
"""Key in ``skipped`` for non-empty documents that are not mappings."""


def is_list_kind(kind: str) -> bool:
    """``List`` and every ``<Kind>List`` wrapper (DESIGN §2.1)."""
    return kind.endswith("List")


def item_kind_of(list_kind: str) -> str | None:
    """The kind a typed list holds: ``NetworkPolicyList`` holds ``NetworkPolicy``.
    A plain ``List`` names none."""
    return list_kind[: -len("List")] or None


def wanted(kind: str) -> bool:
    """Whether a document of this kind must be parsed and kept."""
    return kind in RELEVANT_KINDS or is_list_kind(kind)
