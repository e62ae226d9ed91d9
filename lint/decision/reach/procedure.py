"""The reach decision procedure (CLUSTER-POLICIES.md §1.5, with S§11.3 precedence).

The documents are the union's (D_old, in S§5.1 order, then the Cilium
documents only reach reads), followed by the new-kind documents in the
group order D_admin, D_calico, D_base, D_other; inside a group kinds come in
§1.5 order and each kind's documents by name (byte order). Then S§11.3:
a widening document beats an undecided one, which beats having no enforcing
document. Only old-kind documents with verdict `within` count as enforcing:
new kinds never do (§1.6 item 4, §11 Q1).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Final

from lint.decision.model import Allowance, EgressRefusal, EgressVerdict, Examined
from lint.decision.reach.model import (
    GROUP_ORDER,
    ReachDecision,
    ReachDocument,
    ReachEntry,
    Skipped,
)

KIND_ORDER: Final[dict[str, tuple[str, ...]]] = {
    "admin": ("AdminNetworkPolicy", "ClusterNetworkPolicy"),
    "calico": (
        "GlobalNetworkPolicy.projectcalico.org",
        "NetworkPolicy.projectcalico.org",
        "Tier.projectcalico.org",
    ),
    "baseline": ("BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"),
    "other": (),
}
POD_CONDITION_KIND: Final = "pod condition"
VERDICT_ORDER: Final = (
    "widens-egress",
    "not-evaluable",
    "within",
    "not-egress-scoped",
    "does-not-select",
)


def _kind_rank(document: ReachDocument) -> tuple[int, str]:
    known = KIND_ORDER.get(document.group, ())
    if document.kind in known:
        return known.index(document.kind), ""
    # Catch-all kinds by kind name, then the pod conditions (§1.5 D_other).
    last = len(known) + (1 if document.kind == POD_CONDITION_KIND else 0)
    return last, document.kind


def _verdict_rank(document: ReachDocument) -> int:
    word = str(document.verdict)
    return VERDICT_ORDER.index(word) if word in VERDICT_ORDER else len(VERDICT_ORDER)


def _sort_key(document: ReachDocument) -> tuple[object, ...]:
    group = GROUP_ORDER.index(document.group) if document.group in GROUP_ORDER else len(GROUP_ORDER)
    # Ties (two objects of one kind and name: duplicate-object) are broken by
    # the wider verdict and then the detail, so file order never decides.
    return (
        group,
        _kind_rank(document),
        document.name.encode("utf-8", "surrogatepass"),
        _verdict_rank(document),
        document.detail or "",
        tuple(str(part) for part in document.rule_path),
    )


def order_documents(documents: Sequence[ReachDocument]) -> tuple[ReachDocument, ...]:
    """§1.5 order: groups, kinds within a group, names in byte order. The
    result does not depend on the input order."""
    return tuple(sorted(documents, key=_sort_key))


_VERDICT = operator.attrgetter("verdict")


def _first(verdicts: list[str], verdict: EgressVerdict) -> int | None:
    try:
        return verdicts.index(verdict)
    except ValueError:
        return None


def decide_reach(
    union_examined: Sequence[Examined],
    cilium_under_core: Sequence[Examined],
    new: Sequence[ReachDocument],
    allowance: Allowance,
    *,
    skipped: Sequence[Skipped] = (),
    cilium_selecting: Sequence[Examined] | None = None,
) -> ReachDecision:
    """§1.5 with S§11.3 over ``union_examined`` ++ ``cilium_under_core`` ++
    the new-kind documents in §1.5 order. ``documents`` holds only the
    entries beyond the union's.

    No ``does-not-select`` entry takes part in the search, so the union's
    entries may come without them (they are only searched), and
    ``cilium_selecting``, when given, is ``cilium_under_core`` without them,
    searched in its place: a namespace can hold thousands of policies that
    select nothing."""
    ordered = order_documents(new)
    beyond: tuple[ReachEntry, ...] = (*cilium_under_core, *ordered)
    searched_cilium = cilium_under_core if cilium_selecting is None else cilium_selecting
    entries: tuple[ReachEntry, ...] = (*union_examined, *searched_cilium, *ordered)
    ordered_skipped = tuple(sorted(skipped, key=lambda s: (s.kind, s.name.encode(), s.reason)))
    in_union = len(union_examined)
    in_old = in_union + len(searched_cilium)
    # The entries' verdicts, once: the searches then run at C speed.
    verdicts: list[str] = list(map(_VERDICT, entries))
    for verdict, refusal, summarize in (
        (EgressVerdict.WIDENS_EGRESS, EgressRefusal.POLICY_WIDENS_EGRESS, widening_summary),
        (EgressVerdict.NOT_EVALUABLE, EgressRefusal.NOT_EVALUABLE, undecided_summary),
    ):
        found = _first(verdicts, verdict)
        if found is not None:
            culprit = entries[found]
            return ReachDecision(
                refusal,
                summarize(culprit),
                beyond,
                ordered_skipped,
                culprit=culprit,
                culprit_in_union=found < in_union,
            )
    enforcing = EgressVerdict.WITHIN in verdicts[:in_old]
    if not enforcing and not allowance.permits_everything:
        summary = no_enforcing_summary(allowance, bool(new))
        return ReachDecision(EgressRefusal.NO_ENFORCING_POLICY, summary, beyond, ordered_skipped)
    return ReachDecision(None, None, beyond, ordered_skipped)


# --- summaries, worded like the union's (lint.decision.union) --------------------------------


def widening_summary(entry: ReachEntry) -> str:
    return f"{entry.kind}/{entry.name} selects the pod and widens its egress: {entry.detail}"


def undecided_summary(entry: ReachEntry) -> str:
    return (
        f"{entry.kind}/{entry.name} cannot be evaluated: {entry.detail}; "
        "the pod's egress reach cannot be decided from the objects"
    )


def no_enforcing_summary(allowance: Allowance, new_kinds: bool) -> str:
    summary = (
        "no policy puts the pod in egress default-deny, so the configured "
        f"'{allowance.policy_kind}' translation bounds nothing"
    )
    if new_kinds:
        summary += (
            "; cluster-tier, Calico and other cluster policies never count as enforcing, "
            "only a NetworkPolicy (or Cilium policy) that selects the pod does"
        )
    return summary
