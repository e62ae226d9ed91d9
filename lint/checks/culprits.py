"""One finding per culprit (DESIGN §10): every document whose verdict
offends gets its own finding, at its own file and line, and the findings of
one culprit across sandbox paths become one, listing every path it affects.

A culprit is the object a person changes. For the policy the agent-sandbox
controller will write (AGENT-SANDBOX §4), that is the SandboxTemplate that
makes the controller write it, so the finding sits there and its remedy
names the template's fields.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec
from msgspec.structs import replace

from lint.checks.candidates import UNRENDERED_KINDS, Placeholder, Sourced, location_of
from lint.checks.context import (
    JudgedEntry,
    first_rule,
    held_alike,
    precise_location,
    rule_finding,
)
from lint.decision.excess import cilium_rule_excess, core_rule_excess
from lint.decision.model import (
    Allowance,
    EgressVerdict,
    IngressVerdict,
    PolicyDocument,
    Translation,
    Tri,
)
from lint.decision.policy_shape import Direction
from lint.decision.reach.common import object_name
from lint.decision.reach.model import ReachData
from lint.decision.values import JSON, compact_json
from lint.generate.yaml_emit import EmitError, dump_document
from lint.inventory import KubeObject
from lint.kinds import CILIUM_CLUSTERWIDE_NETWORK_POLICY, CILIUM_NETWORK_POLICY, NETWORK_POLICY
from lint.report.messages import culprit_message
from lint.report.model import Culprit, CulpritRule, Finding, Location, SandboxRef
from lint.report.ordering import sandbox_order
from lint.rules import remedy_text, rule, verb

_OUTCOME: Final[Mapping[str, Tri]] = {
    EgressVerdict.WIDENS_EGRESS: Tri.YES,
    IngressVerdict.OPENS_AGENT_PORT: Tri.YES,
    EgressVerdict.NOT_EVALUABLE: Tri.UNKNOWN,
}


class RefusalContext(msgspec.Struct, frozen=True):
    """How one refused decision reports its culprits: ``culprit_rules`` maps
    each offending verdict to the rule its documents are reported under
    (``lint.rules.culprit_rules``); ``remedy`` is the refusal's remedy when
    no document is to blame, from the rule table."""

    sandbox: SandboxRef
    declaration: Location
    rule_id: str
    remedy: str
    culprit_rules: Mapping[str, str]
    rules_key: Direction
    template: KubeObject | None = None
    translation: Translation | None = None
    """The declared egress, from which a controller remedy's block is made."""
    data: ReachData | None = None
    """The run's data-only objects, whose content a culprit's rules may
    name (CIDR groups): part of the culprit's content hash."""
    allowance: Allowance | None = None
    """The declared egress, against which a rule's excess is computed."""
    memo: dict[Hashable, tuple[object, Any]] | None = None
    """Where a culprit's offending rules are kept for the other paths of the
    namespace that blame the same document under the same allowance."""
    context: Hashable | None = None
    """The key of what the allowance is read from (``union_context``):
    paths whose translations give equal keys have allowances that judge
    every rule alike, so a culprit is made once for all of them. None: the
    allowance itself is the key."""


def refusal_findings(
    judged: Sequence[JudgedEntry], summary: str | None, refusal: RefusalContext
) -> list[Finding]:
    """One finding per offending document, whatever the refusal; a refusal
    with no offending document (no enforcing or covering policy) is one
    finding at the declaration."""
    culprits = [j for j in judged if j.entry.verdict in refusal.culprit_rules and j.entry.location]
    if culprits:
        return [_culprit_finding(j, refusal) for j in culprits]
    message = summary or rule(refusal.rule_id).summary
    return [
        rule_finding(
            refusal.rule_id,
            message,
            refusal.declaration,
            sandbox=refusal.sandbox,
            remedy=refusal.remedy,
        )
    ]


RENDER_NEEDED: Final = "render-needed"


def _render_remedy(kind: str, directory: str) -> str:
    """How to check an unrendered chart or overlay (listed by its directory)."""
    key = next((tool for tool, shown in UNRENDERED_KINDS.items() if shown == kind), "helm")
    return remedy_text(RENDER_NEEDED, "unrendered", directory=directory, flag=f"--{key}", key=key)


def _culprit_finding(judged: JudgedEntry, refusal: RefusalContext) -> Finding:
    entry, origin = judged.entry, judged.origin
    unrendered = isinstance(origin, Placeholder) and origin.render
    # An unrendered chart or overlay is not broken: it needs rendering.
    blamed = refusal.culprit_rules[entry.verdict]
    rule_id = RENDER_NEEDED if unrendered else blamed
    sourced = origin if isinstance(origin, Sourced) else None
    synthesized = sourced is not None and sourced.origin == "synthesized"
    template = refusal.template if synthesized else None
    culprit, message = _culprit_of(judged, refusal, blamed, template)
    location = entry.location or refusal.declaration
    # The declaration entry and the template of each affected path.
    related = [refusal.declaration]
    if refusal.template is not None:
        related.append(location_of(refusal.template))
    obj = sourced.obj if sourced is not None else None
    remedy = (
        _render_remedy(entry.kind, entry.name)
        if unrendered
        else remedy_text(rule_id, "culprit", what=f"{entry.kind}/{entry.name}")
    )
    block = None
    if sourced is not None and template is not None:
        # The finding sits on the template's block, or its `spec` without one.
        location = precise_location(sourced.obj, ("spec", "networkPolicy"))
        obj = template
        remedy = remedy_text(rule_id, "controller", template=template.display_name)
        block = controller_block(sourced.candidate.raw, refusal.translation)
    return rule_finding(
        rule_id,
        message,
        location,
        sandbox=refusal.sandbox,
        obj=obj,
        remedy=remedy,
        related=related,
        culprit=culprit,
        remedy_yaml=block,
    )


def _culprit_of(
    judged: JudgedEntry, refusal: RefusalContext, blamed: str, template: KubeObject | None
) -> tuple[Culprit, str]:
    """The culprit of one offending entry and its message, made once for
    every path of the namespace that blames the same object alike under
    equal allowances (``RefusalContext.context``), data and template: none
    of this reads the path itself. The culprit reads of the judged entry
    its origin (held by identity), its report entry and its document: the
    last two are taken by value, since paths whose pods read other labels
    judge the object again into equal entries."""
    allowance = refusal.allowance if refusal.context is None else None
    held = (judged.origin, refusal.data, template, allowance)
    context = refusal.context
    said = (judged.entry, judged.examined.document)
    key = ("culprit", *map(id, held), *said, context, refusal.rules_key, blamed)
    memo = refusal.memo if refusal.memo is not None else {}
    hit = memo.get(key)
    if hit is not None and held_alike(hit[0], held):
        known: tuple[Culprit, str] = hit[1]
        return known
    culprit = _made_culprit(judged, refusal, blamed, template)
    made = (culprit, culprit_message(culprit, 1))
    memo[key] = (held, made)
    return made


def _made_culprit(
    judged: JudgedEntry, refusal: RefusalContext, blamed: str, template: KubeObject | None
) -> Culprit:
    entry, document, origin = judged.entry, judged.examined.document, judged.origin
    unrendered = isinstance(origin, Placeholder) and origin.render
    index = first_rule(document, _OUTCOME[entry.verdict]) if document.unreadable is None else None
    where = rule_path(document, refusal.rules_key, index)
    sourced = origin if isinstance(origin, Sourced) else None
    raw = value_at(sourced.candidate.raw, where) if sourced is not None else None
    more = _more_content(judged, sourced, index, raw, refusal)
    synthesized = sourced is not None and sourced.origin == "synthesized"
    rules = () if unrendered else _offending_rules(judged, sourced, refusal, synthesized)
    return Culprit(
        kind=entry.kind,
        name=entry.name,
        namespace=entry.namespace,
        origin=entry.origin,
        verb=verb(blamed),
        lets_out=tuple(r.lets_out for r in rules) or (lets_out_clause(where, entry.detail),),
        content_hash=content_hash(
            entry.kind, entry.namespace, entry.name, raw, entry.detail, more=more
        ),
        template=template.name if template is not None else None,
        rules=rules,
    )


def _offending_rules(
    judged: JudgedEntry, sourced: Sourced | None, refusal: RefusalContext, synthesized: bool
) -> tuple[CulpritRule, ...]:
    """Every rule of the culprit's document with the offending outcome, in
    rule order, each with what it lets out and, for an object read from a
    file, its own line: a finding names the whole culprit, not only its
    first rule."""
    document = judged.examined.document
    if document.unreadable is not None:
        return ()
    obj = sourced.obj if sourced is not None else None
    held = (document, obj, refusal.allowance)
    key = ("culprit-rules", *map(id, held), refusal.rules_key, synthesized, judged.entry.verdict)
    memo = refusal.memo if refusal.memo is not None else {}
    hit = memo.get(key)
    if hit is not None and held_alike(hit[0], held):
        known: tuple[CulpritRule, ...] = hit[1]
        return known
    found = _rules_of(judged, sourced, refusal, synthesized)
    memo[key] = (held, found)
    return found


def _rules_of(
    judged: JudgedEntry, sourced: Sourced | None, refusal: RefusalContext, synthesized: bool
) -> tuple[CulpritRule, ...]:
    document, entry = judged.examined.document, judged.entry
    outcome = _OUTCOME[entry.verdict]
    found = []
    for each in document.rules:
        if each.outcome is not outcome:
            continue
        path = rule_path(document, refusal.rules_key, each.index)
        located = sourced is not None and not synthesized
        location = precise_location(sourced.obj, path) if located and sourced else None
        clause = lets_out_clause(path, each.detail)
        excess = _excess(entry.kind, sourced, path, refusal) if outcome is Tri.YES else None
        if excess is not None:
            clause += f" (outside the allowance: {excess})"
        found.append(CulpritRule(format_path(path), clause, location))
    return tuple(found)


def _excess(
    kind: str, sourced: Sourced | None, path: Sequence[str | int], refusal: RefusalContext
) -> str | None:
    """What an egress rule of address blocks (a core NetworkPolicy's, or a
    Cilium policy's) lets out beyond the allowance, in addresses, when that
    says more than its own detail."""
    if sourced is None or refusal.allowance is None or refusal.rules_key != "egress":
        return None
    rule = value_at(sourced.candidate.raw, path)
    if kind == NETWORK_POLICY.name:
        return core_rule_excess(rule, refusal.allowance)
    if kind in (CILIUM_NETWORK_POLICY.name, CILIUM_CLUSTERWIDE_NETWORK_POLICY.name):
        return cilium_rule_excess(rule, refusal.allowance)
    return None


def _more_content(
    judged: JudgedEntry,
    sourced: Sourced | None,
    index: int | None,
    first: JSON,
    refusal: RefusalContext,
) -> list[JSON]:
    """What a culprit's hash covers besides its first offending rule:
    every other offending rule, then the content of what they all name."""
    if sourced is None or index is None:
        return []
    document, entry = judged.examined.document, judged.entry
    outcome = _OUTCOME[entry.verdict]
    others = [r.index for r in document.rules if r.outcome is outcome and r.index != index]
    raw = sourced.candidate.raw
    more = [value_at(raw, rule_path(document, refusal.rules_key, i)) for i in others]
    return [*more, *referenced_content([first, *more], entry.kind, refusal.data)]


def rule_path(document: PolicyDocument, rules_key: str, index: int | None) -> tuple[str | int, ...]:
    """The offending rule's key path in the policy, or the document's."""
    base: tuple[str | int, ...] = (
        ("spec",) if document.spec_index is None else ("specs", document.spec_index)
    )
    return base if index is None else (*base, rules_key, index)


_NOT_ALLOWED = re.compile(r", which the '[^']*' translation does not allow$")


def lets_out_clause(path: Sequence[str | int], detail: str | None) -> str:
    """``spec.egress[0]: <detail>``: what the rule at ``path`` lets out. The
    detail's closing "which the 'x' translation does not allow" is left out:
    the message says it once for every path, whatever their intents."""
    text = _NOT_ALLOWED.sub("", detail or "it cannot be judged")
    if len(path) < 2:
        return text
    return f"{format_path(path)}: {text}"


def format_path(path: Sequence[str | int]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def value_at(value: JSON, path: Sequence[str | int]) -> JSON:
    for step in path:
        if isinstance(step, int):
            value = value[step] if isinstance(value, list) and 0 <= step < len(value) else None
        else:
            value = value.get(step) if isinstance(value, dict) else None
    return value


def content_hash(
    kind: str,
    namespace: str | None,
    name: str,
    value: JSON,
    detail: str | None,
    *,
    more: Sequence[JSON] = (),
) -> str:
    """A digest of the offending rule as written (or the detail, for a
    document that could not be read) and of ``more``: the culprit's other
    offending rules and the content of every object they name
    (``referenced_content``). Whatever of it changes, the culprit is new, so
    a baseline entry never covers what it did not see. With nothing more,
    the digest is the one earlier versions wrote, so their baselines keep
    matching a culprit that did not change."""
    body = _hashed_text(value) if value is not None else detail or ""
    if more:
        body += "\x1e" + _hashed_text(list(more))
    text = "\x1f".join((kind, namespace or "", name, body))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_GROUP_KEYS: Final = frozenset({"cidrGroupRef", "cidrGroupSelector"})
_NAMESPACE_KEYS: Final = frozenset({"namespaceSelector", "namespaces"})
_CALICO_SELECTOR_KEYS: Final = frozenset({"selector", "namespaceSelector"})
_NAMING_KEYS: Final = tuple(sorted(_GROUP_KEYS | _NAMESPACE_KEYS | _CALICO_SELECTOR_KEYS))


def referenced_content(rules: Sequence[JSON], kind: str, data: ReachData | None) -> list[JSON]:
    """The content of every data-only object ``rules`` may name, in an
    order that no file order decides: the CiliumCIDRGroups a
    ``cidrGroupRef`` names (every group, for a ``cidrGroupSelector``);
    every Calico network set, for a Calico rule with a selector; the
    namespaces' labels, for a rule that selects namespaces. A selector is
    not resolved here: what it could match is all taken, so a change to any
    of it re-opens the culprit rather than none."""
    if data is None:
        return []
    # Most rules name none of these keys: a search of their text at C speed
    # says so without walking them (a string value alike only costs the walk).
    text = _hashed_text(list(rules))
    if not any(f'"{key}"' in text for key in _NAMING_KEYS):
        return []
    keys, names = _keys_and_group_names(rules)
    found: list[JSON] = []
    if "cidrGroupSelector" in keys or names:
        found += [
            ["CiliumCIDRGroup", group.raw]
            for group in data.cidr_groups
            if "cidrGroupSelector" in keys or object_name(group.raw, group.position) in names
        ]
    if kind.endswith(".projectcalico.org") and keys & _CALICO_SELECTOR_KEYS:
        found += [[s.kind, s.namespace, s.raw] for s in data.network_sets]
    if keys & _NAMESPACE_KEYS:
        labels = {name: dict(view.values) for name, view in data.namespace_labels.items()}
        found.append(["Namespace", dict(sorted(labels.items()))])
    return sorted(found, key=_hashed_text)


def _keys_and_group_names(rules: Sequence[JSON]) -> tuple[set[str], set[str]]:
    """Every key in ``rules``, and the names its ``cidrGroupRef`` give."""
    keys: set[str] = set()
    names: set[str] = set()
    pending: list[JSON] = list(rules)
    while pending:  # a loop, not recursion: a value may nest deeply
        value = pending.pop()
        if isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, dict):
            keys.update(key for key in value if isinstance(key, str))
            reference = value.get("cidrGroupRef")
            if isinstance(reference, str):
                names.add(reference)
            elif isinstance(reference, list):
                names.update(item for item in reference if isinstance(item, str))
            pending.extend(value.values())
    return keys, names


def _hashed_text(value: JSON) -> str:
    """The value as text for its digest, written by the C encoder: one
    culprit is hashed once per sandbox path it affects, which made the
    pure-Python ``compact_json`` a tenth of the checks' time. Keys are sorted,
    so a rule whose members are only reordered stays the same culprit."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        return compact_json(value)


def controller_block(synthesized: JSON, translation: Translation | None) -> str | None:
    """A ``spec.networkPolicy`` block inside the declared egress: the
    translation's egress rules, with the ingress the controller's policy
    already has (the controller copies both lists verbatim and makes the
    policy enforce both directions, AGENT-SANDBOX §4.2). None when the
    declared egress is not a core NetworkPolicy: a block cannot say it."""
    if translation is None or translation.kind != "NetworkPolicy":
        return None
    spec = translation.manifest.get("spec")
    egress = spec.get("egress") if isinstance(spec, dict) else None
    current = synthesized.get("spec") if isinstance(synthesized, dict) else None
    ingress = current.get("ingress") if isinstance(current, dict) else None
    block: dict[str, JSON] = {}
    if isinstance(ingress, list):
        block["ingress"] = ingress
    block["egress"] = egress if isinstance(egress, list) else []
    try:
        return dump_document({"spec": {"networkPolicy": block}})
    except EmitError:
        return None


def merge_culprits(findings: Iterable[Finding]) -> list[Finding]:
    """The findings with those of one culprit across sandbox paths merged
    into one: same rule, place, object, rule content and remedy. The merged
    finding lists every affected path in sandbox order; ``sandbox`` is the
    first. Other findings pass through."""
    merged: dict[tuple[object, ...], list[Finding]] = {}
    others: list[Finding] = []
    for finding in findings:
        culprit = finding.culprit
        if culprit is None:
            others.append(finding)
            continue
        key = (
            finding.rule_id,
            finding.location,
            finding.subject,
            culprit.kind,
            culprit.namespace,
            culprit.name,
            culprit.content_hash,
            finding.environment,
            finding.remedy,
            finding.remedy_yaml,
        )
        merged.setdefault(key, []).append(finding)
    return [*others, *(_merged(group) for group in merged.values())]


def _merged(group: list[Finding]) -> Finding:
    group = sorted(group, key=lambda f: sandbox_order(f.sandbox) if f.sandbox else ())
    first = group[0]
    culprit = first.culprit
    assert culprit is not None
    affected = sorted(
        {ref for finding in group for ref in (finding.affected or _own(finding))},
        key=sandbox_order,
    )
    clauses = _unique(clause for f in group if f.culprit for clause in f.culprit.lets_out)
    related = sorted(
        {location for finding in group for location in finding.related},
        key=lambda r: (r.file, r.line, r.source or ""),
    )
    # Paths of different intents may find different rules offending: all of them.
    rules = sorted(
        {rule for f in group if f.culprit for rule in f.culprit.rules},
        key=lambda r: (r.location.line if r.location else 0, r.path, r.lets_out),
    )
    if rules:
        clauses = _unique(rule.lets_out for rule in rules)
    culprit = replace(culprit, lets_out=tuple(clauses), rules=tuple(rules))
    return replace(
        first,
        message=culprit_message(culprit, len(affected)),
        sandbox=affected[0] if affected else None,
        affected=tuple(affected),
        related=tuple(related),
        culprit=culprit,
    )


def _own(finding: Finding) -> tuple[SandboxRef, ...]:
    return () if finding.sandbox is None else (finding.sandbox,)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
