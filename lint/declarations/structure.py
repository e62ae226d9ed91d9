"""The structure of ``.egress-lint.yaml``, checked without pydantic.

Importing pydantic and building the models of ``models.py`` costs about
75 ms, more than reading a small tree; a pre-commit hook would pay it on
every commit. So a file is first checked here, in plain Python, against the
same shape. This check only ever says "valid, and these are the values" or
"not sure": whatever it does not vouch for (an error, and also an odd value
pydantic happens to take, such as ``version: 1.0``) goes to the pydantic
models, which accept it or word the error (``schema_errors``). So a
refusal reads exactly as before, and a file passes here only when the
models would pass it too with the same values (a hypothesis property in
``tests/declarations/test_structure.py`` holds the two equal, and a test
holds each table below equal to its model's fields).

The values are the ones ``loading`` reads from a checked file: every
field of an entry the linter reads itself. The egress configuration is not
among them: it is handed on as the file's own plain value, and only its
shape is checked here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, cast

import msgspec

from lint.decision.constants import DEFAULT_AGENT_PORT
from lint.declarations.entries import (
    AcquisitionPath,
    EngineName,
    ExpectedObject,
    HostName,
    IngressCheck,
    Workload,
)
from lint.kinds import ENFORCES_WORDS

Unverified = Literal["unverified"]


class RenderEntry(msgspec.Struct, frozen=True):
    """One entry of ``renders`` (``models.RenderModel``)."""

    name: str
    helm: str | None = None
    kustomize: str | None = None
    values: tuple[str, ...] | None = None
    set_values: tuple[str, ...] | None = None
    release: str | None = None
    namespace: str | None = None
    kube_version: str | None = None
    api_versions: tuple[str, ...] | None = None


class SandboxEntry(msgspec.Struct, frozen=True):
    """One entry of ``sandboxes`` (``models.SandboxModel``), as written:
    defaults are merged and targets resolved by ``loading``."""

    template: str | None = None
    workload: Workload | None = None
    host: HostName | None = None
    expect: ExpectedObject | None = None
    namespace: str | Mapping[str, str] | None = None
    """One namespace, or one per ``renders:`` environment."""
    environments: tuple[str, ...] | None = None
    """The ``renders:`` environments the entry belongs to (None: every one)."""
    external: bool = False
    pod_labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    paths: tuple[AcquisitionPath, ...] | None = None
    ingress: IngressCheck | Unverified | None = None


class CheckedFile(msgspec.Struct, frozen=True):
    """A declaration file whose structure is valid (``DeclarationFileModel``)."""

    sandboxes: tuple[SandboxEntry, ...]
    default_namespace: str | None = None
    namespaces: Mapping[str, Mapping[str, str]] = msgspec.field(default_factory=dict)
    """The labels of each entry of ``namespaces``."""
    renders: tuple[RenderEntry, ...] | None = None
    controller_version: str | None = None
    """``agentSandbox.version``."""
    enforces: frozenset[str] | None = None
    """``cluster.enforces`` (None: absent)."""


class _Unsure(Exception):
    """A value this check does not vouch for: the pydantic models decide."""


_UNSURE: Final = _Unsure()

Check = Callable[[Any], Any]


def checked_structure(value: object) -> CheckedFile | None:
    """The file's values when its structure is surely valid, else None (the
    pydantic models then accept it or word the error)."""
    try:
        given = _mapping(value, FILE_FIELDS, required=("version", "sandboxes"))
    except _Unsure:
        return None
    agent = given.get("agentSandbox")
    cluster = given.get("cluster")
    enforced = cluster.get("enforces") if cluster else None
    return CheckedFile(
        sandboxes=tuple(given["sandboxes"]),
        default_namespace=given.get("defaultNamespace"),
        namespaces=given.get("namespaces", {}),
        renders=given.get("renders"),
        controller_version=agent.get("version") if agent else None,
        enforces=None if enforced is None else frozenset(enforced),
    )


def _mapping(value: object, fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Any:
    """A mapping with only these keys (``extra="forbid"``), each value
    checked; the checked values by key."""
    if type(value) is not dict or any(key not in value for key in required):
        raise _UNSURE
    checked: dict[str, Any] = {}
    for key, item in value.items():
        check = fields.get(key)
        if check is None:
            raise _UNSURE
        checked[key] = check(item)
    return checked


def _model(fields: Mapping[str, Check], *required: str) -> Check:
    return lambda value: _mapping(value, fields, required)


def _text(value: object) -> str:
    """A string pydantic's strict ``str`` takes: not a lone surrogate in it."""
    if type(value) is not str:
        raise _UNSURE
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _UNSURE from None
    return value


def _non_empty(value: object) -> str:
    text = _text(value)
    if not text:
        raise _UNSURE
    return text


def _boolean(value: object) -> bool:
    if type(value) is not bool:
        raise _UNSURE
    return value


def _port(value: object) -> int:
    if type(value) is not int or not 1 <= value <= 65535:
        raise _UNSURE
    return value


def _version(value: object) -> int:
    if type(value) is not int or value != 1:
        raise _UNSURE  # pydantic also takes `true` and `1.0`; it decides those
    return value


def _any(value: object) -> object:
    return value


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _one_of(*choices: str) -> Check:
    def check(value: object) -> str:
        if type(value) is not str or value not in choices:
            raise _UNSURE
        return value

    return check


def _items(check: Check, *, min_length: int = 0) -> Check:
    """A list of checked items, as a tuple."""

    def items(value: object) -> tuple[Any, ...]:
        if type(value) is not list or len(value) < min_length:
            raise _UNSURE
        return tuple(check(item) for item in value)

    return items


def _labels(value: object) -> dict[str, str]:
    if type(value) is not dict:
        raise _UNSURE
    return {_text(key): _text(label) for key, label in value.items()}


def _object_or_value(check: Check) -> Check:
    """``models.ObjectOrValue``: checked as the model when it is a mapping,
    passed on untouched otherwise (the translation words that refusal)."""
    return lambda value: check(value) if type(value) is dict else value


_ENGINE: Final = _one_of("core", "cilium")
_HOST: Final = _one_of("namzu", "none")
_WORKLOAD_KIND: Final = _one_of(
    "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"
)
_PATH: Final = _one_of("direct", "pooled", "warm")
_UNVERIFIED: Final = _one_of("unverified")

DNS_NAMES_FIELDS: Final = {"namespace": _any, "clusterDomain": _any, "searchSuffixes": _any}
NARROWING_FIELDS: Final = {
    "ports": _any,
    "hostPorts": _any,
    "dnsNames": _object_or_value(_model(DNS_NAMES_FIELDS)),
    "tlsServerNames": _any,
    "tlsPorts": _any,
}
PER_SANDBOX_FIELDS: Final = {
    "engine": _any,
    "admissionPolicyName": _any,
    "admissionPolicyBindingName": _any,
    "labelKey": _any,
    "narrowing": _object_or_value(_model(NARROWING_FIELDS)),
}
POLICY_FIELDS: Final = {
    "kind": _text,
    "exceptCidrs": _any,
    "allowedHosts": _any,
    "allowedHostsFile": _optional(_non_empty),
}
EGRESS_FIELDS: Final = {
    "policy": _optional(_model(POLICY_FIELDS, "kind")),
    "allow": _any,
    "allowHosts": _any,
    "engine": _ENGINE,
    "verify": _text,
    "networkPolicyName": _optional(_text),
    "ciliumNarrowing": _object_or_value(_model(NARROWING_FIELDS)),
    "profile": _any,
    "profileLabelKey": _any,
    "perSandbox": _object_or_value(_model(PER_SANDBOX_FIELDS)),
}
_ENVIRONMENTS: Final = _optional(_items(_non_empty, min_length=1))
DEFAULTS_FIELDS: Final = {
    **EGRESS_FIELDS,
    "host": _optional(_HOST),
    "environments": _ENVIRONMENTS,
}
INGRESS_FIELDS: Final = {"agentPort": _port, "engine": _optional(_ENGINE)}
WORKLOAD_FIELDS: Final = {"kind": _WORKLOAD_KIND, "name": _non_empty}
EXPECT_FIELDS: Final = {
    "kind": _one_of("NetworkPolicy", "CiliumNetworkPolicy"),
    "name": _non_empty,
}


def _ingress(value: object) -> IngressCheck | Unverified:
    """``models.IngressField``: a mapping, or the word ``unverified``."""
    if type(value) is not dict:
        return cast(Unverified, _UNVERIFIED(value))
    given = _mapping(value, INGRESS_FIELDS)
    engine: EngineName | None = given.get("engine")
    return IngressCheck(given.get("agentPort", DEFAULT_AGENT_PORT), engine)


def _workload(value: object) -> Workload:
    given = _mapping(value, WORKLOAD_FIELDS, ("kind", "name"))
    return Workload(given["kind"], given["name"])


def _namespace(value: object) -> str | dict[str, str]:
    """``models.NamespaceField``: a name, or a name per environment."""
    if type(value) is not dict:
        return _non_empty(value)
    if not value:
        raise _UNSURE
    return {_non_empty(name): _non_empty(namespace) for name, namespace in value.items()}


def _expect(value: object) -> ExpectedObject:
    given = _mapping(value, EXPECT_FIELDS, ("kind", "name"))
    return ExpectedObject(given["kind"], given["name"])


SANDBOX_FIELDS: Final = {
    "template": _optional(_non_empty),
    "workload": _optional(_workload),
    "host": _optional(_HOST),
    "expect": _optional(_expect),
    "namespace": _optional(_namespace),
    "environments": _ENVIRONMENTS,
    "external": _boolean,
    "podLabels": _labels,
    "paths": _optional(_items(_PATH, min_length=1)),
    "egress": _optional(_model(EGRESS_FIELDS)),
    "ingress": _optional(_ingress),
}


def _sandbox(value: object) -> SandboxEntry:
    given = _mapping(value, SANDBOX_FIELDS)
    return SandboxEntry(
        template=given.get("template"),
        workload=given.get("workload"),
        host=given.get("host"),
        expect=given.get("expect"),
        namespace=given.get("namespace"),
        environments=given.get("environments"),
        external=given.get("external", False),
        pod_labels=given.get("podLabels", {}),
        paths=given.get("paths"),
        ingress=given.get("ingress"),
    )


RENDER_FIELDS: Final = {
    "name": _non_empty,
    "helm": _optional(_non_empty),
    "kustomize": _optional(_non_empty),
    "values": _optional(_items(_non_empty)),
    "set": _optional(_items(_non_empty)),
    "release": _optional(_non_empty),
    "namespace": _optional(_non_empty),
    "kubeVersion": _optional(_non_empty),
    "apiVersions": _optional(_items(_non_empty)),
}


def _render(value: object) -> RenderEntry:
    given = _mapping(value, RENDER_FIELDS, ("name",))
    return RenderEntry(
        name=given["name"],
        helm=given.get("helm"),
        kustomize=given.get("kustomize"),
        values=given.get("values"),
        set_values=given.get("set"),
        release=given.get("release"),
        namespace=given.get("namespace"),
        kube_version=given.get("kubeVersion"),
        api_versions=given.get("apiVersions"),
    )


def _namespaces(value: object) -> dict[str, dict[str, str]]:
    if type(value) is not dict:
        raise _UNSURE
    return {
        _non_empty(name): _mapping(entry, NAMESPACE_FIELDS).get("labels", {})
        for name, entry in value.items()
    }


NAMESPACE_FIELDS: Final = {"labels": _labels}
AGENT_SANDBOX_FIELDS: Final = {"version": _optional(_non_empty)}
CLUSTER_FIELDS: Final = {"enforces": _optional(_items(_one_of(*ENFORCES_WORDS)))}
FILE_FIELDS: Final = {
    "version": _version,
    "defaultNamespace": _optional(_non_empty),
    "namespaces": _namespaces,
    "defaults": _optional(_model(DEFAULTS_FIELDS)),
    "renders": _optional(_items(_render)),
    "agentSandbox": _optional(_model(AGENT_SANDBOX_FIELDS)),
    "cluster": _optional(_model(CLUSTER_FIELDS)),
    "sandboxes": _items(_sandbox, min_length=1),
}
