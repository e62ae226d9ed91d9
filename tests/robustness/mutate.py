"""Every way to break one field of a policy: a wrong type, a missing value,
or junk of the right type.

Each field of each policy document (and of the ``spec.networkPolicy`` block
from which the agent-sandbox controller writes its policy) is replaced in
turn by each of ``REPLACEMENTS`` and deleted. A mutation is classed by what
it does to the field's JSON type, because the classes mean different things
for the API server and for SEMANTICS.md:

- ``type-change``: a value of another JSON type. The API server would refuse
  the object, and the decision must not read it as harmless.
- ``null`` and ``delete``: the API server stores both as absent; for most
  fields SEMANTICS §5.5 reads null as absent too, which can legitimately
  narrow a policy (an absent egress list is a default deny).
- ``same-type``: junk of the right type (``"junk"``, ``0``, ``[]``, ``{}``),
  which can be a legitimate, narrower policy. A ``port`` is an int-or-string
  field, so a number and a string are the same type there.
- ``from-null`` and ``from-ill-typed``: any value where the policy held null
  or a value of the wrong type (the corpus has test policies built that
  way); the mutation may repair it.

The right type of a field is the API server's (``SCHEMA``); for a field it
does not know, the type the policy gave it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tests.robustness.trees import POLICY_KINDS

Path = tuple[str | int, ...]


class _Delete:
    def __repr__(self) -> str:
        return "<deleted>"


DELETE: Final = _Delete()
REPLACEMENTS: Final[tuple[Any, ...]] = (None, [], {}, "", 0, True, "junk")
TEMPLATE_FIELDS: Final[tuple[Path, ...]] = (
    ("spec", "networkPolicy"),
    ("spec", "networkPolicyManagement"),
)


@dataclass(frozen=True)
class Mutation:
    document: int
    path: Path
    original: Any
    replacement: Any
    category: str

    def describe(self) -> str:
        where = ".".join(str(step) for step in self.path)
        return f"document {self.document} {where}: {self.original!r} -> {self.replacement!r}"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


_ARRAYS = (
    "policyTypes", "egress", "ingress", "egressDeny", "ingressDeny", "to", "from", "ports",
    "except", "matchExpressions", "values", "specs", "toEndpoints", "fromEndpoints",
    "toEntities", "fromEntities", "toCIDR", "fromCIDR", "toCIDRSet", "fromCIDRSet",
    "toFQDNs", "toPorts", "toServices", "toGroups", "toNodes", "fromNodes", "dns", "items",
)  # fmt: skip
_OBJECTS = (
    "metadata", "spec", "podSelector", "namespaceSelector", "endpointSelector",
    "nodeSelector", "ipBlock", "matchLabels", "enableDefaultDeny", "rules", "labels",
    "annotations", "networkPolicy",
)  # fmt: skip
_STRINGS = (
    "apiVersion", "kind", "name", "namespace", "cidr", "protocol", "key", "operator",
    "matchName", "matchPattern", "networkPolicyManagement",
)  # fmt: skip
SCHEMA: Final[dict[str, frozenset[str]]] = {
    **dict.fromkeys(_ARRAYS, frozenset({"array"})),
    **dict.fromkeys(_OBJECTS, frozenset({"object"})),
    **dict.fromkeys(_STRINGS, frozenset({"string"})),
    "port": frozenset({"number", "string"}),  # Kubernetes IntOrString
    "endPort": frozenset({"number"}),
}
"""The JSON types the API server accepts for the policy fields it knows."""


def expected_types(path: Path, original: Any) -> frozenset[str]:
    """The types the field at ``path`` may hold: the schema's, or for a field
    it does not know, the type the policy gave it."""
    last = path[-1]
    if len(path) >= 2 and path[-2] == "enableDefaultDeny":
        return frozenset({"boolean"})
    if isinstance(last, str) and last in SCHEMA:
        return SCHEMA[last]
    return frozenset({json_type(original)})


def category(path: Path, original: Any, replacement: Any) -> str:
    if replacement is DELETE:
        return "delete"
    if replacement is None:
        return "null"
    if original is None:
        return "from-null"
    expected = expected_types(path, original)
    if json_type(original) not in expected:
        return "from-ill-typed"  # the policy was already broken here
    return "same-type" if json_type(replacement) in expected else "type-change"


def _same(a: Any, b: Any) -> bool:
    return json_type(a) == json_type(b) and a == b


def mutations(documents: Sequence[Any]) -> list[Mutation]:
    """Every mutation of every policy field of ``documents``, in a fixed order."""
    found = []
    for index, document in enumerate(documents):
        for root in _roots(document):
            for path, value in _fields(_get(document, root), root):
                for replacement in (*REPLACEMENTS, DELETE):
                    if replacement is DELETE or not _same(value, replacement):
                        found.append(
                            Mutation(
                                index, path, value, replacement, category(path, value, replacement)
                            )
                        )
    return found


def _roots(document: Any) -> list[Path]:
    """The subtrees of a document that are policy shapes: a policy, the
    items of a list wrapper, and a template's policy block."""
    if not isinstance(document, dict):
        return []
    kind = document.get("kind")
    if kind in POLICY_KINDS:
        return [()]
    if kind == "SandboxTemplate":
        return [root for root in TEMPLATE_FIELDS if _has(document, root)]
    items = document.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        return [("items", position) for position in range(len(items))]
    return []


def _fields(value: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    """Every node under ``value`` (which sits at ``path``), the root of a
    whole document excepted: replacing that makes it no policy at all."""
    if path:
        yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _fields(child, (*path, key))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _fields(child, (*path, position))


def _has(document: Any, path: Path) -> bool:
    node = document
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return True


def _get(document: Any, path: Path) -> Any:
    node = document
    for step in path:
        node = node[step]
    return node


def apply(documents: Sequence[Any], mutation: Mutation) -> list[Any]:
    """A copy of ``documents`` with the mutation applied."""
    result = list(documents)
    changed = copy.deepcopy(documents[mutation.document])
    parent = _get(changed, mutation.path[:-1])
    last = mutation.path[-1]
    if mutation.replacement is DELETE:
        del parent[last]
    else:
        parent[last] = copy.deepcopy(mutation.replacement)
    result[mutation.document] = changed
    return result
