"""Robustness on real manifests (shared/corpus, never copied here): explain
reads every policy of every namespace that holds one, under both engines,
and answers for an address, a CIDR and a hostname without failing. Skipped
when the corpus is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks.context import CheckContext
from lint.declarations import Declarations, load_declarations
from lint.explain.destination import parse_destination
from lint.explain.report import render_json, render_text
from lint.explain.sandbox import explain
from lint.explain.selection import choose
from lint.explain.verdict import judge_destination
from lint.inventory import Inventory, build_inventory
from lint.loading import load

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
SOURCES = (
    sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))
    if CORPUS.is_dir()
    else []
)
DESTINATIONS = (
    "169.254.169.254:80/TCP",
    "10.0.0.0/8",
    "api.github.com:443",
    "[2001:db8::1]:53/UDP",
)
MAX_NAMESPACES = 25

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present"),
]


def _policy_namespaces(source: Path) -> list[str]:
    inventory = build_inventory(load([str(source)]).documents, "default")
    found = [
        name
        for name, namespace in sorted(inventory.namespaces.items())
        if namespace.of_kind("NetworkPolicy") or namespace.of_kind("CiliumNetworkPolicy")
    ]
    return found[:MAX_NAMESPACES]


@pytest.mark.parametrize("source", SOURCES)
def test_explain_reads_every_namespace_of_the_corpus(source: str, tmp_path: Path) -> None:
    root = CORPUS / source
    loaded = load([str(root)])
    inventory = build_inventory(loaded.documents, "default")
    namespaces = _policy_namespaces(inventory)
    if not namespaces:
        pytest.skip("no policy in this source")
    declarations = _declarations(tmp_path, namespaces)
    destinations = [parse_destination(text) for text in DESTINATIONS]
    for namespace in namespaces:
        for profile in (None, "core"):
            chosen = choose(declarations, declarations.entries, "t", profile, namespace)
            ctx = CheckContext(inventory, loaded.problems, "always")
            explanation = explain(chosen, ctx, path=None)
            assert explanation.policies or explanation.decision.refusal
            render_text(explanation, None)
            for destination in destinations:
                verdict = judge_destination(explanation.policies, destination)
                assert verdict.verdict in ("allowed", "partly-allowed", "denied", "unknown")
                render_json(explanation, verdict)


def _policy_namespaces(inventory: Inventory) -> list[str]:
    found = [
        name
        for name, namespace in sorted(inventory.namespaces.items())
        if namespace.of_kind("NetworkPolicy") or namespace.of_kind("CiliumNetworkPolicy")
    ]
    return found[:MAX_NAMESPACES]


def _declarations(tmp_path: Path, namespaces: list[str]) -> Declarations:
    """Per namespace, one Cilium allowlist and one profiled deny-all entry."""
    entries = "".join(
        f"  - {{template: t, namespace: {ns}, external: true, podLabels: {{app: web}}, "
        "egress: {engine: cilium, policy: {kind: static, allowedHosts: [api.github.com]}}}\n"
        f"  - {{template: t, namespace: {ns}, external: true, "
        "egress: {profile: core, policy: {kind: deny-all}}}\n"
        for ns in namespaces
    )
    config = tmp_path / "decl.yaml"
    config.write_text(f"version: 1\nsandboxes:\n{entries}", encoding="utf-8")
    return load_declarations(config, namespace_override=None)
