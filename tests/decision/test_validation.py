"""Declaration validation: every refusal row of §2.2-§2.6 and §2.9, the
§2.1 order, the label-key grammar, the narrowing "active" rule (§1.3), and
wrong-typed values outside the contract (§0.1)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from lint.decision.model import ConfigRefusal
from lint.decision.translation import translate
from lint.decision.validation import (
    default_policy_name,
    is_valid_port,
    label_key_problem,
    narrowing_active,
    per_sandbox_label_key,
    profile_label_key,
    validate_egress,
    validate_narrowing,
)

TEMPLATE = "namzu-task"
NAMESPACE = "namzu-sandboxes"
STATIC = {"policy": {"kind": "static", "allowedHosts": ["api.github.com"]}, "engine": "cilium"}
PER_SANDBOX = {"engine": "cilium", "admissionPolicyName": "namzu-per-sandbox-egress"}

UNENFORCEABLE = "unenforceable-policy"
POLICY_CONFIG = "policy-config"
NARROWING = "narrowing-unsupported"
PROFILE = "profile-config"
PER_SANDBOX_CONFIG = "per-sandbox-config"
HOST = "host"

N1 = "must not be empty"
N2 = "a port must be an integer from 1 to 65535"
PROFILE_STAKES = "a claim that nothing binds"


def egress(**overrides: Any) -> dict[str, Any]:
    """The static Cilium baseline with top-level fields replaced."""
    config = copy.deepcopy(STATIC)
    config.update(overrides)
    return config


def policy(kind: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, **fields}


def per_sandbox(**overrides: Any) -> dict[str, Any]:
    config = dict(PER_SANDBOX)
    config.update(overrides)
    return config


def refusal_of(config: dict[str, Any], template: str = TEMPLATE) -> ConfigRefusal:
    with pytest.raises(ConfigRefusal) as caught:
        translate(config, template, NAMESPACE)
    return caught.value


def accepted(config: dict[str, Any], template: str = TEMPLATE) -> None:
    translate(config, template, NAMESPACE)


# --- Refusal rows -------------------------------------------------------------
# (id, egress, field, error class, fragments the message must contain)

ROWS: list[tuple[str, dict[str, Any], str, str, list[str]]] = [
    # §2.2 E1
    (
        "E1-static-core",
        egress(engine="core"),
        "policy.kind",
        UNENFORCEABLE,
        [
            "static",
            "ipBlock, podSelector and namespaceSelector",
            "hostnames",
            "engine: cilium",
            "deny-all",
            "allow-all",
            "proxy environment variable",
        ],
    ),
    (
        "E1-resolver-default-engine",
        {"policy": policy("resolver", allowedHosts=["a.example"])},
        "policy.kind",
        UNENFORCEABLE,
        ["resolver", "core"],
    ),
    (
        "E1-before-narrowing",
        egress(engine="core", ciliumNarrowing={"ports": [0]}),
        "policy.kind",
        UNENFORCEABLE,
        ["static"],
    ),
    (
        "E1-engine-misspelt",
        egress(engine="Cilium"),
        "policy.kind",
        UNENFORCEABLE,
        ["Cilium"],
    ),
    # §2.2 E2
    (
        "E2-first-bad-entry",
        {"policy": policy("public-internet", exceptCidrs=["203.0.113.0/24", "10.0.0.0/33", "x"])},
        "policy.exceptCidrs",
        POLICY_CONFIG,
        ['"10.0.0.0/33"', "config.egress.policy.exceptCidrs", "IPv4 or IPv6", "never verifies"],
    ),
    (
        "E2-non-string-entry",
        {"policy": policy("public-internet", exceptCidrs=[5])},
        "policy.exceptCidrs",
        POLICY_CONFIG,
        ["entry 5 "],
    ),
    (
        "E2-scope-id",
        {"policy": policy("public-internet", exceptCidrs=["fe80::1%eth0/64"])},
        "policy.exceptCidrs",
        POLICY_CONFIG,
        ['"fe80::1%eth0/64"'],
    ),
    (
        "E2-netmask-prefix",
        {"policy": policy("public-internet", exceptCidrs=["10.0.0.0/255.0.0.0"])},
        "policy.exceptCidrs",
        POLICY_CONFIG,
        ['"10.0.0.0/255.0.0.0"'],
    ),
    # §2.2 E3
    (
        "E3-deny-all-under-cilium",
        {"policy": policy("deny-all"), "engine": "cilium", "ciliumNarrowing": {"ports": [443]}},
        "ciliumNarrowing",
        NARROWING,
        ["deny-all", "cilium", "`static` or `resolver`", "engine: cilium", "remove"],
    ),
    (
        "E3-core-kind-core-engine",
        {"policy": policy("allow-all"), "ciliumNarrowing": {"tlsServerNames": True}},
        "ciliumNarrowing",
        NARROWING,
        ["allow-all", "core"],
    ),
    (
        "E3-unknown-kind",
        {"policy": policy("open"), "engine": "cilium", "ciliumNarrowing": {"dnsNames": True}},
        "ciliumNarrowing",
        NARROWING,
        ["open"],
    ),
    (
        "E3-hostPorts-active",
        {
            "policy": policy("public-internet"),
            "ciliumNarrowing": {"hostPorts": {"a.example": [22]}},
        },
        "ciliumNarrowing",
        NARROWING,
        ["public-internet"],
    ),
    (
        "E3-empty-ports-still-active",
        {"policy": policy("no-network"), "ciliumNarrowing": {"ports": []}},
        "ciliumNarrowing",
        NARROWING,
        ["no-network"],
    ),
    # §2.3 N1-N6 under ciliumNarrowing (E4)
    (
        "N1",
        egress(ciliumNarrowing={"ports": []}),
        "ciliumNarrowing.ports",
        POLICY_CONFIG,
        [N1, "omit"],
    ),
    (
        "N2-first-bad-entry",
        egress(ciliumNarrowing={"ports": [443, 70000, True]}),
        "ciliumNarrowing.ports",
        POLICY_CONFIG,
        ["entry 70000 ", N2],
    ),
    (
        "N3-empty",
        egress(ciliumNarrowing={"hostPorts": {"github.com": []}}),
        'ciliumNarrowing.hostPorts["github.com"]',
        POLICY_CONFIG,
        [N1],
    ),
    (
        "N3-entry",
        egress(ciliumNarrowing={"hostPorts": {"github.com": [443, 0]}}),
        'ciliumNarrowing.hostPorts["github.com"]',
        POLICY_CONFIG,
        ["entry 0 ", N2],
    ),
    (
        "N3-js-key-order",
        egress(ciliumNarrowing={"hostPorts": {"b.example": [0], "10": [0], "a.example": [0]}}),
        'ciliumNarrowing.hostPorts["10"]',
        POLICY_CONFIG,
        [N2],
    ),
    (
        "N3-key-as-json-string",
        egress(ciliumNarrowing={"hostPorts": {'a"b': []}}),
        'ciliumNarrowing.hostPorts["a\\"b"]',
        POLICY_CONFIG,
        [N1],
    ),
    (
        "N4-empty-without-tls",
        egress(ciliumNarrowing={"ports": [443], "tlsPorts": []}),
        "ciliumNarrowing.tlsPorts",
        POLICY_CONFIG,
        [N1],
    ),
    (
        "N4-entry",
        egress(ciliumNarrowing={"dnsNames": True, "tlsPorts": [443, 99999]}),
        "ciliumNarrowing.tlsPorts",
        POLICY_CONFIG,
        ["entry 99999 ", N2],
    ),
    (
        "N5",
        egress(ciliumNarrowing={"dnsNames": {"clusterDomain": " "}}),
        "ciliumNarrowing.dnsNames.clusterDomain",
        POLICY_CONFIG,
        ["must not be empty"],
    ),
    (
        "N6-not-a-string",
        egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": ["corp.internal", 5]}}),
        "ciliumNarrowing.dnsNames.searchSuffixes",
        POLICY_CONFIG,
        ["entry 5 ", "not a usable DNS suffix"],
    ),
    (
        "N6-blank",
        egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": ["\t"]}}),
        "ciliumNarrowing.dnsNames.searchSuffixes",
        POLICY_CONFIG,
        ['"\\t"', "not a usable DNS suffix"],
    ),
    # §2.4
    (
        "P1",
        egress(profileLabelKey="Sandbox.io/profile"),
        "profileLabelKey",
        PROFILE,
        [
            '"Sandbox.io/profile"',
            "not a Kubernetes label key",
            "DNS-subdomain prefix, one slash",
            "63 characters",
            PROFILE_STAKES,
        ],
    ),
    (
        "P2",
        egress(profileLabelKey="sandbox.namzu.ai/template"),
        "profileLabelKey",
        PROFILE,
        ['"sandbox.namzu.ai/template"', "template name", "applied last", "replace", PROFILE_STAKES],
    ),
    (
        "P3",
        egress(profile="Internet"),
        "profile",
        PROFILE,
        ['"Internet"', "DNS-1123 label", "claim's pod metadata", "selector", PROFILE_STAKES],
    ),
    # §2.5
    (
        "S1",
        egress(perSandbox=per_sandbox(engine="core")),
        "perSandbox.engine",
        PER_SANDBOX_CONFIG,
        ['"core"', "hostname", "core NetworkPolicy"],
    ),
    (
        "S1-absent",
        egress(perSandbox={"admissionPolicyName": "fence"}),
        "perSandbox.engine",
        PER_SANDBOX_CONFIG,
        ["absent", "cilium"],
    ),
    (
        "S2",
        egress(perSandbox={"engine": "cilium"}),
        "perSandbox.admissionPolicyName",
        PER_SANDBOX_CONFIG,
        ['""', "required", "no default", "unnamed fence is an unchecked one"],
    ),
    (
        "S3-empty",
        egress(perSandbox=per_sandbox(admissionPolicyName="")),
        "perSandbox.admissionPolicyName",
        PER_SANDBOX_CONFIG,
        ['""', "empty or space-padded name matches nothing"],
    ),
    (
        "S3-padded",
        egress(perSandbox=per_sandbox(admissionPolicyName="fence ")),
        "perSandbox.admissionPolicyName",
        PER_SANDBOX_CONFIG,
        ['"fence "', "matches nothing"],
    ),
    (
        "S4",
        egress(perSandbox=per_sandbox(admissionPolicyBindingName=" fence-binding")),
        "perSandbox.admissionPolicyBindingName",
        PER_SANDBOX_CONFIG,
        ['" fence-binding"', "matches nothing"],
    ),
    (
        "S5-active",
        egress(perSandbox=per_sandbox(narrowing={"ports": []})),
        "perSandbox.narrowing.ports",
        POLICY_CONFIG,
        [N1],
    ),
    (
        "S5-inactive-still-validated",
        egress(perSandbox=per_sandbox(narrowing={"tlsPorts": [99999]})),
        "perSandbox.narrowing.tlsPorts",
        POLICY_CONFIG,
        ["entry 99999 ", N2],
    ),
    (
        "S5-hostPorts",
        egress(perSandbox=per_sandbox(narrowing={"hostPorts": {"a.example": []}})),
        'perSandbox.narrowing.hostPorts["a.example"]',
        POLICY_CONFIG,
        [N1],
    ),
    (
        "S6",
        egress(perSandbox=per_sandbox(labelKey="a/b/c")),
        "perSandbox.labelKey",
        PER_SANDBOX_CONFIG,
        ['"a/b/c"', "not a Kubernetes label key", "select nothing", "fence refuses"],
    ),
    (
        "S7",
        egress(perSandbox=per_sandbox(labelKey="sandbox.namzu.ai/template")),
        "perSandbox.labelKey",
        PER_SANDBOX_CONFIG,
        ['"sandbox.namzu.ai/template"', "sandbox name where its template label belongs"],
    ),
    (
        "S8-default-profile-key",
        egress(
            profile="internet",
            perSandbox=per_sandbox(labelKey="sandbox.namzu.ai/egress-profile"),
        ),
        "perSandbox.labelKey",
        PER_SANDBOX_CONFIG,
        ['"sandbox.namzu.ai/egress-profile"', "same pod-label map", "replace"],
    ),
    (
        "S8-configured-profile-key",
        egress(
            profile="internet",
            profileLabelKey="sandbox.users.io/egress-profile",
            perSandbox=per_sandbox(labelKey="sandbox.users.io/egress-profile"),
        ),
        "perSandbox.labelKey",
        PER_SANDBOX_CONFIG,
        ["same pod-label map"],
    ),
    (
        "S8-default-keys-collide",
        egress(
            profile="internet",
            profileLabelKey="sandbox.namzu.ai/per-sandbox-egress",
            perSandbox=per_sandbox(),
        ),
        "perSandbox.labelKey",
        PER_SANDBOX_CONFIG,
        ['"sandbox.namzu.ai/per-sandbox-egress"', "same pod-label map"],
    ),
    # §2.7 through the translation: the judged (lowercased) entry is named
    (
        "H5-lowercased-in-message",
        egress(policy=policy("static", allowedHosts=["ok.example", "Bad_Host.example"])),
        "policy.allowedHosts[1]",
        HOST,
        ['"bad_host.example"', "is not a DNS name"],
    ),
    (
        "H1-config-path",
        egress(policy=policy("resolver", allowedHosts=[None])),
        "policy.allowedHosts[0]",
        HOST,
        ["null", "is not a string"],
    ),
    # §2.8
    (
        "tls-domain",
        egress(
            policy=policy("static", allowedHosts=["a.example", ".pypi.org"]),
            ciliumNarrowing={"tlsServerNames": True},
        ),
        "ciliumNarrowing.tlsServerNames",
        HOST,
        ['".pypi.org"', "config.egress.ciliumNarrowing.tlsServerNames", "SNI", "exact hosts"],
    ),
    # §2.9
    (
        "unknown-kind",
        {"policy": policy("open-internet"), "engine": "cilium"},
        "policy.kind",
        POLICY_CONFIG,
        ['{"kind":"open-internet"}', "rather than defaulting to open egress"],
    ),
    (
        "unknown-kind-missing",
        {"policy": {"allowedHosts": []}},
        "policy.kind",
        POLICY_CONFIG,
        ['{"allowedHosts":[]}', "open egress"],
    ),
    (
        "unknown-kind-not-a-string",
        {"policy": {"kind": ["static"]}},
        "policy.kind",
        POLICY_CONFIG,
        ['{"kind":["static"]}'],
    ),
]


@pytest.mark.parametrize(
    ("config", "field", "error_class", "fragments"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_refusal_rows(
    config: dict[str, Any], field: str, error_class: str, fragments: list[str]
) -> None:
    refusal = refusal_of(config)
    assert (refusal.field, refusal.error_class) == (field, error_class), refusal.message
    for fragment in fragments:
        assert fragment in refusal.message


# --- §2.1 order ---------------------------------------------------------------

ORDER: list[tuple[str, dict[str, Any], str]] = [
    (
        "E2-before-E3",
        {
            "policy": policy("public-internet", exceptCidrs=["bad"]),
            "engine": "cilium",
            "ciliumNarrowing": {"ports": [443]},
        },
        "policy.exceptCidrs",
    ),
    (
        "E3-before-narrowing-validation",
        {"policy": policy("deny-all"), "ciliumNarrowing": {"ports": []}},
        "ciliumNarrowing",
    ),
    (
        "E4-before-profile",
        egress(ciliumNarrowing={"ports": [0]}, profile="BAD"),
        "ciliumNarrowing.ports",
    ),
    (
        "N1-before-N3",
        egress(ciliumNarrowing={"ports": [], "hostPorts": {"a.example": []}}),
        "ciliumNarrowing.ports",
    ),
    (
        "N3-before-N4",
        egress(ciliumNarrowing={"hostPorts": {"a.example": [0]}, "tlsPorts": []}),
        'ciliumNarrowing.hostPorts["a.example"]',
    ),
    (
        "N4-before-N5",
        egress(ciliumNarrowing={"tlsPorts": [0], "dnsNames": {"clusterDomain": ""}}),
        "ciliumNarrowing.tlsPorts",
    ),
    (
        "N5-before-N6",
        egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": [""], "clusterDomain": ""}}),
        "ciliumNarrowing.dnsNames.clusterDomain",
    ),
    ("P1-before-P3", egress(profileLabelKey="/x", profile="BAD"), "profileLabelKey"),
    (
        "P2-before-P3",
        egress(profileLabelKey="sandbox.namzu.ai/template", profile="BAD"),
        "profileLabelKey",
    ),
    (
        "P-before-S",
        egress(profile="BAD", perSandbox={"engine": "core"}),
        "profile",
    ),
    (
        "P-before-unknown-kind",
        {"policy": policy("open"), "profile": "BAD"},
        "profile",
    ),
    (
        "S1-before-S2",
        egress(perSandbox={"engine": "core"}),
        "perSandbox.engine",
    ),
    (
        "S3-before-S4",
        egress(perSandbox=per_sandbox(admissionPolicyName="", admissionPolicyBindingName="")),
        "perSandbox.admissionPolicyName",
    ),
    (
        "S4-before-S5",
        egress(perSandbox=per_sandbox(admissionPolicyBindingName="", narrowing={"ports": []})),
        "perSandbox.admissionPolicyBindingName",
    ),
    (
        "S5-before-S6",
        egress(perSandbox=per_sandbox(narrowing={"ports": []}, labelKey="bad key")),
        "perSandbox.narrowing.ports",
    ),
    (
        "S-before-host-grammar",
        egress(
            policy=policy("static", allowedHosts=["*"]),
            perSandbox=per_sandbox(labelKey="sandbox.namzu.ai/template"),
        ),
        "perSandbox.labelKey",
    ),
    (
        "hosts-before-tls-check",
        egress(
            policy=policy("static", allowedHosts=[".pypi.org", "bad_host"]),
            ciliumNarrowing={"tlsServerNames": True},
        ),
        "policy.allowedHosts[1]",
    ),
    (
        "unknown-kind-inactive-narrowing",
        {"policy": policy("open"), "ciliumNarrowing": {"tlsPorts": [443]}},
        "policy.kind",
    ),
]


@pytest.mark.parametrize(("config", "field"), [r[1:] for r in ORDER], ids=[r[0] for r in ORDER])
def test_first_refusal_follows_the_order(config: dict[str, Any], field: str) -> None:
    assert refusal_of(config).field == field


def test_default_name_length_refusal() -> None:
    """§2.6: the computed name, its length, the limit and the three ways out."""
    refusal = refusal_of(egress(profile="internet"), "t" * 240)
    assert (refusal.field, refusal.error_class) == ("profile", PROFILE)
    name = "t" * 240 + "-internet-egress"
    for fragment in [
        f'"{name}"',
        "256 characters",
        "253",
        "Shorten the profile",
        "shorten the template name",
        "set networkPolicyName",
    ]:
        assert fragment in refusal.message


def test_name_length_comes_after_per_sandbox_and_before_hosts() -> None:
    long_template = "t" * 240
    bad_per_sandbox = egress(profile="internet", perSandbox={"engine": "core"})
    assert refusal_of(bad_per_sandbox, long_template).field == "perSandbox.engine"
    bad_host = egress(profile="internet", policy=policy("static", allowedHosts=["*"]))
    assert refusal_of(bad_host, long_template).field == "profile"


def test_validate_egress_stops_before_the_translation_checks() -> None:
    validate_egress(egress(policy=policy("static", allowedHosts=["*"])), TEMPLATE)
    validate_egress({"policy": policy("open")}, TEMPLATE)
    with pytest.raises(ConfigRefusal):
        validate_egress(egress(engine="core"), TEMPLATE)


# --- Acceptances the rows must not over-reach into ------------------------------


@pytest.mark.parametrize(
    "config",
    [
        # E2: host bits, leading zeros (Q25), duplicates (Q15), either family
        {
            "policy": policy(
                "public-internet", exceptCidrs=["10.0.0.1/8", "010.0.0.0/8", "10.0.0.0/8"]
            )
        },
        {"policy": policy("public-internet", exceptCidrs=["1:2:3:4::5:6:7:8/128", "::1/128"])},
        {"policy": policy("public-internet", exceptCidrs=[])},
        {"policy": policy("public-internet")},
        # E3 needs an active narrowing: tlsPorts alone never makes it active (Q13)
        {"policy": policy("deny-all"), "ciliumNarrowing": {"tlsPorts": [99999]}},
        {"policy": policy("deny-all"), "ciliumNarrowing": {"hostPorts": {}}},
        {
            "policy": policy("deny-all"),
            "ciliumNarrowing": {"dnsNames": False, "tlsServerNames": False},
        },
        {"policy": policy("deny-all"), "ciliumNarrowing": {"tlsServerNames": "true"}},
        {"policy": policy("deny-all"), "ciliumNarrowing": {}},
        # N2 accepts integral floats and the range bounds
        egress(ciliumNarrowing={"ports": [1, 65535, 443.0]}),
        # N5/N6 trim with JavaScript's set: U+001C and U+0085 are not whitespace there
        egress(ciliumNarrowing={"dnsNames": {"clusterDomain": "\x1c"}}),
        egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": ["\x85", "\x1f"]}}),
        # dnsNames.namespace is never validated
        egress(ciliumNarrowing={"dnsNames": {"namespace": " "}}),
        egress(ciliumNarrowing={"dnsNames": {"namespace": ""}}),
        # P1 only when present; the profile key is checked without a profile too
        egress(profileLabelKey="sandbox.users.io/egress-profile"),
        egress(profile="a" * 63),
        # S8 does not fire without a profile
        egress(
            profileLabelKey="sandbox.users.io/x",
            perSandbox=per_sandbox(labelKey="sandbox.users.io/x"),
        ),
        # S3/S4 trim with JavaScript's set
        egress(
            perSandbox=per_sandbox(admissionPolicyName="\x1cfence", admissionPolicyBindingName="b")
        ),
        # §2.6 does not run with networkPolicyName or without a profile
        egress(profile="internet", networkPolicyName="short"),
        egress(networkPolicyName=""),
    ],
)
def test_accepted_declarations(config: dict[str, Any]) -> None:
    accepted(config)


def test_long_template_without_profile_is_not_measured() -> None:
    accepted(egress(), "t" * 300)


@pytest.mark.parametrize(("length", "refused"), [(253, False), (254, True)])
def test_name_length_boundary(length: int, refused: bool) -> None:
    template = "t" * (length - len("-p-egress"))
    config = egress(profile="p")
    if refused:
        assert refusal_of(config, template).field == "profile"
    else:
        accepted(config, template)


def test_name_length_counts_utf16_units() -> None:
    # An astral character is two UTF-16 code units in the reference.
    template = "\U0001f600" * 120 + "t" * 6  # 246 units, 126 code points
    assert refusal_of(egress(profile="p"), template).field == "profile"


@pytest.mark.parametrize("value", ["", " ", "\t\n", "\ufeff", "\u3000", "\u2028", "\xa0"])
def test_n5_blank_after_javascript_trim(value: str) -> None:
    config = egress(ciliumNarrowing={"dnsNames": {"clusterDomain": value}})
    assert refusal_of(config).field == "ciliumNarrowing.dnsNames.clusterDomain"


@pytest.mark.parametrize("value", ["", "  ", "\ufeff", "\u205f", None, 5, True])
def test_n6_unusable_suffixes(value: object) -> None:
    config = egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": [value]}})
    assert refusal_of(config).field == "ciliumNarrowing.dnsNames.searchSuffixes"


@pytest.mark.parametrize("value", ["", " fence", "fence\n", "\ufefffence", None, 5])
def test_s3_unusable_fence_names(value: object) -> None:
    config = egress(perSandbox=per_sandbox(admissionPolicyName=value))
    assert refusal_of(config).field == "perSandbox.admissionPolicyName"


@pytest.mark.parametrize(
    "value", [True, False, None, 0, -1, 65536, 443.5, "443", float("nan"), float("inf"), [443]]
)
def test_n2_rejects_non_ports(value: object) -> None:
    assert not is_valid_port(value)
    config = egress(ciliumNarrowing={"ports": [value]})
    assert refusal_of(config).field == "ciliumNarrowing.ports"


def test_n2_nan_is_rendered_as_null() -> None:
    config = egress(ciliumNarrowing={"ports": [float("nan")]})
    assert "entry null " in refusal_of(config).message


@pytest.mark.parametrize(
    "value", ["Internet", "", "-a", "a-", "a" * 64, "a_b", "a.b", "a\n", "\uff41", None, 5]
)
def test_p3_rejects_non_labels(value: object) -> None:
    assert refusal_of(egress(profile=value)).field == "profile"


# --- Wrong-typed values outside the contract (§0.1) --------------------------------

WRONG_TYPES: list[tuple[str, dict[str, Any], str]] = [
    ("policy-missing", {"engine": "cilium"}, "policy"),
    ("policy-string", {"policy": "static"}, "policy"),
    ("policy-null", {"policy": None}, "policy"),
    (
        "exceptCidrs-string",
        {"policy": policy("public-internet", exceptCidrs="10.0.0.0/8")},
        "policy.exceptCidrs",
    ),
    (
        "exceptCidrs-null",
        {"policy": policy("public-internet", exceptCidrs=None)},
        "policy.exceptCidrs",
    ),
    ("narrowing-string", egress(ciliumNarrowing="on"), "ciliumNarrowing"),
    ("narrowing-null", egress(ciliumNarrowing=None), "ciliumNarrowing"),
    ("ports-string", egress(ciliumNarrowing={"ports": "443"}), "ciliumNarrowing.ports"),
    ("ports-null", egress(ciliumNarrowing={"ports": None}), "ciliumNarrowing.ports"),
    ("ports-object", egress(ciliumNarrowing={"ports": {"443": True}}), "ciliumNarrowing.ports"),
    (
        "hostPorts-list",
        egress(ciliumNarrowing={"hostPorts": ["a.example"]}),
        "ciliumNarrowing.hostPorts",
    ),
    ("hostPorts-null", egress(ciliumNarrowing={"hostPorts": None}), "ciliumNarrowing.hostPorts"),
    (
        "hostPorts-int-key",
        egress(ciliumNarrowing={"hostPorts": {1: [443]}}),
        "ciliumNarrowing.hostPorts",
    ),
    (
        "hostPorts-value",
        egress(ciliumNarrowing={"hostPorts": {"a.example": 443}}),
        'ciliumNarrowing.hostPorts["a.example"]',
    ),
    (
        "tlsPorts-string-inactive",
        egress(ciliumNarrowing={"tlsPorts": "443"}),
        "ciliumNarrowing.tlsPorts",
    ),
    (
        "tlsPorts-null-active",
        egress(ciliumNarrowing={"ports": [443], "tlsPorts": None}),
        "ciliumNarrowing.tlsPorts",
    ),
    (
        "dnsNames-null-inactive",
        egress(ciliumNarrowing={"dnsNames": None}),
        "ciliumNarrowing.dnsNames",
    ),
    (
        "dnsNames-null-active",
        egress(ciliumNarrowing={"ports": [443], "dnsNames": None}),
        "ciliumNarrowing.dnsNames",
    ),
    ("dnsNames-string", egress(ciliumNarrowing={"dnsNames": "yes"}), "ciliumNarrowing.dnsNames"),
    ("dnsNames-list", egress(ciliumNarrowing={"dnsNames": []}), "ciliumNarrowing.dnsNames"),
    (
        "clusterDomain-number",
        egress(ciliumNarrowing={"dnsNames": {"clusterDomain": 5}}),
        "ciliumNarrowing.dnsNames.clusterDomain",
    ),
    (
        "clusterDomain-null",
        egress(ciliumNarrowing={"dnsNames": {"clusterDomain": None}}),
        "ciliumNarrowing.dnsNames.clusterDomain",
    ),
    (
        "searchSuffixes-string",
        egress(ciliumNarrowing={"dnsNames": {"searchSuffixes": "corp"}}),
        "ciliumNarrowing.dnsNames.searchSuffixes",
    ),
    (
        "namespace-number",
        egress(ciliumNarrowing={"dnsNames": {"namespace": 5}}),
        "ciliumNarrowing.dnsNames.namespace",
    ),
    ("profileLabelKey-null", egress(profileLabelKey=None), "profileLabelKey"),
    ("perSandbox-null", egress(perSandbox=None), "perSandbox"),
    ("perSandbox-list", egress(perSandbox=[]), "perSandbox"),
    (
        "perSandbox-narrowing-string",
        egress(perSandbox=per_sandbox(narrowing="x")),
        "perSandbox.narrowing",
    ),
    (
        "perSandbox-narrowing-null",
        egress(perSandbox=per_sandbox(narrowing=None)),
        "perSandbox.narrowing",
    ),
    (
        "perSandbox-labelKey-null",
        egress(perSandbox=per_sandbox(labelKey=None)),
        "perSandbox.labelKey",
    ),
    (
        "binding-null",
        egress(perSandbox=per_sandbox(admissionPolicyBindingName=None)),
        "perSandbox.admissionPolicyBindingName",
    ),
    ("networkPolicyName-number", egress(networkPolicyName=5), "networkPolicyName"),
    (
        "allowedHosts-string",
        egress(policy=policy("static", allowedHosts="a.example")),
        "policy.allowedHosts",
    ),
    (
        "allowedHosts-null",
        egress(policy=policy("resolver", allowedHosts=None)),
        "policy.allowedHosts",
    ),
    ("allowedHosts-missing", egress(policy=policy("static")), "policy.allowedHosts"),
]


@pytest.mark.parametrize(
    ("config", "field"), [r[1:] for r in WRONG_TYPES], ids=[r[0] for r in WRONG_TYPES]
)
def test_wrong_types_are_refused_naming_the_field(config: dict[str, Any], field: str) -> None:
    refusal = refusal_of(config)
    assert refusal.field == field
    assert refusal.message


# --- §1.3 active --------------------------------------------------------------


@pytest.mark.parametrize(
    ("narrowing", "active"),
    [
        (None, False),
        ({}, False),
        ({"ports": [443]}, True),
        ({"ports": []}, True),  # present, even empty
        ({"hostPorts": {"a.example": [22]}}, True),
        ({"hostPorts": {}}, False),
        ({"dnsNames": True}, True),
        ({"dnsNames": {}}, True),
        ({"dnsNames": False}, False),
        ({"tlsServerNames": True}, True),
        ({"tlsServerNames": False}, False),
        ({"tlsServerNames": "true"}, False),  # only the literal true
        ({"tlsServerNames": 1}, False),
        ({"tlsPorts": [443]}, False),  # tlsPorts alone never
        ({"tlsPorts": [99999], "hostPorts": {}, "dnsNames": False}, False),
    ],
)
def test_narrowing_active(narrowing: dict[str, Any] | None, active: bool) -> None:
    assert narrowing_active(narrowing) is active


def test_validate_narrowing_uses_the_prefix() -> None:
    with pytest.raises(ConfigRefusal) as caught:
        validate_narrowing({"ports": [0]}, "perSandbox.narrowing")
    assert caught.value.field == "perSandbox.narrowing.ports"
    assert "config.egress.perSandbox.narrowing.ports" in caught.value.message


def test_validate_narrowing_accepts_a_full_valid_object() -> None:
    validate_narrowing(
        {
            "ports": [443],
            "hostPorts": {"a.example": [22, 443]},
            "dnsNames": {"namespace": "x", "clusterDomain": "corp.local", "searchSuffixes": ["c"]},
            "tlsServerNames": True,
            "tlsPorts": [443, 8443],
        },
        "ciliumNarrowing",
    )


# --- §2.4 label-key grammar -----------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "x",
        "a" * 63,
        "A_b.c-D",
        "sandbox.users.io/egress-profile",
        "example.com/X",
        "a" * 253 + "/x",
        "0/0",
    ],
)
def test_label_key_grammar_accepts(key: str) -> None:
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("", "name part"),
        ("a" * 64, "name part"),
        ("-x", "name part"),
        ("x-", "name part"),
        ("a b", "name part"),
        ("x\n", "name part"),
        ("example.com/", "name part"),
        ("/x", "prefix"),  # an empty prefix fails
        ("Sandbox.io/x", "prefix"),  # the prefix must be lowercase
        ("a_b.io/x", "prefix"),
        ("a" * 254 + "/x", "prefix"),
        (".io/x", "prefix"),
        ("a/b/c", "more than one"),
        ("a//b", "more than one"),
        (5, "not a string"),
        (None, "not a string"),
    ],
)
def test_label_key_grammar_refuses(key: object, fragment: str) -> None:
    problem = label_key_problem(key)
    assert problem is not None and fragment in problem


# --- Small readers -----------------------------------------------------------------


def test_default_policy_name() -> None:
    assert default_policy_name("namzu-task", None) == "namzu-task-egress"
    assert default_policy_name("namzu-task", "internet") == "namzu-task-internet-egress"


def test_profile_label_key_default_and_configured() -> None:
    assert profile_label_key({}) == "sandbox.namzu.ai/egress-profile"
    assert profile_label_key({"profileLabelKey": "sandbox.users.io/p"}) == "sandbox.users.io/p"


def test_per_sandbox_label_key_default_and_configured() -> None:
    assert per_sandbox_label_key({}) == "sandbox.namzu.ai/per-sandbox-egress"
    assert per_sandbox_label_key({"labelKey": "sandbox.users.io/sbx"}) == "sandbox.users.io/sbx"


def test_validation_does_not_mutate_the_declaration() -> None:
    config = egress(ciliumNarrowing={"hostPorts": {"b": [1], "10": [2]}, "ports": [443.0]})
    before = copy.deepcopy(config)
    translate(config, TEMPLATE, NAMESPACE)
    assert config == before
    assert list(config["ciliumNarrowing"]["hostPorts"]) == ["b", "10"]
