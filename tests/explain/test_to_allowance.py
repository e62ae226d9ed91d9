"""``explain --to DEST`` answers with its exit status (issue 13, item 7):
1 when DEST is let out beyond the allowance, 0 when it is inside it (or
not let out at all), 2 on a destination in none of the accepted forms. An
address is judged against CIDR peers exactly (ipBlock ``except``, Calico
``nets``/``notNets``, admin ``networks``), on the rule's ports; Calico
allow rules are answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.checks.scenario_runner import DEMO, run_cli
from tests.minimal_tree import TEMPLATE

BASE = (
    TEMPLATE
    + """\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: task-egress, namespace: sbx}
spec:
  podSelector:
    matchLabels: {sandbox.namzu.ai/template: task}
  policyTypes: [Egress]
  egress:
    - to:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: kube-system}
      ports:
        - {protocol: UDP, port: 53}
        - {protocol: TCP, port: 53}
"""
)

HTTPS_OUT = """\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: https-out, namespace: sbx}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
    - to:
        - ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8]}
      ports:
        - {protocol: TCP, port: 443}
"""

CALICO = """\
---
apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata: {name: partner}
spec:
  selector: all()
  types: [Egress]
  egress:
    - action: Allow
      protocol: TCP
      destination:
        nets: [203.0.113.0/24]
        notNets: [203.0.113.128/25]
        ports: [443]
    - action: Allow
      destination:
        selector: app == 'proxy'
"""


DECLARATION = """\
version: 1
sandboxes:
  - template: task
    namespace: sbx
    egress: {policy: {kind: deny-all}}
"""
"""The namzu host's sandbox, whose pods carry its template label: without a
declaration file a template is judged as `host: none` (issue 25)."""


def _tree(tmp_path: Path, *parts: str) -> Path:
    (tmp_path / "manifests.yaml").write_text(BASE + "".join(parts), "utf-8")
    (tmp_path / ".egress-lint.yaml").write_text(DECLARATION, "utf-8")
    return tmp_path


def _explain(tree: Path, to: str, *extra: str) -> tuple[int, dict[str, Any]]:
    outcome = run_cli(
        ["explain", ".", "--template", "task", "--to", to, "--format", "json", *extra], tree
    )
    assert outcome.exit_code in (0, 1), outcome.stderr
    return outcome.exit_code, json.loads(outcome.stdout)["to"]


def test_the_demo_metadata_address_is_outside_the_allowance() -> None:
    args = ["explain", "fixtures/demo", "--template", "namzu-task"]
    repo = DEMO.parents[1]
    outcome = run_cli([*args, "--to", "169.254.169.254:80/TCP"], repo)
    assert outcome.exit_code == 1
    # Text wraps at word boundaries (issue 13): compare with the breaks undone.
    unwrapped = " ".join(outcome.stdout.split())
    assert "allowance: OUTSIDE the allowance, let out by NetworkPolicy/allow-instance-metadata" in (
        unwrapped
    )
    # Only the DNS rules of `within` policies may reach 10.0.0.0/8: nothing
    # beyond the allowance, though the verdict stays unknown.
    outcome = run_cli([*args, "--to", "10.0.0.0/8", "--format", "json"], repo)
    assert outcome.exit_code == 0
    to = json.loads(outcome.stdout)["to"]
    assert to["verdict"] == "unknown"
    assert to["allowance"] == {"inside": False, "outside": False, "routes": []}


def test_a_host_the_allowance_names_is_inside_it() -> None:
    outcome = run_cli(
        ["explain", "fixtures/demo", "--template", "namzu-build", "--to", "api.github.com:443"],
        DEMO.parents[1],
    )
    assert outcome.exit_code == 0
    assert "allowance: inside the allowance" in outcome.stdout


@pytest.mark.parametrize(
    ("to", "verdict", "outside", "code"),
    [
        # An ipBlock may not match a pod's or node's address: the verdict is
        # undecided, and allowed for an address no pod or node holds.
        ("8.8.8.8:443", "unknown", "allowed", 1),
        # Not through https-out (TCP 443 only); the DNS rule of the `within`
        # policy may reach it (a kube-system pod?), which stays inside.
        ("8.8.8.8:53/UDP", "unknown", "denied", 0),
        ("8.8.8.8:443/UDP", "denied", "denied", 0),
        ("10.1.2.3:443", "denied", "denied", 0),  # inside the `except` hole
        ("11.0.0.1:443", "unknown", "allowed", 1),
        # Every port asked: TCP 443 of it is let out.
        ("8.8.8.0/24", "unknown", "partly-allowed", 1),
    ],
)
def test_ip_blocks_are_judged_exactly_on_their_ports(
    tmp_path: Path, to: str, verdict: str, outside: str, code: int
) -> None:
    exit_code, answer = _explain(_tree(tmp_path, HTTPS_OUT), to)
    assert (answer["verdict"], answer["outsideVerdict"], exit_code) == (verdict, outside, code)
    assert answer["allowance"]["outside"] is bool(code)


def test_a_policy_that_lets_nothing_out_beyond_the_allowance_exits_0(tmp_path: Path) -> None:
    exit_code, answer = _explain(_tree(tmp_path), "8.8.8.8:443")
    assert (answer["verdict"], exit_code) == ("denied", 0)


@pytest.mark.parametrize(
    ("to", "admitted", "code"),
    [
        # Rule 0 matches first: the selector rule after it never decides.
        ("203.0.113.5:443", [(0, True)], 1),
        ("203.0.113.200:443", [(1, False)], 1),  # in notNets; the selector rule may reach it
        ("203.0.113.5:80", [(1, False)], 1),  # the nets rule is TCP 443 only
    ],
)
def test_calico_allow_rules_are_answered_with_nets_not_nets_and_ports(
    tmp_path: Path, to: str, admitted: list[tuple[int, bool]], code: int
) -> None:
    exit_code, answer = _explain(_tree(tmp_path, CALICO), to)
    assert [(a["rule"], a["certain"]) for a in answer["reachAdmittedBy"]] == admitted
    assert exit_code == code


def test_a_calico_rule_on_nets_alone_admits_nothing_else(tmp_path: Path) -> None:
    only_nets = CALICO.split(
        "    - action: Allow\n      destination:\n        selector", maxsplit=1
    )[0]
    exit_code, answer = _explain(_tree(tmp_path, only_nets), "203.0.113.200:443")
    assert answer["reachAdmittedBy"] == []
    assert exit_code == 0
    exit_code, answer = _explain(_tree(tmp_path, only_nets), "203.0.113.5:443")
    assert [a["kind"] for a in answer["reachAdmittedBy"]] == [
        "GlobalNetworkPolicy.projectcalico.org"
    ]
    assert exit_code == 1


@pytest.mark.parametrize(
    ("to", "message"),
    [
        ("foo", "a hostname needs a port"),
        ("1.2.3.4:99999", "the port must be from 1 to 65535"),
        ("1.2.3.4:80/ICMP", "the protocol must be one of TCP, UDP, SCTP"),
        ("300.1.1.1/8", "not a destination"),
    ],
)
def test_a_bad_destination_is_a_usage_error(tmp_path: Path, to: str, message: str) -> None:
    outcome = run_cli(["explain", ".", "--template", "task", "--to", to], _tree(tmp_path))
    assert outcome.exit_code == 2
    assert message in outcome.stderr and outcome.stdout == ""


def test_help_documents_the_exit_status() -> None:
    outcome = run_cli(["explain", "--help"], DEMO)
    assert "Exit status:" in outcome.stdout
    assert "let out beyond the allowance" in outcome.stdout
