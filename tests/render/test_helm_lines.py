"""Helm findings land on the line of their own document in the template
file (issue 13, item 6): when one template renders several objects, a
finding of the second is never placed on a line of the first. Pure tests
on pre-rendered streams, then the real helm (skipped when absent), both
through ``--helm`` and through a piped render with ``--helm-chart-root``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lint.render.lines import rendered_document, template_line
from tests.render.tools import Tools, egress_lint, run

WIDENS = "egress-policy-widens"

# Two NetworkPolicies from one template; both rules start with `- to:`, and
# the wide one's values come from .Values.
TEMPLATE = """\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .Values.template }}-egress
  namespace: {{ .Release.Namespace }}
spec:
  podSelector:
    matchLabels:
      sandbox.namzu.ai/template: {{ .Values.template }}
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
---
# An object added "for debugging".
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: debug-out
  namespace: {{ .Release.Namespace }}
spec:
  podSelector: {}
  policyTypes:
    - Egress
  egress:
    - to:
        - ipBlock:
            cidr: {{ .Values.debugCidr }}
"""

SANDBOX_TEMPLATE = """\
apiVersion: extensions.agents.x-k8s.io/v1alpha1
kind: SandboxTemplate
metadata:
  name: {{ .Values.template }}
  namespace: {{ .Release.Namespace }}
spec:
  podTemplate:
    metadata:
      labels:
        sandbox.namzu.ai/template: {{ .Values.template }}
    spec:
      containers:
        - name: agent
          image: ghcr.io/example/agent:1.0
"""


def _rendered(policies: str) -> str:
    """What helm writes for the two policy documents, after another file's."""
    first, second = policies.split("---\n")[1:]
    values = {
        "{{ .Values.template }}": "task",
        "{{ .Release.Namespace }}": "sbx",
        "{{ .Values.debugCidr }}": "0.0.0.0/0",
    }
    for key, value in values.items():
        first, second = first.replace(key, value), second.replace(key, value)
    return (
        "---\n# Source: c/templates/template.yaml\napiVersion: v1\nkind: ConfigMap\n"
        "metadata: {name: x}\n"
        f"---\n# Source: c/templates/policies.yaml\n{first}"
        f"---\n# Source: c/templates/policies.yaml\n{second}"
    )


def _line_of(text: str, wanted: str, after: int = 0) -> int:
    lines = text.splitlines()
    return next(n for n, line in enumerate(lines, 1) if n > after and line.strip() == wanted)


def test_the_second_document_of_a_template_keeps_its_own_lines() -> None:
    rendered = _rendered(TEMPLATE)
    second_start = _line_of(rendered, "name: debug-out")
    rule = _line_of(rendered, "- to:", after=second_start)
    where = rendered_document(rendered, rule)
    assert where is not None and (where.ordinal, where.count) == (1, 2)
    expected = _line_of(TEMPLATE, "- to:", after=_line_of(TEMPLATE, "name: debug-out"))
    assert template_line(rendered, rule, TEMPLATE) == expected == 35
    # A templated line is found through its actions: `cidr: {{ ... }}`.
    cidr = _line_of(rendered, "cidr: 0.0.0.0/0")
    assert template_line(rendered, cidr, TEMPLATE) == _line_of(
        TEMPLATE, "cidr: {{ .Values.debugCidr }}"
    )
    # The first document's lines stay in the first document.
    first_rule = _line_of(rendered, "- to:")
    assert template_line(rendered, first_rule, TEMPLATE) == 14


def test_a_line_the_template_does_not_show_falls_to_its_documents_first_line() -> None:
    rendered = _rendered(TEMPLATE).replace("podSelector: {}", "podSelector: {matchLabels: {}}")
    line = _line_of(rendered, "podSelector: {matchLabels: {}}")
    # The second document's apiVersion line in the template, not line 1 or
    # anything of the first document.
    assert template_line(rendered, line, TEMPLATE) == 25


def test_documents_that_cannot_be_paired_go_to_the_files_first_line() -> None:
    rendered = _rendered(TEMPLATE)
    rule = _line_of(rendered, "- to:", after=_line_of(rendered, "name: debug-out"))
    # A `range` renders several objects from one block among others: which
    # rendered object came from which block cannot be told.
    three_blocks = TEMPLATE + "---\n{{- range .Values.extra }}\nkind: ConfigMap\n{{- end }}\n"
    assert template_line(rendered, rule, three_blocks) == 1
    # One block rendered twice (a loop): the rule is looked for in it.
    looped = "{{- range list 1 2 }}\n---\n" + TEMPLATE.split("---\n")[2] + "{{- end }}\n"
    assert template_line(rendered, rule, looped) == _line_of(looped, "- to:")
    # An unreadable template: line 1 when the file rendered several objects.
    assert template_line(rendered, rule, None) == 1


def test_a_lone_object_keeps_the_offset_without_its_template() -> None:
    rendered = "---\n# Source: c/templates/one.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    assert template_line(rendered, 6, None) == 4
    assert template_line("apiVersion: v1\nkind: ConfigMap\n", 2, None) is None


def test_the_split_source_form_is_paired_too() -> None:
    """helm/helm#13230: a template starting with `---` renders a comment-only
    document, then the content."""
    rendered = _rendered(TEMPLATE).replace(
        "# Source: c/templates/policies.yaml\n", "# Source: c/templates/policies.yaml\n---\n"
    )
    rule = _line_of(rendered, "- to:", after=_line_of(rendered, "name: debug-out"))
    assert template_line(rendered, rule, TEMPLATE) == 35


# --- the real helm ---------------------------------------------------------------

DECLARATION = """\
version: 1
defaultNamespace: sbx
sandboxes:
  - template: task
    egress: {policy: {kind: deny-all}}
    ingress: unverified
"""


def _chart(root: Path) -> Path:
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: lines\nversion: 0.1.0\n", "utf-8")
    (chart / "values.yaml").write_text("template: task\ndebugCidr: 0.0.0.0/0\n", "utf-8")
    (chart / "templates" / "policies.yaml").write_text(TEMPLATE, "utf-8")
    (chart / "templates" / "template.yaml").write_text(SANDBOX_TEMPLATE, "utf-8")
    (root / ".egress-lint.yaml").write_text(DECLARATION, "utf-8")
    return chart


def _widening(sarif: str) -> dict[str, Any]:
    results = json.loads(sarif)["runs"][0]["results"]
    (result,) = [r for r in results if r["ruleId"] == WIDENS]
    location: dict[str, Any] = result["locations"][0]["physicalLocation"]
    return location


def test_real_helm_places_the_finding_on_its_own_documents_line(
    helm: Tools, tmp_path: Path
) -> None:
    _chart(tmp_path)
    expected = _line_of(TEMPLATE, "- to:", after=_line_of(TEMPLATE, "name: debug-out"))
    flagged = egress_lint(
        "check", "--helm", "chart", "--namespace", "sbx", "--format", "sarif",
        path=[helm.directory], cwd=tmp_path,
    )  # fmt: skip
    assert flagged.returncode == 1, flagged.err
    where = _widening(flagged.out)
    assert where["artifactLocation"]["uri"] == "chart/templates/policies.yaml"
    assert where["region"]["startLine"] == expected

    rendered = run(
        ["helm", "template", "r", "chart", "--namespace", "sbx"],
        path=[helm.directory],
        cwd=tmp_path,
    )
    assert rendered.returncode == 0, rendered.err
    (tmp_path / "rendered").mkdir()
    (tmp_path / "rendered" / "all.yaml").write_text(rendered.out, "utf-8")
    for args, stdin in (
        (["rendered"], None),
        (["-"], rendered.out),
    ):
        piped = egress_lint(
            "check", *args, "--helm-chart-root", "chart", "--format", "sarif",
            path=[helm.directory], cwd=tmp_path, stdin=stdin,
        )  # fmt: skip
        assert piped.returncode == 1, piped.err
        where = _widening(piped.out)
        assert where["artifactLocation"]["uri"] == "chart/templates/policies.yaml"
        assert where["region"]["startLine"] == expected, args


# One policy whose second egress rule a helper writes, after an ingress
# rule with the same `- ports:` shape, the object starting on line 3.
HELPED = """\
{{- if .Values.enabled }}
# the agent pods' network
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: agents
  namespace: {{ .Release.Namespace }}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
    - ports:
        - port: 8080
  egress:
    - ports:
        - protocol: UDP
          port: 53
    {{- include "agents.egressRules" . | nindent 4 }}
{{- end }}
"""
HELPED_RENDERED = """\
---
# Source: c/templates/netpol.yaml
# the agent pods' network
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: agents
  namespace: sbx
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
    - ports:
        - port: 8080
  egress:
    - ports:
        - protocol: UDP
          port: 53
    - ports:
      - port: 443
      to:
      - ipBlock:
          cidr: 0.0.0.0/0
"""


def test_a_rule_a_helper_writes_sits_on_the_line_that_includes_it() -> None:
    include = _line_of(HELPED, '{{- include "agents.egressRules" . | nindent 4 }}')
    helped_rule = _line_of(HELPED_RENDERED, "- ports:", after=_line_of(HELPED_RENDERED, "port: 53"))
    assert template_line(HELPED_RENDERED, helped_rule, HELPED) == include == 18
    # Never the ingress rule's `- ports:`, nor line 1.
    ingress = _line_of(HELPED, "- ports:")
    assert template_line(HELPED_RENDERED, helped_rule, HELPED) != ingress
    # The lines the template writes itself keep theirs, the object's first
    # line included.
    first_rule = _line_of(HELPED_RENDERED, "- ports:", after=_line_of(HELPED_RENDERED, "egress:"))
    assert template_line(HELPED_RENDERED, first_rule, HELPED) == 15
    kind = _line_of(HELPED_RENDERED, "kind: NetworkPolicy")
    assert template_line(HELPED_RENDERED, kind, HELPED) == 4
