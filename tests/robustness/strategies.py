"""Hypothesis strategies for hostile input: JSON-like values with the
awkward corners (NaN, infinities, 64-bit edges, control characters, deep
nesting), a YAML writer that carries them to the loader unchanged, and text
built from the tokens that drive a YAML parser."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st

# Keys the loader and the engine read, so that generated objects reach the
# code paths that matter instead of being ignored.
POLICY_KEYS = (
    "apiVersion", "kind", "metadata", "name", "namespace", "labels", "spec", "specs",
    "podSelector", "endpointSelector", "nodeSelector", "policyTypes", "egress",
    "egressDeny", "ingress", "ingressDeny", "enableDefaultDeny", "to", "from", "ports",
    "toPorts", "ipBlock", "cidr", "except", "matchLabels", "matchExpressions", "key",
    "operator", "values", "namespaceSelector", "toEndpoints", "fromEndpoints",
    "toEntities", "fromEntities", "toCIDR", "fromCIDR", "toCIDRSet", "fromCIDRSet",
    "toFQDNs", "matchName", "matchPattern", "toServices", "toGroups", "toNodes",
    "rules", "dns", "port", "endPort", "protocol", "items",
)  # fmt: skip
WORDS = (
    "Egress", "Ingress", "TCP", "UDP", "SCTP", "ANY", "tcp", "In", "NotIn", "Exists",
    "DoesNotExist", "0.0.0.0/0", "::/0", "10.0.0.0/8", "169.254.169.254/32", "1.2.3.4/33",
    "world", "all", "cluster", "kube-dns", "kube-system", "k8s:app", "reserved:host",
    "*", "*.example.com", "example.com", "53", " 53 ", "0x35", "1e2", "https", "-1",
    "65536", "NetworkPolicy", "CiliumNetworkPolicy", "List", "constructor", "__proto__",
    "\x1b[2J", "\u202e", "\x00", "",
)  # fmt: skip
SPECIAL_NUMBERS = (
    0, -1, 53, 443, 65535, 65536, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1,
    0.5, -0.0, 1e308, math.inf, -math.inf, math.nan,
)  # fmt: skip

# Text that any UTF-8 file can carry: no lone surrogates.
SAFE_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(SPECIAL_NUMBERS),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    SAFE_TEXT,
)
keys = st.one_of(st.sampled_from(POLICY_KEYS), SAFE_TEXT)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=25,
)


def to_yaml(value: Any) -> str:
    """``value`` as YAML flow text that the loader reads back as the same
    value: JSON, except for the non-finite floats JSON cannot write."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, list):
        return "[" + ", ".join(to_yaml(item) for item in value) + "]"
    if isinstance(value, dict):
        members = (f"{quote(str(k))}: {to_yaml(v)}" for k, v in value.items())
        return "{" + ", ".join(members) + "}"
    if isinstance(value, str):
        return quote(value)
    return json.dumps(value)


def quote(text: str) -> str:
    """A YAML double-quoted scalar: printable ASCII as is, everything else as
    a code point escape (YAML has ``\\U`` for the astral planes, where JSON
    would write a surrogate pair that YAML refuses)."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


YAML_TOKENS = (
    "---", "...", "\n", "\n", "\n", "  ", "- ", ": ", ", ", "#", "[", "]", "{", "}",
    "'", '"', "&a ", "*a", "&b ", "*b", "<<: *a", "!!binary ", "!Ref ", "!!str ", "! ",
    "%YAML 1.1", "%TAG ! tag:x,2000:", "? ", "|", ">", "\t", "\r", "\r\n", "\x85",
    "\u2028", "\ufeff", "\x00", "\\", "kind: NetworkPolicy", "kind: List",
    "kind: CiliumNetworkPolicy", "apiVersion: networking.k8s.io/v1", "items:",
    "metadata:", "namespace: team", "name: x", "spec:", "egress:", "on", "0777",
    "1e400", ".inf", "~", "null", "{{ .Values.x }}", "\U0001f600",
)  # fmt: skip
yaml_texts = st.lists(st.sampled_from(YAML_TOKENS) | SAFE_TEXT, max_size=40).map("".join)
