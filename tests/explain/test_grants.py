"""What a rule lets out, read with the engine's readers (SEMANTICS §7,
§9.1, §9.5, §10.2): unreadable rules stay unreadable instead of guessed."""

from __future__ import annotations

from typing import Any

import pytest

from lint.explain.grants import (
    Block,
    Entity,
    EveryDestination,
    Fqdn,
    Opaque,
    Pods,
    cilium_rule_grants,
    core_rule_grants,
)


def _core(rule: Any) -> list[tuple[str, str]]:
    read = core_rule_grants(rule)
    assert read.unreadable is None
    return [(g.destination, g.ports_text) for g in read.grants]


def _cilium(rule: Any, clusterwide: bool = False) -> list[tuple[str, str]]:
    read = cilium_rule_grants(rule, clusterwide=clusterwide)
    assert read.unreadable is None
    return [(g.destination, g.ports_text) for g in read.grants]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({}, [("every destination", "every port")]),
        ({"ports": [{"port": 443}]}, [("every destination", "TCP 443")]),
        (
            {"to": [], "ports": [{"protocol": "udp", "port": "53"}]},
            [("every destination", "UDP 53")],
        ),
        (
            {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]},
            [("0.0.0.0/0 except 10.0.0.0/8", "every port")],
        ),
        (
            {"to": [{"namespaceSelector": {"matchLabels": {"team": "a"}}, "podSelector": {}}]},
            [("every pod in namespaces {team=a}", "every port")],
        ),
        (
            {
                "to": [
                    {
                        "podSelector": {
                            "matchExpressions": [
                                {"key": "app", "operator": "In", "values": ["x", "y"]}
                            ]
                        }
                    }
                ]
            },
            [("pods {app In (x, y)} in the policy's namespace", "every port")],
        ),
        ({"to": [{"namespaceSelector": {}}]}, [("every pod in every namespace", "every port")]),
        (
            {"to": [{"ipBlock": {"cidr": "not-a-cidr"}}]},
            [('a `to` peer that cannot be read: {"ipBlock":{"cidr":"not-a-cidr"}}', "every port")],
        ),
    ],
)
def test_core_rules(rule: Any, expected: list[tuple[str, str]]) -> None:
    assert _core(rule) == expected


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        ("not a rule", "not an object"),
        ({"ports": [{"port": "https"}]}, "cannot be read"),
        ({"to": "everyone"}, "`to` is not a list"),
    ],
)
def test_unreadable_core_rules(rule: Any, reason: str) -> None:
    read = core_rule_grants(rule)
    assert read.grants == ()
    assert read.unreadable is not None and reason in read.unreadable


def test_core_targets_are_typed_for_matching() -> None:
    grants = core_rule_grants(
        {"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}, {"podSelector": {}}]}
    ).grants
    assert [type(g.target) for g in grants] == [Block, Pods]
    assert type(core_rule_grants({}).grants[0].target) is EveryDestination


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            {"toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]},
            [("every destination", "TCP 443")],
        ),
        (
            {"toFQDNs": [{"matchName": "api.github.com"}, {"matchPattern": "*.pypi.org"}]},
            [("host api.github.com", "every port"), ("hosts matching *.pypi.org", "every port")],
        ),
        (
            {
                "toCIDRSet": [{"cidr": "0.0.0.0/0", "except": ["169.254.0.0/16"]}],
                "toCIDR": ["1.1.1.1/32"],
            },
            [("1.1.1.1/32", "every port"), ("0.0.0.0/0 except 169.254.0.0/16", "every port")],
        ),
        ({"toEntities": ["world"]}, [("entity world", "every port")]),
        (
            {
                "toEndpoints": [
                    {
                        "matchLabels": {
                            "k8s:io.kubernetes.pod.namespace": "kube-system",
                            "k8s:k8s-app": "kube-dns",
                        }
                    }
                ],
                "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}],
            },
            [
                (
                    "pods {k8s-app=kube-dns} in namespaces {kubernetes.io/metadata.name=kube-system}",
                    "any 53",
                )
            ],
        ),
        (
            {"toEndpoints": [{"matchLabels": {}}]},
            [("every pod in the policy's namespace", "every port")],
        ),
        (
            {"toServices": [{"k8sService": {"serviceName": "x"}}]},
            [
                (
                    '`toServices` entry {"k8sService":{"serviceName":"x"}}, which cannot be enumerated offline',
                    "every port",
                )
            ],
        ),
        (
            {"toEndpoints": [{"matchLabels": {"app": "x"}, "matchExpressions": []}]},
            [
                (
                    'a `toEndpoints` entry that cannot be read: {"matchLabels":{"app":"x"},"matchExpressions":[]}',
                    "every port",
                )
            ],
        ),
    ],
)
def test_cilium_rules(rule: Any, expected: list[tuple[str, str]]) -> None:
    assert _cilium(rule) == expected


def test_a_clusterwide_endpoint_without_a_namespace_reaches_every_namespace() -> None:
    """SEMANTICS §17.3: read with an empty namespaceSelector."""
    rule = {"toEndpoints": [{"matchLabels": {"app": "x"}}]}
    assert _cilium(rule) == [("pods {app=x} in the policy's namespace", "every port")]
    assert _cilium(rule, clusterwide=True) == [("pods {app=x} in every namespace", "every port")]


def test_cilium_targets_are_typed_for_matching() -> None:
    grants = cilium_rule_grants(
        {"toFQDNs": [{"matchName": "a.example"}], "toEntities": ["all"], "toNodes": [{}]},
        clusterwide=False,
    ).grants
    assert sorted(type(g.target).__name__ for g in grants) == sorted(
        [Fqdn.__name__, Entity.__name__, Opaque.__name__]
    )


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        ({"toPorts": "443"}, "`toPorts` is not a list"),
        ({"toPorts": [{"ports": [{"port": "https"}]}]}, "port entry cannot be read"),
        ({"toCIDR": "10.0.0.0/8"}, "`toCIDR` is not a list"),
        ([], "not an object"),
    ],
)
def test_unreadable_cilium_rules(rule: Any, reason: str) -> None:
    read = cilium_rule_grants(rule, clusterwide=False)
    assert read.grants == ()
    assert read.unreadable is not None and reason in read.unreadable
