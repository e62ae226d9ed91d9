"""Baselines keyed to everything the culprit lets out (issue 26, item 7).

A baseline entry's content hash covers every offending rule of its culprit
and the content of the objects those rules name, so any change to what it
lets out re-opens the finding. Both cases here stayed suppressed before
(exit 0): a rule allowing everything appended to a baselined policy, and a
CiliumCIDRGroup the baselined rule names widened to ``0.0.0.0/0``. A
culprit that did not change keeps the hash earlier versions wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lint.checks.culprits import content_hash, referenced_content
from lint.cli import main
from lint.decision.reach.model import ReachCandidate, ReachData
from tests.minimal_tree import DECLARATION, TEMPLATE

METADATA_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: meta, namespace: sbx}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
    - to: [{ipBlock: {cidr: 169.254.169.254/32}}]
"""
CIDR_GROUP = """\
apiVersion: cilium.io/v2
kind: CiliumCIDRGroup
metadata: {name: partners}
spec:
  externalCIDRs: [10.0.0.0/8]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: to-partners, namespace: sbx}
spec:
  endpointSelector:
    matchLabels: {sandbox.namzu.ai/template: task}
  egress:
    - toCIDRSet:
        - cidrGroupRef: partners
"""


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    previous = Path.cwd()
    os.chdir(tmp_path)
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", ".", *args], catch_exceptions=False)


def _baselined(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text)
    assert invoke("--write-baseline", "baseline.json").exit_code == 1
    assert invoke("--baseline", "baseline.json").exit_code == 0  # all suppressed


def _open_rules(result: Result) -> list[str]:
    findings = json.loads(result.stdout)["findings"]
    return sorted(f["ruleId"] for f in findings if not f.get("suppressed"))


def test_appending_a_rule_that_allows_everything_reopens_the_finding(in_tmp: Path) -> None:
    _baselined(in_tmp, "p.yaml", METADATA_POLICY)
    (in_tmp / "p.yaml").write_text(METADATA_POLICY + "    - {}\n")
    result = invoke("--baseline", "baseline.json", "--format", "json")
    assert result.exit_code == 1
    assert "egress-policy-widens" in _open_rules(result)


def test_widening_a_named_cidr_group_reopens_the_finding(in_tmp: Path) -> None:
    _baselined(in_tmp, "g.yaml", CIDR_GROUP)
    (in_tmp / "g.yaml").write_text(CIDR_GROUP.replace("10.0.0.0/8", "0.0.0.0/0"))
    result = invoke("--baseline", "baseline.json", "--format", "json")
    assert result.exit_code == 1
    assert "egress-reach-widens" in _open_rules(result)


def test_an_unchanged_culprit_stays_suppressed_and_keeps_the_old_hash(in_tmp: Path) -> None:
    _baselined(in_tmp, "p.yaml", METADATA_POLICY)
    (in_tmp / "unrelated.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: sbx}\n"
    )
    assert invoke("--baseline", "baseline.json").exit_code == 0
    entries = json.loads((in_tmp / "baseline.json").read_text())["findings"]
    entry = next(e for e in entries if e["ruleId"] == "egress-policy-widens")
    rule = {"to": [{"ipBlock": {"cidr": "169.254.169.254/32"}}]}
    # The digest earlier versions wrote for a culprit of one offending rule.
    text = "\x1f".join(
        ("NetworkPolicy", "sbx", "meta", json.dumps(rule, sort_keys=True, separators=(",", ":")))
    )
    assert entry["culprit"]["contentHash"] == hashlib.sha256(text.encode()).hexdigest()[:16]


def test_the_hash_covers_what_the_rules_name_in_no_file_order() -> None:
    def group(name: str, cidr: str) -> ReachCandidate:
        raw = {"metadata": {"name": name}, "spec": {"externalCIDRs": [cidr]}}
        return ReachCandidate("cilium.io/v2", "CiliumCIDRGroup", raw)

    rule = {"toCIDRSet": [{"cidrGroupRef": "a"}]}
    groups = (group("a", "10.0.0.0/8"), group("b", "0.0.0.0/0"))
    named = referenced_content([rule], "CiliumNetworkPolicy", ReachData(cidr_groups=groups))
    assert named == [["CiliumCIDRGroup", groups[0].raw]]  # only the group named
    swapped = ReachData(cidr_groups=groups[::-1])
    selector: dict[str, object] = {"toCIDRSet": [{"cidrGroupSelector": {}}]}
    assert referenced_content([selector], "CiliumNetworkPolicy", swapped) == referenced_content(
        [selector], "CiliumNetworkPolicy", ReachData(cidr_groups=groups)
    )
    first = content_hash("CiliumNetworkPolicy", "sbx", "p", rule, None, more=named)
    widened = [["CiliumCIDRGroup", group("a", "0.0.0.0/0").raw]]
    assert content_hash("CiliumNetworkPolicy", "sbx", "p", rule, None, more=widened) != first
