"""The benchmark generator makes the trees the loader is measured on: they
must be deterministic and load without a problem."""

from __future__ import annotations

from pathlib import Path

import yaml

from lint.loading import load
from tests.bench_tree import generator


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_tree(tmp_path: Path) -> None:
    module = generator()
    shape = module.TreeShape(namespaces=2, policies=30, cilium=12, templates=4, filler=40, seed=7)
    module.generate(tmp_path / "a", shape)
    module.generate(tmp_path / "b", shape)
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_generated_tree_loads_cleanly(tmp_path: Path) -> None:
    module = generator()
    shape = module.TreeShape(namespaces=2, policies=30, cilium=12, templates=4, filler=40, seed=7)
    files, size = module.generate(tmp_path, shape)
    result = load([str(tmp_path)])
    assert result.problems == ()
    assert (result.files, result.bytes) == (
        files + 1,
        size + len((tmp_path / ".egress-lint.yaml").read_bytes()),
    )
    kinds = [d.kind for d in result.documents]
    assert kinds.count("Namespace") == 2
    assert kinds.count("SandboxTemplate") == 8
    assert kinds.count("NetworkPolicy") == 60
    assert kinds.count("CiliumNetworkPolicy") == 24
    assert result.skipped == {
        "(no kind)": 1,  # the declaration file itself
        "ConfigMap": 16,
        "Deployment": 32,
        "Service": 24,
    }
    assert kinds.count("ServiceAccount") == 8  # read for its labels (CLUSTER-POLICIES §2.3)
    assert all(d.source and d.source.startswith("platform/charts/") for d in result.documents)


def test_declaration_mixes_intents(tmp_path: Path) -> None:
    module = generator()
    shape = module.TreeShape(namespaces=2, policies=30, cilium=12, templates=4, filler=40, seed=7)
    module.generate(tmp_path, shape)
    declaration = yaml.safe_load((tmp_path / ".egress-lint.yaml").read_text())
    entries = declaration["sandboxes"]
    assert len(entries) == 8
    assert {(e["egress"]["policy"]["kind"], e["egress"]["engine"]) for e in entries} == {
        ("deny-all", "core"),
        ("static", "cilium"),
    }
