"""Manifest trees whose sandbox outcomes the robustness suites start from.

A tree is a list of JSON documents and a declaration. Fixture trees are the
repository's demo, scenarios and rendered Helm chart. Corpus trees put one
real policy from ``shared/corpus`` next to a SandboxTemplate whose pod labels
that policy's selector names, so the policy is judged for a real sandbox.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lint.loading import load

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
CORPUS = REPO / ".." / "shared" / "corpus"

POLICY_KINDS = frozenset(
    {
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
        # The kinds of CLUSTER-POLICIES, which reach judges or fails closed on.
        "ClusterNetworkPolicy",
        "GlobalNetworkPolicy",
        "StagedGlobalNetworkPolicy",
        "EgressFirewall",
        "CiliumCIDRGroup",
        "Namespace",
    }
)
CORPUS_KINDS = frozenset({"NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"})
CORPUS_NAMESPACE = "corpus-ns"
CORPUS_TEMPLATE = "corpus-sandbox"


@dataclass(frozen=True)
class Tree:
    """Documents in load order and the declaration text (None: no file, so
    every template is checked against deny-all)."""

    name: str
    documents: tuple[Any, ...]
    declaration: str | None


def stream(documents: tuple[Any, ...] | list[Any]) -> bytes:
    """The documents as one YAML stream of JSON documents, for standard input."""
    return "".join(f"---\n{json.dumps(d, ensure_ascii=False)}\n" for d in documents).encode()


def _loaded_values(path: Path) -> tuple[Any, ...]:
    result = load([str(path)])
    return tuple(document.value for document in result.documents)


def _declaration(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def fixture_trees() -> list[Tree]:
    """The demo, every scenario and the rendered Helm chart."""
    trees = [
        Tree(
            "demo",
            _loaded_values(FIXTURES / "demo"),
            _declaration(FIXTURES / "demo" / ".egress-lint.yaml"),
        )
    ]
    for scenario in sorted((FIXTURES / "scenarios").iterdir()):
        documents = _loaded_values(scenario)
        if not any(isinstance(d, dict) and d.get("kind") in POLICY_KINDS for d in documents):
            # Its manifests are rendered from an overlay (renders:), or hold
            # no policy (the v0.1.0 controller writes none): the tree as
            # read has no policy field to break.
            continue
        trees.append(
            Tree(
                f"scenario/{scenario.name}",
                documents,
                _declaration(scenario / ".egress-lint.yaml"),
            )
        )
    helm = FIXTURES / "helm"
    trees.append(
        Tree("helm", _loaded_values(helm / "rendered"), _declaration(helm / ".egress-lint.yaml"))
    )
    return trees


def corpus_policies() -> list[tuple[str, Any]]:
    """Every NetworkPolicy and Cilium policy object in the corpus, with its
    file relative to the corpus, in load order."""
    if not CORPUS.is_dir():
        return []
    result = load([str(CORPUS)])
    root = CORPUS.resolve()
    return [
        (Path(document.file).resolve().relative_to(root).as_posix(), document.value)
        for document in result.documents
        if isinstance(document.value, dict) and document.value.get("kind") in CORPUS_KINDS
    ]


def corpus_trees(count: int | None, seed: int) -> Iterator[Tree]:
    """Corpus policies chosen deterministically (all of them when ``count``
    is None), each in a tree of its own with a sandbox it selects when its
    selector allows it."""
    policies = corpus_policies()
    if count is not None:
        policies = random.Random(seed).sample(policies, min(count, len(policies)))
    for file, policy in policies:
        yield corpus_tree(file, policy)


def corpus_tree(file: str, policy: dict[str, Any]) -> Tree:
    policy = json.loads(json.dumps(policy))
    kind = policy.get("kind")
    metadata = policy.get("metadata")
    if kind != "CiliumClusterwideNetworkPolicy" and isinstance(metadata, dict):
        metadata["namespace"] = CORPUS_NAMESPACE
    engine = "core" if kind == "NetworkPolicy" else "cilium"
    documents = (
        namespace(CORPUS_NAMESPACE),
        template(CORPUS_TEMPLATE, CORPUS_NAMESPACE, _selected_labels(policy)),
        policy,
    )
    declaration = (
        "version: 1\n"
        f"defaultNamespace: {CORPUS_NAMESPACE}\n"
        "sandboxes:\n"
        f"  - template: {CORPUS_TEMPLATE}\n"
        f"    egress: {{engine: {engine}, policy: {{kind: deny-all}}}}\n"
    )
    return Tree(f"corpus/{file}#{_name(policy)}", documents, declaration)


def namespace(name: str) -> dict[str, Any]:
    labels = {"kubernetes.io/metadata.name": name}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def template(name: str, in_namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """An Unmanaged SandboxTemplate: the controller writes no policy for it."""
    pod = {
        "metadata": {"labels": labels},
        "spec": {"containers": [{"name": "agent", "image": "agent:1"}]},
    }
    return {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
        "kind": "SandboxTemplate",
        "metadata": {"name": name, "namespace": in_namespace},
        "spec": {"networkPolicyManagement": "Unmanaged", "podTemplate": pod},
    }


def _name(policy: dict[str, Any]) -> str:
    metadata = policy.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else "(unnamed)"


def _selected_labels(policy: dict[str, Any]) -> dict[str, str]:
    """Pod labels the policy's own selector asks for (Cilium source
    prefixes dropped), so that the policy selects the corpus sandbox."""
    spec = policy.get("spec")
    if not isinstance(spec, dict):
        specs = policy.get("specs")
        first = specs[0] if isinstance(specs, list) and specs else None
        spec = first if isinstance(first, dict) else {}
    selector = spec.get("podSelector", spec.get("endpointSelector"))
    match = selector.get("matchLabels") if isinstance(selector, dict) else None
    labels: dict[str, str] = {}
    for key, value in (match or {}).items() if isinstance(match, dict) else ():
        source, _, rest = key.partition(":")
        name = rest if rest and source in ("k8s", "any") else key
        if isinstance(value, str) and name != "io.kubernetes.pod.namespace" and ":" not in name:
            labels[name] = value
    return labels
