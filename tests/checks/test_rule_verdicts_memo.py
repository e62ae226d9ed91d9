"""The egress rule verdicts a namespace's paths share
(``JudgmentMemo.rule_verdicts_of``): one memo per union context and set of
CIDR groups, so a rule written alike in two policies is judged once under
one allowance and again under another."""

from __future__ import annotations

import json
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from lint.checks.context import JudgmentMemo, kept_with
from tests.checks.scenario_runner import run_cli


def test_one_memo_per_context_and_cidr_groups() -> None:
    memo = JudgmentMemo()
    memo.begin_namespace("a")
    groups: tuple[object, ...] = ()
    first = memo.rule_verdicts_of(("egress", "deny-all"), groups)
    assert memo.rule_verdicts_of(("egress", "deny-all"), groups) is first
    assert memo.rule_verdicts_of(("egress", "allow-all"), groups) is not first
    # Other CIDR groups (another run's): nothing judged with the first is kept.
    assert memo.rule_verdicts_of(("egress", "deny-all"), ((),)) is not first
    memo.begin_namespace("b")
    assert memo.rule_verdicts == {}


_TEMPLATE = """apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {{name: {name}, namespace: sbx}}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {{spec: {{containers: [{{name: a, image: x}}]}}}}
"""

# The same rule in two policies, each selecting one template's pods.
_POLICY = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: extra-{name}, namespace: sbx}}
spec:
  podSelector: {{matchLabels: {{sandbox.namzu.ai/template: {name}}}}}
  policyTypes: [Egress]
  egress: [{{to: [{{ipBlock: {{cidr: 10.0.0.0/8}}}}], ports: [{{port: 443}}]}}]
"""

_ENTRY = """  - template: {name}
    egress:
      policy: {{kind: {kind}}}
    ingress: unverified
"""


@pytest.mark.parametrize("order", [["deny-all", "allow-all"], ["allow-all", "deny-all"]])
def test_a_rule_alike_in_two_policies_is_judged_under_each_allowance(
    tmp_path: Path, order: list[str]
) -> None:
    names = {kind: f"t-{kind}" for kind in order}
    manifests = [_TEMPLATE.format(name=n) for n in names.values()]
    manifests += [_POLICY.format(name=n) for n in names.values()]
    (tmp_path / "manifests.yaml").write_text("---\n".join(manifests))
    entries = "".join(_ENTRY.format(name=names[kind], kind=kind) for kind in order)
    declaration = f"version: 1\ndefaultNamespace: sbx\nsandboxes:\n{entries}"
    (tmp_path / ".egress-lint.yaml").write_text(declaration)
    outcome = run_cli(["check", ".", "--format", "json", "--jobs", "1"], tmp_path)
    verdicts = {}
    for sandbox in json.loads(outcome.stdout)["sandboxes"]:
        examined = sandbox["egress"]["union"]["examined"]
        own = f"extra-{sandbox['template']}"
        verdicts[sandbox["template"]] = [e["verdict"] for e in examined if e["name"] == own]
    assert verdicts == {"t-deny-all": ["widens-egress"], "t-allow-all": ["within"]}


def test_a_kept_value_is_made_again_for_another_holder() -> None:
    """``kept_with``: once per key while the holder is the same object; a
    value made for another holder (another run's inventory) is never handed
    back, even under the same key."""
    table: dict[Hashable, tuple[object, Any]] = {}
    made: list[int] = []

    def make() -> int:
        made.append(len(made))
        return made[-1]

    first, second = object(), object()
    assert kept_with(table, "k", first, make) == 0
    assert kept_with(table, "k", first, make) == 0
    assert kept_with(table, "k", second, make) == 1
    assert kept_with(table, "other", second, make) == 2
    assert made == [0, 1, 2]
