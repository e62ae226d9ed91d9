"""Declaration files covering every policy kind and narrowing variant that
``generate`` renders. Every entry is ``external: true`` so that checking the
generated manifests needs no SandboxTemplate."""

from __future__ import annotations

import textwrap

HEAD = "version: 1\ndefaultNamespace: namzu-sandboxes\nsandboxes:\n"


def _file(entries: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(entries).strip("\n"), "  ") + "\n"


VARIANTS: dict[str, str] = {
    "deny-all": _file(
        """
        - template: namzu-task
          external: true
          egress: {policy: {kind: deny-all}}
        """
    ),
    "allow-all": _file(
        """
        - template: namzu-task
          external: true
          egress: {policy: {kind: allow-all}}
        """
    ),
    "no-network": _file(
        """
        - template: namzu-task
          external: true
          egress: {policy: {kind: no-network}}
        """
    ),
    "public-internet": _file(
        """
        - template: namzu-task
          external: true
          egress:
            policy: {kind: public-internet, exceptCidrs: [203.0.113.0/24, "2001:db8::/32"]}
        """
    ),
    "profile-named-only": _file(
        """
        - template: namzu-task
          external: true
          egress:
            profile: offline
            profileLabelKey: sandbox.users.io/egress-profile
            verify: named-object-only
            networkPolicyName: task-offline
            policy: {kind: deny-all}
        """
    ),
    "static": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [api.github.com, .pypi.org, "1password.com"]}
        """
    ),
    "resolver": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: resolver, allowedHosts: [registry.npmjs.org]}
        """
    ),
    "static-empty": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: []}
        """
    ),
    "narrowed-ports": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [github.com, .pypi.org]}
            ciliumNarrowing: {ports: [443], hostPorts: {github.com: [443, 22]}}
        """
    ),
    "narrowed-dns": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [.pypi.org, api.github.com]}
            ciliumNarrowing:
              ports: [443]
              dnsNames: {searchSuffixes: [corp.internal], clusterDomain: cluster.example}
        """
    ),
    "narrowed-tls": _file(
        """
        - template: namzu-build
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [a.example, registry.npmjs.org]}
            ciliumNarrowing:
              hostPorts: {a.example: [8443, 80]}
              tlsServerNames: true
              tlsPorts: [8443, 443]
              dnsNames: true
        """
    ),
    "per-sandbox": _file(
        """
        - template: namzu-task
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [api.github.com]}
            perSandbox:
              engine: cilium
              admissionPolicyName: namzu-per-sandbox-egress
              labelKey: sandbox.users.io/per-sandbox
              narrowing: {ports: [443]}
        """
    ),
    "namespaces": _file(
        """
        - template: namzu-task
          external: true
          egress: {policy: {kind: deny-all}}
          ingress: {agentPort: 2048}
        - template: namzu-offline
          external: true
          egress: {policy: {kind: no-network}}
        - template: namzu-open
          external: true
          ingress: unverified
          egress: {policy: {kind: allow-all}}
        - template: namzu-task
          namespace: team-b
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [api.github.com]}
            perSandbox: {engine: cilium, admissionPolicyName: team-b-fence}
        - template: namzu-web
          namespace: team-c
          external: true
          egress:
            engine: cilium
            policy: {kind: static, allowedHosts: [example.com]}
            perSandbox:
              engine: cilium
              admissionPolicyName: team-c-fence
              admissionPolicyBindingName: team-c-fence-bound
        """
    ),
    "unverified-ingress": _file(
        """
        - template: namzu-task
          external: true
          ingress: unverified
          egress: {policy: {kind: deny-all}}
        """
    ),
}
