"""Peers (SEMANTICS.md §9.1, §9.3, §9.5, §9.7, §4.1, §17.3, quirk Q17)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from lint.decision.cidr import parse_cidr
from lint.decision.model import Cidr, CidrPeer, Everything, Peer, SelectorPeer, Tri
from lint.decision.peers import (
    RESOLVER_PEER,
    ipblock_peer,
    peer_within,
    read_core_peer,
    read_endpoint_peer,
    wide_open,
)
from lint.decision.ports import CiliumPortsError, read_cilium_ports, read_port_list
from lint.decision.values import ABSENT, UNREADABLE, read_list

KUBE_SYSTEM = {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}
KUBE_DNS = {"matchLabels": {"k8s-app": "kube-dns"}}


def cidr(text: str) -> Cidr:
    parsed = parse_cidr(text)
    assert parsed is not None
    return parsed


def block(text: str, *holes: str) -> CidrPeer:
    return CidrPeer(cidr(text), tuple(cidr(h) for h in holes), text)


def sel(namespace: Any = ABSENT, pod: Any = ABSENT) -> SelectorPeer:
    return SelectorPeer(namespace, pod, "peer")


# --- §9.1 reading a core peer ----------------------------------------------------------


def test_ipblock_peer_reads_cidr_and_excepts() -> None:
    raw = {"ipBlock": {"except": ["10.1.0.0/16"], "cidr": "10.0.0.0/8"}}
    peer = read_core_peer(raw)
    assert isinstance(peer, CidrPeer)
    assert peer.cidr == cidr("10.0.0.0/8")
    assert peer.excepts == (cidr("10.1.0.0/16"),)
    # the text is the raw ipBlock as compact JSON, in the manifest's own key order
    assert peer.text == '{"except":["10.1.0.0/16"],"cidr":"10.0.0.0/8"}'


def test_ipblock_wins_over_selectors() -> None:
    raw = {"podSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}}
    peer = read_core_peer(raw)
    assert isinstance(peer, CidrPeer)
    assert peer.text == '{"cidr":"10.0.0.0/8"}'
    # and an unreadable ipBlock is not rescued by a readable selector
    assert read_core_peer({"podSelector": {}, "ipBlock": None}) is None


def test_selector_peer_keeps_raw_selectors_and_text() -> None:
    raw = {"podSelector": KUBE_DNS, "namespaceSelector": KUBE_SYSTEM}
    peer = read_core_peer(raw)
    assert isinstance(peer, SelectorPeer)
    assert peer.namespace_selector is KUBE_SYSTEM
    assert peer.pod_selector is KUBE_DNS
    assert peer.text == (
        '{"podSelector":{"matchLabels":{"k8s-app":"kube-dns"}},'
        '"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}}'
    )


def test_selector_peer_absent_selector_is_absent() -> None:
    peer = read_core_peer({"namespaceSelector": {}})
    assert isinstance(peer, SelectorPeer)
    assert peer.pod_selector is ABSENT
    assert peer.namespace_selector == {}


UNREADABLE_CORE_PEERS = [
    None,
    "10.0.0.0/8",
    [],
    {},  # neither ipBlock nor a selector
    {"ports": []},
    {"ipBlock": None},
    {"ipBlock": "10.0.0.0/8"},
    {"ipBlock": {}},
    {"ipBlock": {"cidr": None}},
    {"ipBlock": {"cidr": "10.0.0.0"}},
    {"ipBlock": {"cidr": "10.0.0.0/8", "except": "10.1.0.0/16"}},
    {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16", "bad"]}},
    {"ipBlock": {"cidr": "10.0.0.0/8", "except": [None]}},
    {"podSelector": None},
    {"namespaceSelector": None},
    {"podSelector": {}, "namespaceSelector": {"matchLabels": {"a": 1}}},
    {"podSelector": {"matchExpressions": None}},
]


@pytest.mark.parametrize("raw", UNREADABLE_CORE_PEERS)
def test_unreadable_core_peer(raw: Any) -> None:
    assert read_core_peer(raw) is None


def test_ipblock_null_except_is_absent() -> None:
    peer = ipblock_peer({"cidr": "10.0.0.0/8", "except": None})
    assert isinstance(peer, CidrPeer)
    assert peer.excepts == ()
    assert peer.text == '{"cidr":"10.0.0.0/8","except":null}'


def test_ipblock_peer_on_bare_value() -> None:
    peer = ipblock_peer({"cidr": "2001:db8::/32"})
    assert isinstance(peer, CidrPeer)
    assert peer.cidr.family == 6
    assert ipblock_peer("2001:db8::/32") is None


# --- §9.3 peer within peer -------------------------------------------------------------------

WITHIN = [
    # 1-2: everything
    (Everything(), block("0.0.0.0/0"), True),
    (Everything(), sel(KUBE_SYSTEM), True),
    (block("0.0.0.0/0"), Everything(), False),
    (sel(), Everything(), False),
    # 3: cidr containment
    (block("0.0.0.0/0"), block("203.0.113.0/24"), True),
    (block("10.0.0.0/8"), block("11.0.0.0/8"), False),
    (block("10.1.0.0/16"), block("10.0.0.0/8"), False),
    (block("0.0.0.0/0"), block("::/0"), False),
    (block("0.0.0.0/0"), sel(KUBE_SYSTEM), False),
    # holes that do not overlap the wanted block are ignored
    (block("0.0.0.0/0", "10.0.0.0/8"), block("203.0.113.0/24"), True),
    # a hole inside the wanted block must be excluded by a wanted except entry
    (block("0.0.0.0/0", "10.0.0.0/8"), block("0.0.0.0/0"), False),
    (block("0.0.0.0/0", "10.0.0.0/8"), block("0.0.0.0/0", "10.0.0.0/8"), True),
    (block("0.0.0.0/0", "10.0.0.0/8"), block("0.0.0.0/0", "8.0.0.0/5"), True),
    (block("0.0.0.0/0", "10.0.0.0/8"), block("0.0.0.0/0", "10.0.0.0/9"), False),
    # a hole wider than the wanted block overlaps it and cannot be excluded by a narrower entry
    (block("0.0.0.0/0", "10.0.0.0/8"), block("10.1.0.0/16"), False),
    (block("0.0.0.0/0", "10.0.0.0/8"), block("10.1.0.0/16", "10.0.0.0/8"), True),
    # a SINGLE wanted entry must contain the hole; two halves are not enough
    (
        block("0.0.0.0/0", "10.0.0.0/8"),
        block("0.0.0.0/0", "10.0.0.0/9", "10.128.0.0/9"),
        False,
    ),
    # every overlapping hole needs its own cover
    (
        block("0.0.0.0/0", "10.0.0.0/8", "192.168.0.0/16"),
        block("0.0.0.0/0", "10.0.0.0/8"),
        False,
    ),
    # 4: a selector allowance never contains a cidr
    (sel(KUBE_SYSTEM), block("10.0.0.0/8"), False),
    # 5: no namespaceSelector (this namespace) does not contain a namespaced peer
    (sel(pod={}), sel(KUBE_SYSTEM), False),
    (sel(pod={}), sel({}, {}), False),
    (sel(pod=KUBE_DNS), sel(pod=KUBE_DNS), True),
    # 6: narrower-than on both selectors
    (sel(KUBE_SYSTEM), sel(KUBE_SYSTEM), True),
    (sel(KUBE_SYSTEM), sel(KUBE_SYSTEM, KUBE_DNS), True),
    (sel(KUBE_SYSTEM, KUBE_DNS), sel(KUBE_SYSTEM), False),
    (sel(KUBE_SYSTEM, KUBE_DNS), sel(KUBE_SYSTEM, KUBE_DNS), True),
    (sel(KUBE_SYSTEM), sel({"matchLabels": {"kubernetes.io/metadata.name": "other"}}), False),
    (sel({}), sel(KUBE_SYSTEM, KUBE_DNS), True),  # an empty namespaceSelector: every namespace
    # Q6: {"matchLabels": {}} as the allowed pod selector is not empty for narrower-than
    (sel(KUBE_SYSTEM, {"matchLabels": {}}), sel(KUBE_SYSTEM), False),
    (sel(KUBE_SYSTEM, {"matchLabels": {}}), sel(KUBE_SYSTEM, KUBE_DNS), True),
]


@pytest.mark.parametrize(("allowed", "wanted", "expected"), WITHIN)
def test_peer_within(allowed: Peer, wanted: Peer, expected: bool) -> None:
    assert peer_within(allowed, wanted) is expected


# --- §9.5 endpoint selector as a peer ------------------------------------------------------


def test_endpoint_peer_with_namespace() -> None:
    raw = {
        "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}
    }
    peer = read_endpoint_peer(raw)
    assert peer is not None
    assert peer.namespace_selector == KUBE_SYSTEM
    assert peer.pod_selector == KUBE_DNS
    assert peer.text == (
        '{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system","k8s:k8s-app":"kube-dns"}}'
    )
    assert peer_within(RESOLVER_PEER, peer)
    assert peer_within(peer, RESOLVER_PEER)


def test_endpoint_peer_without_namespace_is_this_namespace() -> None:
    peer = read_endpoint_peer({"matchLabels": {"any:app": "web"}})
    assert peer is not None
    assert peer.namespace_selector is ABSENT
    assert peer.pod_selector == {"matchLabels": {"app": "web"}}


def test_empty_matchlabels_is_every_pod_in_this_namespace() -> None:
    """Q17: {"matchLabels": {}} reads as a peer with an empty podSelector."""
    peer = read_endpoint_peer({"matchLabels": {}})
    assert peer is not None
    assert peer.namespace_selector is ABSENT
    assert peer.pod_selector == {"matchLabels": {}}
    assert peer.text == '{"matchLabels":{}}'


def test_clusterwide_without_namespace_reaches_every_namespace() -> None:
    """§17.3: a clusterwide selector with no namespace key gets {}."""
    peer = read_endpoint_peer({"matchLabels": {"app": "web"}}, clusterwide=True)
    assert peer is not None
    assert peer.namespace_selector == {}
    # so it is not within a this-namespace allowance
    assert not peer_within(sel(pod={}), peer)


def test_clusterwide_with_namespace_keeps_it() -> None:
    raw = {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "ns1"}}
    peer = read_endpoint_peer(raw, clusterwide=True)
    assert peer is not None
    assert peer.namespace_selector == {"matchLabels": {"kubernetes.io/metadata.name": "ns1"}}
    assert peer.pod_selector == {"matchLabels": {}}


UNREADABLE_ENDPOINTS = [
    None,
    [],
    "app=web",
    {},  # no matchLabels
    {"matchLabels": None},
    {"matchLabels": []},
    {"matchLabels": {"app": "web"}, "matchExpressions": []},  # Q17: even [] ...
    {"matchLabels": {"app": "web"}, "matchExpressions": None},  # ... or null
    {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
    {"matchLabels": {"app": 5}},
    {"matchLabels": {"app": None}},
    {"matchLabels": {"reserved:world": ""}},
    {"matchLabels": {"app": "web", "cidr:10.0.0.0/8": ""}},
]


@pytest.mark.parametrize("raw", UNREADABLE_ENDPOINTS)
def test_unreadable_endpoint(raw: Any) -> None:
    assert read_endpoint_peer(raw) is None


# --- §9.7 wide open ----------------------------------------------------------------------------

WIDE_OPEN = [
    (None, Tri.UNKNOWN),
    ("x", Tri.UNKNOWN),
    ({"ipBlock": None}, Tri.UNKNOWN),
    ({"ipBlock": {}}, Tri.UNKNOWN),
    ({"ipBlock": {"cidr": 0}}, Tri.UNKNOWN),
    ({"ipBlock": {"cidr": "0.0.0.0/0"}}, Tri.YES),
    ({"ipBlock": {"cidr": "::/0"}}, Tri.YES),
    ({"ipBlock": {"cidr": " 0.0.0.0/0\t"}}, Tri.YES),  # trimmed
    ({"ipBlock": {"cidr": "\ufeff::/0"}}, Tri.YES),  # JavaScript whitespace includes U+FEFF
    ({"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}, Tri.YES),  # except ignored
    ({"ipBlock": {"cidr": "0.0.0.0/1"}}, Tri.NO),
    ({"ipBlock": {"cidr": "0.0.0.0/00"}}, Tri.NO),  # a string compare, not a parse
    ({"ipBlock": {"cidr": "junk"}}, Tri.NO),
    ({"podSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}}, Tri.NO),
    ({"namespaceSelector": None}, Tri.UNKNOWN),
    ({"namespaceSelector": {}, "podSelector": {"matchLabels": {"a": 1}}}, Tri.UNKNOWN),
    ({"namespaceSelector": {}}, Tri.YES),
    ({"namespaceSelector": {"matchLabels": {}}}, Tri.YES),  # empty in the matching sense
    ({"namespaceSelector": {}, "podSelector": {}}, Tri.YES),
    (
        {"namespaceSelector": {}, "podSelector": {"matchLabels": {}, "matchExpressions": []}},
        Tri.YES,
    ),
    ({"namespaceSelector": {}, "podSelector": KUBE_DNS}, Tri.NO),
    ({"namespaceSelector": KUBE_SYSTEM}, Tri.NO),
    ({"podSelector": {}}, Tri.NO),  # same-namespace peers are deliberately excluded
    ({}, Tri.UNKNOWN),
]


@pytest.mark.parametrize(("raw", "expected"), WIDE_OPEN)
def test_wide_open(raw: Any, expected: Tri) -> None:
    assert wide_open(raw) is expected


# --- §4.1 resolver peer --------------------------------------------------------------------------


def test_resolver_peer() -> None:
    assert RESOLVER_PEER.namespace_selector == KUBE_SYSTEM
    assert RESOLVER_PEER.pod_selector == KUBE_DNS
    assert RESOLVER_PEER.text == "the cluster resolver"


RESOLVER_CONTAINERS = [
    # a whole-kube-system peer contains the resolver, and so does the exact kube-dns peer
    ({"namespaceSelector": KUBE_SYSTEM}, True),
    ({"namespaceSelector": KUBE_SYSTEM, "podSelector": KUBE_DNS}, True),
    ({"namespaceSelector": {}}, True),
    (
        {"namespaceSelector": KUBE_SYSTEM, "podSelector": {"matchLabels": {"k8s-app": "coredns"}}},
        False,
    ),
    ({"podSelector": KUBE_DNS}, False),  # this namespace only
    ({"ipBlock": {"cidr": "0.0.0.0/0"}}, False),
]


@pytest.mark.parametrize(("raw", "expected"), RESOLVER_CONTAINERS)
def test_peer_contains_resolver(raw: Any, expected: bool) -> None:
    peer = read_core_peer(raw)
    assert peer is not None
    assert peer_within(peer, RESOLVER_PEER) is expected


# --- robustness over real manifests --------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
POLICY_KINDS = {"NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"}


def _policies(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        kind = node.get("kind")
        if isinstance(kind, str) and kind in POLICY_KINDS and isinstance(node.get("spec"), dict):
            yield node
        for child in node.values():
            yield from _policies(child)
    elif isinstance(node, list):
        for child in node:
            yield from _policies(child)


def _corpus_rules() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        text = path.read_text(errors="replace")
        if "NetworkPolicy" not in text:
            continue
        try:
            documents = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue
        for policy in (p for doc in documents for p in _policies(doc)):
            for key in ("egress", "ingress"):
                rules = policy["spec"].get(key)
                for rule in rules if isinstance(rules, list) else []:
                    if isinstance(rule, dict):
                        yield policy["kind"], rule


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_primitives_read_every_corpus_rule() -> None:
    """Every reader returns one of its documented results on real manifests."""
    seen = 0
    for kind, rule in _corpus_rules():
        seen += 1
        if kind == "NetworkPolicy":
            ports = read_port_list(read_list(rule, "ports"), "TCP")
            assert ports is UNREADABLE or ports == "all" or isinstance(ports, tuple)
            for raw in [*(rule.get("to") or []), *(rule.get("from") or [])]:
                assert isinstance(read_core_peer(raw), CidrPeer | SelectorPeer | None)
                assert isinstance(wide_open(raw), Tri)
        else:
            read = read_cilium_ports(rule)
            assert isinstance(read, CiliumPortsError | tuple) or read == "all"
            for raw in [*(rule.get("toEndpoints") or []), *(rule.get("fromEndpoints") or [])]:
                assert isinstance(read_endpoint_peer(raw), SelectorPeer | None)
    assert seen > 0
