"""What the engine reads of one input (CLUSTER-POLICIES.md §12.5, "Computing it").

The cells and the scan of reach follow from the documents' rules, their
answers for the pod (``subject``, ``types``, ``credit``), their places in the
slots, the tiers and the allowance's destinations; never from a name the
engine only prints. Paths of one namespace often differ in nothing else:
each template has its own named policy, with the same rules as its
neighbours', and the host's named object is part of the allowance but not
of its destinations. Namespaces too: one is read only through the
allowance's view (where a selector means the sandbox's own namespace), so
paths of namespaces whose allowances read alike meet the same space.
``content_key`` is that reading, so such paths can share one space and
one scan (the caller keeps the shared results; the
engine keeps no state of its own).
"""

from __future__ import annotations

from collections.abc import Hashable

from lint.decision.tiers.model import Slot, TierDocument, TierInput
from lint.decision.tiers.points import read_allowance


def content_key(tier_input: TierInput) -> Hashable:
    """Equal for two inputs whose spaces and scans are equal."""
    # The namespace is read only through the allowance's view (a selector
    # with no namespaceSelector names it): paths of namespaces whose
    # allowances read alike share one space.
    return (
        read_allowance(tier_input.allowance, tier_input.namespace),
        tuple(_document_key(d, tier_input.calico_form) for d in tier_input.documents),
        tier_input.tiers,
        len(tier_input.undecidable),
        tier_input.calico_form,
        tier_input.cilium_r,
        tier_input.default_tier_passes,
    )


def _document_key(document: TierDocument, calico_form: bool) -> Hashable:
    # A name orders documents of equal order in every slot but the
    # NetworkPolicy slot in API form, where order plays no part.
    ordered_by_name = document.slot != Slot.NETWORK_POLICY or calico_form
    return (
        document.kind,
        document.name if ordered_by_name else None,
        document.slot,
        document.order,
        document.tie_class,
        document.subject,
        document.types,
        document.credit,
        document.rules,
        document.deny_rules,
        document.isolates,
        document.unreadable is not None,
    )
