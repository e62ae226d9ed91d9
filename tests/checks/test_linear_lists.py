"""One namespace of N templates, each with its own policy: every path's
examined lists name all N policies, so held whole the lists of a run grow
as N². They are held as the namespace's shared entries with each path's
own cut in (``ExaminedList``): each path's cuts stay few whatever N is,
and the report still reads whole, in order, as each path alone would."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.report.json_report import report_document
from lint.report.model import (
    QUIET_VERDICT,
    ExaminedEntry,
    ExaminedList,
    Report,
    SandboxReport,
)
from tests.bench_tree import generate_tree

TEMPLATES = 24


def _run(root: Path, jobs: int) -> Report:
    return run_check(CheckOptions(paths=(str(root),), config=root / ".egress-lint.yaml", jobs=jobs))


@pytest.fixture(scope="module")
def namespace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("one-namespace")
    half = TEMPLATES // 2
    generate_tree(
        root, namespaces=1, policies=half, cilium=TEMPLATES - half, templates=TEMPLATES, filler=0
    )
    return root


def _lists(sandbox: SandboxReport) -> dict[str, ExaminedList]:
    egress = sandbox.egress
    reach = egress.reach.decision if egress.reach is not None else None
    found = {"union": egress.union, "reach": reach}
    return {name: d.examined for name, d in found.items() if d is not None}


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_path_holds_few_cuts_into_one_shared_list(namespace: Path, jobs: int) -> None:
    report = _run(namespace, jobs)
    assert len(report.sandboxes) == TEMPLATES
    # Reach lists every policy; the union of a path on engine core lists
    # the namespace's NetworkPolicies, half of them.
    for name, listed in (("union", TEMPLATES // 2), ("reach", TEMPLATES)):
        lists = [_lists(s)[name] for s in report.sandboxes]
        assert all(len(examined) >= listed for examined in lists), name
        # A path holds only its own: the shared entries are a few objects
        # (a worker's answer sends them once), and its cuts are few.
        assert len({id(examined.shared) for examined in lists}) <= 4 * jobs, name
        assert max(len(examined.cuts) for examined in lists) <= 2, name
        assert all(len(examined.shared.entries) >= listed - 1 for examined in lists), name


def test_the_report_reads_as_each_path_alone(namespace: Path, tmp_path: Path) -> None:
    """The cuts are invisible: a template's path among all N reads as the
    same path declared alone."""
    together = report_document(_run(namespace, 1))["sandboxes"]
    lines = (namespace / ".egress-lint.yaml").read_text().splitlines()
    head, entries = lines[:3], lines[3:]
    per_entry = len(entries) // TEMPLATES
    for index in (0, 1, TEMPLATES - 1):
        alone = tmp_path / f"alone-{index}.yaml"
        chosen = entries[index * per_entry : (index + 1) * per_entry]
        alone.write_text("\n".join([*head, *chosen]) + "\n")
        options = CheckOptions(paths=(str(namespace),), config=alone)
        (sandbox,) = report_document(run_check(options))["sandboxes"]
        assert sandbox == together[index]


def test_a_quiet_entry_is_one_object_in_both_directions(namespace: Path) -> None:
    """A policy that selects none of a path's pods is listed alike by its
    egress and its ingress decision: as one entry, made once and written
    once in a JSON report."""
    report = _run(namespace, 1)
    shared = 0
    for sandbox in report.sandboxes:
        union, ingress = sandbox.egress.union, sandbox.ingress
        assert union is not None and ingress is not None
        egress = {(e.kind, e.name): e for e in union.examined if e.verdict == QUIET_VERDICT}
        for entry in ingress.decision.examined:
            if entry.verdict == QUIET_VERDICT and (entry.kind, entry.name) in egress:
                assert egress[entry.kind, entry.name] is entry
                shared += 1
    assert shared >= len(report.sandboxes) * (TEMPLATES // 2 - 2)


EVERY_POD = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: every-pod
  namespace: {namespace}
spec:
  podSelector: {{}}
  policyTypes: [Egress]
  egress:
  - to:
    - ipBlock:
        cidr: 0.0.0.0/0
"""


def test_reach_lists_a_policy_every_path_reads_as_one_entry(tmp_path: Path) -> None:
    """A policy that selects every pod of the namespace is listed by each
    path's reach alike: as one entry, made once and written once in a JSON
    report."""
    generate_tree(tmp_path, namespaces=1, policies=4, cilium=4, templates=8, filler=0)
    (name,) = {s.ref.namespace for s in _run(tmp_path, 1).sandboxes}
    (tmp_path / "every-pod.yaml").write_text(EVERY_POD.format(namespace=name))
    by_value: dict[ExaminedEntry, set[int]] = {}
    for report in _run(tmp_path, 1).sandboxes:
        reach = report.egress.reach
        assert reach is not None
        for entry in reach.decision.examined.selecting():
            by_value.setdefault(entry, set()).add(id(entry))
    every_pod = [entry for entry in by_value if entry.name == "every-pod"]
    assert every_pod
    assert all(len(by_value[entry]) == 1 for entry in every_pod)
