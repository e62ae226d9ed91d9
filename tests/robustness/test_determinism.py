"""Determinism (issue 7, item 5): the order in which files and documents
arrive never changes the report.

- The same files named in any order give byte-identical JSON and SARIF.
- The same documents spread over differently named files, in any order,
  give the same report once file names and lines are set aside (they name
  the new files, and findings sort by them).
- Python's hash seed changes nothing.

The one order that matters by design: of two objects with the same kind,
namespace and name, the later one wins, as the later ``kubectl apply``
would (SEMANTICS §5.1); the last test pins that. The corpus holds many such
pairs (test suites reuse names across sources), so it is only checked
against the hash seed, not against a shuffled order.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from lint.cli import main
from tests.robustness.trees import CORPUS, FIXTURES, REPO

FORMATS = ("json", "sarif")
LOCATION_KEYS = frozenset({"file", "line", "endLine", "source", "sourceLine", "locations"})


def check(cwd: Path, *args: str) -> bytes:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    finally:
        os.chdir(previous)
    assert result.exit_code in (0, 1), result.output
    return result.stdout_bytes


def _orders(items: list[str], count: int, seed: int) -> list[list[str]]:
    """The given order, its reverse, and ``count`` seeded shuffles."""
    rng = random.Random(seed)
    orders = [items, items[::-1]]
    for _ in range(count):
        shuffled = items[:]
        rng.shuffle(shuffled)
        orders.append(shuffled)
    return orders


@pytest.mark.parametrize("tree", ["demo", "helm/rendered", "scenarios/cilium-widens"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_file_order_on_the_command_line_changes_no_byte(tree: str, fmt: str) -> None:
    root = FIXTURES / tree
    files = sorted(
        p.name for p in root.iterdir() if p.suffix == ".yaml" and not p.name.startswith(".")
    )
    config = str(
        (root / ".egress-lint.yaml")
        if (root / ".egress-lint.yaml").exists()
        else FIXTURES / "helm" / ".egress-lint.yaml"
    )
    outputs = {
        check(root, "--config", config, "--format", fmt, *order)
        for order in _orders(files, 6, seed=1)
    }
    assert len(outputs) == 1


def _documents(root: Path) -> list[str]:
    """Every document of every manifest file under ``root``, as text."""
    texts = []
    for path in sorted(root.rglob("*.yaml")):
        if path.name.startswith("."):
            continue
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document is not None:
                texts.append(yaml.safe_dump(document, sort_keys=False))
    return texts


def _spread(documents: list[str], into: Path, seed: int) -> None:
    """The documents in a shuffled order over three to six files with
    random names, so the directory walk meets them in another order."""
    rng = random.Random(seed)
    shuffled = documents[:]
    rng.shuffle(shuffled)
    names = [f"{rng.getrandbits(32):08x}.yaml" for _ in range(rng.randint(3, 6))]
    files: dict[str, list[str]] = {name: [] for name in names}
    for text in shuffled:
        files[rng.choice(names)].append(text)
    into.mkdir()
    for name, texts in files.items():
        (into / name).write_text("---\n".join(texts), encoding="utf-8")


def _without_locations(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_locations(v) for k, v in value.items() if k not in LOCATION_KEYS}
    if isinstance(value, list):
        return [_without_locations(item) for item in value]
    return value


def _normalised(report: bytes) -> Any:
    document = _without_locations(json.loads(report))
    # Findings sort by file and line first: once those are gone, re-sort.
    document["findings"] = sorted(document["findings"], key=lambda f: json.dumps(f, sort_keys=True))
    return document


@pytest.mark.parametrize("tree", ["demo", "helm/rendered"])
def test_document_order_and_file_names_change_nothing_else(tree: str, tmp_path: Path) -> None:
    root = FIXTURES / tree
    config = root / ".egress-lint.yaml"
    if not config.exists():
        config = FIXTURES / "helm" / ".egress-lint.yaml"
    documents = _documents(root)
    reports = []
    for seed in range(5):
        spread = tmp_path / str(seed)
        _spread(documents, spread, seed)
        reports.append(_normalised(check(spread, "--config", str(config), "--format", "json", ".")))
    assert all(report == reports[0] for report in reports)
    assert reports[0]["sandboxes"], "the trees must produce sandboxes to compare"


BROKEN = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: {name}, namespace: sbx}}\nspec: [\n"
TASK = (
    "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
    "metadata: {name: task, namespace: sbx}\n"
    "spec: {networkPolicyManagement: Unmanaged, podTemplate: {metadata: {labels: {app: task}}}}\n"
)
DECLARATION = (
    "version: 1\nsandboxes:\n  - {template: task, namespace: sbx, "
    "egress: {policy: {kind: deny-all}}, ingress: unverified}\n"
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_unparsable_policies_in_any_file_order_give_the_same_bytes(
    fmt: str, tmp_path: Path
) -> None:
    (tmp_path / "t.yaml").write_text(TASK, encoding="utf-8")
    (tmp_path / "a.yaml").write_text(BROKEN.format(name="a"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(BROKEN.format(name="b"), encoding="utf-8")
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION, encoding="utf-8")
    outputs = {
        check(tmp_path, "--format", fmt, "t.yaml", *order)
        for order in (["a.yaml", "b.yaml"], ["b.yaml", "a.yaml"])
    }
    assert len(outputs) == 1


def _outputs_by_seed(
    fmt: str, roots: list[Path], seeds: tuple[str, ...] = ("0", "1", "12345")
) -> set[tuple[str, bytes]]:
    outputs = set()
    for seed in seeds:
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        for root in roots:
            result = subprocess.run(
                [sys.executable, "-m", "lint.cli", "check", ".", "--format", fmt],
                cwd=root,
                env=environment,
                capture_output=True,
                check=False,
            )
            assert result.returncode in (0, 1), result.stderr
            outputs.add((root.name, result.stdout))
    return outputs


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_hash_seed_changes_no_byte(fmt: str) -> None:
    """Sets and dicts keyed by strings iterate in hash order; the report
    must never depend on it."""
    roots = [
        FIXTURES / "demo",
        FIXTURES / "scenarios" / "cilium-widens",
        FIXTURES / "helm" / "rendered",
    ]
    assert len(_outputs_by_seed(fmt, roots)) == len(roots)


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not present")
def test_the_hash_seed_changes_no_byte_of_the_corpus_json() -> None:
    # SARIF is left out until findings have a total order (next test).
    assert len(_outputs_by_seed("json", [CORPUS])) == 1


ADMIN_POLICY = """\
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {{name: cluster-egress}}
spec:
  priority: 10
  subject: {{namespaces: {{}}}}
  egress:
    - {{name: out, action: {action}, to: [{{networks: [0.0.0.0/0]}}]}}
"""


def test_copies_of_one_policy_are_ordered_alike_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Two copies of one AdminNetworkPolicy that differ, one whose action
    cannot be read (so its rule may take every action): the copies are
    ordered by their content, and that content once held the set of
    actions in the set's own order, which follows the hash seed. Under
    seeds 0 and 1 the report then named another reason first."""
    scenario = FIXTURES / "scenarios" / "admin-network-policy"
    manifests = (scenario / "manifests.yaml").read_text(encoding="utf-8")
    (tmp_path / "manifests.yaml").write_text(manifests.rsplit("---\n", 1)[0], encoding="utf-8")
    (tmp_path / ".egress-lint.yaml").write_text(
        (scenario / ".egress-lint.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "a.yaml").write_text(ADMIN_POLICY.format(action="Allow"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(ADMIN_POLICY.format(action="Bogus"), encoding="utf-8")
    outputs = _outputs_by_seed("json", [tmp_path], seeds=("0", "1", "6"))
    assert len(outputs) == 1
    ((_, report),) = outputs
    summary = json.loads(report)["sandboxes"][0]["egress"]["reach"]["summary"]
    assert summary.startswith("AdminNetworkPolicy/cluster-egress may let out")


TWIN_TEMPLATES = """apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {{name: task, namespace: sbx}}
spec: {{networkPolicyManagement: Unmanaged, podTemplate: {{metadata: {{labels: {{app: {app}}}}}}}}}
"""


def test_findings_have_a_total_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lint.checks.runner import CheckOptions, run_check  # noqa: PLC0415
    from lint.report.ordering import finding_key  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)  # no declaration file: every template is checked
    (tmp_path / "base.yaml").write_text(TWIN_TEMPLATES.format(app="task"), encoding="utf-8")
    (tmp_path / "overlay.yaml").write_text(TWIN_TEMPLATES.format(app="task"), encoding="utf-8")
    (tmp_path / "open.yaml").write_text(SAME_NAME.format(egress="[{}]"), encoding="utf-8")
    report = run_check(CheckOptions(paths=(".",)))
    assert report.defaults_applied
    keys = [finding_key(finding) for finding in report.findings]
    assert len(set(keys)) == len(keys)


SAME_NAME = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: shared, namespace: sbx}}
spec: {{podSelector: {{}}, policyTypes: [Egress], egress: {egress}}}
"""


def test_of_two_policies_with_one_name_both_are_judged(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
        "metadata: {name: task, namespace: sbx}\n"
        "spec: {networkPolicyManagement: Unmanaged, podTemplate: {metadata: {labels: {app: task}}}}\n",
        encoding="utf-8",
    )
    (tmp_path / "deny.yaml").write_text(SAME_NAME.format(egress="[]"), encoding="utf-8")
    (tmp_path / "open.yaml").write_text(SAME_NAME.format(egress="[{}]"), encoding="utf-8")
    (tmp_path / ".egress-lint.yaml").write_text(
        "version: 1\nsandboxes:\n  - {template: task, namespace: sbx, "
        "egress: {policy: {kind: deny-all}}, ingress: unverified}\n",
        encoding="utf-8",
    )
    refusals = {}
    for order in itertools.permutations(["deny.yaml", "open.yaml"]):
        report = json.loads(check(tmp_path, "--format", "json", "t.yaml", *order))
        refusals[order[-1]] = report["sandboxes"][0]["egress"]["union"]["refusal"]
    # Which copy the cluster holds depends on the apply order, so the wider
    # verdict stands in every order (issue 12, duplicate-object).
    assert refusals == {"deny.yaml": "policy-widens-egress", "open.yaml": "policy-widens-egress"}
