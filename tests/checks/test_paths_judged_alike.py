"""Paths that give the pod the same decision share it (issue 30).

Where the controller gives a template's pooled and warm pods the same
labels (v0.5.0 and v0.5.1, for a host other than namzu), the union judges
the two paths alike, and reach then reads the same union: one judgement
serves both, and only the findings, which name the path, are made for
each. The sharing must stay invisible: the direct path, whose pod has the
same labels there but whose candidates leave out the controller's policy,
and a pod variant with labels of its own are judged apart, and every path
is named in the findings of the culprits it meets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lint.checks.context import JUDGED_KEPT, JudgmentMemo
from lint.checks.controller import controller_setting
from lint.checks.egress import judge_egress
from lint.checks.runner import CheckOptions, run_check
from lint.checks.sandbox_checks import JudgedPath, check_context, judge_path, path_input
from lint.intake import take_in
from lint.report.json_report import report_document
from lint.sandboxes import declared_paths, pod_variants

EXT = "extensions.agents.x-k8s.io/v1beta1"
DECLARATION = """\
version: 1
defaultNamespace: sbx
agentSandbox: {version: v0.5.0}
sandboxes:
  - template: task
    host: none
    paths: [direct, pooled, warm]
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""
# `wide` selects every pod of the template; the admin policy, which reach
# alone reads, every pod of the cluster.
MANIFESTS = f"""\
apiVersion: {EXT}
kind: SandboxTemplate
metadata: {{name: task, namespace: sbx}}
spec:
  podTemplate: {{metadata: {{labels: {{app: a}}}}, spec: {{containers: [{{name: a, image: x}}]}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: wide, namespace: sbx}}
spec:
  podSelector: {{matchLabels: {{app: a}}}}
  policyTypes: [Egress]
  egress: [{{to: [{{ipBlock: {{cidr: 0.0.0.0/0}}}}]}}]
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {{name: open}}
spec:
  priority: 10
  subject: {{namespaces: {{}}}}
  egress:
    - name: allow-all
      action: Allow
      to: [{{networks: [0.0.0.0/0]}}]
"""
WIDE_RULE = MANIFESTS.splitlines().index("  egress: [{to: [{ipBlock: {cidr: 0.0.0.0/0}}]}]") + 1
OPEN_RULE = MANIFESTS.splitlines().index("    - name: allow-all") + 1


def _tree(tmp_path: Path, manifests: str = MANIFESTS, declaration: str = DECLARATION) -> Path:
    (tmp_path / "all.yaml").write_text(manifests)
    (tmp_path / ".egress-lint.yaml").write_text(declaration)
    return tmp_path


def _judged_paths(tree: Path) -> dict[str, list[JudgedPath]]:
    """Every pod variant of every path of the one declared sandbox, judged
    in order under one context, as ``check`` judges them."""
    intake = take_in(CheckOptions(paths=(str(tree),), config=tree / ".egress-lint.yaml"))
    ctx = check_context(intake, "auto")
    facts = controller_setting(None, intake.declarations, intake.inventory).facts
    (declared,) = intake.sandboxes
    namespace = intake.inventory.namespace(declared.namespace)
    judged: dict[str, list[JudgedPath]] = {}
    for path in declared_paths(declared, namespace):
        ctx.memo.begin_namespace(declared.namespace)
        for variant in pod_variants(path, namespace, declared.template):
            given = path_input(ctx, facts, declared, variant)
            judged.setdefault(path, []).append(JudgedPath(given, judge_egress(ctx, given)))
    return judged


def _report(tree: Path) -> dict[str, Any]:
    return report_document(
        run_check(CheckOptions(paths=(str(tree),), config=tree / ".egress-lint.yaml"))
    )


def _examined(sandbox: dict[str, Any], decision: str) -> dict[str, str]:
    return {e["name"]: e["verdict"] for e in sandbox["egress"][decision]["examined"]}


def test_the_pooled_and_warm_paths_share_one_judgement(tmp_path: Path) -> None:
    judged = _judged_paths(_tree(tmp_path))
    (direct,), (pooled,), (warm,) = judged["direct"], judged["pooled"], judged["warm"]
    assert pooled.egress.union is warm.egress.union
    assert pooled.egress.tiers is warm.egress.tiers
    assert pooled.egress.report.reach is warm.egress.report.reach
    # The direct path's pod is not selected by the controller's policy.
    assert direct.egress.union is not pooled.egress.union
    assert direct.egress.tiers is not pooled.egress.tiers


def test_a_path_judged_alone_is_judged_as_among_the_others(tmp_path: Path) -> None:
    """``judge_path`` (what ``explain`` asks) on a fresh context gives each
    path the report and findings ``check`` gave it among the others."""
    tree = _tree(tmp_path)
    among = _judged_paths(tree)
    intake = take_in(CheckOptions(paths=(str(tree),), config=tree / ".egress-lint.yaml"))
    facts = controller_setting(None, intake.declarations, intake.inventory).facts
    (declared,) = intake.sandboxes
    for path in ("warm", "direct", "pooled"):
        alone = judge_path(check_context(intake, "auto"), facts, declared, path)
        assert alone.egress.report == among[path][0].egress.report, path
        assert alone.egress.findings == among[path][0].egress.findings, path


def test_paths_judged_alike_differ_only_in_their_name(tmp_path: Path) -> None:
    report = _report(_tree(tmp_path))
    by_path = {s["path"]: s for s in report["sandboxes"]}
    assert by_path.keys() == {"direct", "pooled", "warm"}
    pooled, warm = by_path["pooled"], by_path["warm"]
    assert {**pooled, "path": "warm"} == warm
    assert _examined(warm, "reach") == {
        "wide": "widens-egress",
        "open": "widens-egress",
    }


def test_every_path_is_named_in_the_findings_of_its_culprits(tmp_path: Path) -> None:
    """Reach's own culprit (the admin policy) and the culprit reach blames
    with the union: each finding names every path that meets it, the path
    whose judgement was shared included."""
    findings = _report(_tree(tmp_path))["findings"]
    affected = {
        (f["ruleId"], f["line"]): [a["path"] for a in f["affected"]]
        for f in findings
        if f["ruleId"] in ("egress-reach-widens", "egress-policy-widens")
    }
    assert affected == {
        ("egress-policy-widens", WIDE_RULE): ["direct", "pooled", "warm"],
        ("egress-reach-widens", OPEN_RULE): ["direct", "pooled", "warm"],
    }


CLAIMS = f"""\
---
apiVersion: {EXT}
kind: SandboxClaim
metadata: {{name: plain, namespace: sbx}}
spec: {{sandboxTemplateRef: {{name: task}}}}
---
apiVersion: {EXT}
kind: SandboxClaim
metadata: {{name: tagged, namespace: sbx}}
spec:
  sandboxTemplateRef: {{name: task}}
  additionalPodMetadata: {{labels: {{tier: x}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: tier-x, namespace: sbx}}
spec:
  podSelector: {{matchLabels: {{tier: x}}}}
  policyTypes: [Egress]
  egress: [{{to: [{{ipBlock: {{cidr: 10.0.0.0/8}}}}]}}]
"""


@pytest.mark.parametrize("first", ["plain", "tagged"])
def test_pods_of_one_path_with_other_labels_are_judged_apart(first: str, tmp_path: Path) -> None:
    """Two claims give the pooled path two pods, one with a label of its
    own that one policy selects on: whichever is judged first, the other
    is not handed its judgement."""
    claims = CLAIMS
    if first == "tagged":  # the variants are judged in the claims' order
        claims = CLAIMS.replace("name: plain,", "name: z-plain,")
    declaration = DECLARATION.replace("[direct, pooled, warm]", "[pooled]")
    judged = _judged_paths(_tree(tmp_path, MANIFESTS + claims, declaration))["pooled"]
    assert len(judged) == 2
    verdicts = {
        variant.given.sandbox.claim: {
            e.entry.name: e.entry.verdict for e in variant.egress.union.entries()
        }
        for variant in judged
        if variant.egress.union is not None
    }
    tagged = next(claim for claim in verdicts if claim and "tagged" in claim)
    plain = next(claim for claim in verdicts if claim != tagged)
    assert verdicts[tagged]["tier-x"] != "does-not-select"
    assert verdicts[plain]["tier-x"] == "does-not-select"
    assert judged[0].egress.union is not judged[1].egress.union


def test_only_the_latest_judgements_are_kept() -> None:
    """A namespace of thousands of templates keeps no judgement of each:
    the memo holds the latest ones only, the oldest going first."""
    memo = JudgmentMemo()
    for number in range(JUDGED_KEPT + 5):
        memo.remember_judged(("key", number), (None, number))
    assert [value for _, value in memo.judged.values()] == list(range(5, JUDGED_KEPT + 5))
