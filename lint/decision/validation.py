"""Validation of the declared ``config.egress`` (SEMANTICS.md §1.3, §1.6,
§2.1-§2.6, §2.9).

Every check raises :class:`ConfigRefusal` naming the field path under
``config.egress``. :func:`validate_egress` runs steps 1-4 of the §2.1 order;
step 5 (hosts, the TLS check, an unknown kind) belongs to the translation.

Values whose type is outside the sandbox host's contract (``ports: "443"``,
``dnsNames: null``, …) are refused where the reference would first read
them, never crashed on (§0.1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from lint.decision.cidr import parse_cidr
from lint.decision.constants import (
    CILIUM_EGRESS_POLICY_KINDS,
    DEFAULT_PER_SANDBOX_LABEL,
    DEFAULT_PROFILE_LABEL,
    MAX_NAME_LENGTH,
    TEMPLATE_LABEL,
)
from lint.decision.model import ConfigRefusal, ErrorClass
from lint.decision.narrowing import (
    DNS_NAMES_SHAPE,
    MAX_PORT,
    PORTS_SHAPE,
    is_valid_port,
    validate_narrowing,
    wrong_type,
)

__all__ = [
    "MAX_PORT",
    "default_policy_name",
    "engine_of",
    "is_valid_port",
    "label_key_problem",
    "narrowing_active",
    "per_sandbox_label_key",
    "policy_object",
    "profile_label_key",
    "unknown_kind_refusal",
    "validate_allow_egress",
    "validate_egress",
    "validate_narrowing",
]
from lint.decision.values import (
    ABSENT,
    JSON,
    compact_json,
    is_object,
    js_trim,
)

DEFAULT_ENGINE: Final = "core"

_DNS_LABEL: Final = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?", re.ASCII)
_LABEL_NAME: Final = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", re.ASCII)
_LABEL_PREFIX: Final = re.compile(r"[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?", re.ASCII)

_LABEL_KEY_GRAMMAR: Final = (
    "A Kubernetes label key is an optional DNS-subdomain prefix, one slash, "
    "and a name of at most 63 characters."
)
_PROFILE_STAKES: Final = (
    "The profile becomes a label on the claim's pod metadata, a label on a "
    "direct Sandbox's pod template, and part of the translated policy's "
    "selector, so an invalid value leaves a claim that nothing binds or a "
    "policy that nobody can apply."
)


# --- Reading the configuration (§1) ----------------------------------------


def engine_of(egress: Mapping[str, JSON]) -> JSON:
    """The configured engine (§1.1), ``core`` when absent."""
    return egress.get("engine", DEFAULT_ENGINE)


def profile_label_key(egress: Mapping[str, JSON]) -> str:
    """The resolved profile label key (§1.1, §14): ``profileLabelKey`` or the
    default. Only meaningful once §2.4 has accepted the key."""
    key = egress.get("profileLabelKey", ABSENT)
    return key if isinstance(key, str) else DEFAULT_PROFILE_LABEL


def per_sandbox_label_key(per_sandbox: Mapping[str, JSON]) -> str:
    """The resolved per-sandbox label key (§1.4): ``labelKey`` or the default.
    Only meaningful once §2.5 has accepted the key."""
    key = per_sandbox.get("labelKey", ABSENT)
    return key if isinstance(key, str) else DEFAULT_PER_SANDBOX_LABEL


def default_policy_name(template: str, profile: str | None) -> str:
    """The default policy name (§1.6): ``<template>-egress``, or
    ``<template>-<profile>-egress`` with a profile."""
    if profile is None:
        return f"{template}-egress"
    return f"{template}-{profile}-egress"


def narrowing_active(narrowing: Mapping[str, JSON] | None) -> bool:
    """Whether a narrowing object is active (§1.3): ``ports`` present (even
    ``[]``), ``hostPorts`` with a key, ``dnsNames`` true or an object, or
    ``tlsServerNames`` exactly true. ``tlsPorts`` alone never counts.

    A ``hostPorts`` that is present but not an object is outside the
    contract; it counts as active so that validation refuses it.
    """
    if narrowing is None or not is_object(narrowing):
        return False
    if "ports" in narrowing:
        return True
    host_ports = narrowing.get("hostPorts", ABSENT)
    if host_ports is not ABSENT and (not is_object(host_ports) or len(host_ports) > 0):
        return True
    dns_names = narrowing.get("dnsNames", ABSENT)
    if dns_names is True or is_object(dns_names):
        return True
    return narrowing.get("tlsServerNames", ABSENT) is True


def label_key_problem(key: JSON) -> str | None:
    """The label-key grammar of §2.4: why ``key`` is not a Kubernetes label
    key, or None when it is one. Split at the first ``/``: the name must be
    1-63 characters, the prefix (when there is a slash, even an empty one) a
    lowercase DNS subdomain, and a second slash is never allowed."""
    if not isinstance(key, str):
        return "it is not a string"
    prefix, slash, name = key.partition("/")
    if not slash:
        name = key
    if "/" in name:
        return "it has more than one `/`"
    if not _LABEL_NAME.fullmatch(name):
        return (
            f"its name part {compact_json(name)} is not 1 to 63 letters, digits, "
            "`-`, `_` or `.` beginning and ending with a letter or digit"
        )
    if slash and not _LABEL_PREFIX.fullmatch(prefix):
        return f"its prefix {compact_json(prefix)} is not a lowercase DNS subdomain"
    return None


# --- §2.1: the order ----------------------------------------------------------


def validate_egress(egress: Mapping[str, JSON], template: str) -> None:
    """Steps 1-4 of §2.1: enforceability with narrowing (§2.2, §2.3), the
    profile (§2.4), per-sandbox (§2.5) and the default name length (§2.6).
    Raises :class:`ConfigRefusal` for the first refusal."""
    policy = policy_object(egress)
    _check_enforceability(egress, policy)
    _check_profile(egress)
    _check_per_sandbox(egress)
    _check_policy_name(egress, template)


def validate_allow_egress(egress: Mapping[str, JSON], template: str) -> None:
    """The checks an ``allow`` intent (issue 17) shares with a policy kind:
    the profile (§2.4) and the default name length (§2.6). Narrowing and
    per-sandbox settings shape a hostname allowlist kind, so an ``allow``
    intent refuses them."""
    for field in ("ciliumNarrowing", "perSandbox"):
        if field in egress:
            raise ConfigRefusal(
                field,
                ErrorClass.POLICY_CONFIG,
                f"config.egress.{field} shapes a `policy` allowlist and has no meaning "
                "beside `allow`: write ports in the allow rules, and hosts with their "
                "ports in allowHosts.",
            )
    _check_profile(egress)
    _check_policy_name(egress, template)


def policy_object(egress: Mapping[str, JSON]) -> Mapping[str, JSON]:
    """``egress.policy``, which must be an object (§1.1, §0.1)."""
    policy = egress.get("policy", ABSENT)
    if policy is ABSENT:
        raise ConfigRefusal(
            "policy",
            ErrorClass.POLICY_CONFIG,
            "config.egress.policy is required: declare a policy kind.",
        )
    if not is_object(policy):
        raise wrong_type("policy", policy, "an object with a `kind`", ErrorClass.POLICY_CONFIG)
    return dict(policy)


def unknown_kind_refusal(policy: Mapping[str, JSON]) -> ConfigRefusal:
    """§2.9: the refusal for a ``policy.kind`` that §1.2 does not define."""
    return ConfigRefusal(
        "policy.kind",
        ErrorClass.POLICY_CONFIG,
        f"policy {compact_json(dict(policy))} has a kind this check does not know; "
        "it is refused rather than defaulting to open egress. Use one of deny-all, "
        "allow-all, no-network, public-internet, static or resolver.",
    )


# --- Step 1: enforceability (§2.2) --------------------------------------------


def _check_enforceability(egress: Mapping[str, JSON], policy: Mapping[str, JSON]) -> None:
    kind = policy.get("kind", ABSENT)
    cilium = engine_of(egress) == "cilium"
    if kind in CILIUM_EGRESS_POLICY_KINDS and not cilium:
        raise _unenforceable(kind, engine_of(egress))
    if kind == "public-internet":
        _check_except_cidrs(policy)
    narrowing = egress.get("ciliumNarrowing", ABSENT)
    if narrowing is ABSENT:
        return
    if not is_object(narrowing):
        raise wrong_type("ciliumNarrowing", narrowing, "an object", ErrorClass.POLICY_CONFIG)
    if not narrowing_active(narrowing):
        # Quirk Q13: an inactive narrowing is ignored, bad values included.
        _check_inactive_narrowing_types(narrowing)
        return
    if not cilium or kind not in CILIUM_EGRESS_POLICY_KINDS:
        raise _narrowing_unsupported(kind, engine_of(egress))
    validate_narrowing(narrowing, "ciliumNarrowing")


def _unenforceable(kind: JSON, engine: JSON) -> ConfigRefusal:
    return ConfigRefusal(
        "policy.kind",
        ErrorClass.UNENFORCEABLE_POLICY,
        f"policy kind {_text(kind)} cannot be enforced under engine {_text(engine)}: "
        "a core NetworkPolicy can only name ipBlock, podSelector and "
        "namespaceSelector destinations, so it cannot express hostnames. Set "
        "`engine: cilium` if the cluster runs Cilium, or use `deny-all` or "
        "`allow-all`. The check refuses rather than falling back to a proxy "
        "environment variable.",
    )


def _check_except_cidrs(policy: Mapping[str, JSON]) -> None:
    entries = policy.get("exceptCidrs", ABSENT)
    if entries is ABSENT:
        return
    if not isinstance(entries, list):
        raise wrong_type(
            "policy.exceptCidrs", entries, "a list of CIDR strings", ErrorClass.POLICY_CONFIG
        )
    for entry in entries:
        if parse_cidr(entry) is None:
            raise ConfigRefusal(
                "policy.exceptCidrs",
                ErrorClass.POLICY_CONFIG,
                f"config.egress.policy.exceptCidrs entry {compact_json(entry)} is not "
                "an IPv4 or IPv6 CIDR the check can read. An `except` entry the API "
                "server rejects would leave a policy that never verifies.",
            )


def _narrowing_unsupported(kind: JSON, engine: JSON) -> ConfigRefusal:
    return ConfigRefusal(
        "ciliumNarrowing",
        ErrorClass.NARROWING_UNSUPPORTED,
        f"ciliumNarrowing is set for policy kind {_text(kind)} under engine "
        f"{_text(engine)}, but port, DNS-name and TLS-server-name narrowing only "
        "apply to a `static` or `resolver` allowlist under `engine: cilium`. "
        "Change the engine and the kind, or remove ciliumNarrowing.",
    )


def _check_inactive_narrowing_types(narrowing: Mapping[str, JSON]) -> None:
    dns_names = narrowing.get("dnsNames", ABSENT)
    if dns_names is not ABSENT and not isinstance(dns_names, bool):
        raise wrong_type(
            "ciliumNarrowing.dnsNames", dns_names, DNS_NAMES_SHAPE, ErrorClass.POLICY_CONFIG
        )
    tls_ports = narrowing.get("tlsPorts", ABSENT)
    if tls_ports is not ABSENT and not isinstance(tls_ports, list):
        raise wrong_type(
            "ciliumNarrowing.tlsPorts", tls_ports, PORTS_SHAPE, ErrorClass.POLICY_CONFIG
        )


# --- Step 2: profile (§2.4) ---------------------------------------------------


def _check_profile(egress: Mapping[str, JSON]) -> None:
    key = egress.get("profileLabelKey", ABSENT)
    if key is not ABSENT:
        problem = label_key_problem(key)
        if problem is not None:
            raise ConfigRefusal(
                "profileLabelKey",
                ErrorClass.PROFILE_CONFIG,
                f"profileLabelKey {compact_json(key)} is not a Kubernetes label key: "
                f"{problem}. {_LABEL_KEY_GRAMMAR} {_PROFILE_STAKES}",
            )
        if key == TEMPLATE_LABEL:
            raise ConfigRefusal(
                "profileLabelKey",
                ErrorClass.PROFILE_CONFIG,
                f"profileLabelKey {compact_json(key)} is the key that carries the "
                "template name, and the profile label is applied last, so it would "
                f"replace the template label. {_PROFILE_STAKES}",
            )
    profile = egress.get("profile", ABSENT)
    if profile is not ABSENT and not (isinstance(profile, str) and _DNS_LABEL.fullmatch(profile)):
        raise ConfigRefusal(
            "profile",
            ErrorClass.PROFILE_CONFIG,
            f"profile {compact_json(profile)} is not a DNS-1123 label (lowercase "
            "letters, digits and `-`, at most 63 characters, beginning and ending "
            f"with a letter or digit). {_PROFILE_STAKES}",
        )


# --- Step 3: per-sandbox (§2.5) -----------------------------------------------


def _check_per_sandbox(egress: Mapping[str, JSON]) -> None:
    per_sandbox = egress.get("perSandbox", ABSENT)
    if per_sandbox is ABSENT:
        return
    if not is_object(per_sandbox):
        raise wrong_type("perSandbox", per_sandbox, "an object", ErrorClass.PER_SANDBOX_CONFIG)
    _check_per_sandbox_engine(per_sandbox)
    _check_fence_names(per_sandbox)
    narrowing = per_sandbox.get("narrowing", ABSENT)
    if narrowing is not ABSENT:
        if not is_object(narrowing):
            raise wrong_type(
                "perSandbox.narrowing", narrowing, "an object", ErrorClass.PER_SANDBOX_CONFIG
            )
        validate_narrowing(narrowing, "perSandbox.narrowing")
    _check_per_sandbox_label_key(egress, per_sandbox)


def _check_per_sandbox_engine(per_sandbox: Mapping[str, JSON]) -> None:
    engine = per_sandbox.get("engine", ABSENT)
    if engine == "cilium":
        return
    shown = "absent" if engine is ABSENT else compact_json(engine)
    raise ConfigRefusal(
        "perSandbox.engine",
        ErrorClass.PER_SANDBOX_CONFIG,
        f"perSandbox.engine is {shown}, but it must be `cilium`: a per-sandbox "
        "list is made of hostnames, and a core NetworkPolicy has no hostname "
        "concept, so no per-sandbox policy could enforce it.",
    )


def _check_fence_names(per_sandbox: Mapping[str, JSON]) -> None:
    name = per_sandbox.get("admissionPolicyName", ABSENT)
    if name is ABSENT:
        raise ConfigRefusal(
            "perSandbox.admissionPolicyName",
            ErrorClass.PER_SANDBOX_CONFIG,
            'perSandbox.admissionPolicyName is "": it is required and has no '
            "default, because an unnamed fence is an unchecked one. Every "
            "per-sandbox write would be refused.",
        )
    _check_fence_name("perSandbox.admissionPolicyName", name)
    binding = per_sandbox.get("admissionPolicyBindingName", ABSENT)
    if binding is not ABSENT:
        _check_fence_name("perSandbox.admissionPolicyBindingName", binding)


def _check_fence_name(field: str, name: JSON) -> None:
    if isinstance(name, str) and name != "" and js_trim(name) == name:
        return
    raise ConfigRefusal(
        field,
        ErrorClass.PER_SANDBOX_CONFIG,
        f"{field} {compact_json(name)} is not a usable object name: an empty or "
        "space-padded name matches nothing, so the fence would never be found "
        "and every per-sandbox write would be refused.",
    )


def _check_per_sandbox_label_key(
    egress: Mapping[str, JSON], per_sandbox: Mapping[str, JSON]
) -> None:
    key: JSON = per_sandbox.get("labelKey", DEFAULT_PER_SANDBOX_LABEL)
    shown = compact_json(key)
    problem = label_key_problem(key)
    if problem is not None:
        raise _label_key_refusal(
            f"perSandbox.labelKey {shown} is not a Kubernetes label key: {problem}. "
            f"{_LABEL_KEY_GRAMMAR} A per-sandbox policy selecting on it would "
            "select nothing, and the fence refuses its writes."
        )
    if key == TEMPLATE_LABEL:
        raise _label_key_refusal(
            f"perSandbox.labelKey {shown} is the template label key: the pod would "
            "carry a sandbox name where its template label belongs, so policies "
            "selecting the template would no longer select it."
        )
    if "profile" in egress and key == profile_label_key(egress):
        raise _label_key_refusal(
            f"perSandbox.labelKey {shown} is also the profile label key: both labels "
            "go into the same pod-label map and one would replace the other, so a "
            "policy selecting the lost label would select nothing."
        )


def _label_key_refusal(message: str) -> ConfigRefusal:
    return ConfigRefusal("perSandbox.labelKey", ErrorClass.PER_SANDBOX_CONFIG, message)


# --- Step 4: the policy name (§1.6, §2.6) -------------------------------------


def _check_policy_name(egress: Mapping[str, JSON], template: str) -> None:
    configured = egress.get("networkPolicyName", ABSENT)
    if configured is not ABSENT:
        # §1.6: used verbatim and never validated, beyond being a string.
        if not isinstance(configured, str):
            raise wrong_type("networkPolicyName", configured, "a string", ErrorClass.POLICY_CONFIG)
        return
    profile = egress.get("profile", ABSENT)
    if not isinstance(profile, str):
        return
    name = default_policy_name(template, profile)
    length = _js_length(name)
    if length > MAX_NAME_LENGTH:
        raise ConfigRefusal(
            "profile",
            ErrorClass.PROFILE_CONFIG,
            f"the default policy name {compact_json(name)} is {length} characters "
            f"long, over the {MAX_NAME_LENGTH}-character limit for object names. "
            "Shorten the profile, shorten the template name, or set networkPolicyName.",
        )


# --- Helpers ------------------------------------------------------------------


def _text(value: JSON) -> str:
    """A configured value in running text: strings bare, anything else as
    compact JSON, an absent value as ``(absent)``."""
    if value is ABSENT:
        return "(absent)"
    return value if isinstance(value, str) else compact_json(value)


def _js_length(text: str) -> int:
    # JavaScript string length counts UTF-16 code units.
    return len(text.encode("utf-16-le")) // 2
