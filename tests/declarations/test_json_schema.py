"""The declaration file's JSON Schema: the checked-in file is what the
models generate, ``egress-lint schema`` prints it, every declaration the
loader takes in the repository (and in docs/declarations.md) is valid
under it, and each declaration of a bad set is refused by both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from lint.cli import main
from lint.declarations import DeclarationError, load_declarations
from lint.declarations.json_schema import (
    SCHEMA_RESOURCE,
    declaration_schema,
    schema_text,
    shipped_schema_text,
)
from lint.declarations.reading import parse_yaml
from tests.declarations.conftest import LoadText, RefuseText, dedent
from tests.declarations.test_docs import EXAMPLES, FILES

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "lint" / SCHEMA_RESOURCE
DECLARATIONS = sorted(
    path
    for path in ROOT.glob("**/.egress-lint*.yaml")
    if not any(part.startswith(".venv") or part == ".git" for part in path.parts)
)


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(shipped_schema_text()))


def _plain(text: str) -> Any:
    """The file's value as the loader reads it (ruamel, YAML 1.2)."""
    return parse_yaml(text, "<test>").value


def _errors(text: str) -> list[str]:
    return [error.message for error in _validator().iter_errors(_plain(text))]


def test_the_checked_in_schema_is_what_the_models_generate() -> None:
    regenerate = "python -m lint.declarations.json_schema > lint/declaration.schema.json"
    assert SHIPPED.read_text(encoding="utf-8") == schema_text(declaration_schema()), regenerate


def test_the_package_carries_the_checked_in_schema() -> None:
    assert shipped_schema_text() == SHIPPED.read_text(encoding="utf-8")


def test_the_schema_is_a_valid_2020_12_schema() -> None:
    schema = json.loads(shipped_schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # Every object says what it is, in words a user reads in an editor.
    for name, body in schema["$defs"].items():
        assert body["description"], name
    assert "§" not in shipped_schema_text()


def test_the_schema_command_prints_the_shipped_schema() -> None:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0, result.output
    assert result.output == shipped_schema_text()


def test_the_repository_has_declarations_to_validate() -> None:
    assert len(DECLARATIONS) >= 40
    assert ROOT / "fixtures" / "demo" / ".egress-lint.yaml" in DECLARATIONS


@pytest.mark.parametrize("path", DECLARATIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_declaration_the_loader_takes_is_valid(path: Path) -> None:
    try:
        load_declarations(path, namespace_override=None)
    except DeclarationError:
        pytest.skip("the loader refuses this file on purpose (a scenario of a refusal)")
    assert _errors(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "text", [text for expectation, text in EXAMPLES if expectation == "ok"], ids=str
)
def test_every_documented_example_that_loads_is_valid(text: str) -> None:
    assert FILES  # the examples that name another file still load
    assert _errors(text) == []


ENTRY = "sandboxes:\n  - template: t\n    egress: {policy: {kind: deny-all}}\n"

BAD: dict[str, str] = {
    "no version": ENTRY,
    "version 2": "version: 2\n" + ENTRY,
    "version as a string": "version: '1'\n" + ENTRY,
    "an unknown top-level key": "version: 1\nsandbox: []\n" + ENTRY,
    "no sandboxes": "version: 1\n",
    "an empty sandbox list": "version: 1\nsandboxes: []\n",
    "an empty defaultNamespace": "version: 1\ndefaultNamespace: ''\n" + ENTRY,
    "an entry without a target": "version: 1\nsandboxes:\n  - egress: {policy: {kind: deny-all}}\n",
    "an entry with two targets": """
        version: 1
        sandboxes:
          - template: t
            workload: {kind: Deployment, name: api}
            host: none
        """,
    "a workload of an unknown kind": """
        version: 1
        sandboxes:
          - workload: {kind: Service, name: api}
        """,
    "a workload under the namzu host": """
        version: 1
        sandboxes:
          - workload: {kind: Deployment, name: api}
            host: namzu
        """,
    "a workload on the pooled path": """
        version: 1
        sandboxes:
          - workload: {kind: Deployment, name: api}
            paths: [direct, pooled]
        """,
    "an unknown acquisition path": """
        version: 1
        sandboxes:
          - template: t
            paths: [borrowed]
        """,
    "an unknown host": """
        version: 1
        sandboxes:
          - template: t
            host: other
        """,
    "an unknown egress key": """
        version: 1
        sandboxes:
          - template: t
            egress: {policy: {kind: deny-all}, polcy: {}}
        """,
    "an unknown engine": """
        version: 1
        sandboxes:
          - template: t
            egress: {engine: calico, policy: {kind: deny-all}}
        """,
    "an unknown policy kind": """
        version: 1
        sandboxes:
          - template: t
            egress: {policy: {kind: allow-some}}
        """,
    "both policy and allow": """
        version: 1
        sandboxes:
          - template: t
            egress:
              policy: {kind: deny-all}
              allow: []
        """,
    "an unknown narrowing key": """
        version: 1
        sandboxes:
          - template: t
            egress:
              engine: cilium
              policy: {kind: static, allowedHosts: [a.example]}
              ciliumNarrowing: {portz: [443]}
        """,
    "a pod label that is not a string": """
        version: 1
        sandboxes:
          - template: t
            podLabels: {team: 5}
        """,
    "external that is not a boolean": """
        version: 1
        sandboxes:
          - template: t
            external: 'yes'
        """,
    "an agent port out of range": """
        version: 1
        sandboxes:
          - template: t
            ingress: {agentPort: 70000}
        """,
    "ingress as an unknown word": """
        version: 1
        sandboxes:
          - template: t
            ingress: unchecked
        """,
    "a render with neither helm nor kustomize": """
        version: 1
        renders:
          - name: dev
        sandboxes:
          - template: t
        """,
    "a render with both helm and kustomize": """
        version: 1
        renders:
          - {name: dev, helm: chart, kustomize: overlay}
        sandboxes:
          - template: t
        """,
    "helm values beside kustomize": """
        version: 1
        renders:
          - {name: dev, kustomize: overlay, values: [v.yaml]}
        sandboxes:
          - template: t
        """,
    "an allowHosts port on ICMP": """
        version: 1
        sandboxes:
          - workload: {kind: Deployment, name: api}
            egress:
              engine: cilium
              allow: []
              allowHosts: [{host: a.example.com, ports: [{port: 1, protocol: ICMP}]}]
        """,
    "allowHosts that is not a list": """
        version: 1
        sandboxes:
          - workload: {kind: Deployment, name: api}
            egress: {engine: cilium, allow: [], allowHosts: a.example.com}
        """,
    "an empty environments list (issue 28)": """
        version: 1
        sandboxes:
          - template: t
            environments: []
        """,
    "an empty namespace per environment (issue 28)": """
        version: 1
        sandboxes:
          - template: t
            namespace: {}
        """,
    "a namespace per environment that is not a name (issue 28)": """
        version: 1
        sandboxes:
          - template: t
            namespace: {prod: [agents]}
        """,
    "a namespace entry with an unknown key": """
        version: 1
        namespaces:
          tenants: {label: {a: b}}
        sandboxes:
          - template: t
        """,
}


@pytest.mark.parametrize("text", BAD.values(), ids=list(BAD))
def test_a_bad_declaration_is_refused_by_the_loader_and_the_schema(
    refuse: RefuseText, text: str
) -> None:
    text = dedent(text)
    refuse(text)
    assert _errors(text), "the schema takes what the loader refuses"


def test_the_bad_set_is_not_refused_for_want_of_a_good_base(load_text: LoadText) -> None:
    # The same base with nothing wrong is taken by both: each bad file above
    # is refused for what it changes.
    good = "version: 1\n" + ENTRY
    assert load_text(good).entries
    assert _errors(good) == []


INIT_OUTPUTS = sorted((ROOT / "tests" / "init" / "expected").glob("*.yaml"))


@pytest.mark.parametrize("path", INIT_OUTPUTS, ids=lambda p: p.name)
def test_every_pinned_init_output_is_valid(path: Path) -> None:
    """What `egress-lint init` writes names this schema in its first line, so
    the schema must take it."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    assert _errors(text) == []


def test_there_are_init_outputs_to_validate() -> None:
    assert len(INIT_OUTPUTS) >= 3


def test_cluster_enforces_is_checked_by_the_schema() -> None:
    good = "version: 1\ncluster: {enforces: [Calico, Cilium]}\n" + ENTRY
    bad = "version: 1\ncluster: {enforces: [Antrea]}\n" + ENTRY
    assert _errors(good) == []
    assert _errors(bad) != []
