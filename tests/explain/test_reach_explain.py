"""explain shows reach's documents, and ``--to`` answers through them: an
Admin-tier rule that admits the destination is named (CLUSTER-POLICIES §11)."""

from __future__ import annotations

import json

from tests.checks.scenario_runner import SCENARIOS, run_cli


def _explain(scenario: str, *extra: str) -> dict[str, object]:
    outcome = run_cli(
        ["explain", ".", "--template", "task", "--format", "json", *extra], SCENARIOS / scenario
    )
    assert outcome.exit_code in (0, 1), outcome.stderr
    result: dict[str, object] = json.loads(outcome.stdout)
    return result


def test_explain_lists_the_reach_documents() -> None:
    reach = _explain("admin-network-policy")["reach"]
    assert isinstance(reach, dict)
    # Nothing declares the kind enforced, so its Allow may let the pod out.
    assert reach["refusal"] == "not-evaluable"
    assert [
        (e["kind"], e["name"], e["line"])
        for e in reach["examined"]
        if e["kind"] == "AdminNetworkPolicy"
    ] == [("AdminNetworkPolicy", "cluster-egress", 23)]


def test_to_names_the_admin_rule_that_admits_the_destination() -> None:
    to = _explain("admin-network-policy", "--to", "1.1.1.1:443")["to"]
    assert isinstance(to, dict)
    # The headline is the cluster's: the Admin-tier Allow comes before every
    # NetworkPolicy (issue 25), but nothing declares the kind enforced, so it
    # may admit it or not; the host's own answer follows, unchanged.
    assert (to["verdict"], to["hostVerdict"]) == ("unknown", "denied")
    assert to["reason"].startswith(
        "the cluster may allow or deny it (AdminNetworkPolicy/cluster-egress: nothing says "
        "the cluster enforces AdminNetworkPolicy"
    )
    assert (
        'kube-admin: AdminNetworkPolicy/cluster-egress egress rule 0 ("allow-all") (allow) '
        "at manifests.yaml:23" in to["reason"]
    )
    assert to["outsideVerdict"] == "undecided"
    assert to["decidingRules"][0] == (
        'kube-admin: AdminNetworkPolicy/cluster-egress egress rule 0 ("allow-all") (allow) '
        "at manifests.yaml:23"
    )
    (admit,) = to["reachAdmittedBy"]
    assert "list AdminNetworkPolicy in the declaration's `cluster.enforces`" in admit["why"]
    assert to["reachAdmittedBy"] == [
        {
            "kind": "AdminNetworkPolicy",
            "name": "cluster-egress",
            "rule": 0,
            "ruleName": "allow-all",
            "file": "manifests.yaml",
            "line": 31,
            "ports": "every port",
            "certain": False,
            "why": admit["why"],
        }
    ]


def test_an_admin_rule_of_another_namespace_admits_nothing() -> None:
    to = _explain("reach-anp-other-namespace", "--to", "1.1.1.1:443")["to"]
    assert isinstance(to, dict)
    assert to["reachAdmittedBy"] == []


def test_a_destination_outside_the_rule_is_not_admitted() -> None:
    # A name may resolve into the rule's 0.0.0.0/0; the rule with an
    # unreadable `protocols` entry may admit anything (issue 13: ports are read).
    # Only the rule on networks may match a name (the kube-system selector
    # rule never does); on UDP 53 of an address, either rule may decide.
    # Nothing declares the kind enforced, so neither is certain.
    to = _explain("reach-cluster-network-policy", "--to", "api.github.com:443")["to"]
    assert isinstance(to, dict)
    assert [(a["rule"], a["certain"]) for a in to["reachAdmittedBy"]] == [(1, False)]
    to = _explain("reach-cluster-network-policy", "--to", "8.8.8.8:53/UDP")["to"]
    assert isinstance(to, dict)
    assert [(a["rule"], a["certain"]) for a in to["reachAdmittedBy"]] == [(0, False), (1, False)]
