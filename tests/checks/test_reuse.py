"""The check reuses judgements across sandboxes (DESIGN §7). Reuse must be
invisible: a sandbox judged among many others gets the report it gets when
it is the only one declared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import report_document
from tests.bench_tree import generate_tree

NS = "sbx"
WIDE = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}


def _policy(kind: str, name: str, selector: dict[str, Any]) -> dict[str, Any]:
    api = "networking.k8s.io/v1" if kind == "NetworkPolicy" else "cilium.io/v2"
    field = "podSelector" if kind == "NetworkPolicy" else "endpointSelector"
    spec: dict[str, Any] = {field: selector, "egress": [WIDE if kind == "NetworkPolicy" else {}]}
    if kind == "NetworkPolicy":
        spec["policyTypes"] = ["Egress", "Ingress"]
        spec["ingress"] = [{}]
    else:
        spec["egress"] = [{"toCIDR": ["0.0.0.0/0"]}]
        spec["ingress"] = [{"fromEntities": ["world"]}]
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": NS},
        "spec": spec,
    }


def _template(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
        "kind": "SandboxTemplate",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"podTemplate": {"metadata": {"labels": labels}, "spec": {"containers": []}}},
    }


NAMESPACE_KEY = "io.kubernetes.pod.namespace"
# Templates whose labels differ only where a selector reads them; the pod's
# own `io.kubernetes.pod.namespace` label is read by a core selector as it
# is, and replaced by the namespace in Cilium's identity labels.
TEMPLATES = {
    "plain": {"app": "a"},
    "own-namespace-label": {"app": "a", NAMESPACE_KEY: NS},
    "other-namespace-label": {"app": "a", NAMESPACE_KEY: "elsewhere"},
    "other-app": {"app": "b"},
}
POLICIES = [
    _policy("NetworkPolicy", "by-namespace-label", {"matchLabels": {NAMESPACE_KEY: NS}}),
    _policy("NetworkPolicy", "by-app", {"matchLabels": {"app": "b"}}),
    _policy(
        "CiliumNetworkPolicy", "cilium-by-namespace", {"matchLabels": {f"k8s:{NAMESPACE_KEY}": NS}}
    ),
    _policy("CiliumNetworkPolicy", "cilium-by-app", {"matchLabels": {"any:app": "a"}}),
]
CORE = "egress: {policy: {kind: deny-all}}"
CILIUM = "egress: {engine: cilium, policy: {kind: static, allowedHosts: [example.com]}}"


def _declaration(entries: list[tuple[str, str]]) -> str:
    lines = ["version: 1", f"defaultNamespace: {NS}", "sandboxes:"]
    for name, egress in entries:
        lines += [f"  - template: {name}", f"    {egress}"]
    return "\n".join(lines) + "\n"


def _sandboxes(root: Path, config: Path) -> dict[tuple[str, str], Any]:
    report = report_document(run_check(CheckOptions(paths=(str(root),), config=config)))
    return {(s["template"], s["path"]): s for s in report["sandboxes"]}


def _together_and_alone(
    root: Path, entries: list[tuple[str, str]], tmp_path: Path
) -> dict[tuple[str, str], Any]:
    """Every sandbox's report with all entries declared; asserts each equals
    its report when its entry is declared alone."""
    together = tmp_path / "together.yaml"
    together.write_text(_declaration(entries))
    joint = _sandboxes(root, together)
    for index, entry in enumerate(entries):
        alone = tmp_path / f"alone-{index}.yaml"
        alone.write_text(_declaration([entry]))
        for key, sandbox in _sandboxes(root, alone).items():
            assert joint[key] == sandbox, key
    return joint


def _verdict(sandbox: Any, policy: str) -> list[str]:
    examined = sandbox["egress"]["union"]["examined"]
    return [entry["verdict"] for entry in examined if entry["name"] == policy]


MIXES = {
    "all-core": lambda index: CORE,
    "all-cilium": lambda index: CILIUM,
    "alternating": lambda index: (CORE, CILIUM)[index % 2],
}


@pytest.mark.parametrize("mix", list(MIXES))
@pytest.mark.parametrize("reverse", [False, True])
def test_reuse_keys_on_every_label_a_selector_reads(
    mix: str, reverse: bool, tmp_path: Path
) -> None:
    names = list(reversed(TEMPLATES)) if reverse else list(TEMPLATES)
    tree = tmp_path / "tree"
    tree.mkdir()
    documents = [*POLICIES, *(_template(name, TEMPLATES[name]) for name in names)]
    (tree / "all.yaml").write_text("".join(f"---\n{json.dumps(d)}\n" for d in documents))
    entries = [(name, MIXES[mix](index)) for index, name in enumerate(names)]
    joint = _together_and_alone(tree, entries, tmp_path)
    # The tree does exercise the case: one selector tells these two apart.
    assert _verdict(joint[("own-namespace-label", "direct")], "by-namespace-label") == [
        "widens-egress"
    ]
    assert _verdict(joint[("plain", "direct")], "by-namespace-label") == ["does-not-select"]


def test_reuse_is_invisible_on_a_generated_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    generate_tree(tree, namespaces=1, policies=40, cilium=10, templates=6, filler=5)
    entries = [(f"tpl-{i:02d}", (CORE, CILIUM)[i % 2]) for i in range(6)]
    _together_and_alone(tree, entries, tmp_path)


def test_clusterwide_policies_are_judged_per_namespace(tmp_path: Path) -> None:
    """A CiliumClusterwideNetworkPolicy sits in every namespace's scope and
    matches the namespace: same labels, other namespace, other verdict."""
    clusterwide = _policy("CiliumNetworkPolicy", "cluster", {})
    clusterwide["kind"] = "CiliumClusterwideNetworkPolicy"
    del clusterwide["metadata"]["namespace"]
    clusterwide["spec"]["endpointSelector"] = {"matchLabels": {f"k8s:{NAMESPACE_KEY}": NS}}
    documents: list[Any] = [clusterwide]
    for namespace in ("other", NS):  # the other namespace is judged first
        template = _template("task", {"app": "a"})
        template["metadata"]["namespace"] = namespace
        documents.append(template)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "all.yaml").write_text("".join(f"---\n{json.dumps(d)}\n" for d in documents))
    lines = ["version: 1", "sandboxes:"]
    for namespace in ("other", NS):
        lines += ["  - template: task", f"    namespace: {namespace}", f"    {CILIUM}"]
    config = tmp_path / "d.yaml"
    config.write_text("\n".join(lines) + "\n")
    report = report_document(run_check(CheckOptions(paths=(str(tree),), config=config)))
    verdicts = {s["namespace"]: _verdict(s, "cluster") for s in report["sandboxes"]}
    assert verdicts == {"other": ["does-not-select"], NS: ["widens-egress"]}


def _lets_out(root: Path, config: Path) -> set[str]:
    report = report_document(run_check(CheckOptions(paths=(str(root),), config=config)))
    return {
        clause for f in report["findings"] if f.get("culprit") for clause in f["culprit"]["letsOut"]
    }


def test_a_culprit_is_made_again_under_another_allowance(tmp_path: Path) -> None:
    """Culprits are made once for the paths that blame the same entry under
    equal allowances; under another allowance the same policy lets out
    something else beyond it, and says so."""
    wide = _policy("NetworkPolicy", "wide", {})
    wide["spec"]["egress"] = [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}]
    wide["spec"]["policyTypes"] = ["Egress"]
    del wide["spec"]["ingress"]
    documents = [wide, *(_template(name, {"app": name}) for name in ("one", "two", "three"))]
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "all.yaml").write_text("".join(f"---\n{json.dumps(d)}\n" for d in documents))
    public = "egress: {policy: {kind: public-internet}}"
    entries = [("one", CORE), ("two", public), ("three", CORE)]
    together = tmp_path / "together.yaml"
    together.write_text(_declaration(entries))
    alone: set[str] = set()
    for index, entry in enumerate(entries):
        config = tmp_path / f"alone-{index}.yaml"
        config.write_text(_declaration([entry]))
        alone |= _lets_out(tree, config)
    # Two allowances, two clauses: each says what it lets out beyond its own.
    assert len(alone) == 2
    assert _lets_out(tree, together) == alone
