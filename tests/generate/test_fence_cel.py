"""The fence's CEL (SEMANTICS §15.2), evaluated: the host's own per-sandbox
policies (the engine's ``translate_per_sandbox``) pass, and each of the
seven validations refuses the shape it exists to refuse.

The expressions are run by cel-python, a pure-Python CEL interpreter; an
API server runs cel-go, so this checks the logic, not Kubernetes' type
checker. The module is skipped when cel-python is not installed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from lint.decision.translation import translate_per_sandbox
from lint.generate.fence import FenceNames, fence_policy

celpy = pytest.importorskip("celpy")

HOST = "system:serviceaccount:namzu-sandboxes:namzu-sandbox-host"
LABEL_KEY = "sandbox.users.io/per-sandbox"
NAMES = FenceNames(
    "namzu-per-sandbox-egress", "namzu-per-sandbox-egress-binding", LABEL_KEY, "namzu-sandboxes"
)
UID = "00000000-0000-4000-8000-7f3a9c2e41b8"
OWNER_NAME = "namzu-task-7f3a9c2e41b8"


def _evaluate(expression: str, activation: dict[str, Any]) -> Any:
    environment = celpy.Environment()
    return environment.program(environment.compile(expression)).evaluate(activation)


def failed_validations(
    obj: dict[str, Any] | None,
    *,
    operation: str = "CREATE",
    user: str = HOST,
    old: dict[str, Any] | None = None,
) -> set[int]:
    """The 1-based numbers of the validations that refuse this request; an
    empty set when it is admitted or not fenced at all."""
    spec = fence_policy(NAMES)["spec"]
    activation: dict[str, Any] = {
        "request": celpy.json_to_cel({"operation": operation, "userInfo": {"username": user}}),
        "object": celpy.json_to_cel(obj),
        "oldObject": celpy.json_to_cel(old),
    }
    if not all(_evaluate(c["expression"], activation) for c in spec["matchConditions"]):
        return set()
    variables: dict[Any, Any] = {}
    for variable in spec["variables"]:
        activation["variables"] = celpy.celtypes.MapType(variables)
        variables[celpy.celtypes.StringType(variable["name"])] = _evaluate(
            variable["expression"], activation
        )
    activation["variables"] = celpy.celtypes.MapType(variables)
    failed = set()
    for number, validation in enumerate(spec["validations"], start=1):
        try:
            admitted = _evaluate(validation["expression"], activation)
        except celpy.CELEvalError:
            admitted = False  # failurePolicy: Fail
        if admitted is not True and not (
            isinstance(admitted, celpy.celtypes.BoolType) and bool(admitted)
        ):
            failed.add(number)
    return failed


def host_policy(
    hosts: list[str] | None = None,
    narrowing: dict[str, Any] | None = None,
    owner_kind: str = "SandboxClaim",
) -> dict[str, Any]:
    """A per-sandbox policy exactly as the host writes it (§15.1)."""
    return translate_per_sandbox(
        hosts or ["registry.npmjs.org", ".example.com"],
        namespace="namzu-sandboxes",
        label_key=LABEL_KEY,
        object_name=OWNER_NAME,
        owner_kind=owner_kind,  # type: ignore[arg-type]
        owner_uid=UID,
        narrowing=narrowing,
    ).manifest


@pytest.mark.parametrize(
    "policy",
    [
        host_policy(),
        host_policy(owner_kind="Sandbox"),
        host_policy(["API.Example.com"]),
        host_policy(
            ["github.com", "registry.npmjs.org"],
            {
                "ports": [443],
                "hostPorts": {"github.com": [443, 22]},
                "tlsServerNames": True,
                "dnsNames": {"searchSuffixes": ["corp.internal"]},
            },
        ),
        host_policy([".pypi.org"], {"dnsNames": True}),
    ],
)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_the_hosts_own_policies_are_admitted(policy: dict[str, Any], operation: str) -> None:
    assert failed_validations(policy, operation=operation) == set()


def test_a_delete_is_checked_by_name_only() -> None:
    assert failed_validations(None, operation="DELETE", old=host_policy()) == set()
    other = {"metadata": {"name": "team-egress"}}
    assert failed_validations(None, operation="DELETE", old=other) == {1}


def test_nobody_but_the_host_is_fenced() -> None:
    anything = {
        "metadata": {"name": "operator-policy"},
        "spec": {"egress": [{"toEntities": ["world"]}]},
    }
    assert failed_validations(anything, user="system:serviceaccount:ops:argocd") == set()
    assert failed_validations(anything) != set()


Mutation = Callable[[dict[str, Any]], None]
Path = tuple[str | int, ...]


def _parent(policy: dict[str, Any], path: Path) -> Any:
    target: Any = policy
    for key in path[:-1]:
        target = target[key]
    return target


def _set(path: Path, value: Any) -> Mutation:
    def mutate(policy: dict[str, Any]) -> None:
        _parent(policy, path)[path[-1]] = value

    return mutate


def _drop(path: Path) -> Mutation:
    def mutate(policy: dict[str, Any]) -> None:
        del _parent(policy, path)[path[-1]]

    return mutate


def _second_owner(policy: dict[str, Any]) -> None:
    owners = policy["metadata"]["ownerReferences"]
    owners.append(dict(owners[0], uid="other"))


def _empty_uid(policy: dict[str, Any]) -> None:
    policy["metadata"]["ownerReferences"][0]["uid"] = ""
    policy["metadata"]["name"] = "namzu-sbx-"


OWNER: Path = ("metadata", "ownerReferences", 0)
SELECTOR: Path = ("spec", "endpointSelector")
DNS_RULE: Path = ("spec", "egress", 0)
HOST_RULE: Path = ("spec", "egress", 1)
KUBE_DNS_LABELS: Path = (*DNS_RULE, "toEndpoints", 0, "matchLabels")
DNS_PORT: Path = (*DNS_RULE, "toPorts", 0, "ports", 0, "port")
FIRST_FQDN: Path = (*HOST_RULE, "toFQDNs", 0)

VIOLATIONS: list[tuple[str, Mutation, set[int]]] = [
    ("name without the prefix", _set(("metadata", "name"), f"egress-{UID}"), {1, 2}),
    ("name of another uid", _set(("metadata", "name"), "namzu-sbx-someone-else"), {2}),
    ("no owner", _set(("metadata", "ownerReferences"), []), {2, 4}),
    ("two owners", _second_owner, {2, 4}),
    ("empty uid", _empty_uid, {2}),
    ("owner of another kind", _set((*OWNER, "kind"), "Deployment"), {3}),
    ("owner of another group", _set((*OWNER, "apiVersion"), "apps/v1"), {3}),
    ("blockOwnerDeletion", _set((*OWNER, "blockOwnerDeletion"), True), {3}),
    ("a second label", _set((*SELECTOR, "matchLabels", "team"), "x"), {4}),
    ("matchExpressions", _set((*SELECTOR, "matchExpressions"), []), {4}),
    ("another sandbox's name", _set((*SELECTOR, "matchLabels"), {LABEL_KEY: "someone-else"}), {4}),
    (
        "the default key, not the configured one",
        _set((*SELECTOR, "matchLabels"), {"sandbox.namzu.ai/per-sandbox-egress": OWNER_NAME}),
        {4},
    ),
    ("no selector", _drop(SELECTOR), {4}),
    ("a specs list", _set(("specs",), []), {5}),
    ("ingress", _set(("spec", "ingress"), [{}]), {5}),
    ("ingressDeny", _set(("spec", "ingressDeny"), []), {5}),
    ("egressDeny", _set(("spec", "egressDeny"), []), {5}),
    ("nodeSelector", _set(("spec", "nodeSelector"), {}), {5}),
    ("no egress rule", _set(("spec", "egress"), []), {5}),
    ("toCIDR", _set((*HOST_RULE, "toCIDR"), ["0.0.0.0/0"]), {6}),
    ("toCIDRSet", _set((*HOST_RULE, "toCIDRSet"), [{"cidr": "10.0.0.0/8"}]), {6}),
    ("toEntities", _set((*HOST_RULE, "toEntities"), ["world"]), {6}),
    ("toServices", _set((*HOST_RULE, "toServices"), [{}]), {6}),
    ("toRequires", _set((*HOST_RULE, "toRequires"), [{}]), {6}),
    ("toFQDNs with toEndpoints", _set((*DNS_RULE, "toFQDNs"), [{"matchName": "a.example"}]), {6}),
    (
        "a rule reaching nothing",
        _set(("spec", "egress"), [{"toPorts": [{"ports": [{"port": "443"}]}]}]),
        {6},
    ),
    ("endpoints other than kube-dns", _set(KUBE_DNS_LABELS, {"k8s:app": "proxy"}), {6}),
    (
        "kube-dns of another namespace",
        _set((*KUBE_DNS_LABELS, "k8s:io.kubernetes.pod.namespace"), "team"),
        {6},
    ),
    ("the DNS rule on another port", _set(DNS_PORT, "5353"), {6}),
    ("the DNS rule's port as a number", _set(DNS_PORT, 53), {6}),
    ("the DNS rule without ports", _set((*DNS_RULE, "toPorts"), [{"rules": {}}]), {6}),
    ("an empty toFQDNs", _set((*HOST_RULE, "toFQDNs"), []), {7}),
    ("a matchName outside the grammar", _set(FIRST_FQDN, {"matchName": "a_b.example"}), {7}),
    ("a trailing dot", _set(FIRST_FQDN, {"matchName": "a.example."}), {7}),
    ("a one-label pattern", _set(FIRST_FQDN, {"matchPattern": "*.com"}), {7}),
    ("a bare wildcard", _set(FIRST_FQDN, {"matchPattern": "*"}), {7}),
    (
        "both name and pattern",
        _set(FIRST_FQDN, {"matchName": "a.example", "matchPattern": "*.a.example"}),
        {7},
    ),
    ("neither name nor pattern", _set(FIRST_FQDN, {}), {7}),
]


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [(m, e) for _, m, e in VIOLATIONS],
    ids=[name for name, _, _ in VIOLATIONS],
)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_each_validation_refuses_its_shape(
    mutation: Mutation, expected: set[int], operation: str
) -> None:
    policy = copy.deepcopy(host_policy())
    mutation(policy)
    assert failed_validations(policy, operation=operation) == expected
