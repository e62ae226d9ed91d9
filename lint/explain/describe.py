"""Destinations in words: ipBlocks and selector peers as people read them.

Selectors are shown as ``key=value`` terms (SEMANTICS §0.5 order) and
expressions as ``key In (a, b)``; an empty selector is "every".
"""

from __future__ import annotations

from collections.abc import Mapping

from lint.decision.model import SelectorPeer
from lint.decision.values import ABSENT, JSON, Absent, compact_json, render_labels


def describe_block(raw: Mapping[str, JSON]) -> str:
    """``0.0.0.0/0 except 10.0.0.0/8, ...``, with the CIDRs as written."""
    cidr = raw.get("cidr")
    text = cidr if isinstance(cidr, str) else compact_json(cidr)
    excepts = raw.get("except")
    if isinstance(excepts, list) and excepts:
        shown = ", ".join(e if isinstance(e, str) else compact_json(e) for e in excepts)
        text += f" except {shown}"
    return text


def describe_selector(selector: JSON | Absent) -> str | None:
    """The terms of a selector, or None when it selects everything."""
    if selector is ABSENT or not isinstance(selector, dict):
        return None
    terms: list[str] = []
    labels = selector.get("matchLabels")
    if isinstance(labels, dict) and labels:
        terms.append(render_labels({str(k): str(v) for k, v in labels.items()}))
    for expression in selector.get("matchExpressions") or []:
        terms.append(_expression(expression))
    return ", ".join(terms) if terms else None


def _expression(expression: JSON) -> str:
    if not isinstance(expression, dict):
        return compact_json(expression)
    key, operator = expression.get("key"), expression.get("operator")
    values = expression.get("values")
    if isinstance(values, list):
        shown = ", ".join(str(v) for v in values)
        return f"{key} {operator} ({shown})"
    return f"{key} {operator}"


def describe_selector_peer(peer: SelectorPeer) -> str:
    """Pods by label, in this namespace or in the namespaces selected."""
    pods = describe_selector(peer.pod_selector)
    pod_text = "every pod" if pods is None else f"pods {{{pods}}}"
    if peer.namespace_selector is ABSENT:
        return f"{pod_text} in the policy's namespace"
    namespaces = describe_selector(peer.namespace_selector)
    if namespaces is None:
        return f"{pod_text} in every namespace"
    return f"{pod_text} in namespaces {{{namespaces}}}"
