"""Duplicates never decide by order (issue 26, item 6).

When several objects share kind, namespace and name, any one of them may
be the one the cluster keeps. A copy counts as isolating only if every
copy does, so a non-isolating copy can no longer hide
``no-enforcing-egress-policy``, nor leave a baseline ``Allow 0.0.0.0/0`` or
a later Calico tier's allow-all excused; copies of the declared workload
each give the pods' labels, and all get ``duplicate-object``. Each case
failed before; the property then permutes the order the files are read
in and holds the report's bytes equal.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.cli import main
from tests.minimal_tree import DECLARATION, TEMPLATE


def _policy(types: str) -> str:
    return f"""\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: lockdown, namespace: sbx}}
spec:
  podSelector:
    matchLabels: {{sandbox.namzu.ai/template: task}}
  policyTypes: [{types}]
"""


BASELINE = """\
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject:
    namespaces: {}
  egress:
    - name: allow-all
      action: Allow
      to:
        - networks: [0.0.0.0/0]
"""
LATER_TIER = """\
apiVersion: projectcalico.org/v3
kind: Tier
metadata: {name: later}
spec: {order: 2000000}
---
apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata: {name: later.allow-out}
spec:
  tier: later
  selector: all()
  types: [Egress]
  egress:
    - action: Allow
"""
WORKLOAD_DECLARATION = """\
version: 1
defaultNamespace: shop
sandboxes:
  - workload: {kind: Deployment, name: api}
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""


def _deployment(app: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: api, namespace: shop}}
spec:
  selector: {{matchLabels: {{app: {app}}}}}
  template:
    metadata: {{labels: {{app: {app}}}}}
    spec: {{containers: [{{name: api, image: x}}]}}
"""


WORKLOAD_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-egress, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
"""

CASES: dict[str, tuple[str, dict[str, str]]] = {
    "no-enforcing": (
        DECLARATION,
        {"t.yaml": TEMPLATE, "a.yaml": _policy("Egress"), "b.yaml": _policy("Ingress")},
    ),
    "baseline": (
        DECLARATION,
        {
            "t.yaml": TEMPLATE,
            "a.yaml": _policy("Egress"),
            "b.yaml": _policy("Ingress"),
            "banp.yaml": BASELINE,
        },
    ),
    "calico-tier": (
        DECLARATION,
        {
            "t.yaml": TEMPLATE,
            "a.yaml": _policy("Egress"),
            "b.yaml": _policy("Ingress"),
            "tier.yaml": LATER_TIER,
        },
    ),
    "workload": (
        WORKLOAD_DECLARATION,
        {"a.yaml": _deployment("api"), "b.yaml": _deployment("other"), "np.yaml": WORKLOAD_POLICY},
    ),
}


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)


def _written(root: Path, case: str) -> list[str]:
    declaration, files = CASES[case]
    (root / ".egress-lint.yaml").write_text(declaration)
    for name, text in files.items():
        (root / name).write_text(text)
    return list(files)


def _check(files: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *files, "--format", "json"], catch_exceptions=False)
    return result.exit_code, result.stdout


def _rules(stdout: str) -> list[str]:
    return sorted(finding["ruleId"] for finding in json.loads(stdout)["findings"])


@pytest.mark.parametrize("reverse", [False, True])
def test_a_non_isolating_copy_keeps_no_enforcing_policy(in_tmp: Path, reverse: bool) -> None:
    files = _written(in_tmp, "no-enforcing")
    code, stdout = _check(files[::-1] if reverse else files)
    assert code == 1
    assert "no-enforcing-egress-policy" in _rules(stdout)
    assert "duplicate-object" in _rules(stdout)
    examined = json.loads(stdout)["sandboxes"][0]["egress"]["union"]["examined"]
    assert any("another copy of the same name" in (e.get("detail") or "") for e in examined)


def test_an_isolating_copy_alone_still_isolates(in_tmp: Path) -> None:
    """The same tree with both copies isolating: nothing to report."""
    _written(in_tmp, "no-enforcing")
    (in_tmp / "b.yaml").write_text(_policy("Egress, Ingress"))
    code, stdout = _check(["t.yaml", "a.yaml", "b.yaml"])
    assert "no-enforcing-egress-policy" not in _rules(stdout)
    assert code == 1  # the copies themselves are reported
    assert "duplicate-object" in _rules(stdout)


@pytest.mark.parametrize("case", ["baseline", "calico-tier"])
def test_a_non_isolating_copy_excuses_no_allow_all(in_tmp: Path, case: str) -> None:
    files = _written(in_tmp, case)
    for order in (files, files[::-1]):
        code, stdout = _check(order)
        assert code == 1
        assert "egress-reach-widens" in _rules(stdout), order


def test_each_copy_of_a_workload_gives_the_pods_labels(in_tmp: Path) -> None:
    files = _written(in_tmp, "workload")
    outputs = {_check(order) for order in (files, files[::-1])}
    assert len(outputs) == 1
    code, stdout = outputs.pop()
    assert code == 1
    assert _rules(stdout) == ["duplicate-object", "no-enforcing-egress-policy"]
    assert json.loads(stdout)["sandboxes"][0]["podLabels"] == {"app": "other"}


@pytest.mark.parametrize("case", sorted(CASES))
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_file_order_never_changes_the_report(in_tmp: Path, case: str, data: st.DataObject) -> None:
    files = _written(in_tmp, case)
    first = _check(files)
    assert _check(data.draw(st.permutations(files))) == first


def test_a_widening_isolating_copy_excuses_no_baseline_either(in_tmp: Path) -> None:
    """The isolating copy widens too: the union refuses for the widening,
    and reach still does not count the copy as isolating."""
    files = _written(in_tmp, "baseline")
    widening = _policy("Egress") + "  egress:\n    - to: [{ipBlock: {cidr: 169.254.169.254/32}}]\n"
    (in_tmp / "a.yaml").write_text(widening)
    code, stdout = _check(files)
    assert code == 1
    assert {"egress-policy-widens", "egress-reach-widens"} <= set(_rules(stdout))


TWO_POOLED_TEMPLATES = """\
version: 1
defaultNamespace: sbx
sandboxes:
  - template: task
    host: none
    paths: [pooled]
    egress: {policy: {kind: deny-all}}
    ingress: unverified
  - template: other
    host: none
    paths: [pooled]
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""


def _group_policy(types: str) -> str:
    return _policy(types).replace("{sandbox.namzu.ai/template: task}", "{group: g}")


def _group_template(name: str) -> str:
    return f"""\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {{name: {name}, namespace: sbx}}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {{metadata: {{labels: {{group: g}}}}, spec: {{containers: [{{name: a, image: x}}]}}}}
"""


def test_every_template_s_pods_see_the_split_copy_as_not_isolating(in_tmp: Path) -> None:
    """Two templates whose pooled pods carry the same labels judge each
    copy once between them (one memo, two scopes). Reach must still find
    the isolating copy split on both: the second template once took it as
    isolating, and its pods passed the baseline's allow-all without a word."""
    (in_tmp / ".egress-lint.yaml").write_text(TWO_POOLED_TEMPLATES)
    files = {
        "t-task.yaml": _group_template("task"),
        "t-other.yaml": _group_template("other"),
        "a.yaml": _group_policy("Egress"),
        "b.yaml": _group_policy("Ingress"),
        "banp.yaml": BASELINE,
    }
    for name, text in files.items():
        (in_tmp / name).write_text(text)
    code, stdout = _check(list(files))
    assert code == 1
    sandboxes = json.loads(stdout)["sandboxes"]
    assert [s["template"] for s in sandboxes] == ["other", "task"]
    for sandbox in sandboxes:
        reach = sandbox["egress"]["reach"]
        assert reach["refusal"] == "policy-widens-egress", sandbox["template"]
        verdicts = {(e["kind"], e["verdict"]) for e in reach["examined"]}
        assert ("BaselineAdminNetworkPolicy", "widens-egress") in verdicts
