"""CiliumCIDRGroup resolution for `toCIDRSet` / `fromCIDRSet` (CLUSTER-POLICIES.md §6.3).

A pure function over the CiliumCIDRGroup manifests (both `cilium.io/v2` and
`cilium.io/v2alpha1`, read identically, §6.1). The manifests are taken as
the complete set of groups (§11 Q7). Anything that cannot be resolved fails
closed: it is ``unknown``, never an empty (and so harmless-looking) rule.

- ``resolve_cidr_set_entry`` turns one set entry into the ipBlocks it
  stands for, or an ``Unresolved`` reason;
- ``judge_cidr_set_entry`` applies S§10.2 step 7 to those ipBlocks, so the
  union's Cilium reader can call it in place of its own set-entry step. For
  an entry with only ``cidr`` it gives exactly the union's verdict and
  wording.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from lint.decision.allowance import destination_allowed
from lint.decision.model import Allowance, PortSet, RuleVerdict, Tri
from lint.decision.peers import ipblock_peer
from lint.decision.ports import describe_ports
from lint.decision.reach.common import match_strict, read_strict_selector
from lint.decision.reach.model import LabelView, ReachCandidate, known_labels
from lint.decision.values import JSON, compact_json, read_list

GROUP_API_VERSIONS: Final = ("cilium.io/v2", "cilium.io/v2alpha1")
GROUP_KIND: Final = "CiliumCIDRGroup"
EVERY_ADDRESS: Final = ("0.0.0.0/0", "::/0")
REFERENCE_FIELDS: Final = ("cidr", "cidrGroupRef", "cidrGroupSelector")


class ResolvedBlock(msgspec.Struct, frozen=True):
    """One ipBlock a set entry stands for. ``groups`` names the groups it
    came from (empty for the entry's own ``cidr``); ``source`` says where it
    came from, for details (empty for the entry's own ``cidr``)."""

    ip_block: dict[str, JSON]
    groups: tuple[str, ...] = ()
    source: str = ""


class Unresolved(msgspec.Struct, frozen=True):
    """Why a set entry cannot be resolved (it is ``unknown``)."""

    detail: str


def is_cidr_group(candidate: ReachCandidate) -> bool:
    return candidate.api_version in GROUP_API_VERSIONS and candidate.kind == GROUP_KIND


def _group_name(raw: JSON) -> str | None:
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _group_labels(raw: JSON) -> LabelView | None:
    """A group's labels, known exactly; None when they cannot be read."""
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    if not isinstance(metadata, dict):
        return None
    labels = metadata.get("labels")
    if labels is None:
        return known_labels({})
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        return None
    return known_labels(labels)


def _external_cidrs(raw: JSON) -> list[JSON] | None:
    """``spec.externalCIDRs`` by the list reader; None when unreadable or absent."""
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if not isinstance(spec, dict):
        return None
    cidrs = read_list(spec, "externalCIDRs")
    return cidrs if isinstance(cidrs, list) else None


def _group_blocks(
    groups: Sequence[ReachCandidate], described: str
) -> tuple[ResolvedBlock, ...] | Unresolved:
    """§6.3 steps 4-6 over the matching groups: the union of their CIDRs."""
    blocks: list[ResolvedBlock] = []
    for group in groups:
        name = _group_name(group.raw) or f"(unnamed #{group.position})"
        cidrs = _external_cidrs(group.raw)
        if cidrs is None:
            return Unresolved(
                f"CiliumCIDRGroup {name} ({described}) has no readable `spec.externalCIDRs` list"
            )
        source = f"of CiliumCIDRGroup {compact_json(name)}"
        blocks.extend(ResolvedBlock({"cidr": cidr}, (name,), source) for cidr in cidrs)
    if not blocks:
        return Unresolved(
            f"{described} yields no CIDR (an empty `externalCIDRs`); what an emptied "
            "rule means to Cilium is not known"
        )
    return tuple(blocks)


def _by_reference(
    reference: JSON, groups: Sequence[ReachCandidate]
) -> tuple[ResolvedBlock, ...] | Unresolved:
    """§6.3 step 4."""
    if not isinstance(reference, str):
        return Unresolved(f"`cidrGroupRef` {compact_json(reference)} is not a string")
    matching = [group for group in groups if _group_name(group.raw) == reference]
    if not matching:
        return Unresolved(
            f"CiliumCIDRGroup {compact_json(reference)} is not in the manifests, "
            "although the cluster may hold it"
        )
    return _group_blocks(matching, f"group {compact_json(reference)}")


def _by_selector(
    selector: JSON, groups: Sequence[ReachCandidate]
) -> tuple[ResolvedBlock, ...] | Unresolved:
    """§6.3 step 5."""
    read = read_strict_selector(selector)
    if isinstance(read, str):
        return Unresolved(f"`cidrGroupSelector` cannot be read: {read}")
    if any(":" in key for key in read.keys):
        return Unresolved(
            f"`cidrGroupSelector` {compact_json(selector)} uses a label-source prefix "
            "(a key with `:`), which the linter does not map"
        )
    described = f"`cidrGroupSelector` {compact_json(selector)}"
    if read.is_empty:
        # Every group, or every identity: either way every address.
        source = "of an empty `cidrGroupSelector`, read as every address"
        return tuple(ResolvedBlock({"cidr": cidr}, (), source) for cidr in EVERY_ADDRESS)
    matching: list[ReachCandidate] = []
    for group in groups:
        labels = _group_labels(group.raw)
        outcome = Tri.UNKNOWN if labels is None else match_strict(read, labels)
        if outcome is Tri.UNKNOWN:
            name = _group_name(group.raw) or f"(unnamed #{group.position})"
            return Unresolved(
                f"the labels of CiliumCIDRGroup {name} cannot be read for {described}"
            )
        if outcome is Tri.YES:
            matching.append(group)
    if not matching:
        return Unresolved(
            f"{described} matches no CiliumCIDRGroup in the manifests, although the "
            "cluster may hold one that does"
        )
    return _group_blocks(matching, described)


def resolve_cidr_set_entry(
    entry: JSON, groups: Sequence[ReachCandidate]
) -> tuple[ResolvedBlock, ...] | Unresolved:
    """§6.3 steps 1-7 for one `toCIDRSet`/`fromCIDRSet` entry: the ipBlocks
    it stands for, in order (``cidr`` first, then each group's CIDRs), or why
    it is unknown. ``groups`` may hold any candidates; only CiliumCIDRGroups
    count. A group CIDR is taken without the entry's ``except`` (the wider
    reading)."""
    if not isinstance(entry, dict):
        return Unresolved(f"a set entry is not an object: {compact_json(entry)}")
    fields = [name for name in REFERENCE_FIELDS if entry.get(name) is not None]
    if not fields:
        return Unresolved("a set entry names no CIDR and no group")
    cidr_groups = [group for group in groups if is_cidr_group(group)]
    blocks: list[ResolvedBlock] = []
    for name in fields:
        if name == "cidr":
            # S§10.2 step 7: the entry's own cidr keeps its except.
            blocks.append(
                ResolvedBlock({key: entry[key] for key in ("cidr", "except") if key in entry})
            )
            continue
        resolve = _by_reference if name == "cidrGroupRef" else _by_selector
        read = resolve(entry[name], cidr_groups)
        if isinstance(read, Unresolved):
            return read
        blocks.extend(read)
    return tuple(blocks)


def _not_allowed(allowance: Allowance) -> str:
    return f"which the '{allowance.policy_kind}' translation does not allow"


def judge_cidr_set_entry(
    entry: JSON,
    groups: Sequence[ReachCandidate],
    ports: PortSet,
    allowance: Allowance,
    *,
    index: int = 0,
    field: str = "toCIDRSet",
) -> RuleVerdict | None:
    """S§10.2 step 7 for one set entry, its group references resolved by
    §6.3: ``unknown`` when it cannot be resolved or a resolved ipBlock cannot
    be read, ``true`` for the first ipBlock that is not allowed, None when
    every one is allowed. The wording for a plain ``cidr`` entry is the
    union's own; a group's ipBlock also names its group."""
    resolved = resolve_cidr_set_entry(entry, groups)
    if isinstance(resolved, Unresolved):
        return RuleVerdict(
            Tri.UNKNOWN, f"a `{field}` entry cannot be resolved: {resolved.detail}", index
        )
    for block in resolved:
        peer = ipblock_peer(block.ip_block)
        source = f" {block.source}" if block.source else ""
        if peer is None:
            if not block.source:
                return RuleVerdict(
                    Tri.UNKNOWN,
                    f"a `{field}` entry cannot be read as a CIDR: {compact_json(entry)}",
                    index,
                )
            return RuleVerdict(
                Tri.UNKNOWN,
                f"a `{field}` entry's CIDR{source} cannot be read: {compact_json(block.ip_block)}",
                index,
            )
        if not destination_allowed(allowance, peer, ports):
            return RuleVerdict(
                Tri.YES,
                f"`{field}` ipBlock {compact_json(block.ip_block)}{source} on "
                f"{describe_ports(ports)}, {_not_allowed(allowance)}",
                index,
            )
    return None


def resolved_cidrs(entry: JSON, groups: Sequence[ReachCandidate]) -> tuple[str, ...] | Unresolved:
    """The resolved CIDR texts of one set entry (group CIDRs and the entry's
    own ``cidr``), or why it cannot be resolved. A CIDR value that is not a
    string is unresolved."""
    resolved = resolve_cidr_set_entry(entry, groups)
    if isinstance(resolved, Unresolved):
        return resolved
    texts: list[str] = []
    for block in resolved:
        cidr = block.ip_block.get("cidr")
        if not isinstance(cidr, str):
            return Unresolved(f"the CIDR {compact_json(cidr)} is not a string")
        texts.append(cidr)
    return tuple(texts)


__all__ = [
    "ResolvedBlock",
    "Unresolved",
    "judge_cidr_set_entry",
    "resolve_cidr_set_entry",
    "resolved_cidrs",
]
