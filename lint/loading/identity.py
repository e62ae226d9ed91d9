"""Objects whose identity fields cannot be read, and what they might be.

The API server reads ``kind`` and ``metadata.namespace`` before anything
else; an object whose ``kind`` is missing or not a string, or whose
namespace is not a string, is refused whole. The check must not read such an
object as harmless: when it may be a policy, it is a problem whose suspect
kind makes the namespaces it could reach fail closed (SEMANTICS §17.7).
"""

from __future__ import annotations

from typing import Any

from lint.kinds import POLICY_GROUPS, identify
from lint.loading.documents import LoadedDocument, LoadProblem


def kind_of(value: dict[str, Any]) -> str | None:
    """The object's kind when it names one: a non-empty string."""
    kind = value.get("kind")
    return kind if isinstance(kind, str) and kind else None


def kindless_policy(document: LoadedDocument, value: dict[str, Any]) -> LoadProblem | None:
    """The problem of an object without a readable kind whose apiVersion
    belongs to a policy API group; None for any other object."""
    api_version = value.get("apiVersion")
    if not isinstance(api_version, str):
        return None
    group = api_version.rpartition("/")[0]
    kind = POLICY_GROUPS.get(group)
    if kind is None:
        return None
    return LoadProblem(
        document.file,
        document.line,
        f"this {api_version} object has no kind (or its kind is not a non-empty string), "
        f"so it cannot be read; it may be a {kind}",
        suspect_kind=kind,
        suspect_namespace=_readable_namespace(value),
    )


def unreadable_namespace(document: LoadedDocument, kind: str) -> LoadProblem | None:
    """The problem of an object whose ``metadata`` is not an object or whose
    ``metadata.namespace`` is not a string (null is absent, as the API server
    reads it). A policy's problem fails every namespace closed, since the one
    it was meant for cannot be read."""
    value = document.value
    metadata = value.get("metadata")
    if metadata is None:
        return None
    if isinstance(metadata, dict):
        namespace = metadata.get("namespace")
        if namespace is None or isinstance(namespace, str):
            return None
        what = "metadata.namespace is not a string"
    else:
        what = "metadata is not an object"
    entry = identify(value.get("apiVersion"), kind)
    return LoadProblem(
        document.file,
        document.line,
        f"{what}, so the namespace of this {kind} cannot be read",
        suspect_kind=entry.key if entry is not None and entry.network_policy else None,
        suspect_namespace=None,
    )


def _readable_namespace(value: dict[str, Any]) -> str | None:
    metadata = value.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return namespace if isinstance(namespace, str) and namespace else None
