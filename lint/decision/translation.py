"""Translation of a declared egress into its exact reference manifest
(SEMANTICS.md §1.6, §3, §14, §15.1).

Manifests are plain dicts whose key order, array order and value types are
the bytes of §3: the named comparison (§12) and ``generate`` both rely on
them, so every dict below is built literally in the order §3 gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal

from msgspec.structs import replace

from lint.decision.allow_rules import (
    ALLOW_HOSTS_FIELD,
    ALLOW_POLICY_KIND,
    allow_hosts,
    allow_hosts_rules,
    validate_allow_rules,
)
from lint.decision.cidr import is_ipv6_text
from lint.decision.constants import (
    CILIUM_API_VERSION,
    CILIUM_EGRESS_POLICY_KINDS,
    CILIUM_KIND,
    CORE_API_VERSION,
    CORE_EGRESS_POLICY_KINDS,
    CORE_KIND,
    DEFAULT_CLUSTER_DOMAIN,
    DEFAULT_TLS_PORTS,
    IPV4_EXCLUSIONS,
    IPV6_EXCLUSIONS,
    PER_SANDBOX_PREFIX,
    TEMPLATE_LABEL,
    cluster_dns_rule,
    dns_visibility_rule,
    kube_dns_endpoints,
    kube_dns_rule,
)
from lint.decision.hosts import (
    check_hosts,
    check_tls_domains,
    expand_host,
    judged_form,
    strip_leading_dot,
)
from lint.decision.model import ConfigRefusal, ErrorClass, Translation
from lint.decision.validation import (
    default_policy_name,
    engine_of,
    narrowing_active,
    policy_object,
    profile_label_key,
    unknown_kind_refusal,
    validate_allow_egress,
    validate_egress,
    validate_narrowing,
)
from lint.decision.values import ABSENT, JSON, compact_json, format_number, is_object
from lint.kinds import SANDBOX, SANDBOX_CLAIM

__all__ = [
    "OWNER_API_VERSIONS",
    "default_policy_name",
    "profile_label_key",
    "selector_labels",
    "translate",
    "translate_allow",
    "translate_per_sandbox",
    "with_selector",
]

OwnerKind = Literal["SandboxClaim", "Sandbox"]

OWNER_API_VERSIONS: Final[Mapping[str, str]] = {
    owner.name: owner.api_version for owner in (SANDBOX_CLAIM, SANDBOX)
}

PER_SANDBOX_NARROWING: Final = "perSandbox.narrowing"


def selector_labels(template: str, profile: str | None, profile_key: str) -> dict[str, JSON]:
    """The selector labels (§3.1, §14): the template label first, then the
    profile label when a profile is set."""
    labels: dict[str, JSON] = {TEMPLATE_LABEL: template}
    if profile is not None:
        labels[profile_key] = profile
    return labels


def translate(egress: Mapping[str, JSON], template: str, namespace: str) -> Translation:
    """Validate the declaration in the §2.1 order and translate it (§3).

    ``egress`` is the camelCase ``config.egress`` object; for ``resolver``
    the resolved hosts are in ``policy.allowedHosts``. Raises
    :class:`ConfigRefusal` for the first refusal.
    """
    validate_egress(egress, template)
    policy = policy_object(egress)
    kind = policy.get("kind", ABSENT)
    profile = egress.get("profile", None)
    name = _policy_name(egress, template, profile)
    selector = selector_labels(template, profile, profile_label_key(egress))
    if kind in CORE_EGRESS_POLICY_KINDS:
        metadata = {"name": name, "namespace": namespace}
        manifest = _core_manifest(_core_egress(kind, policy), metadata, selector)
        return Translation(CORE_KIND, kind, namespace, name, manifest)
    if kind in CILIUM_EGRESS_POLICY_KINDS:
        hosts = _allowed_hosts(policy)
        narrowing = egress.get("ciliumNarrowing", None)
        manifest = _cilium_manifest(
            [judged_form(entry) for entry in hosts],
            hosts,
            narrowing if narrowing_active(narrowing) else None,
            namespace=namespace,
            metadata={"name": name, "namespace": namespace},
            selector=selector,
            fields=("policy.allowedHosts", "ciliumNarrowing.tlsServerNames"),
        )
        return Translation(CILIUM_KIND, kind, namespace, name, manifest)
    raise unknown_kind_refusal(policy)


def translate_allow(
    egress: Mapping[str, JSON],
    template: str,
    namespace: str,
    selector: Mapping[str, str] | None = None,
    *,
    cluster_forms: bool = False,
) -> Translation:
    """Validate and translate an ``allow`` intent (issue 17): a core
    NetworkPolicy whose ``spec.egress`` is the ``allow`` list as written,
    and, with ``allowHosts``, a CiliumNetworkPolicy of the same name beside
    it (the translation's ``companion``). ``selector`` None selects the
    namzu template label (and the profile label, §3.1); the name is
    ``networkPolicyName`` or the default name (§1.6). ``cluster_forms``
    (``host: none``) lets ``allowHosts`` take Cilium patterns and protocols
    (issue 28)."""
    rules = validate_allow_rules(egress.get("allow"))
    hosts = None
    if ALLOW_HOSTS_FIELD in egress:
        if engine_of(egress) != "cilium":
            raise ConfigRefusal(
                ALLOW_HOSTS_FIELD,
                ErrorClass.UNENFORCEABLE_POLICY,
                f"config.egress.allowHosts names hostnames, but the engine is "
                f"{compact_json(engine_of(egress))}: a core NetworkPolicy can only name "
                "ipBlock, podSelector and namespaceSelector destinations. Set "
                "`engine: cilium` if the cluster runs Cilium, or write the "
                "destinations as allow rules.",
            )
        hosts = allow_hosts(egress[ALLOW_HOSTS_FIELD], cluster_forms=cluster_forms)
    validate_allow_egress(egress, template)
    profile = egress.get("profile", None)
    name = _policy_name(egress, template, profile)
    labels: dict[str, JSON] = (
        selector_labels(template, profile, profile_label_key(egress))
        if selector is None
        else dict(selector)
    )
    metadata: dict[str, JSON] = {"name": name, "namespace": namespace}
    manifest = _core_manifest(list(rules), metadata, labels)
    companion = None
    if hosts is not None:
        companion = {
            "apiVersion": CILIUM_API_VERSION,
            "kind": CILIUM_KIND,
            "metadata": dict(metadata),
            "spec": {
                "endpointSelector": {"matchLabels": dict(labels)},
                "egress": allow_hosts_rules(hosts),
            },
        }
    return Translation(CORE_KIND, ALLOW_POLICY_KIND, namespace, name, manifest, companion)


def with_selector(translation: Translation, labels: Mapping[str, str]) -> Translation:
    """The same translation selecting ``labels`` instead of the namzu
    labels, and read back by no host (``host: none``, issue 17)."""
    return replace(
        translation,
        manifest=_reselected(translation.manifest, labels),
        companion=(
            None if translation.companion is None else _reselected(translation.companion, labels)
        ),
        named=False,
    )


def _reselected(manifest: Mapping[str, JSON], labels: Mapping[str, str]) -> dict[str, JSON]:
    spec = dict(manifest["spec"])
    key = "endpointSelector" if "endpointSelector" in spec else "podSelector"
    spec[key] = {"matchLabels": dict(labels)}
    return {**manifest, "spec": spec}


def translate_per_sandbox(
    hosts: Sequence[JSON],
    *,
    namespace: str,
    label_key: str,
    object_name: str,
    owner_kind: OwnerKind,
    owner_uid: str,
    narrowing: Mapping[str, JSON] | None,
    hosts_field: str = "perSandbox.hosts",
) -> Translation:
    """The per-sandbox CiliumNetworkPolicy (§15.1): named
    ``namzu-sbx-<owner uid>``, selecting ``{label_key: object_name}``, owned
    by the claim or Sandbox, with ``perSandbox.narrowing`` applied.

    Hosts are lowercased first, judged and emitted lowercase (§2.7). The
    narrowing, when given, is validated first (§2.5 S5). ``hosts_field``
    names the host list in refusals. An empty list still gives a manifest;
    the host deletes its policy instead of writing one (§15.1).
    """
    if narrowing is not None:
        if not is_object(narrowing):
            raise ConfigRefusal(
                PER_SANDBOX_NARROWING,
                ErrorClass.POLICY_CONFIG,
                f"config.egress.{PER_SANDBOX_NARROWING} is {compact_json(narrowing)}, "
                "but it must be an object.",
            )
        validate_narrowing(narrowing, PER_SANDBOX_NARROWING)
    if isinstance(hosts, str) or not isinstance(hosts, Sequence):
        raise ConfigRefusal(
            hosts_field,
            ErrorClass.POLICY_CONFIG,
            f"the per-sandbox host list {compact_json(hosts)} is not a list.",
        )
    lowered = [judged_form(entry) for entry in hosts]
    name = f"{PER_SANDBOX_PREFIX}{owner_uid}"
    owner = {
        "apiVersion": OWNER_API_VERSIONS[owner_kind],
        "kind": owner_kind,
        "name": object_name,
        "uid": owner_uid,
    }
    manifest = _cilium_manifest(
        lowered,
        lowered,
        narrowing,
        namespace=namespace,
        metadata={"name": name, "namespace": namespace, "ownerReferences": [owner]},
        selector={label_key: object_name},
        fields=(hosts_field, f"{PER_SANDBOX_NARROWING}.tlsServerNames"),
    )
    return Translation(CILIUM_KIND, "static", namespace, name, manifest)


def _policy_name(egress: Mapping[str, JSON], template: str, profile: str | None) -> str:
    """§1.6: a configured ``networkPolicyName`` is used verbatim (even an
    empty one); otherwise the default name."""
    configured = egress.get("networkPolicyName", None)
    if isinstance(configured, str):
        return configured
    return default_policy_name(template, profile)


# --- Core NetworkPolicy (§3.2) ------------------------------------------------


def _core_manifest(
    egress: list[JSON], metadata: dict[str, JSON], selector: dict[str, JSON]
) -> dict[str, JSON]:
    return {
        "apiVersion": CORE_API_VERSION,
        "kind": CORE_KIND,
        "metadata": metadata,
        "spec": {
            "podSelector": {"matchLabels": selector},
            "policyTypes": ["Egress"],
            "egress": egress,
        },
    }


def _core_egress(kind: str, policy: Mapping[str, JSON]) -> list[JSON]:
    match kind:
        case "deny-all":
            return [cluster_dns_rule()]
        case "allow-all":
            return [{}]
        case "no-network":
            return []
        case _:
            return [kube_dns_rule(), _public_block(policy.get("exceptCidrs", None) or [])]


def _public_block(extras: list[str]) -> dict[str, JSON]:
    """``PUBLIC_BLOCK`` (§3.2): each extra is appended, as written, to the
    list of its own family. The rule has no ``ports`` key."""
    ipv4: list[JSON] = list(IPV4_EXCLUSIONS)
    ipv6: list[JSON] = list(IPV6_EXCLUSIONS)
    for entry in extras:
        (ipv6 if is_ipv6_text(entry) else ipv4).append(entry)
    return {
        "to": [
            {"ipBlock": {"cidr": "0.0.0.0/0", "except": ipv4}},
            {"ipBlock": {"cidr": "::/0", "except": ipv6}},
        ]
    }


# --- CiliumNetworkPolicy (§3.3-§3.7) ------------------------------------------


def _allowed_hosts(policy: Mapping[str, JSON]) -> list[JSON]:
    hosts = policy.get("allowedHosts", ABSENT)
    if not isinstance(hosts, list):
        shown = "absent" if hosts is ABSENT else compact_json(hosts)
        raise ConfigRefusal(
            "policy.allowedHosts",
            ErrorClass.POLICY_CONFIG,
            f"config.egress.policy.allowedHosts is {shown}, but a {policy.get('kind')} "
            "policy needs a list of allowlist entries (it may be empty).",
        )
    return hosts


def _cilium_manifest(
    judged: list[JSON],
    emitted: list[JSON],
    narrowing: Mapping[str, JSON] | None,
    *,
    namespace: str,
    metadata: dict[str, JSON],
    selector: dict[str, JSON],
    fields: tuple[str, str],
) -> dict[str, JSON]:
    """The one builder of §3.3, for both paths. ``judged`` and ``emitted``
    are the same entries as judged and as written (§2.7); ``fields`` are the
    host list's and the ``tlsServerNames`` flag's field paths for refusals."""
    hosts_field, tls_field = fields
    check_hosts(judged, hosts_field)
    entries = [entry for entry in emitted if isinstance(entry, str)]
    if narrowing is not None and narrowing.get("tlsServerNames") is True:
        check_tls_domains(entries, tls_field)
    active = narrowing if narrowing_active(narrowing) else None
    return {
        "apiVersion": CILIUM_API_VERSION,
        "kind": CILIUM_KIND,
        "metadata": metadata,
        "spec": {
            "endpointSelector": {"matchLabels": selector},
            "egress": [_dns_rule(entries, active, namespace), *_host_rules(entries, active)],
        },
    }


def _dns_rule(
    entries: list[str], narrowing: Mapping[str, JSON] | None, namespace: str
) -> dict[str, JSON]:
    """§3.3 step 4: the narrowed DNS rule (§3.6) when ``dnsNames`` is in use,
    ``DNS_VISIBILITY`` otherwise."""
    dns_names = narrowing.get("dnsNames", None) if narrowing is not None else None
    if dns_names is not True and not is_object(dns_names):
        return dns_visibility_rule()
    options: Mapping[str, JSON] = dns_names if isinstance(dns_names, dict) else {}
    suffixes = _dns_suffixes(options, namespace)
    names: list[JSON] = []
    for entry in entries:
        names.extend(_dns_names_for(entry, suffixes))
    return {
        "toEndpoints": kube_dns_endpoints(),
        "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": names}}],
    }


def _dns_suffixes(options: Mapping[str, JSON], namespace: str) -> list[str]:
    """§3.6: the three built-in suffixes, then ``searchSuffixes`` as written."""
    own_namespace = options.get("namespace", namespace)
    domain = options.get("clusterDomain", DEFAULT_CLUSTER_DOMAIN)
    extra = options.get("searchSuffixes", None) or []
    return [f"{own_namespace}.svc.{domain}", f"svc.{domain}", f"{domain}", *extra]


def _dns_names_for(entry: str, suffixes: list[str]) -> list[JSON]:
    wild = entry.startswith(".")
    host = strip_leading_dot(entry)
    names: list[JSON] = [{"matchName": host}]
    if wild:
        names.append({"matchPattern": f"*.{host}"})
    for suffix in suffixes:
        names.append({"matchName": f"{host}.{suffix}"})
        if wild:
            names.append({"matchPattern": f"*.{host}.{suffix}"})
    return names


def _host_rules(entries: list[str], narrowing: Mapping[str, JSON] | None) -> list[JSON]:
    """§3.3 step 5: one shared ``toFQDNs`` rule unnarrowed (quirk Q26), one
    rule per entry when the narrowing is active."""
    if narrowing is None:
        return [{"toFQDNs": [fqdn for entry in entries for fqdn in expand_host(entry)]}]
    return [_narrowed_host_rule(entry, narrowing) for entry in entries]


def _narrowed_host_rule(entry: str, narrowing: Mapping[str, JSON]) -> dict[str, JSON]:
    """§3.7: the entry's expansion, with ``toPorts`` from its port list,
    split into TLS and other ports when ``tlsServerNames`` is true."""
    fqdns = expand_host(entry)
    ports = _entry_ports(entry, narrowing)
    if ports is None:
        return {"toFQDNs": fqdns}
    if narrowing.get("tlsServerNames") is not True:
        return {"toFQDNs": fqdns, "toPorts": [{"ports": _cilium_ports(ports)}]}
    tls_ports = _tls_ports(narrowing)
    tls = [port for port in ports if port in tls_ports]
    rest = [port for port in ports if port not in tls_ports]
    to_ports: list[JSON] = []
    if tls:
        to_ports.append({"ports": _cilium_ports(tls), "serverNames": [entry]})
    if rest:
        to_ports.append({"ports": _cilium_ports(rest)})
    return {"toFQDNs": fqdns, "toPorts": to_ports}


def _entry_ports(entry: str, narrowing: Mapping[str, JSON]) -> list[JSON] | None:
    """§3.5: ``hostPorts[entry]`` (own keys only, quirk Q19), else ``ports``,
    else ``tlsPorts`` under ``tlsServerNames``, else no restriction."""
    host_ports = narrowing.get("hostPorts", None)
    if is_object(host_ports) and entry in host_ports:
        return list(host_ports[entry])
    if "ports" in narrowing:
        return list(narrowing["ports"])
    if narrowing.get("tlsServerNames") is True:
        return _tls_ports(narrowing)
    return None


def _tls_ports(narrowing: Mapping[str, JSON]) -> list[JSON]:
    """``tlsPorts``, or the default ``[443]`` (§1.3)."""
    return list(narrowing.get("tlsPorts", DEFAULT_TLS_PORTS))


def _cilium_ports(ports: list[JSON]) -> list[JSON]:
    """Cilium port entries (§3.3): ``port`` first, as an integer string."""
    return [{"port": format_number(port), "protocol": "TCP"} for port in ports]
