"""The smallest declared tree the CLI tests build on: one `deny-all`
template `task` in namespace `sbx`, its controller policy unmanaged, so the
policies a test adds beside it are the only ones that select its pods."""

from __future__ import annotations

DECLARATION = """\
version: 1
defaultNamespace: sbx
sandboxes:
  - template: task
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""

TEMPLATE = """\
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: {name: task, namespace: sbx}
spec:
  networkPolicyManagement: Unmanaged
  podTemplate: {spec: {containers: [{name: a, image: x}]}}
"""
