"""The ``allow`` form, ``host`` and ``workload`` targets (issue 17): every
rule is checked as an API server checks a NetworkPolicy egress rule, and a
bad one is a declaration error naming the field path and its line."""

from __future__ import annotations

import pytest

from lint.declarations.merging import merge_egress
from tests.declarations.conftest import LoadText, RefuseText

HEAD = "version: 1\nsandboxes:\n  - template: t\n    egress:\n      allow:\n"


def _rule(text: str) -> str:
    return HEAD + "".join(f"        {line}\n" for line in text.splitlines())


# (rule text under `allow:`, field path under sandboxes[0].egress, line, fragment)
BAD_RULES = [
    ("- ports: [{port: 0}]", "allow[0].ports[0].port", 6, "1 to 65535"),
    ("- ports: [{port: 65536}]", "allow[0].ports[0].port", 6, "1 to 65535"),
    ("- ports: [{port: https}]", "allow[0].ports[0].port", 6, "named port"),
    ("- ports: [{protocol: ICMP, port: 1}]", "allow[0].ports[0].protocol", 6, "TCP, UDP or SCTP"),
    ("- ports: [{endPort: 90}]", "allow[0].ports[0].endPort", 6, "without a port"),
    ("- ports: [{port: 90, endPort: 80}]", "allow[0].ports[0].endPort", 6, "below port 90"),
    ("- ports: [{port: 90, endPort: 70000}]", "allow[0].ports[0].endPort", 6, "1 to 65535"),
    ("- to: [{}]", "allow[0].to[0]", 6, "names nothing"),
    (
        "- to:\n    - ipBlock: {cidr: 10.0.0.0/8}\n      podSelector: {}",
        "allow[0].to[0]",
        7,
        "never both",
    ),
    ("- to: [{ipBlock: {cidr: 10.0.0.0/33}}]", "allow[0].to[0].ipBlock.cidr", 6, "CIDR"),
    ("- to: [{ipBlock: {except: [10.0.0.0/9]}}]", "allow[0].to[0].ipBlock.cidr", 6, "needs"),
    (
        "- to:\n    - ipBlock:\n        cidr: 10.0.0.0/8\n        except: [10.0.0.0/8]",
        "allow[0].to[0].ipBlock.except[0]",
        9,
        "strict subset",
    ),
    (
        "- to:\n    - ipBlock:\n        cidr: 10.0.0.0/8\n        except: [192.168.0.0/16]",
        "allow[0].to[0].ipBlock.except[0]",
        9,
        "strict subset",
    ),
    (
        "- to:\n    - podSelector:\n        matchLabels: {'a/b/c': x}",
        'allow[0].to[0].podSelector.matchLabels["a/b/c"]',
        8,
        "label key",
    ),
    (
        "- to:\n    - podSelector:\n        matchLabels: {app: -x-}",
        'allow[0].to[0].podSelector.matchLabels["app"]',
        8,
        "label value",
    ),
    (
        "- to:\n    - namespaceSelector:\n        matchExpressions:\n"
        "          - {key: tier, operator: In, values: []}",
        "allow[0].to[0].namespaceSelector.matchExpressions[0].values",
        9,
        "at least one value",
    ),
    (
        "- to:\n    - namespaceSelector:\n        matchExpressions:\n"
        "          - {key: tier, operator: Exists, values: [a]}",
        "allow[0].to[0].namespaceSelector.matchExpressions[0].values",
        9,
        "takes no values",
    ),
    (
        "- to:\n    - podSelector:\n        matchExpressions: [{key: a, operator: Has}]",
        "allow[0].to[0].podSelector.matchExpressions[0].operator",
        8,
        "not In, NotIn",
    ),
    ("- to: [{ipblock: {cidr: 10.0.0.0/8}}]", "allow[0].to[0].ipblock", 6, "not a field"),
    ("- ports: null", "allow[0].ports", 6, "null"),
    ("- not a rule", "allow[0]", 6, "mapping"),
]


@pytest.mark.parametrize(("rule", "field", "line", "fragment"), BAD_RULES)
def test_a_bad_rule_names_its_field_and_line(
    refuse: RefuseText, rule: str, field: str, line: int, fragment: str
) -> None:
    error = refuse(_rule(rule))
    assert error.path == f"sandboxes[0].egress.{field}"
    assert (error.file, error.line) == (".egress-lint.yaml", line)
    assert fragment in error.message


def test_allow_must_be_a_list(refuse: RefuseText) -> None:
    error = refuse(HEAD.replace("allow:\n", "allow: {}\n"))
    assert (error.path, error.line) == ("sandboxes[0].egress.allow", 5)


def test_a_good_rule_list_translates_as_written(load_text: LoadText) -> None:
    declarations = load_text(
        _rule(
            "- to:\n    - ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}\n"
            "  ports: [{protocol: TCP, port: 8000, endPort: 8080}, {port: 22}]\n"
            "- to:\n    - namespaceSelector: {matchLabels: {team: a}}\n"
            "      podSelector:\n"
            "        matchExpressions: [{key: app, operator: NotIn, values: [x, '']}]"
        )
    )
    [entry] = declarations.entries
    translation = entry.translation
    assert (translation.kind, translation.policy_kind, translation.name) == (
        "NetworkPolicy",
        "allow",
        "t-egress",
    )
    assert translation.manifest["spec"]["egress"] == entry.egress["allow"]
    assert translation.manifest["spec"]["podSelector"] == {
        "matchLabels": {"sandbox.namzu.ai/template": "t"}
    }
    assert translation.named and translation.companion is None


def test_policy_and_allow_together_are_refused(refuse: RefuseText) -> None:
    error = refuse(
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n"
        "      policy: {kind: deny-all}\n      allow: []\n"
    )
    assert (error.path, error.line) == ("sandboxes[0].egress.allow", 6)


def test_an_entrys_allow_replaces_a_default_policy(load_text: LoadText) -> None:
    text = (
        "version: 1\ndefaults:\n  policy: {kind: deny-all}\n  host: none\nsandboxes:\n"
        "  - template: t\n    egress: {allow: []}\n  - template: u\n"
    )
    first, second = load_text(text).entries
    assert first.translation.policy_kind == "allow" and "policy" not in first.egress
    assert second.translation.policy_kind == "deny-all"
    assert (first.host, second.host) == ("none", "none")
    assert "host" not in second.egress


def test_merging_keeps_the_intent_one_slot() -> None:
    document = {
        "defaults": {"allow": [], "allowHosts": ["a.example"], "engine": "cilium"},
        "sandboxes": [{"egress": {"policy": {"kind": "no-network"}}}],
    }
    merged = merge_egress(document, {}, 0)
    assert merged.egress == {"engine": "cilium", "policy": {"kind": "no-network"}}


def test_allow_hosts_need_cilium_and_exact_hosts(refuse: RefuseText, load_text: LoadText) -> None:
    base = "version: 1\nsandboxes:\n  - template: t\n    egress:\n      allow: []\n"
    error = refuse(base + "      allowHosts: [api.example.com]\n")
    assert (error.path, error.line) == ("sandboxes[0].egress.allowHosts", 6)
    assert "cilium" in error.message
    cilium = base + "      engine: cilium\n"
    for hosts, path, fragment in [
        ("[.example.com]", "allowHosts[0]", "domain entry"),
        ("['*.example.com']", "allowHosts[0]", "glob"),
        ("[example.com:443]", "allowHosts[0]", "not a DNS name"),
        ("[{host: a.example.com, ports: [0]}]", "allowHosts[0].ports[0]", "1 to 65535"),
        ("[{host: 10.0.0.1}]", "allowHosts[0].host", "all-numeric"),
    ]:
        error = refuse(cilium + f"      allowHosts: {hosts}\n")
        assert error.path == f"sandboxes[0].egress.{path}", hosts
        assert fragment in error.message, hosts
    entry = load_text(
        cilium + "      allowHosts: [API.example.com, {host: b.example.com, ports: [443]}]\n"
    ).entries[0]
    companion = entry.translation.companion
    assert companion is not None and companion["kind"] == "CiliumNetworkPolicy"
    assert companion["spec"]["egress"][1:] == [
        {"toFQDNs": [{"matchName": "api.example.com"}]},
        {
            "toFQDNs": [{"matchName": "b.example.com"}],
            "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}],
        },
    ]


def test_allow_hosts_without_allow_is_refused(refuse: RefuseText) -> None:
    error = refuse(
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n"
        "      policy: {kind: deny-all}\n      allowHosts: [a.example.com]\n"
    )
    assert error.path == "sandboxes[0].egress.allowHosts"


@pytest.mark.parametrize(
    ("egress", "field"),
    [
        ("{policy: {kind: deny-all}, profile: p}", "profile"),
        (
            "{policy: {kind: static, allowedHosts: []}, engine: cilium, "
            "perSandbox: {engine: cilium, admissionPolicyName: f}}",
            "perSandbox",
        ),
    ],
)
def test_host_none_refuses_the_namzu_settings(refuse: RefuseText, egress: str, field: str) -> None:
    error = refuse(
        f"version: 1\nsandboxes:\n  - template: t\n    host: none\n    egress: {egress}\n"
    )
    assert error.path == f"sandboxes[0].egress.{field}"
    assert "host: none" in error.message


def test_host_none_without_expect_cannot_be_named_object_only(refuse: RefuseText) -> None:
    error = refuse(
        "version: 1\nsandboxes:\n  - template: t\n    host: none\n"
        "    egress: {allow: [], verify: named-object-only}\n"
    )
    assert error.path == "sandboxes[0].egress.verify"


def test_expect_belongs_to_host_none(refuse: RefuseText) -> None:
    error = refuse(
        "version: 1\nsandboxes:\n  - template: t\n"
        "    expect: {kind: NetworkPolicy, name: x}\n    egress: {allow: []}\n"
    )
    assert (error.path, error.line) == ("sandboxes[0].expect", 4)


def test_a_workload_is_host_none_and_direct_only(refuse: RefuseText, load_text: LoadText) -> None:
    entry = load_text(
        "version: 1\nsandboxes:\n  - workload: {kind: CronJob, name: nightly}\n"
        "    egress: {allow: []}\n"
    ).entries[0]
    assert (entry.host, entry.template, entry.target_kind) == ("none", "nightly", "CronJob")
    assert not entry.translation.named
    error = refuse(
        "version: 1\nsandboxes:\n  - workload: {kind: Deployment, name: api}\n"
        "    host: namzu\n    egress: {allow: []}\n"
    )
    assert (error.path, error.line) == ("sandboxes[0].host", 4)
    error = refuse(
        "version: 1\nsandboxes:\n  - workload: {kind: Deployment, name: api}\n"
        "    paths: [pooled]\n    egress: {allow: []}\n"
    )
    assert error.path == "sandboxes[0].paths"
    error = refuse(
        "version: 1\nsandboxes:\n  - workload: {kind: Deployment, name: api}\n"
        "    template: api\n    egress: {allow: []}\n"
    )
    assert error.path == "sandboxes[0].workload"
    error = refuse(
        "version: 1\nsandboxes:\n  - workload: {kind: Service, name: api}\n"
        "    egress: {allow: []}\n"
    )
    assert error.path.startswith("sandboxes[0].workload.kind")


def test_host_none_allow_hosts_take_patterns_and_protocols(
    refuse: RefuseText, load_text: LoadText
) -> None:
    """Issue 28: the loader hands `host: none` the cluster's forms, and the
    namzu host refuses them at the same field and line as before."""
    hosts = "['*.debian.org', {host: q.example.com, ports: [{port: 443, protocol: UDP}]}]"
    body = f"    egress:\n      engine: cilium\n      allow: []\n      allowHosts: {hosts}\n"
    entry = load_text(
        "version: 1\nsandboxes:\n  - workload: {kind: Deployment, name: api}\n" + body
    ).entries[0]
    companion = entry.translation.companion
    assert companion is not None
    assert companion["spec"]["egress"][1:] == [
        {"toFQDNs": [{"matchPattern": "*.debian.org"}]},
        {
            "toFQDNs": [{"matchName": "q.example.com"}],
            "toPorts": [{"ports": [{"port": "443", "protocol": "UDP"}]}],
        },
    ]
    error = refuse("version: 1\nsandboxes:\n  - template: t\n" + body)
    assert (error.path, error.line) == ("sandboxes[0].egress.allowHosts[0]", 7)
    assert "glob" in error.message
