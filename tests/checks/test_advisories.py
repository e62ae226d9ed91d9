"""Stricter-than-the-host advisories (issue 15, item 7): each warns where
the host accepts what the network may not keep out, at the culprit's line,
and none changes a verdict or the exit status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lint.decision.advisories import covered_families, whole_family_peers
from lint.decision.cidr import parse_cidr
from tests.checks.scenario_runner import SCENARIOS, run_cli

SCENARIO = SCENARIOS / "host-accepts-network-may-not"
TEMPLATE = (SCENARIO / "manifests.yaml").read_text(encoding="utf-8").split("---\n")[0]
NAMED = (SCENARIO / "manifests.yaml").read_text(encoding="utf-8").split("---\n")[1]
DECLARATION = """\
version: 1
defaultNamespace: sbx
sandboxes:
  - template: task
    egress:
      policy: {{kind: public-internet{extra}}}
    ingress: {{engine: cilium}}
"""
SPLIT_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: agent-ingress, namespace: sbx}}
spec:
  podSelector:
    matchLabels: {{sandbox.namzu.ai/template: task}}
  policyTypes: [Ingress]
  ingress:
    - from:
{peers}
      ports:
        - {{protocol: TCP, port: {port}}}
"""
CLUSTERWIDE_POLICY = """\
apiVersion: cilium.io/v2
kind: {kind}
metadata: {{name: agent-ingress{namespace}}}
spec:
  endpointSelector:
    matchLabels: {{sandbox.namzu.ai/template: task}}
  ingress:
    - fromEndpoints: [{selector}]
      toPorts:
        - ports: [{{port: "1024", protocol: TCP}}]
"""


def _check(tmp_path: Path, *policies: str, extra: str = "") -> tuple[int, dict[str, Any]]:
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION.format(extra=extra), "utf-8")
    text = "---\n".join([TEMPLATE, NAMED, *policies])
    (tmp_path / "manifests.yaml").write_text(text, encoding="utf-8")
    outcome = run_cli(["check", ".", "--format", "json"], tmp_path)
    return outcome.exit_code, outcome.report


def _line_of(tmp_path: Path, needle: str) -> int:
    text = (tmp_path / "manifests.yaml").read_text(encoding="utf-8")
    return text[: text.index(needle)].count("\n") + 1


def _findings(report: dict[str, Any], rule_id: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["ruleId"] == rule_id]


def _peers(*cidrs: str) -> str:
    return "\n".join(f'        - ipBlock: {{cidr: "{cidr}"}}' for cidr in cidrs)


# --- ingress-peers-cover-everything -------------------------------------------


@pytest.mark.parametrize(
    ("cidrs", "families"),
    [
        (("0.0.0.0/1", "128.0.0.0/1"), (4,)),
        (("0:0:0:0:0:0:0:0/0",), (6,)),
        (("0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/1", "::/1", "8000::/1"), (4, 6)),
        (("0.0.0.0/1", "128.0.0.0/2"), ()),
        (("0.0.0.0/1", "0.0.0.0/1"), ()),
        (("::/0", "0.0.0.0/1", "128.0.0.0/1"), ()),  # the host already reads it as open
    ],
)
def test_whole_family_peers(cidrs: tuple[str, ...], families: tuple[int, ...]) -> None:
    assert whole_family_peers(cidrs) == families


def test_covered_families_merges_overlapping_ranges() -> None:
    parsed = [parse_cidr(text) for text in ("10.0.0.0/8", "0.0.0.0/1", "64.0.0.0/2", "128.0.0.0/1")]
    assert covered_families(c for c in parsed if c is not None) == (4,)


def test_split_peers_on_the_agent_port_warn_at_the_rule(tmp_path: Path) -> None:
    policy = SPLIT_POLICY.format(peers=_peers("0.0.0.0/1", "128.0.0.0/1"), port=1024)
    code, report = _check(tmp_path, policy)
    (finding,) = _findings(report, "ingress-peers-cover-everything")
    assert finding["level"] == "warning"
    assert finding["line"] == _line_of(tmp_path, "    - from:")
    assert "every IPv4 address on TCP 1024" in finding["message"]
    # The host's own decision stands: the port is closed, the run passes.
    assert report["sandboxes"][0]["ingress"]["refusal"] is None
    assert code == 0


def test_long_form_any_address_warns(tmp_path: Path) -> None:
    policy = SPLIT_POLICY.format(peers=_peers("0:0:0:0:0:0:0:0/0"), port=1024)
    _, report = _check(tmp_path, policy)
    (finding,) = _findings(report, "ingress-peers-cover-everything")
    assert "every IPv6 address" in finding["message"]


@pytest.mark.parametrize(
    ("peers", "port"),
    [
        (_peers("0.0.0.0/1", "10.0.0.0/8"), 1024),  # a gap remains
        (_peers("0.0.0.0/1", "128.0.0.0/1"), 8080),  # not the agent port
        (
            "        - ipBlock: {cidr: 0.0.0.0/1, except: [10.0.0.0/8]}\n" + _peers("128.0.0.0/1"),
            1024,
        ),
    ],
)
def test_peers_that_leave_a_gap_or_miss_the_port_do_not_warn(
    tmp_path: Path, peers: str, port: int
) -> None:
    _, report = _check(tmp_path, SPLIT_POLICY.format(peers=peers, port=port))
    assert _findings(report, "ingress-peers-cover-everything") == []


# --- clusterwide-endpoints-admit-every-pod ---------------------------------------


def test_clusterwide_empty_endpoint_selector_warns(tmp_path: Path) -> None:
    policy = CLUSTERWIDE_POLICY.format(
        kind="CiliumClusterwideNetworkPolicy", namespace="", selector="{}"
    )
    code, report = _check(tmp_path, policy)
    (finding,) = _findings(report, "clusterwide-endpoints-admit-every-pod")
    assert finding["level"] == "warning"
    assert finding["line"] == _line_of(tmp_path, "    - fromEndpoints")
    assert report["sandboxes"][0]["ingress"]["refusal"] is None
    assert code == 0


@pytest.mark.parametrize(
    ("kind", "namespace", "selector"),
    [
        ("CiliumNetworkPolicy", ", namespace: sbx", "{}"),  # its own namespace only
        ("CiliumClusterwideNetworkPolicy", "", "{matchLabels: {namzu.ai/component: host}}"),
    ],
)
def test_a_namespaced_or_labelled_endpoint_selector_does_not_warn(
    tmp_path: Path, kind: str, namespace: str, selector: str
) -> None:
    policy = CLUSTERWIDE_POLICY.format(kind=kind, namespace=namespace, selector=selector)
    _, report = _check(tmp_path, policy)
    assert _findings(report, "clusterwide-endpoints-admit-every-pod") == []


# --- nat-prefix-reaches-private ----------------------------------------------------


def test_public_internet_reaching_nat64_warns_at_the_declaration(tmp_path: Path) -> None:
    _, report = _check(tmp_path)
    (finding,) = _findings(report, "nat-prefix-reaches-private")
    assert (finding["file"], finding["line"], finding["level"]) == (
        ".egress-lint.yaml",
        6,
        "warning",
    )
    assert "64:ff9b::/96 and 64:ff9b:1::/48" in finding["message"]
    # The union still passes: the named object is the exact translation.
    assert report["sandboxes"][0]["egress"]["union"]["refusal"] is None


def test_excluding_the_nat64_prefixes_silences_the_warning(tmp_path: Path) -> None:
    extra = ', exceptCidrs: ["64:ff9b::/96", "64:ff9b:1::/48"]'
    named = NAMED.replace('"::1/128"]', '"::1/128", "64:ff9b::/96", "64:ff9b:1::/48"]')
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION.format(extra=extra), "utf-8")
    (tmp_path / "manifests.yaml").write_text(TEMPLATE + "---\n" + named, encoding="utf-8")
    outcome = run_cli(["check", ".", "--format", "json"], tmp_path)
    assert outcome.report["sandboxes"][0]["egress"]["named"]["result"] == "match"
    assert _findings(outcome.report, "nat-prefix-reaches-private") == []


def test_one_nat64_prefix_left_in_is_named_alone(tmp_path: Path) -> None:
    extra = ', exceptCidrs: ["64:ff9b::/96"]'
    _, report = _check(tmp_path, extra=extra)
    (finding,) = _findings(report, "nat-prefix-reaches-private")
    assert "prefix 64:ff9b:1::/48;" in finding["message"]
