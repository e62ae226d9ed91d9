"""Objects for per-sandbox egress: the admission fence with its binding for
each ``perSandbox`` declaration, the writer Role per namespace, and one
fence-reading ClusterRole (SEMANTICS §15.2, §15.3)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lint.decision.values import JSON
from lint.declarations.entries import DeclaredSandbox
from lint.generate import fence, rbac
from lint.generate.model import GeneratedObject, source_of


def by_namespace(sandboxes: Iterable[DeclaredSandbox]) -> dict[str, list[DeclaredSandbox]]:
    """Declared sandboxes grouped by namespace, in order of first appearance."""
    grouped: dict[str, list[DeclaredSandbox]] = {}
    for sandbox in sandboxes:
        grouped.setdefault(sandbox.namespace, []).append(sandbox)
    return grouped


def per_sandbox_objects(sandboxes: Sequence[DeclaredSandbox]) -> list[GeneratedObject]:
    """The fence and its binding for each ``perSandbox`` declaration, the
    writer Role per namespace, and one fence-reading ClusterRole (§15.2, §15.3)."""
    fenced = [
        (sandbox, fence.fence_names(sandbox.egress["perSandbox"], sandbox.namespace))
        for sandbox in sandboxes
        if isinstance(sandbox.egress.get("perSandbox"), dict)
    ]
    if not fenced:
        return []
    objects: list[GeneratedObject] = []
    for sandbox, names in fenced:
        objects.extend(_fence_objects(sandbox, names))
    for namespace, members in by_namespace(sandbox for sandbox, _ in fenced).items():
        objects.extend(_writer_objects(namespace, members))
    objects.extend(_reader_objects(fenced))
    return objects


def _fence_objects(sandbox: DeclaredSandbox, names: fence.FenceNames) -> list[GeneratedObject]:
    facts: dict[str, JSON] = {
        "policy": names.policy,
        "binding": names.binding,
        "label_key": names.label_key,
        "username": names.username,
        "sandbox_namespace": names.namespace,
    }
    return [
        GeneratedObject(
            "ValidatingAdmissionPolicy",
            names.policy,
            None,
            fence.fence_policy(names),
            "validatingadmissionpolicy-fence.yaml.j2",
            facts,
            (source_of(sandbox),),
        ),
        GeneratedObject(
            "ValidatingAdmissionPolicyBinding",
            names.binding,
            None,
            fence.fence_binding(names),
            "validatingadmissionpolicybinding-fence.yaml.j2",
            facts,
            (source_of(sandbox),),
        ),
    ]


def _writer_objects(namespace: str, sandboxes: Sequence[DeclaredSandbox]) -> list[GeneratedObject]:
    sources = tuple(source_of(sandbox) for sandbox in sandboxes)
    facts: dict[str, JSON] = {"sandbox_namespace": namespace}
    return [
        GeneratedObject(
            "Role",
            rbac.WRITER_ROLE,
            namespace,
            rbac.writer_role(namespace),
            "role-per-sandbox.yaml.j2",
            facts,
            sources,
        ),
        GeneratedObject(
            "RoleBinding",
            rbac.WRITER_ROLE,
            namespace,
            rbac.writer_role_binding(namespace),
            "rolebinding-per-sandbox.yaml.j2",
            facts,
            sources,
        ),
    ]


def _reader_objects(
    fenced: Sequence[tuple[DeclaredSandbox, fence.FenceNames]],
) -> list[GeneratedObject]:
    sources = tuple(dict.fromkeys(source_of(sandbox) for sandbox, _ in fenced))
    policies = [names.policy for _, names in fenced]
    bindings = [names.binding for _, names in fenced]
    namespaces = [names.namespace for _, names in fenced]
    facts: dict[str, JSON] = {"namespaces": sorted(set(namespaces))}
    return [
        GeneratedObject(
            "ClusterRole",
            rbac.FENCE_READER_ROLE,
            None,
            rbac.fence_reader_role(policies, bindings),
            "clusterrole-fence-read.yaml.j2",
            facts,
            sources,
        ),
        GeneratedObject(
            "ClusterRoleBinding",
            rbac.FENCE_READER_ROLE,
            None,
            rbac.fence_reader_binding(namespaces),
            "clusterrolebinding-fence-read.yaml.j2",
            facts,
            sources,
        ),
    ]
