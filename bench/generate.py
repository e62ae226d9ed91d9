"""Deterministic generator of Helm-style manifest trees for the benchmarks.

A tree holds, per namespace, NetworkPolicies, CiliumNetworkPolicies,
SandboxTemplates and filler documents (Deployments, Services, ConfigMaps,
ServiceAccounts), rendered the way ``helm template`` writes them: each
document opens with ``---`` and a ``# Source:`` comment, and some templates
produce the split form where the comment sits in a document of its own.
The tree also gets a ``.egress-lint.yaml`` declaring every template, with a
mix of ``deny-all``/``core`` and ``static``/``cilium`` intents.

    python bench/generate.py --out bench/out/tree-16mb --namespaces 20
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHART = "platform"
DOCS_PER_FILE = 49
SPLIT_SOURCE_EVERY = 17


@dataclass(frozen=True)
class TreeShape:
    """How much of each kind one generated tree holds."""

    namespaces: int = 20
    policies: int = 200
    cilium: int = 50
    templates: int = 20
    filler: int = 1000
    seed: int = 1
    calico: int = 0
    """Calico policies (CLUSTER-POLICIES §5), spread over the namespaces."""
    cluster_policies: int = 0
    """ClusterNetworkPolicy objects (§4), tiers Admin and Baseline."""


def template_name(index: int) -> str:
    return f"tpl-{index:02d}"


def namespace_name(index: int) -> str:
    return f"team-{index:02d}"


def is_static(index: int) -> bool:
    """Odd templates are declared static/cilium, even ones deny-all/core."""
    return index % 2 == 1


def _labels(rng: random.Random, indent: str, count: int) -> str:
    keys = ["app", "tier", "component", "team", "release", "track"]
    lines = []
    for key in rng.sample(keys, count):
        lines.append(f"{indent}{key}: {key}-{rng.randrange(40)}")
    return "\n".join(lines)


def _named_core_policy(ns: str, tpl: str) -> str:
    return f"""apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {tpl}-egress
  namespace: {ns}
spec:
  podSelector:
    matchLabels:
      sandbox.namzu.ai/template: {tpl}
  policyTypes:
  - Egress
  egress:
  - to:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: kube-system
    ports:
    - protocol: UDP
      port: 53
    - protocol: TCP
      port: 53
"""


def _named_cilium_policy(ns: str, tpl: str) -> str:
    return f"""apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata:
  name: {tpl}-egress
  namespace: {ns}
spec:
  endpointSelector:
    matchLabels:
      sandbox.namzu.ai/template: {tpl}
  egress:
  - toEndpoints:
    - matchLabels:
        k8s:io.kubernetes.pod.namespace: kube-system
        k8s:k8s-app: kube-dns
    toPorts:
    - ports:
      - port: "53"
        protocol: ANY
      rules:
        dns:
        - matchPattern: "*"
  - toFQDNs:
    - matchName: api.github.com
    - matchName: pypi.org
    - matchPattern: "*.pypi.org"
"""


def _core_policy(rng: random.Random, ns: str, index: int) -> str:
    rules = []
    for _ in range(rng.randrange(1, 4)):
        octet = rng.randrange(256)
        rules.append(
            f"""  - to:
    - ipBlock:
        cidr: 10.{octet}.0.0/16
        except:
        - 10.{octet}.{rng.randrange(256)}.0/24
    - podSelector:
        matchLabels:
{_labels(rng, "          ", 2)}
    ports:
    - protocol: TCP
      port: {rng.choice([80, 443, 5432, 6379, 8080, 9090])}"""
        )
    selector = "{}" if index % 50 == 0 else "\n    matchLabels:\n" + _labels(rng, "      ", 2)
    return f"""apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np-{index:04d}
  namespace: {ns}
  labels:
{_labels(rng, "    ", 3)}
spec:
  podSelector: {selector}
  policyTypes:
  - Ingress
  - Egress
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: ingress-{rng.randrange(9)}
    ports:
    - protocol: TCP
      port: 8080
  egress:
{chr(10).join(rules)}
"""


def _cilium_policy(rng: random.Random, ns: str, index: int) -> str:
    hosts = "\n".join(
        f"    - matchName: svc-{rng.randrange(999)}.example.com" for _ in range(rng.randrange(1, 5))
    )
    return f"""apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata:
  name: cnp-{index:04d}
  namespace: {ns}
spec:
  endpointSelector:
    matchLabels:
{_labels(rng, "      ", 2)}
  egress:
  - toEndpoints:
    - matchLabels:
        k8s:io.kubernetes.pod.namespace: kube-system
        k8s:k8s-app: kube-dns
    toPorts:
    - ports:
      - port: "53"
        protocol: ANY
      rules:
        dns:
        - matchPattern: "*"
  - toFQDNs:
{hosts}
    toPorts:
    - ports:
      - port: "443"
        protocol: TCP
  - toEntities:
    - kube-apiserver
"""


def _sandbox_template(rng: random.Random, ns: str, index: int) -> str:
    tpl = template_name(index)
    management = "\n  networkPolicyManagement: Unmanaged" if index % 5 == 4 else ""
    return f"""apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata:
  name: {tpl}
  namespace: {ns}
spec:{management}
  podTemplate:
    metadata:
      labels:
        app: sandbox
        sandbox-flavour: flavour-{rng.randrange(5)}
    spec:
      automountServiceAccountToken: false
      containers:
      - name: agent
        image: registry.example.com/agents/runtime:{rng.randrange(100)}.{rng.randrange(10)}
        ports:
        - containerPort: 1024
          protocol: TCP
        resources:
          limits:
            cpu: "2"
            memory: 4Gi
"""


def _deployment(rng: random.Random, ns: str, index: int) -> str:
    env = "\n".join(
        f"""        - name: SETTING_{k}
          value: "{rng.randrange(10**6)}\""""
        for k in range(rng.randrange(1, 5))
    )
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{index:04d}
  namespace: {ns}
  labels:
    app.kubernetes.io/name: web-{index:04d}
    app.kubernetes.io/instance: {CHART}
    helm.sh/chart: {CHART}-1.{rng.randrange(30)}.0
spec:
  replicas: {rng.randrange(1, 6)}
  selector:
    matchLabels:
      app.kubernetes.io/name: web-{index:04d}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web-{index:04d}
{_labels(rng, "        ", 2)}
    spec:
      serviceAccountName: web-{index:04d}
      containers:
      - name: app
        image: registry.example.com/web/app:{rng.randrange(100)}.{rng.randrange(10)}.0
        args: ["--port=8080", "--log-level=info"]
        ports:
        - name: http
          containerPort: 8080
          protocol: TCP
        env:
{env}
        resources:
          requests:
            cpu: {rng.randrange(50, 500)}m
            memory: {rng.randrange(64, 1024)}Mi
"""


def _service(rng: random.Random, ns: str, index: int) -> str:
    return f"""apiVersion: v1
kind: Service
metadata:
  name: svc-{index:04d}
  namespace: {ns}
  labels:
    app.kubernetes.io/name: svc-{index:04d}
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: web-{rng.randrange(1000):04d}
  ports:
  - name: http
    port: 80
    targetPort: http
    protocol: TCP
"""


def _config_map(rng: random.Random, ns: str, index: int) -> str:
    count = rng.randrange(3, 9)
    lines = "\n".join(f"    key{k} = {rng.getrandbits(64):016x}" for k in range(count))
    return f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: config-{index:04d}
  namespace: {ns}
data:
  app.ini: |
    [main]
{lines}
  LOG_LEVEL: info
"""


def _service_account(rng: random.Random, ns: str, index: int) -> str:
    return f"""apiVersion: v1
kind: ServiceAccount
metadata:
  name: web-{index:04d}
  namespace: {ns}
automountServiceAccountToken: {rng.choice(["false", "true"])}
"""


FILLERS = (
    _deployment,
    _deployment,
    _deployment,
    _deployment,
    _service,
    _service,
    _service,
    _config_map,
    _config_map,
    _service_account,
)


def namespace_documents(rng: random.Random, shape: TreeShape, ns: str) -> Iterator[tuple[str, str]]:
    """(template file, document text) pairs of one namespace, in file order."""
    yield "namespace.yaml", f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n"
    for i in range(shape.templates):
        yield "sandbox-templates.yaml", _sandbox_template(rng, ns, i)
    named = list(range(shape.templates))
    core_named = [i for i in named if not is_static(i)]
    cilium_named = [i for i in named if is_static(i)]
    for i in range(shape.policies):
        if i < len(core_named):
            yield "egress-policies.yaml", _named_core_policy(ns, template_name(core_named[i]))
        else:
            yield "network-policies.yaml", _core_policy(rng, ns, i)
    for i in range(shape.cilium):
        if i < len(cilium_named):
            yield "egress-policies.yaml", _named_cilium_policy(ns, template_name(cilium_named[i]))
        else:
            yield "cilium-policies.yaml", _cilium_policy(rng, ns, i)
    for i in range(shape.filler):
        make = FILLERS[i % len(FILLERS)]
        yield f"{make.__name__.lstrip('_').replace('_', '-')}.yaml", make(rng, ns, i)


def render_file(documents: list[tuple[str, str]], subchart: str, counter: int) -> str:
    """Join documents the way ``helm template`` prints them."""
    parts = []
    for offset, (source, text) in enumerate(documents):
        header = f"---\n# Source: {CHART}/charts/{subchart}/templates/{source}\n"
        if (counter + offset) % SPLIT_SOURCE_EVERY == 0:
            # A template whose body starts with '---' renders a comment-only document.
            header += "---\n"
        parts.append(header + text)
    return "".join(parts)


def declaration(shape: TreeShape) -> str:
    """The .egress-lint.yaml that declares every template of the tree."""
    lines = ["version: 1", f"defaultNamespace: {namespace_name(0)}", "sandboxes:"]
    for n in range(shape.namespaces):
        for t in range(shape.templates):
            lines += [f"  - template: {template_name(t)}", f"    namespace: {namespace_name(n)}"]
            if is_static(t):
                lines += [
                    "    egress:",
                    "      engine: cilium",
                    "      policy: {kind: static, allowedHosts: [api.github.com, .pypi.org]}",
                ]
            else:
                lines += ["    egress:", "      engine: core", "      policy: {kind: deny-all}"]
    return "\n".join(lines) + "\n"


def generate(out: Path, shape: TreeShape) -> tuple[int, int]:
    """Write the tree under ``out``; returns (files, bytes)."""
    rng = random.Random(shape.seed)
    files = total = 0
    for n in range(shape.namespaces):
        ns = namespace_name(n)
        docs = list(namespace_documents(rng, shape, ns))
        directory = out / ns
        directory.mkdir(parents=True, exist_ok=True)
        for start in range(0, len(docs), DOCS_PER_FILE):
            part = start // DOCS_PER_FILE
            text = render_file(docs[start : start + DOCS_PER_FILE], f"sub-{part}", start)
            (directory / f"rendered-{part:02d}.yaml").write_text(text)
            files += 1
            total += len(text.encode())
    if shape.calico or shape.cluster_policies:
        text = "---\n".join(cluster_documents(random.Random(shape.seed + 1), shape))
        directory = out / "cluster"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "cluster-policies.yaml").write_text(text)
        files += 1
        total += len(text.encode())
    (out / ".egress-lint.yaml").write_text(declaration(shape))
    return files, total


def _calico_policy(rng: random.Random, shape: TreeShape, index: int) -> str:
    """A Calico policy: every third a GlobalNetworkPolicy, the rest namespaced;
    selectors over workload labels, egress to private networks or DNS."""
    app = rng.choice(["web", "api", "worker", "cache"])
    rule = rng.choice(
        [
            f"    - action: Allow\n      destination: {{nets: [10.{index % 250}.0.0/16]}}\n",
            "    - action: Allow\n      protocol: UDP\n      destination:\n"
            "        selector: k8s-app == 'kube-dns'\n        ports: [53]\n",
            "    - action: Deny\n      destination: {nets: [0.0.0.0/0]}\n",
        ]
    )
    if index % 3 == 0:
        head = f"kind: GlobalNetworkPolicy\nmetadata: {{name: calico-global-{index:03d}}}\n"
    else:
        ns = namespace_name(index % shape.namespaces)
        head = f"kind: NetworkPolicy\nmetadata: {{name: calico-{index:03d}, namespace: {ns}}}\n"
    return (
        f"apiVersion: projectcalico.org/v3\n{head}spec:\n  order: {100 + index}\n"
        f"  selector: app == '{app}-{index}'\n  types: [Egress]\n  egress:\n{rule}"
    )


def _cluster_network_policy(rng: random.Random, shape: TreeShape, index: int) -> str:
    """A ClusterNetworkPolicy for one team namespace's workloads."""
    tier = "Admin" if index % 2 == 0 else "Baseline"
    ns = namespace_name(index % shape.namespaces)
    action = rng.choice(["Accept", "Deny", "Pass"]) if tier == "Admin" else "Deny"
    return (
        "apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\n"
        f"metadata: {{name: cluster-{index:03d}}}\nspec:\n  tier: {tier}\n"
        f"  priority: {index % 1000}\n  subject:\n    pods:\n"
        f"      namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}\n"
        f"      podSelector: {{matchLabels: {{app: web-{index}}}}}\n"
        f"  egress:\n    - name: dns\n      action: {action}\n      to:\n"
        "        - namespaces: {matchLabels: {kubernetes.io/metadata.name: kube-system}}\n"
        "      protocols:\n        - udp: {destinationPort: 53}\n"
    )


def cluster_documents(rng: random.Random, shape: TreeShape) -> Iterator[str]:
    """The tree's Calico and ClusterNetworkPolicy objects."""
    for index in range(shape.calico):
        yield _calico_policy(rng, shape, index)
    for index in range(shape.cluster_policies):
        yield _cluster_network_policy(rng, shape, index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--namespaces", type=int, default=20)
    parser.add_argument("--policies", type=int, default=200)
    parser.add_argument("--cilium", type=int, default=50)
    parser.add_argument("--templates", type=int, default=20)
    parser.add_argument("--filler", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calico", type=int, default=0)
    parser.add_argument("--cluster-policies", type=int, default=0)
    args = parser.parse_args()
    shape = TreeShape(
        args.namespaces,
        args.policies,
        args.cilium,
        args.templates,
        args.filler,
        args.seed,
        args.calico,
        args.cluster_policies,
    )
    files, size = generate(args.out, shape)
    print(f"{args.out}: {files} files, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
