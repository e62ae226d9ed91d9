"""Measure what the limits cost: ``python -m tests.robustness.measure``.

Each row is one ``egress-lint check`` in its own process (see
``measured.py``): the hostile corpus, the shared corpus, and inputs built to
sit just inside each default limit, where the worst cost lies. The table it
prints is the one in ``docs/limits.md``. Not a test: it takes minutes and
gigabytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from lint.loading import DEFAULT_LIMITS
from tests.robustness.hostile import POLICY, RULE, write_hostile
from tests.robustness.trees import CORPUS, REPO

TEMPLATE = (
    "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
    "metadata: {name: task, namespace: hostile}\n"
    "spec: {networkPolicyManagement: Unmanaged, podTemplate: {metadata: {labels: {app: t}}}}\n"
)
DECLARATION = (
    "version: 1\nsandboxes:\n  - {template: task, namespace: hostile, "
    "egress: {policy: {kind: deny-all}}}\n"
)


def _rules(count: int, start: int = 0) -> str:
    return "".join(
        RULE.format(a=i // 250 % 250, b=i % 250, port=1 + i % 65000)
        for i in range(start, start + count)
    )


def _policies_up_to(size: int, prefix: str) -> str:
    """Ten-rule policies, all selecting the sandbox, up to ``size`` bytes."""
    parts, total, number = [], 0, 0
    while True:
        text = "---\n" + POLICY.format(name=f"{prefix}-{number}", rules=_rules(10, number))
        if total + len(text) > size:
            return "".join(parts)
        parts.append(text)
        total += len(text)
        number += 1


def dense_tree(root: Path) -> None:
    """Policies up to the total limit, in files just under the file limit."""
    budget = DEFAULT_LIMITS.max_total_size - 4096
    file_size = DEFAULT_LIMITS.max_file_size - 4096
    number = 0
    while budget > 0:
        text = _policies_up_to(min(file_size, budget), f"p{number}")
        (root / f"policies-{number}.yaml").write_text(text, encoding="utf-8")
        budget -= len(text) + 4096
        number += 1


def largest_document(root: Path) -> None:
    """One policy just under the document limit."""
    rules, text = 1000, ""
    while True:
        candidate = POLICY.format(name="largest", rules=_rules(rules))
        if len(candidate) > DEFAULT_LIMITS.max_document_size:
            break
        text, rules = candidate, rules + 1000
    (root / "largest.yaml").write_text(text, encoding="utf-8")


def alias_limit(root: Path) -> None:
    """A policy whose aliases expand to just under the alias limit."""
    lines = ["a0: &a0 [" + ", ".join(["10.0.0.0/8"] * 8) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]" for i in range(1, 6)]
    body = "\n".join(f"  {line}" for line in lines)
    (root / "aliases.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        "metadata: {name: aliases, namespace: hostile}\nspec:\n  podSelector: {}\n"
        + body
        + "\n  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8, except: *a5}}]}]\n",
        encoding="utf-8",
    )


def hostile(root: Path) -> None:
    write_hostile(root)


Scenario = tuple[str, Callable[[Path], None] | None]
SCENARIOS: list[Scenario] = [
    ("hostile corpus (tests/robustness/hostile.py)", hostile),
    ("shared/corpus", None),
    ("policies up to the total limit", dense_tree),
    ("one policy just under the document limit", largest_document),
    ("aliases just under the expansion limit", alias_limit),
]


def run(name: str, make: Callable[[Path], None] | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        tree = work / "tree"
        tree.mkdir()
        args = ["check", str(CORPUS), "--format", "json"]
        if make is not None:
            make(tree)
            (tree / "template.yaml").write_text(TEMPLATE, encoding="utf-8")
            (work / "declaration.yaml").write_text(DECLARATION, encoding="utf-8")
            args = [
                "check",
                str(tree),
                "--config",
                str(work / "declaration.yaml"),
                "--format",
                "json",
            ]
        size = _bytes_read(CORPUS if make is None else tree)
        result = work / "result.json"
        process = subprocess.run(
            [sys.executable, "-m", "tests.robustness.measured", str(result), *args],
            cwd=REPO,
            capture_output=True,
            check=False,
        )
        cost = json.loads(result.read_text())
        cost["name"] = name
        cost["read"] = f"{size / 2**20:.1f} MB" if size >= 2**20 / 10 else f"{size:,} bytes"
        cost["traceback"] = b"Traceback" in process.stderr
        return cost


def _bytes_read(root: Path) -> int:
    """What the check reads: manifest files up to the file size limit (the
    hostile corpus holds a sparse file past it, which is not read)."""
    sizes = (
        p.stat().st_size
        for p in root.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json") and not p.is_symlink() and p.is_file()
    )
    return sum(size for size in sizes if size <= DEFAULT_LIMITS.max_file_size)


def main() -> None:
    print("| Input | Read | Exit | Wall time | Peak RSS |")
    print("|---|---|---|---|---|")
    for name, make in SCENARIOS:
        if make is None and not CORPUS.is_dir():
            continue
        cost = run(name, make)
        print(
            f"| {cost['name']} | {cost['read']} | {cost['exit']} | "
            f"{cost['seconds']:.1f} s | {int(cost['max_rss_kib']) // 1024:,} MiB |",
            flush=True,
        )


if __name__ == "__main__":
    main()
