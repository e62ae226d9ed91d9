"""The JSON Schema of ``.egress-lint.yaml``, generated from the declaration
models (``models.py``), for editors with a YAML language server and for
other tools that validate the file before egress-lint reads it.

The models check structure; ``loading`` and ``renders`` add a few checks
across fields (one target per entry, one of ``helm`` and ``kustomize``,
``policy`` or ``allow``). Those that one JSON object can express are added
here (``_ACROSS_FIELDS``), so the schema never takes a file for a reason
the loader would refuse it. What the host's own translation judges (the
values inside ``policy``, the narrowing) stays open, as in the models.

The generated text is checked in as ``lint/declaration.schema.json`` and
shipped in the package: ``egress-lint schema`` prints that file without
importing pydantic, and a test holds it equal to what the models generate.
``python -m lint.declarations.json_schema > lint/declaration.schema.json``
writes it again after a model changes.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Final

from lint.decision.constants import EGRESS_POLICY_KINDS

SCHEMA_RESOURCE: Final = "declaration.schema.json"
"""The checked-in schema's file name, in the ``lint`` package."""

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

_DESCRIPTIONS: Final = {
    "DeclarationFileModel": "The egress-lint declaration file (.egress-lint.yaml): the egress "
    "intent of each sandbox template or workload, checked by `egress-lint check`.",
    "AgentSandboxModel": "The agent-sandbox controller as deployed.",
    "ClusterModel": "What the cluster enforces: the policy kinds whose Deny rules count as "
    "certain. Without it, egress-lint decides from the kinds the manifests hold.",
    "DefaultsModel": "Every egress field, and the default host, for entries that do not set them.",
    "DnsNamesModel": "Which DNS names the Cilium narrowing allows, written as an object.",
    "EgressModel": "The declared egress: the sandbox host's config.egress, or allow rules.",
    "ExpectModel": "The one policy object a `host: none` entry names.",
    "IngressModel": "The ingress check: the agent's port and the engine that enforces it.",
    "NamespaceModel": "A namespace managed outside the checked manifests, with its labels.",
    "NarrowingModel": "How the Cilium policy narrows the allowed hosts (ports, DNS, TLS).",
    "PerSandboxModel": "A policy per sandbox, fenced by an admission policy.",
    "PolicyModel": "The egress policy: its kind and the hosts or CIDRs it lets out.",
    "RenderModel": "An environment to render with helm or kustomize and check.",
    "SandboxModel": "One declared target: a SandboxTemplate or a workload, with its intent.",
    "WorkloadModel": "A workload that is not a SandboxTemplate.",
}
"""Each object's description in our own words (the models' docstrings are
written for this code's readers)."""

_NOT_WITH_KUSTOMIZE: Final = ("values", "set", "release", "kubeVersion", "apiVersions")

_ACROSS_FIELDS: Final[dict[str, dict[str, Any]]] = {
    "SandboxModel": {
        "oneOf": [
            {"required": ["template"], "properties": {"template": {"type": "string"}}},
            {
                "required": ["workload"],
                "properties": {
                    "workload": {"type": "object"},
                    "host": {"not": {"const": "namzu"}},
                    "paths": {"not": {"contains": {"const": "pooled"}}},
                },
            },
        ]
    },
    "RenderModel": {
        "oneOf": [
            {"required": ["helm"], "properties": {"helm": {"type": "string"}}},
            {
                "required": ["kustomize"],
                "properties": {
                    "kustomize": {"type": "string"},
                    **{name: {"type": "null"} for name in _NOT_WITH_KUSTOMIZE},
                },
            },
        ]
    },
    "EgressModel": {"not": {"required": ["policy", "allow"]}},
    "DefaultsModel": {"not": {"required": ["policy", "allow"]}},
}
"""The loader's checks across fields that one object can express."""

_PORT_NUMBER: Final = {"type": "integer", "minimum": 1, "maximum": 65535}

ALLOW_HOSTS: Final[dict[str, Any]] = {
    "description": "Hostnames the pod may reach beside `allow` (engine cilium). An entry "
    "is a hostname, or {host, ports}. Under `host: none` the host may also be a Cilium "
    "matchPattern (`*.debian.org`: `*` stands for characters within one label) and a "
    "port may name its protocol ({port: 443, protocol: UDP}; TCP when absent); the "
    "namzu host takes exact hostnames and TCP port numbers only.",
    "type": "array",
    "items": {
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "properties": {
                    "host": {"type": "string"},
                    "ports": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "anyOf": [
                                _PORT_NUMBER,
                                {
                                    "type": "object",
                                    "properties": {
                                        "port": _PORT_NUMBER,
                                        "protocol": {"enum": ["TCP", "UDP", "SCTP"]},
                                    },
                                    "required": ["port"],
                                    "additionalProperties": False,
                                },
                            ]
                        },
                    },
                },
                "required": ["host"],
                "additionalProperties": False,
            },
        ]
    },
}
"""``allowHosts`` (issue 17, forms of issue 28), which the models leave open
because ``lint.decision.allow_rules`` checks it with the host's kind."""


def declaration_schema() -> dict[str, Any]:
    """The schema, generated from the models."""
    from lint.declarations.models import DeclarationFileModel  # noqa: PLC0415 - pydantic

    generated = DeclarationFileModel.model_json_schema(by_alias=True)
    definitions = {name: _definition(name, body) for name, body in generated.pop("$defs").items()}
    root = _definition("DeclarationFileModel", generated)
    return {"$schema": DIALECT, **root, "$defs": dict(sorted(definitions.items()))}


def schema_text(schema: dict[str, Any]) -> str:
    """The schema as the checked-in file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def shipped_schema_text() -> str:
    """The checked-in schema, as the package carries it."""
    return resources.files("lint").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


def _definition(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """One object of the schema: our description, its properties tidied,
    and the checks across its fields."""
    tidied = {key: value for key, value in body.items() if key not in ("title", "description")}
    tidied["properties"] = {
        field: _tidied(schema) for field, schema in tidied.get("properties", {}).items()
    }
    if name == "PolicyModel":
        tidied["properties"]["kind"] = {"enum": list(EGRESS_POLICY_KINDS)}
    if "allowHosts" in tidied["properties"]:
        tidied["properties"]["allowHosts"] = ALLOW_HOSTS
    return {"title": name.removesuffix("Model"), "description": _DESCRIPTIONS[name], **tidied} | (
        _ACROSS_FIELDS.get(name, {})
    )


def _tidied(schema: dict[str, Any]) -> dict[str, Any]:
    """A field's schema without pydantic's generated title or a null
    default (an editor would offer to write it), and with a field that is
    "the model when a mapping, anything else passed on" written as that."""
    tidied = {
        key: value
        for key, value in schema.items()
        if key != "title" and not (key == "default" and value is None)
    }
    choices = tidied.get("oneOf")
    if isinstance(choices, list) and {} in choices:
        # pydantic writes the catch-all as `{}`, which a mapping matches too,
        # so `oneOf` would refuse every mapping the model takes.
        (model,) = [choice for choice in choices if choice != {}]
        del tidied["oneOf"]
        tidied["anyOf"] = [model, {"not": {"type": "object"}}]
    return tidied


if __name__ == "__main__":  # pragma: no cover - the regeneration command
    print(schema_text(declaration_schema()), end="")
