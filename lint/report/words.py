"""Peers and selectors in words, for the reports a person reads (DESIGN §10).

The decision's details name a peer by its compact JSON (SEMANTICS.md), and
the JSON report keeps those exact bytes. The text report and SARIF messages
say the same in words: "pods app=otel-collector in namespace default",
"0.0.0.0/0 except 10.0.0.0/8, 172.16.0.0/12", "every pod in namespaces
kubernetes.io/metadata.name=kube-system". Ports are already words
(``describe_ports``: "TCP 4317, TCP 4318", "every port").
"""

from __future__ import annotations

import json
from typing import Any, Final

from lint.report.bounded import capped

_DECODER: Final = json.JSONDecoder()
_OPERATORS: Final = {"In": "in", "NotIn": "not in"}


def in_words(text: str, namespace: str | None = None) -> str:
    """``text`` with every embedded JSON peer or selector said in words;
    ``namespace`` is the policy's own, which a peer without a namespace
    selector means. Anything that does not read as a peer stays as it is."""
    out: list[str] = []
    position = 0
    while True:
        start = text.find("{", position)
        if start < 0:
            out.append(text[position:])
            return "".join(out)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            out.append(text[position : start + 1])
            position = start + 1
            continue
        words = peer_words(value, namespace) if isinstance(value, dict) else None
        out.append(text[position:start])
        # A peer in words is still a value quoted from the input: capped (issue 15).
        out.append(capped(words) if words is not None else text[start:end])
        position = end


def peer_words(peer: dict[str, Any], namespace: str | None = None) -> str | None:
    """One peer or selector in words, or None for a shape not known here."""
    block = peer.get("ipBlock", peer)
    if isinstance(block, dict) and isinstance(block.get("cidr"), str):
        return _cidr_words(block)
    if "podSelector" in peer or "namespaceSelector" in peer:
        return _selector_peer_words(peer, namespace)
    if set(peer) <= {"matchLabels", "matchExpressions"}:
        selector = selector_words(peer)
        return "every endpoint" if selector is None else f"endpoints {selector}"
    return None


def _cidr_words(block: dict[str, Any]) -> str:
    excepts = block.get("except")
    if isinstance(excepts, list) and excepts:
        return f"{block['cidr']} except {', '.join(str(e) for e in excepts)}"
    return str(block["cidr"])


def _selector_peer_words(peer: dict[str, Any], namespace: str | None) -> str:
    pods = peer.get("podSelector")
    pod_words = selector_words(pods) if isinstance(pods, dict) else None
    who = "every pod" if pod_words is None else f"pods {pod_words}"
    if "namespaceSelector" not in peer:
        own = f"namespace {namespace}" if namespace else "the policy's own namespace"
        return f"{who} in {own}"
    namespaces = peer["namespaceSelector"]
    namespace_words = selector_words(namespaces) if isinstance(namespaces, dict) else None
    if namespace_words is None:
        return f"{who} in every namespace"
    return f"{who} in namespaces {namespace_words}"


def selector_words(selector: dict[str, Any]) -> str | None:
    """``app=x, tier in (a, b), team exists``; None for the empty selector,
    which selects everything."""
    parts = []
    labels = selector.get("matchLabels")
    if isinstance(labels, dict):
        parts += [f"{key}={value}" for key, value in labels.items()]
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        parts += [_expression_words(e) for e in expressions if isinstance(e, dict)]
    return ", ".join(parts) if parts else None


def _expression_words(expression: dict[str, Any]) -> str:
    key, operator = expression.get("key"), expression.get("operator")
    values = expression.get("values")
    listed = ", ".join(str(v) for v in values) if isinstance(values, list) else ""
    if operator in _OPERATORS:
        return f"{key} {_OPERATORS[operator]} ({listed})"
    if operator == "Exists":
        return f"{key} exists"
    if operator == "DoesNotExist":
        return f"no {key}"
    return json.dumps(expression, ensure_ascii=False, separators=(",", ":"))
