"""The explain report, as text for people and JSON for tools.

The JSON shape is documented in docs/explain.md and versioned by
``schemaVersion``. Both forms carry the same facts: the sandbox, every
examined policy with its verdict, what the selecting policies let out
grouped by destination, and, with ``--to``, the verdict for one destination
with the rules behind it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Final

from lint import __version__
from lint.decision.model import EgressVerdict
from lint.decision.values import render_labels
from lint.declarations.entries import DeclaredSandbox
from lint.explain.sandbox import Explanation, PolicyView, RuleView
from lint.explain.selection import declared_at
from lint.explain.verdict import Hit, ToVerdict, isolation
from lint.report.model import Location
from lint.report.text_report import wrap
from lint.report.words import in_words

EXPLAIN_SCHEMA_VERSION: Final = 1


def _where(location: Location | None) -> str | None:
    return None if location is None else f"{location.file}:{location.line}"


def _field(rule: RuleView) -> str:
    return "egressDeny" if rule.deny else "egress"


def grouped(explanation: Explanation) -> dict[str, list[tuple[PolicyView, RuleView, str]]]:
    """Every grant of a policy that may select the pod, by destination in
    order of first appearance: (policy, rule, ports text)."""
    groups: dict[str, list[tuple[PolicyView, RuleView, str]]] = {}
    for policy in explanation.policies:
        for rule in policy.rules:
            if rule.read.unreadable is not None:
                key = f"(a rule that cannot be read: {rule.read.unreadable})"
                groups.setdefault(key, []).append((policy, rule, "unknown ports"))
            for grant in rule.read.grants:
                groups.setdefault(grant.destination, []).append((policy, rule, grant.ports_text))
    return groups


# --- JSON ---------------------------------------------------------------------------


def render_json(explanation: Explanation, to: ToVerdict | None) -> str:
    chosen = explanation.chosen
    translation = explanation.translation
    document: dict[str, Any] = {
        "schemaVersion": EXPLAIN_SCHEMA_VERSION,
        "tool": {"name": "egress-lint", "version": __version__},
        "sandbox": {
            "namespace": chosen.namespace,
            "template": chosen.template,
            "profile": chosen.profile,
            "path": explanation.path,
            "podLabels": dict(sorted(explanation.labels.items())),
            "declaredAt": declared_at(chosen),
            **_target(chosen),
            **_environment(explanation),
        },
        "egress": {
            "policyKind": translation.policy_kind,
            "engine": chosen.engine,
            "ciliumPoliciesRead": explanation.cilium_read,
            "ciliumPoliciesSkipped": explanation.cilium_skipped,
            "expected": _expected(explanation),
        },
        "union": {
            "refusal": explanation.decision.refusal,
            "summary": explanation.decision.summary,
        },
        "reach": _reach(explanation),
        "policies": [_policy(p) for p in explanation.policies],
        "destinations": [
            {"destination": key, "grants": [_grant_ref(p, r, ports) for p, r, ports in items]}
            for key, items in grouped(explanation).items()
        ],
        "to": None if to is None else {**_to(to), "reachAdmittedBy": _admits(to)},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _reach(explanation: Explanation) -> dict[str, Any] | None:
    """The reach decision (CLUSTER-POLICIES §11): its documents beyond the union's."""
    reach = explanation.reach
    if reach is None:
        return None
    decision = reach.decision
    return {
        "refusal": decision.refusal,
        "summary": decision.summary,
        "examined": [
            {
                "kind": e.kind,
                "name": e.name,
                "namespace": e.namespace,
                "verdict": e.verdict,
                "detail": e.detail,
                **_file_line(e.location),
            }
            for e in decision.examined
        ],
        "skipped": [
            {"kind": s.kind, "name": s.name, "reason": s.reason, **_file_line(s.location)}
            for s in reach.skipped
        ],
    }


def _admits(to: ToVerdict) -> list[dict[str, Any]]:
    return [
        {
            "kind": a.kind,
            "name": a.name,
            "rule": a.rule,
            "ruleName": a.rule_name,
            **_file_line(a.location),
            "ports": a.ports,
            "certain": a.certain,
            "why": a.why,
        }
        for a in to.admits
    ]


def _policy(policy: PolicyView) -> dict[str, Any]:
    entry = policy.entry
    return {
        "kind": entry.kind,
        "name": entry.name,
        "namespace": entry.namespace,
        "origin": entry.origin,
        **_file_line(entry.location),
        "verdict": entry.verdict,
        "detail": entry.detail,
        "selects": policy.selects.value,
        "enforcesEgress": policy.document.enforces,
        "ignoredRules": policy.ignored,
        "rules": [_rule(rule) for rule in policy.rules],
    }


def _file_line(location: Location | None) -> dict[str, Any]:
    if location is None:
        return {"file": None, "line": None}
    return {"file": location.file, "line": location.line}


def _rule(rule: RuleView) -> dict[str, Any]:
    return {
        "field": _field(rule),
        "index": rule.index,
        **_file_line(rule.location),
        "unreadable": rule.read.unreadable,
        "grants": [
            {"destination": grant.destination, "ports": grant.ports_text}
            for grant in rule.read.grants
        ],
    }


def _grant_ref(policy: PolicyView, rule: RuleView, ports: str) -> dict[str, Any]:
    return {
        "kind": policy.entry.kind,
        "name": policy.entry.name,
        "field": _field(rule),
        "rule": rule.index,
        "ports": ports,
        **_file_line(rule.location),
    }


def _hit(hit: Hit) -> dict[str, Any]:
    return {
        **_grant_ref(hit.policy, hit.rule, hit.grant.ports_text if hit.grant else "unknown ports"),
        "destination": hit.grant.destination if hit.grant else None,
        "why": hit.match.why,
    }


def _to(to: ToVerdict) -> dict[str, Any]:
    headline = to.headline
    return {
        "destination": to.destination.text,
        "verdict": headline.verdict,
        "reason": headline.reason,
        "hostVerdict": None if to.host is None else to.host.verdict,
        "hostReason": None if to.host is None else to.host.reason,
        "admittedBy": [_hit(h) for h in to.admitted_by],
        "partlyAdmittedBy": [_hit(h) for h in to.partly],
        "undecided": [_hit(h) for h in to.undecided],
        "deniedBy": [_hit(h) for h in to.denied_by],
        "unreadablePolicies": [f"{p.entry.kind}/{p.entry.name}" for p in to.unreadable],
        "outsideVerdict": to.outside_verdict,
        "decidingRules": list(to.deciding),
        **_allowance(to),
    }


def _allowance(to: ToVerdict) -> dict[str, Any]:
    """``allowance``: inside, outside and the routes beyond it (issue 13)."""
    answer = to.allowance
    if answer is None:
        return {}
    return {
        "allowance": {
            "inside": answer.inside,
            "outside": answer.outside,
            "routes": list(answer.routes),
        }
    }


# --- text ---------------------------------------------------------------------------


def render_text(explanation: Explanation, to: ToVerdict | None) -> str:
    lines = list(_header(explanation))
    lines.append("")
    if to is not None:
        lines.extend(_to_lines(to))
    else:
        lines.extend(_policy_lines(explanation))
        lines.append("")
        lines.extend(_destination_lines(explanation))
    return "\n".join(wrapped for line in lines for wrapped in _wrapped(line)) + "\n"


def _wrapped(line: str) -> list[str]:
    """One line, peers in words, escaped and wrapped at word boundaries
    within 80 columns, its continuation indented under it (as the check's
    text report does)."""
    body = line.lstrip(" ")
    if not body:
        return [""]
    return wrap(in_words(body), line[: len(line) - len(body)], hang="    ")


def _target(chosen: DeclaredSandbox) -> dict[str, Any]:
    """``host`` and ``workload``, written only when not the default, so a
    namzu template's explanation keeps its bytes."""
    fields: dict[str, Any] = {}
    if chosen.host != "namzu":
        fields["host"] = chosen.host
    if chosen.workload is not None:
        fields["workload"] = {"kind": chosen.workload.kind, "name": chosen.template}
    return fields


def _environment(explanation: Explanation) -> dict[str, Any]:
    """``environment``, written only for a ``renders:`` environment."""
    if explanation.environment is None:
        return {}
    return {"environment": explanation.environment}


def _expected(explanation: Explanation) -> dict[str, str] | None:
    """The named object: the translation's, a ``host: none`` entry's
    ``expect``, or none."""
    translation = explanation.translation
    if translation.named:
        return {"kind": translation.kind, "name": translation.name}
    expect = explanation.chosen.expect
    return None if expect is None else {"kind": expect.kind, "name": expect.name}


def _header(explanation: Explanation) -> Iterator[str]:
    chosen = explanation.chosen
    translation = explanation.translation
    profile = f", profile {chosen.profile}" if chosen.profile else ""
    engine = chosen.engine
    target = chosen.template
    if chosen.workload is not None:
        target = f"{chosen.workload.kind} {chosen.template}"
    yield f"Sandbox {target}{profile} in {chosen.namespace}, path {explanation.path}"
    if explanation.environment is not None:
        yield f"  rendered for the renders: environment {explanation.environment}"
    yield f"  declared at {declared_at(chosen)}: {translation.policy_kind}, engine {engine}"
    expected = _expected(explanation)
    if expected is None:
        yield "  expects no named object (host: none)"
    else:
        yield f"  expects {expected['kind']}/{expected['name']}"
    yield f"  pod labels: {render_labels(explanation.labels)}"
    if explanation.cilium_skipped:
        yield (
            f"  not read under engine core: {explanation.cilium_skipped} Cilium policy "
            "object(s) (--read-cilium always reads them)"
        )
    decision = explanation.decision
    if decision.refusal is None:
        yield "  union check: passes"
    else:
        yield f"  union check: {decision.refusal}: {decision.summary}"
    yield from _reach_lines(explanation)


def _reach_lines(explanation: Explanation) -> Iterator[str]:
    """Reach, when it judged a document the union did not that may select
    the pod, or skipped one (CLUSTER-POLICIES §11)."""
    reach = explanation.reach
    if reach is None:
        return
    decision = reach.decision
    selecting = [e for e in decision.examined if e.verdict != EgressVerdict.DOES_NOT_SELECT]
    if not (selecting or reach.skipped):
        return
    if decision.refusal is None:
        yield "  reach check (what the cluster enforces): passes"
    else:
        yield f"  reach check (what the cluster enforces): {decision.refusal}: {decision.summary}"
    for entry in selecting:
        where = _where(entry.location) or "no file"
        yield f"    {entry.kind}/{entry.name}: {entry.verdict} ({where})"
    for skipped in reach.skipped:
        yield f"    {skipped.kind}/{skipped.name}: skipped, {skipped.reason}"


def _policy_lines(explanation: Explanation) -> Iterator[str]:
    policies = explanation.policies
    selecting = [p for p in policies if p.entry.verdict != EgressVerdict.DOES_NOT_SELECT]
    others = [p.label for p in policies if p.entry.verdict == EgressVerdict.DOES_NOT_SELECT]
    yield f"Policies that may select the pod ({len(selecting)} of {len(policies)} examined):"
    if not selecting:
        yield "  none"
    for policy in selecting:
        where = _where(policy.entry.location)
        origin = "" if policy.entry.origin == "manifest" else f", {policy.entry.origin}"
        yield f"  {policy.label}: {policy.entry.verdict} ({where or 'no file'}{origin})"
        if policy.entry.detail:
            yield f"      {policy.entry.detail}"
        if policy.ignored:
            yield f"      {policy.ignored}"
    if others:
        yield f"Not selecting the pod: {', '.join(others)}"


def _destination_lines(explanation: Explanation) -> Iterator[str]:
    groups = grouped(explanation)
    yield "What the selecting policies let out, by destination:"
    enforcing, doubtful = isolation(explanation.policies)
    if not enforcing:
        yield f"  {unisolated(doubtful)}"
    elif not groups:
        yield "  nothing: no rule of a selecting policy admits any destination"
    for destination, items in groups.items():
        yield f"  {destination}"
        for policy, rule, ports in items:
            deny = "DENY " if rule.deny else ""
            where = _where(rule.location)
            yield f"    {deny}{ports}: {policy.label} {_field(rule)} rule {rule.index} ({where})"


def unisolated(doubtful: Sequence[str]) -> str:
    """What a pod that no policy certainly isolates for egress reaches."""
    if not doubtful:
        return (
            "every destination: no policy puts the pod in egress default-deny, so it "
            "reaches every destination"
        )
    return (
        "every destination, unless one of these, which cannot be evaluated against the "
        f"pod, puts it in egress default-deny: {', '.join(doubtful)}"
    )


def _to_lines(to: ToVerdict) -> Iterator[str]:
    headline = to.headline
    yield f"To {to.destination.text}: {headline.verdict}"
    yield f"  {headline.reason}"
    # The model's "undecided" is the headline's "unknown": not a difference.
    outside = "unknown" if to.outside_verdict == "undecided" else to.outside_verdict
    if outside is not None and outside != headline.verdict:
        yield f"  for an address no pod or node holds: {to.outside_verdict}"
    if to.host is not None:
        yield f"  the namzu host's own verdict: {to.host.verdict}"
    if to.deciding:
        yield "  deciding rules, tier by tier:"
        yield from (f"    {line}" for line in to.deciding)
    for title, hits in (
        ("denied by", to.denied_by),
        ("admitted by", to.admitted_by),
        ("admitted in part by", to.partly),
        ("may be reached through", to.undecided),
    ):
        if hits:
            yield f"  {title}:"
            yield from (f"    {_hit_text(hit)}" for hit in hits)
    if to.unreadable:
        listed = ", ".join(p.label for p in to.unreadable)
        yield f"  policies that cannot be read, so may admit it: {listed}"
    if to.allowance is not None:
        yield f"  allowance: {to.allowance.text}"


def _hit_text(hit: Hit) -> str:
    what = (
        f"{hit.grant.destination} on {hit.grant.ports_text}"
        if hit.grant
        else "a rule that cannot be read"
    )
    where = _where(hit.rule.location)
    text = f"{hit.policy.label} {_field(hit.rule)} rule {hit.rule.index} ({where}): {what}"
    return text + (f" ({hit.match.why})" if hit.match.why else "")
