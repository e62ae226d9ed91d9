"""yaml_rs must never vouch for text that libyaml refuses or reads otherwise.

Valid policy documents are broken at random places (characters inserted or
deleted, lines repeated or re-indented); whenever the fast path still
vouches for a document of the result, the slow path must read it without an
error or a repeated key, to a strictly equal value, on the same line
(``fast_check``). The example count here fits CI; the much longer runs made
while the gates were written, and what they found, are in
``docs/dependencies.md``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.yaml.fast_check import check_stream

SEEDS: tuple[str, ...] = (
    """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np-0106
  namespace: team-1
  labels: {app: web, tier: "3"}
spec:
  podSelector:
    matchLabels:
      app: web
  policyTypes: [Egress]
  egress:
  - to:
    - ipBlock:
        cidr: 10.0.0.0/8
        except: ["10.1.0.0/16"]
    ports:
    - protocol: TCP
      port: 443
    - port: "53"
      protocol: UDP
""",
    """apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata:
  name: fqdn
spec:
  endpointSelector: {}
  egress:
    - toFQDNs:
        - matchPattern: "*"
        - matchName: 'api.example.com'
      toPorts:
        - ports:
            - port: '443'
              protocol: TCP
          rules:
            dns:
              - matchPattern: "*.example.com"
""",
    """# Source: chart/templates/config.yaml
---
kind: ConfigMap
apiVersion: v1
metadata:
  name: agent-sandbox-config
data:
  config.yaml: |
    a: 1
    b: text

  other: >-
    folded
    text

  keep: |+
    kept

...
""",
    """kind: List
apiVersion: v1
items:
- kind: Namespace
  apiVersion: v1
  metadata: {name: a, labels: {x: "w"}}
- kind: Role
  metadata:
    name: r
  rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", list]
""",
    """{"kind": "NetworkPolicy", "apiVersion": "networking.k8s.io/v1",
 "metadata": {"name": "j", "annotations": {"a": "x\\"y\\n"}},
 "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 80}]}]}}
""",
    """--- # a Sandbox
kind: Sandbox
metadata:
  name: s   # comment
  annotations:
    note: plain text
      continued here
    q: "double
      quoted"
    s: 'single ''quoted'''
spec:
  replicas: 1
  ratio: 0.5
  big: 1e3
  flag: true
  none: ~
  empty:
""",
    "spec:\r\n  egress:\r\n  - to:\r\n    - podSelector: {}\r\n    ports:\r\n"
    "    - {port: 53, protocol: UDP}\r\n  script: |\r\n    echo hi\r\n    exit 0\r\n",
    """- name: x
  value: "a \\"quoted\\" \\\\ back\\u00e9"
- {name: w, value: [1, 2, {z: null}]}
- - a
  - b
- x
- "k": v
  'k2': v2
""",
    """# Egress — one rule per namespace → see the README
kind: NetworkPolicy
metadata:
  name: egress  # a comment after a value stays ASCII
  # \u2018quoted\u2019 \u2013 dashes \u201chere\u201d · too
  namespace: team-a
spec:
  script: |
    # — a comment line of the script, kept
    echo ok
  note: "first
    # \u2013 folded in
    last"
""",
    """kind: NetworkPolicy
metadata:
  name: words
  namespace: "y"
  labels: {test: 'yes', flag: "on", x-y: 'n'}
spec:
  values: ["x", "y"]
""",
    """data:
  config.yaml: |-
    rules:
      - from: [a, b]
        note: >
          folded
  json: '{"a": [1, 2], "b": {"c": "d"}}'
  flow: {a: 1, b: [x, w], c: {d: e}}
""",
)
# Pieces of YAML syntax, and characters one of the gates is about.
ATOMS: tuple[str, ...] = (
    " ", "  ", ":", ": ", "-", "- ", "'", '"', "[", "]", "{", "}", ",", "\n", "\n  ",
    "#", " #", "|", ">", "|-", "?", "? ", "\\", "0", "1", ".", "_", "e", "x", "y", "on",
    "~", "null", "*", "&", "!", "%", "@", "`", "<<", "\t", "\r\n", "\r", "\x01", "...",
    "---", "\n- ", "—", "é", "\u00a0", "\u2028", "\u0085", "\ufeff", "# —",
)  # fmt: skip


@st.composite
def broken_streams(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "repeat line", "indent"]))
        if edit == "insert":
            text = text[:at] + draw(st.sampled_from(ATOMS)) + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + draw(st.integers(min_value=1, max_value=3)) :]
        else:
            lines = text.split("\n")
            line = at * len(lines) // (len(text) + 1)
            if edit == "repeat line":
                lines.insert(line, lines[line])
            else:
                shift = draw(st.sampled_from([-2, -1, 1, 2]))
                lines[line] = " " * shift + lines[line] if shift > 0 else lines[line][-shift:]
            text = "\n".join(lines)
    return text.rstrip("\n") if draw(st.booleans()) else text


def test_the_seeds_are_vouched_for() -> None:
    # Mutants of seeds the fast path refused would test nothing.
    for seed in SEEDS:
        assert check_stream(seed).vouched == 1, seed


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=broken_streams())
def test_the_fast_path_never_vouches_for_what_the_slow_path_reads_otherwise(text: str) -> None:
    check_stream(text)
