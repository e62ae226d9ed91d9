"""Manifests read the way kubectl and Argo CD read them (issue 15).

Each hostile tail below is appended to the clean demo stream. kubectl would
apply a wide-open NetworkPolicy in the demo's namespace from it, so the
check must fail: either it reads the policy (and reports it widening), or it
cannot read it and every decision it could touch is not-evaluable. Before
issue 15 each of these printed "ok" and exited 0. The bytes pass through
unchanged either way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.integrations.support import (
    DEMO_NAMESPACE,
    Ran,
    demo_tree,
    helm_stream,
    run,
)

OPEN_POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "open", "namespace": DEMO_NAMESPACE},
    "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{}]},
}
# Compact, as `kubectl get -o json | jq -c` writes it: read as YAML after a
# separator libyaml does not see, the line is one plain string.
OPEN_JSON = json.dumps(OPEN_POLICY, separators=(",", ":")).encode()
OPEN_YAML = (
    "apiVersion: networking.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: open\n"
    "  namespace: " + DEMO_NAMESPACE + "\nspec:\n  podSelector: {{}}\n"
    "  policyTypes: [Egress]\n  egress: [{{}}]\n"
)


def _yaml(kind: str = "NetworkPolicy") -> bytes:
    return OPEN_YAML.format(kind=kind).encode()


def _broken(kind: str, metadata: str) -> bytes:
    """A policy kubectl may read but our reader refuses (an unclosed flow)."""
    return (
        f"apiVersion: networking.k8s.io/v1\nkind: {kind}\n{metadata}"
        "spec: {podSelector: {}, egress: [{}]\n"
    ).encode()


TAILS = {
    # 1. separators apimachinery cuts at and libyaml does not
    "separator-nbsp": b"---\n---\xc2\xa0\n" + OPEN_JSON + b"\n",
    "separator-form-feed": b"---\n---\x0c\n" + OPEN_JSON + b"\n",
    "separator-ideographic-space-comment": "---\n---\u3000# next\n".encode() + OPEN_JSON,
    "separator-comment-without-blank": b"---\n---#next\n" + OPEN_JSON + b"\n",
    # 2. a List inside a List, tags
    "nested-list": (
        b"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n"
        b"  items:\n  - " + OPEN_JSON + b"\n"
    ),
    "unknown-tag": b"---\n" + _yaml("!k8s NetworkPolicy"),
    "binary-kind": b"---\n" + _yaml("!!binary TmV0d29ya1BvbGljeQ=="),
    # kubectl opens any object with `items` as a list, whatever its kind
    "items-on-a-config-map": (
        b"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nitems:\n- " + OPEN_JSON + b"\n"
    ),
    "items-on-a-policy": (
        b"---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        b"metadata: {name: wrapper}\nspec: {podSelector: {}}\nitems:\n- " + OPEN_JSON + b"\n"
    ),
    # 3. unparsed documents that may be policies fail closed
    "unparsed-tagged-kind": b"---\n" + _broken("!k8s NetworkPolicy", ""),
    "unparsed-escaped-kind": b"---\n" + _broken('"Net\\u0077orkPolicy"', ""),
    "unparsed-binary-kind": b"---\n" + _broken("!!binary TmV0d29ya1BvbGljeQ==", ""),
    "unparsed-label-namespace": b"---\n"
    + _broken("NetworkPolicy", "metadata:\n  name: x\n  labels:\n    namespace: elsewhere\n"),
    "unparsed-list-metadata": (
        b"---\napiVersion: v1\nkind: List\nmetadata: {namespace: elsewhere}\nitems:\n- "
        + OPEN_JSON
        + b"\n- {kind: [\n"
    ),
    "unparsed-json-pair-after-marker": (
        b'---\n{"kind": "NetworkPolicy", "metadata": {"namespace": "elsewhere"}}\n'
        + OPEN_JSON
        + b"\n"
    ),
}


def _check(tree: Path, data: bytes) -> Ran:
    # The module, not the installed script: this tree's code is the one tested.
    command = [sys.executable, "-m", "lint.cli", "check", "-", "--passthrough", "--format", "json"]
    return run(command, tree, stdin=data)


@pytest.mark.parametrize("tail", sorted(TAILS))
def test_what_kubectl_would_apply_fails_the_check(tmp_path: Path, tail: str) -> None:
    tree = demo_tree(tmp_path / "demo", widening=False)
    clean = helm_stream(tree)
    assert _check(tree, clean).returncode == 0
    data = clean + TAILS[tail]
    result = _check(tree, data)
    assert result.stdout == data, "passthrough stays byte-identical"
    assert result.returncode == 1
    report = json.loads(result.stderr)
    for sandbox in report["sandboxes"]:
        union = sandbox["egress"]["union"]
        verdicts = {examined["verdict"] for examined in union["examined"]}
        opened = verdicts - {"within", "does-not-select"}
        assert union["refusal"] is not None or opened, (sandbox["template"], sandbox["path"])
