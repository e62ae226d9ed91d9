"""Translation to the exact reference manifests (§1.6, §3, §14, §15.1).

Spec examples are compared byte for byte: ``json.dumps`` of both sides with
the same separators, so key order and value types count, not just dict
equality.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from lint.decision.model import ConfigRefusal
from lint.decision.translation import (
    default_policy_name,
    profile_label_key,
    selector_labels,
    translate,
    translate_per_sandbox,
)

TEMPLATE = "namzu-task"
NAMESPACE = "namzu-sandboxes"
COMPACT = (",", ":")


def compact(value: Any) -> str:
    return json.dumps(value, separators=COMPACT, ensure_ascii=False)


def same_bytes(actual: Any, spec_json: str) -> None:
    assert compact(actual) == compact(json.loads(spec_json))


def manifest_of(config: dict[str, Any], template: str = TEMPLATE) -> dict[str, Any]:
    return translate(config, template, NAMESPACE).manifest


def cilium(
    hosts: list[Any], narrowing: dict[str, Any] | None = None, kind: str = "static"
) -> dict[str, Any]:
    config: dict[str, Any] = {"policy": {"kind": kind, "allowedHosts": hosts}, "engine": "cilium"}
    if narrowing is not None:
        config["ciliumNarrowing"] = narrowing
    return config


# --- Spec examples, byte for byte -------------------------------------------------

SPEC_DENY_ALL = """
{
  "apiVersion": "networking.k8s.io/v1",
  "kind": "NetworkPolicy",
  "metadata": {"name": "namzu-task-egress", "namespace": "namzu-sandboxes"},
  "spec": {
    "podSelector": {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}},
    "policyTypes": ["Egress"],
    "egress": [
      {
        "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}],
        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
      }
    ]
  }
}
"""

SPEC_NO_NETWORK_PROFILE = """
{
  "apiVersion": "networking.k8s.io/v1",
  "kind": "NetworkPolicy",
  "metadata": {"name": "namzu-task-none-egress", "namespace": "namzu-sandboxes"},
  "spec": {
    "podSelector": {
      "matchLabels": {"sandbox.namzu.ai/template": "namzu-task", "sandbox.users.io/egress-profile": "none"}
    },
    "policyTypes": ["Egress"],
    "egress": []
  }
}
"""

SPEC_CLUSTER_DNS = '{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}}],"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}'
SPEC_KUBE_DNS = '{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}},"podSelector":{"matchLabels":{"k8s-app":"kube-dns"}}}],"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}'
SPEC_PUBLIC_BLOCK = '{"to":[{"ipBlock":{"cidr":"0.0.0.0/0","except":["10.0.0.0/8","172.16.0.0/12","192.168.0.0/16","100.64.0.0/10","169.254.0.0/16","127.0.0.0/8","168.63.129.16/32"]}},{"ipBlock":{"cidr":"::/0","except":["fc00::/7","fe80::/10","::1/128"]}}]}'
SPEC_DNS_VISIBILITY = '{"toEndpoints":[{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system","k8s:k8s-app":"kube-dns"}}],"toPorts":[{"ports":[{"port":"53","protocol":"ANY"}],"rules":{"dns":[{"matchPattern":"*"}]}}]}'

SPEC_PUBLIC_INTERNET = """
{
  "apiVersion": "networking.k8s.io/v1",
  "kind": "NetworkPolicy",
  "metadata": {"name": "namzu-task-egress", "namespace": "namzu-sandboxes"},
  "spec": {
    "podSelector": {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}},
    "policyTypes": ["Egress"],
    "egress": [
      {
        "to": [
          {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}
          }
        ],
        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
      },
      {
        "to": [
          {
            "ipBlock": {
              "cidr": "0.0.0.0/0",
              "except": [
                "10.0.0.0/8",
                "172.16.0.0/12",
                "192.168.0.0/16",
                "100.64.0.0/10",
                "169.254.0.0/16",
                "127.0.0.0/8",
                "168.63.129.16/32",
                "203.0.113.0/24"
              ]
            }
          },
          {
            "ipBlock": {"cidr": "::/0", "except": ["fc00::/7", "fe80::/10", "::1/128", "2001:db8::/32"]}
          }
        ]
      }
    ]
  }
}
"""

SPEC_STATIC_UNNARROWED = """
{
  "apiVersion": "cilium.io/v2",
  "kind": "CiliumNetworkPolicy",
  "metadata": {"name": "namzu-task-egress", "namespace": "namzu-sandboxes"},
  "spec": {
    "endpointSelector": {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}},
    "egress": [
      {
        "toEndpoints": [
          {
            "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}
          }
        ],
        "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": [{"matchPattern": "*"}]}}]
      },
      {
        "toFQDNs": [{"matchName": "api.github.com"}, {"matchName": "pypi.org"}, {"matchPattern": "*.pypi.org"}]
      }
    ]
  }
}
"""

SPEC_DNS_NARROWED_EGRESS = '[{"toEndpoints":[{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system","k8s:k8s-app":"kube-dns"}}],"toPorts":[{"ports":[{"port":"53","protocol":"ANY"}],"rules":{"dns":[{"matchName":"pypi.org"},{"matchPattern":"*.pypi.org"},{"matchName":"pypi.org.namzu-sandboxes.svc.cluster.local"},{"matchPattern":"*.pypi.org.namzu-sandboxes.svc.cluster.local"},{"matchName":"pypi.org.svc.cluster.local"},{"matchPattern":"*.pypi.org.svc.cluster.local"},{"matchName":"pypi.org.cluster.local"},{"matchPattern":"*.pypi.org.cluster.local"},{"matchName":"pypi.org.corp.internal"},{"matchPattern":"*.pypi.org.corp.internal"}]}}]},{"toFQDNs":[{"matchName":"pypi.org"},{"matchPattern":"*.pypi.org"}],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}]'

SPEC_NARROWED = """
{
  "apiVersion": "cilium.io/v2",
  "kind": "CiliumNetworkPolicy",
  "metadata": {"name": "namzu-task-egress", "namespace": "namzu-sandboxes"},
  "spec": {
    "endpointSelector": {"matchLabels": {"sandbox.namzu.ai/template": "namzu-task"}},
    "egress": [
      {
        "toEndpoints": [
          {
            "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}
          }
        ],
        "toPorts": [
          {
            "ports": [{"port": "53", "protocol": "ANY"}],
            "rules": {
              "dns": [
                {"matchName": "github.com"},
                {"matchName": "github.com.namzu-sandboxes.svc.cluster.local"},
                {"matchName": "github.com.svc.cluster.local"},
                {"matchName": "github.com.cluster.local"},
                {"matchName": "registry.npmjs.org"},
                {"matchName": "registry.npmjs.org.namzu-sandboxes.svc.cluster.local"},
                {"matchName": "registry.npmjs.org.svc.cluster.local"},
                {"matchName": "registry.npmjs.org.cluster.local"}
              ]
            }
          }
        ]
      },
      {
        "toFQDNs": [{"matchName": "github.com"}],
        "toPorts": [
          {"ports": [{"port": "443", "protocol": "TCP"}], "serverNames": ["github.com"]},
          {"ports": [{"port": "22", "protocol": "TCP"}]}
        ]
      },
      {
        "toFQDNs": [{"matchName": "registry.npmjs.org"}],
        "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}], "serverNames": ["registry.npmjs.org"]}]
      }
    ]
  }
}
"""

SPEC_PER_SANDBOX = """
{
  "apiVersion": "cilium.io/v2",
  "kind": "CiliumNetworkPolicy",
  "metadata": {
    "name": "namzu-sbx-00000000-0000-4000-8000-7f3a9c2e41b8",
    "namespace": "namzu-sandboxes",
    "ownerReferences": [
      {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1",
        "kind": "SandboxClaim",
        "name": "namzu-task-7f3a9c2e41b8",
        "uid": "00000000-0000-4000-8000-7f3a9c2e41b8"
      }
    ]
  },
  "spec": {
    "endpointSelector": {"matchLabels": {"sandbox.namzu.ai/per-sandbox-egress": "namzu-task-7f3a9c2e41b8"}},
    "egress": [
      {
        "toEndpoints": [
          {
            "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}
          }
        ],
        "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": [{"matchPattern": "*"}]}}]
      },
      {
        "toFQDNs": [
          {"matchName": "registry.npmjs.org"},
          {"matchName": "example.com"},
          {"matchPattern": "*.example.com"}
        ]
      }
    ]
  }
}
"""

CLAIM_UID = "00000000-0000-4000-8000-7f3a9c2e41b8"
CLAIM_NAME = "namzu-task-7f3a9c2e41b8"


def test_spec_deny_all() -> None:
    same_bytes(manifest_of({"policy": {"kind": "deny-all"}}), SPEC_DENY_ALL)


def test_spec_no_network_with_profile() -> None:
    config = {
        "policy": {"kind": "no-network"},
        "profile": "none",
        "profileLabelKey": "sandbox.users.io/egress-profile",
    }
    same_bytes(manifest_of(config), SPEC_NO_NETWORK_PROFILE)


def test_spec_public_internet_with_except_cidrs() -> None:
    config = {
        "policy": {"kind": "public-internet", "exceptCidrs": ["203.0.113.0/24", "2001:db8::/32"]}
    }
    same_bytes(manifest_of(config), SPEC_PUBLIC_INTERNET)


@pytest.mark.parametrize(
    ("kind", "egress_json"),
    [
        ("deny-all", f"[{SPEC_CLUSTER_DNS}]"),
        ("no-network", "[]"),
        ("public-internet", f"[{SPEC_KUBE_DNS},{SPEC_PUBLIC_BLOCK}]"),
        ("allow-all", "[{}]"),
    ],
)
@pytest.mark.parametrize("engine", [None, "core", "cilium"])
def test_core_kinds_emit_the_same_rules_under_either_engine(
    kind: str, egress_json: str, engine: str | None
) -> None:
    config: dict[str, Any] = {"policy": {"kind": kind}}
    if engine is not None:
        config["engine"] = engine
    translation = translate(config, TEMPLATE, NAMESPACE)
    assert (translation.kind, translation.policy_kind) == ("NetworkPolicy", kind)
    assert compact(translation.manifest["spec"]["egress"]) == egress_json
    assert list(translation.manifest) == ["apiVersion", "kind", "metadata", "spec"]
    assert list(translation.manifest["spec"]) == ["podSelector", "policyTypes", "egress"]


def test_public_block_has_no_ports_key() -> None:
    block = manifest_of({"policy": {"kind": "public-internet"}})["spec"]["egress"][1]
    assert compact(block) == SPEC_PUBLIC_BLOCK
    assert "ports" not in block


def test_spec_static_unnarrowed() -> None:
    same_bytes(manifest_of(cilium(["api.github.com", ".pypi.org"])), SPEC_STATIC_UNNARROWED)


def test_spec_dns_narrowing() -> None:
    narrowing = {"ports": [443], "dnsNames": {"searchSuffixes": ["corp.internal"]}}
    egress = manifest_of(cilium([".pypi.org"], narrowing))["spec"]["egress"]
    same_bytes(egress, SPEC_DNS_NARROWED_EGRESS)


def test_spec_narrowed_per_host_rules() -> None:
    narrowing = {
        "ports": [443],
        "hostPorts": {"github.com": [443, 22]},
        "tlsServerNames": True,
        "dnsNames": True,
    }
    same_bytes(manifest_of(cilium(["github.com", "registry.npmjs.org"], narrowing)), SPEC_NARROWED)


@pytest.mark.parametrize(
    ("narrowing", "rule_json"),
    [
        (
            {"ports": [443]},
            '{"toFQDNs":[{"matchName":"a.example"}],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}',
        ),
        (
            {"tlsServerNames": True},
            '{"toFQDNs":[{"matchName":"a.example"}],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}],"serverNames":["a.example"]}]}',
        ),
        ({"hostPorts": {"other.example": [22]}}, '{"toFQDNs":[{"matchName":"a.example"}]}'),
        ({"dnsNames": True}, '{"toFQDNs":[{"matchName":"a.example"}]}'),
        (
            {"hostPorts": {"a.example": [8443, 80]}, "tlsServerNames": True, "tlsPorts": [8443]},
            '{"toFQDNs":[{"matchName":"a.example"}],"toPorts":[{"ports":[{"port":"8443","protocol":"TCP"}],"serverNames":["a.example"]},{"ports":[{"port":"80","protocol":"TCP"}]}]}',
        ),
    ],
)
def test_spec_small_narrowed_cases(narrowing: dict[str, Any], rule_json: str) -> None:
    egress = manifest_of(cilium(["a.example"], narrowing))["spec"]["egress"]
    assert len(egress) == 2
    assert compact(egress[1]) == rule_json


def test_dns_names_true_narrows_only_the_dns_rule() -> None:
    egress = manifest_of(cilium(["a.example"], {"dnsNames": True}))["spec"]["egress"]
    assert egress[0]["toPorts"][0]["rules"]["dns"][0] == {"matchName": "a.example"}


def test_spec_per_sandbox_claim_owner() -> None:
    translation = translate_per_sandbox(
        ["registry.npmjs.org", ".example.com"],
        namespace=NAMESPACE,
        label_key="sandbox.namzu.ai/per-sandbox-egress",
        object_name=CLAIM_NAME,
        owner_kind="SandboxClaim",
        owner_uid=CLAIM_UID,
        narrowing=None,
    )
    same_bytes(translation.manifest, SPEC_PER_SANDBOX)
    assert translation.kind == "CiliumNetworkPolicy"
    assert translation.policy_kind == "static"
    assert translation.name == f"namzu-sbx-{CLAIM_UID}"
    assert translation.namespace == NAMESPACE


def test_dns_visibility_constant_bytes() -> None:
    egress = manifest_of(cilium(["a.example"]))["spec"]["egress"]
    assert compact(egress[0]) == SPEC_DNS_VISIBILITY


# --- §3.1, §1.6, §14: names and selectors ---------------------------------------------


def test_selector_labels_template_first_then_profile() -> None:
    assert list(selector_labels("t", "p", "k/p").items()) == [
        ("sandbox.namzu.ai/template", "t"),
        ("k/p", "p"),
    ]
    assert selector_labels("t", None, "k/p") == {"sandbox.namzu.ai/template": "t"}


def test_profile_changes_only_name_and_selector() -> None:
    plain = manifest_of({"policy": {"kind": "deny-all"}})
    profiled = manifest_of({"policy": {"kind": "deny-all"}, "profile": "internet"})
    assert profiled["metadata"]["name"] == "namzu-task-internet-egress"
    assert profiled["spec"]["podSelector"]["matchLabels"] == {
        "sandbox.namzu.ai/template": "namzu-task",
        "sandbox.namzu.ai/egress-profile": "internet",
    }
    for key in ("apiVersion", "kind"):
        assert plain[key] == profiled[key]
    assert compact(plain["spec"]["egress"]) == compact(profiled["spec"]["egress"])


def test_cilium_selector_with_profile() -> None:
    config = cilium(["a.example"]) | {"profile": "dev", "profileLabelKey": "sandbox.users.io/p"}
    manifest = manifest_of(config)
    assert compact(manifest["spec"]["endpointSelector"]) == (
        '{"matchLabels":{"sandbox.namzu.ai/template":"namzu-task","sandbox.users.io/p":"dev"}}'
    )
    assert manifest["metadata"] == {"name": "namzu-task-dev-egress", "namespace": NAMESPACE}


@pytest.mark.parametrize("name", ["custom", "", "x" * 400])
def test_network_policy_name_is_used_verbatim(name: str) -> None:
    translation = translate(
        {"policy": {"kind": "deny-all"}, "profile": "p", "networkPolicyName": name},
        "t" * 300,
        NAMESPACE,
    )
    assert translation.name == name
    assert translation.manifest["metadata"]["name"] == name


def test_names_and_profile_key_helpers_are_exported() -> None:
    assert default_policy_name("a", None) == "a-egress"
    assert default_policy_name("a", "b") == "a-b-egress"
    assert profile_label_key({"profileLabelKey": "x/y"}) == "x/y"


def test_resolver_keeps_its_kind() -> None:
    translation = translate(cilium(["a.example"], kind="resolver"), TEMPLATE, NAMESPACE)
    assert (translation.kind, translation.policy_kind) == ("CiliumNetworkPolicy", "resolver")
    assert translation.manifest["kind"] == "CiliumNetworkPolicy"


# --- §3.2 exceptCidrs, Q15 -----------------------------------------------------------


def test_except_cidrs_are_appended_to_their_family_as_written() -> None:
    extras = ["10.1.2.3/8", "2001:DB8::1/32", "010.0.0.0/8", "::ffff:1.2.3.4/128", "10.0.0.0/8"]
    config = {"policy": {"kind": "public-internet", "exceptCidrs": extras}}
    block = manifest_of(config)["spec"]["egress"][1]
    ipv4, ipv6 = (peer["ipBlock"]["except"] for peer in block["to"])
    # Host bits, leading zeros and a duplicate of a built-in entry are all kept.
    assert ipv4[7:] == ["10.1.2.3/8", "010.0.0.0/8", "10.0.0.0/8"]
    assert ipv6[3:] == ["2001:DB8::1/32", "::ffff:1.2.3.4/128"]


# --- §3.3-§3.7 Cilium details ----------------------------------------------------------


def test_empty_allowlist_without_narrowing() -> None:
    egress = manifest_of(cilium([]))["spec"]["egress"]
    assert compact(egress) == f'[{SPEC_DNS_VISIBILITY},{{"toFQDNs":[]}}]'


def test_empty_allowlist_with_active_narrowing_gives_dns_rule_alone() -> None:
    egress = manifest_of(cilium([], {"ports": [443]}))["spec"]["egress"]
    assert compact(egress) == f"[{SPEC_DNS_VISIBILITY}]"


def test_duplicates_are_kept() -> None:
    egress = manifest_of(cilium(["a.example", "a.example"]))["spec"]["egress"]
    assert egress[1]["toFQDNs"] == [{"matchName": "a.example"}, {"matchName": "a.example"}]


def test_cilium_manifest_key_order_and_no_policy_types() -> None:
    manifest = manifest_of(cilium(["a.example"]))
    assert list(manifest) == ["apiVersion", "kind", "metadata", "spec"]
    assert list(manifest["metadata"]) == ["name", "namespace"]
    assert list(manifest["spec"]) == ["endpointSelector", "egress"]


def test_config_path_preserves_case() -> None:
    narrowing = {"dnsNames": True, "hostPorts": {"API.example.com": [22]}}
    egress = manifest_of(cilium(["API.example.com"], narrowing))["spec"]["egress"]
    assert egress[0]["toPorts"][0]["rules"]["dns"][0] == {"matchName": "API.example.com"}
    assert egress[0]["toPorts"][0]["rules"]["dns"][1] == {
        "matchName": "API.example.com.namzu-sandboxes.svc.cluster.local"
    }
    assert compact(egress[1]) == (
        '{"toFQDNs":[{"matchName":"API.example.com"}],"toPorts":[{"ports":[{"port":"22","protocol":"TCP"}]}]}'
    )
    unnarrowed = manifest_of(cilium(["API.example.com"]))["spec"]["egress"]
    assert unnarrowed[1] == {"toFQDNs": [{"matchName": "API.example.com"}]}


def test_host_ports_keys_are_case_sensitive_and_exact() -> None:
    narrowing = {"ports": [443], "hostPorts": {"api.example.com": [22], "example.com": [80]}}
    egress = manifest_of(cilium(["API.example.com", ".example.com"], narrowing))["spec"]["egress"]
    assert egress[1]["toPorts"] == [{"ports": [{"port": "443", "protocol": "TCP"}]}]
    # ".example.com" looks up its key with the leading dot, so "example.com" does not apply
    assert egress[2]["toPorts"] == [{"ports": [{"port": "443", "protocol": "TCP"}]}]


def test_kelvin_sign_is_emitted_as_written() -> None:
    """Q24: judged lowercased (plain ASCII), emitted unchanged."""
    host = "\u212aube.example"
    egress = manifest_of(cilium([host]))["spec"]["egress"]
    assert egress[1] == {"toFQDNs": [{"matchName": host}]}


@pytest.mark.parametrize(
    "host", ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"]
)
def test_object_builtin_names_use_own_keys_only(host: str) -> None:
    """Q19 (do not copy): a host spelled like an object built-in finds no
    inherited port list; it takes ``ports`` like any other host."""
    narrowing = {"ports": [443], "hostPorts": {"a.example": [22]}}
    egress = manifest_of(cilium([host, "a.example"], narrowing))["spec"]["egress"]
    assert egress[1] == {
        "toFQDNs": [{"matchName": host}],
        "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}],
    }
    own = manifest_of(cilium([host], {"hostPorts": {host: [8080]}}))["spec"]["egress"]
    assert own[1]["toPorts"] == [{"ports": [{"port": "8080", "protocol": "TCP"}]}]


@pytest.mark.parametrize(
    ("narrowing", "ports"),
    [
        (
            {
                "hostPorts": {"a.example": [22]},
                "ports": [443],
                "tlsServerNames": True,
                "tlsPorts": [8443],
            },
            ["22"],
        ),
        ({"ports": [443], "tlsServerNames": True, "tlsPorts": [8443]}, ["443"]),
        ({"tlsServerNames": True, "tlsPorts": [8443, 9443]}, ["8443", "9443"]),
        ({"tlsServerNames": True}, ["443"]),
        ({"dnsNames": True, "tlsPorts": [8443]}, None),  # tlsPorts only count under tlsServerNames
    ],
)
def test_port_list_precedence(narrowing: dict[str, Any], ports: list[str] | None) -> None:
    rule = manifest_of(cilium(["a.example"], narrowing))["spec"]["egress"][1]
    if ports is None:
        assert "toPorts" not in rule
    else:
        emitted = [port["port"] for entry in rule["toPorts"] for port in entry["ports"]]
        assert emitted == ports


def test_tls_split_keeps_order_and_duplicates() -> None:
    narrowing = {"ports": [80, 443, 8443, 443, 22], "tlsServerNames": True, "tlsPorts": [8443, 443]}
    rule = manifest_of(cilium(["a.example"], narrowing))["spec"]["egress"][1]
    assert compact(rule["toPorts"]) == (
        '[{"ports":[{"port":"443","protocol":"TCP"},{"port":"8443","protocol":"TCP"},'
        '{"port":"443","protocol":"TCP"}],"serverNames":["a.example"]},'
        '{"ports":[{"port":"80","protocol":"TCP"},{"port":"22","protocol":"TCP"}]}]'
    )


def test_tls_split_with_only_rest_ports_has_no_server_names() -> None:
    narrowing = {"ports": [22], "tlsServerNames": True}
    rule = manifest_of(cilium(["a.example"], narrowing))["spec"]["egress"][1]
    assert rule["toPorts"] == [{"ports": [{"port": "22", "protocol": "TCP"}]}]


def test_integral_float_ports_render_as_integers() -> None:
    rule = manifest_of(cilium(["a.example"], {"ports": [443.0]}))["spec"]["egress"][1]
    assert compact(rule["toPorts"]) == '[{"ports":[{"port":"443","protocol":"TCP"}]}]'


def test_dns_names_object_overrides_and_values_as_written() -> None:
    narrowing = {
        "dnsNames": {
            "namespace": "other",
            "clusterDomain": " corp.local",
            "searchSuffixes": ["x ", "y"],
        }
    }
    rule = manifest_of(cilium(["a.example"], narrowing))["spec"]["egress"][0]
    assert [entry["matchName"] for entry in rule["toPorts"][0]["rules"]["dns"]] == [
        "a.example",
        "a.example.other.svc. corp.local",
        "a.example.svc. corp.local",
        "a.example. corp.local",
        "a.example.x ",
        "a.example.y",
    ]


def test_dns_names_namespace_empty_string_is_used() -> None:
    rule = manifest_of(cilium(["a.example"], {"dnsNames": {"namespace": ""}}))["spec"]["egress"][0]
    assert rule["toPorts"][0]["rules"]["dns"][1] == {"matchName": "a.example..svc.cluster.local"}


def test_dns_rule_interleaves_patterns_for_domain_entries() -> None:
    rule = manifest_of(cilium(["a.example", ".b.example"], {"dnsNames": True}))["spec"]["egress"][0]
    assert compact(rule["toPorts"][0]["rules"]["dns"]) == (
        '[{"matchName":"a.example"},{"matchName":"a.example.namzu-sandboxes.svc.cluster.local"},'
        '{"matchName":"a.example.svc.cluster.local"},{"matchName":"a.example.cluster.local"},'
        '{"matchName":"b.example"},{"matchPattern":"*.b.example"},'
        '{"matchName":"b.example.namzu-sandboxes.svc.cluster.local"},'
        '{"matchPattern":"*.b.example.namzu-sandboxes.svc.cluster.local"},'
        '{"matchName":"b.example.svc.cluster.local"},{"matchPattern":"*.b.example.svc.cluster.local"},'
        '{"matchName":"b.example.cluster.local"},{"matchPattern":"*.b.example.cluster.local"}]'
    )


@pytest.mark.parametrize(
    "narrowing",
    [
        {"tlsPorts": [99999]},
        {"hostPorts": {}},
        {},
        {"dnsNames": False, "tlsServerNames": False, "tlsPorts": [443]},
        {"tlsServerNames": "true"},
    ],
)
def test_inactive_narrowing_gives_the_unnarrowed_shape(narrowing: dict[str, Any]) -> None:
    """§1.3 and Q13: an inactive ciliumNarrowing is ignored completely."""
    hosts = ["api.github.com", ".pypi.org"]
    assert compact(manifest_of(cilium(hosts, narrowing))) == compact(manifest_of(cilium(hosts)))


def test_tls_server_names_refuses_domain_entries_on_the_config_path() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        translate(cilium(["a.example", ".pypi.org"], {"tlsServerNames": True}), TEMPLATE, NAMESPACE)
    assert caught.value.field == "ciliumNarrowing.tlsServerNames"


def test_domain_entries_are_fine_without_tls_server_names() -> None:
    translate(cilium([".pypi.org"], {"ports": [443], "tlsPorts": [443]}), TEMPLATE, NAMESPACE)


def test_translations_do_not_share_mutable_state() -> None:
    first = manifest_of(cilium(["a.example"], {"ports": [443]}))
    first["spec"]["egress"][0]["toEndpoints"][0]["matchLabels"]["x"] = "y"
    first["spec"]["egress"][1]["toPorts"][0]["ports"].append("z")
    second = manifest_of(cilium(["a.example"], {"ports": [443]}))
    assert "x" not in second["spec"]["egress"][0]["toEndpoints"][0]["matchLabels"]
    assert second["spec"]["egress"][1]["toPorts"][0]["ports"] == [
        {"port": "443", "protocol": "TCP"}
    ]
    core = manifest_of({"policy": {"kind": "public-internet"}})
    core["spec"]["egress"][1]["to"][0]["ipBlock"]["except"].clear()
    again = manifest_of({"policy": {"kind": "public-internet"}})
    assert len(again["spec"]["egress"][1]["to"][0]["ipBlock"]["except"]) == 7


def test_narrowing_port_lists_are_not_aliased_into_the_manifest() -> None:
    config = cilium(["a.example"], {"hostPorts": {"a.example": [22]}})
    before = copy.deepcopy(config)
    manifest = manifest_of(config)
    manifest["spec"]["egress"][1]["toPorts"][0]["ports"].clear()
    assert config == before


# --- §15.1 per-sandbox ---------------------------------------------------------------


def per_sandbox(
    hosts: Any, narrowing: dict[str, Any] | None = None, owner: str = "SandboxClaim", **extra: Any
) -> Any:
    return translate_per_sandbox(
        hosts,
        namespace=NAMESPACE,
        label_key="sandbox.users.io/sbx",
        object_name="obj-1",
        owner_kind=owner,  # type: ignore[arg-type]
        owner_uid="uid-1",
        narrowing=narrowing,
        **extra,
    )


def test_per_sandbox_sandbox_owner() -> None:
    manifest = per_sandbox(["a.example"], owner="Sandbox").manifest
    assert compact(manifest["metadata"]) == (
        '{"name":"namzu-sbx-uid-1","namespace":"namzu-sandboxes","ownerReferences":'
        '[{"apiVersion":"agents.x-k8s.io/v1beta1","kind":"Sandbox","name":"obj-1","uid":"uid-1"}]}'
    )
    assert (
        compact(manifest["spec"]["endpointSelector"])
        == '{"matchLabels":{"sandbox.users.io/sbx":"obj-1"}}'
    )


def test_per_sandbox_lowercases_before_judging_and_emitting() -> None:
    narrowing = {"dnsNames": True, "hostPorts": {"api.example.com": [22]}, "tlsServerNames": True}
    egress = per_sandbox(["API.Example.com"], narrowing).manifest["spec"]["egress"]
    assert egress[0]["toPorts"][0]["rules"]["dns"][0] == {"matchName": "api.example.com"}
    assert compact(egress[1]) == (
        '{"toFQDNs":[{"matchName":"api.example.com"}],"toPorts":[{"ports":[{"port":"22","protocol":"TCP"}]}]}'
    )
    tls = per_sandbox(["API.Example.com"], {"tlsServerNames": True}).manifest["spec"]["egress"][1]
    assert tls["toPorts"][0]["serverNames"] == ["api.example.com"]


def test_per_sandbox_unnarrowed_is_one_shared_rule() -> None:
    """Q26: follow the code, one shared toFQDNs rule."""
    egress = per_sandbox(["a.example", "b.example"]).manifest["spec"]["egress"]
    assert len(egress) == 2
    assert egress[1] == {"toFQDNs": [{"matchName": "a.example"}, {"matchName": "b.example"}]}
    inactive = per_sandbox(["a.example", "b.example"], {"tlsPorts": [443]}).manifest["spec"][
        "egress"
    ]
    assert compact(inactive) == compact(egress)


@pytest.mark.parametrize(
    ("hosts", "field", "fragment"),
    [
        ([5], "perSandbox.hosts[0]", "is not a string"),
        (["ok.example", "Bad_Host"], "perSandbox.hosts[1]", '"bad_host"'),
        (["*.example.com"], "perSandbox.hosts[0]", "glob"),
    ],
)
def test_per_sandbox_host_refusals(hosts: list[Any], field: str, fragment: str) -> None:
    with pytest.raises(ConfigRefusal) as caught:
        per_sandbox(hosts)
    assert (caught.value.field, caught.value.error_class) == (field, "host")
    assert fragment in caught.value.message


def test_per_sandbox_hosts_field_can_be_named() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        per_sandbox([""], hosts_field="sandboxes[0].hosts")
    assert caught.value.field == "sandboxes[0].hosts[0]"


def test_per_sandbox_tls_check_names_the_per_sandbox_field() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        per_sandbox([".example.com"], {"tlsServerNames": True})
    assert caught.value.field == "perSandbox.narrowing.tlsServerNames"
    assert "config.egress.perSandbox.narrowing.tlsServerNames" in caught.value.message


@pytest.mark.parametrize(
    ("narrowing", "field"),
    [
        ({"ports": []}, "perSandbox.narrowing.ports"),
        ({"tlsPorts": [0]}, "perSandbox.narrowing.tlsPorts"),  # validated even when inactive
        ({"dnsNames": None}, "perSandbox.narrowing.dnsNames"),
        ("on", "perSandbox.narrowing"),
    ],
)
def test_per_sandbox_narrowing_is_validated(narrowing: Any, field: str) -> None:
    with pytest.raises(ConfigRefusal) as caught:
        per_sandbox(["a.example"], narrowing)
    assert caught.value.field == field


@pytest.mark.parametrize("hosts", ["a.example", None, {"a.example": 1}])
def test_per_sandbox_host_list_must_be_a_list(hosts: Any) -> None:
    with pytest.raises(ConfigRefusal) as caught:
        per_sandbox(hosts)
    assert caught.value.field == "perSandbox.hosts"


def test_per_sandbox_empty_list_still_builds_a_manifest() -> None:
    egress = per_sandbox([]).manifest["spec"]["egress"]
    assert compact(egress) == f'[{SPEC_DNS_VISIBILITY},{{"toFQDNs":[]}}]'


# --- Snapshots ----------------------------------------------------------------------


def pretty(value: Any, depth: int = 0) -> str:
    """JSON indented down to each rule's fields, compact below, so key order
    and value types stay visible in the snapshot without one line per token."""
    if depth >= 4 or not isinstance(value, dict | list) or not value:
        return compact(value)
    inner = "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{compact(key)}: {pretty(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    items = [f"{inner}{pretty(item, depth + 1)}" for item in value]
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"


def test_snapshot_rendering_is_faithful_json() -> None:
    manifest = manifest_of(cilium(["a.example"], {"ports": [443], "dnsNames": True}))
    assert compact(json.loads(pretty(manifest))) == compact(manifest)


KIND_CONFIGS: dict[str, dict[str, Any]] = {
    "deny-all": {"policy": {"kind": "deny-all"}},
    "allow-all": {"policy": {"kind": "allow-all"}},
    "no-network": {"policy": {"kind": "no-network"}},
    "public-internet": {
        "policy": {
            "kind": "public-internet",
            "exceptCidrs": ["203.0.113.0/24", "2001:db8::/32", "10.0.0.1/8"],
        }
    },
    "static": cilium(["api.github.com", ".pypi.org", "API.Example.com"]),
    "resolver": cilium(["registry.npmjs.org", ".example.com"], kind="resolver"),
}


@pytest.mark.parametrize("profile", [None, "internet"], ids=["no-profile", "profile"])
@pytest.mark.parametrize("kind", list(KIND_CONFIGS))
def test_snapshot_every_kind(kind: str, profile: str | None, snapshot: SnapshotAssertion) -> None:
    config = copy.deepcopy(KIND_CONFIGS[kind])
    if profile is not None:
        config["profile"] = profile
        config["profileLabelKey"] = "sandbox.users.io/egress-profile"
    assert pretty(manifest_of(config)) == snapshot


PORTS = {"-": None, "ports": [443, 8443]}
HOST_PORTS = {"-": None, "hostPorts": {"github.com": [22, 443]}}
DNS_NAMES = {
    "-": None,
    "dns": True,
    "dnsObject": {
        "namespace": "other-ns",
        "clusterDomain": "corp.local",
        "searchSuffixes": ["corp.internal"],
    },
}
TLS_SERVER_NAMES = {"-": None, "tls": True}
TLS_PORTS = {"-": None, "tlsPorts": [8443]}

NARROWING_COMBOS = list(
    itertools.product(
        PORTS.items(),
        HOST_PORTS.items(),
        DNS_NAMES.items(),
        TLS_SERVER_NAMES.items(),
        TLS_PORTS.items(),
    )
)


def narrowing_from(combo: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    keys = ["ports", "hostPorts", "dnsNames", "tlsServerNames", "tlsPorts"]
    return {
        key: copy.deepcopy(value)
        for key, (_, value) in zip(keys, combo, strict=True)
        if value is not None
    }


def combo_id(combo: tuple[tuple[str, Any], ...]) -> str:
    return "+".join(label for label, _ in combo if label != "-") or "empty"


def hosts_for(narrowing: dict[str, Any]) -> list[str]:
    # §2.8 refuses .domain entries under tlsServerNames, so the domain joins only without it.
    hosts = ["github.com", "registry.npmjs.org"]
    return hosts if narrowing.get("tlsServerNames") is True else [*hosts, ".pypi.org"]


@pytest.mark.parametrize("combo", NARROWING_COMBOS, ids=[combo_id(c) for c in NARROWING_COMBOS])
def test_snapshot_narrowing_combinations(
    combo: tuple[tuple[str, Any], ...], snapshot: SnapshotAssertion
) -> None:
    narrowing = narrowing_from(combo)
    assert pretty(manifest_of(cilium(hosts_for(narrowing), narrowing))) == snapshot


@pytest.mark.parametrize(
    "narrowing",
    [
        {"ports": [443], "dnsNames": True},
        {"hostPorts": {"github.com": [22]}, "tlsServerNames": True, "tlsPorts": [443, 8443]},
    ],
    ids=["ports+dns", "hostPorts+tls+tlsPorts"],
)
def test_snapshot_narrowing_with_profile(
    narrowing: dict[str, Any], snapshot: SnapshotAssertion
) -> None:
    config = cilium(hosts_for(narrowing), narrowing) | {"profile": "build"}
    assert pretty(manifest_of(config)) == snapshot


PER_SANDBOX_NARROWINGS: dict[str, dict[str, Any] | None] = {
    "unnarrowed": None,
    "inactive": {"tlsPorts": [8443]},
    "ports+dnsObject": {"ports": [443], "dnsNames": {"searchSuffixes": ["corp.internal"]}},
    "hostPorts+tls": {"hostPorts": {"github.com": [22, 443]}, "tlsServerNames": True},
}


@pytest.mark.parametrize("owner", ["SandboxClaim", "Sandbox"])
@pytest.mark.parametrize("label", list(PER_SANDBOX_NARROWINGS))
def test_snapshot_per_sandbox(owner: str, label: str, snapshot: SnapshotAssertion) -> None:
    narrowing = PER_SANDBOX_NARROWINGS[label]
    hosts = ["GitHub.com", "registry.npmjs.org"]
    if narrowing is None or narrowing.get("tlsServerNames") is not True:
        hosts.append(".Example.com")
    translation = translate_per_sandbox(
        hosts,
        namespace=NAMESPACE,
        label_key="sandbox.namzu.ai/per-sandbox-egress",
        object_name=CLAIM_NAME if owner == "SandboxClaim" else "namzu-task-direct-1",
        owner_kind=owner,  # type: ignore[arg-type]
        owner_uid=CLAIM_UID,
        narrowing=copy.deepcopy(narrowing),
    )
    assert pretty(translation.manifest) == snapshot
