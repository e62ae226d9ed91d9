"""The kinds table is the one source of every set of kinds: the loader keeps
exactly its kinds, the inventory files them by their scope, the sets derived
from it are the ones the tool used before they were derived, and the
decision engine may import it because it is plain data."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint.decision.constants import (
    CILIUM_API_VERSION,
    CILIUM_KIND,
    CLUSTERWIDE_KIND,
    CORE_API_VERSION,
    CORE_KIND,
)
from lint.decision.translation import OWNER_API_VERSIONS
from lint.inventory import build_inventory
from lint.kinds import (
    _IDENTIFIED,
    _MEMO_LIMIT,
    CLUSTER_KINDS,
    CONFIG_MAP,
    CONFIG_MAP_NAME,
    DEPLOYMENT,
    JUDGED_POLICY_KINDS,
    KINDS,
    POLICY_GROUPS,
    POLICY_KINDS,
    READ_KINDS,
    RELEVANT_KINDS,
    TYPED_POLICY_LISTS,
    UNION_POLICY_KINDS,
    WORKLOAD_KINDS,
    Decision,
    Kind,
    Scope,
    _identified,
    identify,
    relevant_kinds,
)
from lint.loading import load

LINT = Path(__file__).resolve().parents[1] / "lint"


def test_each_kind_is_listed_once_with_a_group_and_versions() -> None:
    keys = [kind.key for kind in KINDS]
    assert len(keys) == len(set(keys))
    for kind in KINDS:
        assert kind.versions or kind.exact, kind.name
        # The built-in groups apps and batch are the only ones without a dot.
        assert kind.group in ("", "apps", "batch") or "." in kind.group, kind.name
        assert kind.resource.islower() and kind.resource.endswith("s"), kind.name
    assert [kind.name for kind in KINDS if not kind.read] == [
        "ClusterRole",
        "ClusterRoleBinding",
        "ServiceAccount",
    ]


def test_the_derived_sets_of_the_union_are_the_ones_the_tool_used_before() -> None:
    # Written out by hand: the sets as lint/loading/kinds.py, lint/inventory.py
    # and lint/checks/candidates.py held them before they came from the table.
    assert {
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
        "SandboxTemplate",
        "SandboxWarmPool",
        "SandboxClaim",
        "Sandbox",
        "Namespace",
        "ConfigMap",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "Role",
        "RoleBinding",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
    } <= RELEVANT_KINDS
    assert {
        "CiliumClusterwideNetworkPolicy",
        "Namespace",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
    } <= CLUSTER_KINDS
    assert {"NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"} == (
        UNION_POLICY_KINDS
    )
    assert {"AdminNetworkPolicy", "BaselineAdminNetworkPolicy"} <= POLICY_KINDS
    assert {"NetworkPolicyList", "CiliumNetworkPolicyList"} == TYPED_POLICY_LISTS
    assert JUDGED_POLICY_KINDS == (
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
    )
    assert {
        "networking.k8s.io": "NetworkPolicy",
        "cilium.io": "CiliumNetworkPolicy",
        "policy.networking.k8s.io": "AdminNetworkPolicy",
        "projectcalico.org": "GlobalNetworkPolicy.projectcalico.org",
        "crd.projectcalico.org": "GlobalNetworkPolicy.projectcalico.org",
    }.items() <= dict(POLICY_GROUPS).items()


IDENTIFIED = [
    # The union's kinds, by kind alone, whatever the version (as always).
    ("networking.k8s.io/v1", "NetworkPolicy", "NetworkPolicy", Decision.UNION),
    (None, "NetworkPolicy", "NetworkPolicy", Decision.UNION),
    ("extensions/v1beta1", "NetworkPolicy", "NetworkPolicy", Decision.UNION),
    ("cilium.io/v2", "CiliumNetworkPolicy", "CiliumNetworkPolicy", Decision.UNION),
    ("cilium.io/v2alpha1", "CiliumNetworkPolicy", "CiliumNetworkPolicy", Decision.UNION),
    # ... except where another entry of that name claims the group (§2.1).
    ("projectcalico.org/v3", "NetworkPolicy", "NetworkPolicy.projectcalico.org", Decision.REACH),
    (
        "crd.projectcalico.org/v1",
        "NetworkPolicy",
        "NetworkPolicy.projectcalico.org",
        Decision.REACH,
    ),
    ("crd.antrea.io/v1beta1", "NetworkPolicy", "NetworkPolicy.crd.antrea.io", Decision.CATCH_ALL),
    (
        "projectcalico.org/v4",
        "NetworkPolicy",
        "NetworkPolicy.projectcalico.org",
        Decision.CATCH_ALL,
    ),
    # The new kinds, exactly.
    (
        "policy.networking.k8s.io/v1alpha1",
        "AdminNetworkPolicy",
        "AdminNetworkPolicy",
        Decision.REACH,
    ),
    (
        "policy.networking.k8s.io/v1beta1",
        "AdminNetworkPolicy",
        "AdminNetworkPolicy",
        Decision.CATCH_ALL,
    ),
    (
        "policy.networking.k8s.io/v1alpha2",
        "ClusterNetworkPolicy",
        "ClusterNetworkPolicy",
        Decision.REACH,
    ),
    ("policy.networking.k8s.io/v1", "Anything", "Anything", Decision.CATCH_ALL),
    ("cilium.io/v2alpha1", "CiliumCIDRGroup", "CiliumCIDRGroup", Decision.REACH_DATA),
    ("crd.projectcalico.org/v1", "Tier", "Tier.projectcalico.org", Decision.REACH_DATA),
    ("k8s.ovn.org/v1", "EgressFirewall", "EgressFirewall.k8s.ovn.org", Decision.CATCH_ALL),
    ("example.com/v1", "EgressFirewall", "EgressFirewall.example.com", Decision.CATCH_ALL),
    ("example.com/v1", "FancyNetworkPolicy", "FancyNetworkPolicy.example.com", Decision.CATCH_ALL),
]


@pytest.mark.parametrize(("api_version", "name", "key", "decision"), IDENTIFIED)
def test_identify_matches_the_new_kinds_exactly_and_the_old_by_name(
    api_version: str | None, name: str, key: str, decision: Decision
) -> None:
    kind = identify(api_version, name)
    assert kind is not None
    assert (kind.key, kind.decision) == (key, decision)


def test_identify_reads_no_other_kind() -> None:
    assert identify("v1", "Service") is None
    assert identify("apps/v1", "Deployment") is not None  # a workload, kept when declared
    assert identify("example.com/v1", "Widget") is None


def test_the_versions_written_are_the_ones_the_decision_wrote_before() -> None:
    assert (CORE_KIND, CORE_API_VERSION) == ("NetworkPolicy", "networking.k8s.io/v1")
    assert (CILIUM_KIND, CILIUM_API_VERSION) == ("CiliumNetworkPolicy", "cilium.io/v2")
    assert CLUSTERWIDE_KIND == "CiliumClusterwideNetworkPolicy"
    assert dict(OWNER_API_VERSIONS) == {
        "SandboxClaim": "extensions.agents.x-k8s.io/v1beta1",
        "Sandbox": "agents.x-k8s.io/v1beta1",
    }


# Only a workload running the agent-sandbox controller is read undeclared (here a
# Deployment; every workload kind in tests/loading/test_load.py).
_CONTROLLER_SPEC = (
    "spec: {template: {spec: {containers: [{image: agent-sandbox-controller:v1}]}}}\n"
)


def _name_of(kind: Kind) -> str:
    return CONFIG_MAP_NAME if kind is CONFIG_MAP else "some-object"


def _one_of_each_kind(tmp_path: Path) -> Path:
    documents = [
        f"apiVersion: {kind.api_version}\nkind: {kind.name}\nmetadata:\n  name: {_name_of(kind)}\n"
        + (_CONTROLLER_SPEC if kind is DEPLOYMENT else "")
        for kind in KINDS
    ]
    documents.append("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: n\n")
    path = tmp_path / "all.yaml"
    path.write_text("---\n".join(documents), encoding="utf-8")
    return path


def test_the_loader_keeps_exactly_the_kinds_the_table_reads(tmp_path: Path) -> None:
    result = load([str(_one_of_each_kind(tmp_path))])
    # The Deployment running the controller image is read undeclared.
    always_read = [k for k in KINDS if k in READ_KINDS or k is DEPLOYMENT]
    assert [document.kind for document in result.documents] == [k.name for k in always_read]
    not_kept = {kind.name: 1 for kind in KINDS if kind not in always_read}
    assert [identify(d.value["apiVersion"], d.kind or "") for d in result.documents] == always_read
    assert dict(result.skipped) == {**not_kept, "Deployment": 1}  # the one not the controller


def test_workload_kinds_are_kept_only_when_declared(tmp_path: Path) -> None:
    result = load([str(_one_of_each_kind(tmp_path))], relevant_kinds=relevant_kinds(iter(["Job"])))
    kept = [document.kind for document in result.documents]
    assert kept == [*(k.name for k in READ_KINDS), "Deployment", "Job"]
    assert relevant_kinds(iter(["Pod", "CronJob"])) == RELEVANT_KINDS | {"Pod", "CronJob"}
    assert relevant_kinds() == RELEVANT_KINDS
    assert {kind.name for kind in WORKLOAD_KINDS} == {
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "Job",
        "CronJob",
        "Pod",
    }


def test_a_declared_deployment_is_read_whatever_its_image(tmp_path: Path) -> None:
    declared = relevant_kinds(iter(["Deployment"]))
    result = load([str(_one_of_each_kind(tmp_path))], relevant_kinds=declared)
    kept = [document.kind for document in result.documents]
    assert kept == [*(k.name for k in READ_KINDS), "Deployment", "Deployment"]


def test_the_inventory_files_each_kind_by_its_scope(tmp_path: Path) -> None:
    result = load([str(_one_of_each_kind(tmp_path))])
    inventory = build_inventory(result.documents, "team")
    for kind in READ_KINDS:
        in_cluster = [obj.name for obj in inventory.cluster_objects(kind.key)]
        in_namespace = [obj.name for obj in inventory.namespace("team").of_kind(kind.key)]
        placed = (in_cluster, in_namespace)
        expected = [_name_of(kind)]
        assert placed == ((expected, []) if kind.scope is Scope.CLUSTER else ([], expected))
        assert [obj.name for obj in inventory.all_of_kind(kind.key)] == expected


def _lint_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def test_the_decision_engine_imports_only_itself_and_the_kinds_table() -> None:
    for path in sorted((LINT / "decision").glob("*.py")):
        outside = {
            module
            for module in _lint_imports(path)
            if module.startswith("lint.") and not module.startswith("lint.decision")
        }
        assert outside <= {"lint.kinds"}, path.name


def test_the_kinds_table_is_plain_data() -> None:
    imports = _lint_imports(LINT / "kinds.py")
    assert imports <= {"__future__", "collections.abc", "enum", "msgspec", "typing"}


_NAMES = st.one_of(
    st.sampled_from([*sorted({kind.name for kind in KINDS}), "Deployment", "FooNetworkPolicy"]),
    st.text(max_size=20),
)
_API_VERSIONS = st.one_of(
    st.none(),
    st.sampled_from([*sorted({v for kind in KINDS for v in kind.api_versions}), "v1", "x.io/v9"]),
    st.text(max_size=20),
)


@given(api_version=_API_VERSIONS, name=_NAMES)
def test_a_remembered_identification_is_the_one_worked_out_afresh(
    api_version: str | None, name: str
) -> None:
    """``identify`` keeps its answers for text apiVersions; asked again, or
    with the memo full, it answers as the table does."""
    fresh = _identified(api_version, name)
    assert identify(api_version, name) == fresh
    assert identify(api_version, name) == fresh


def test_the_memo_stops_growing_at_its_bound() -> None:
    for number in range(_MEMO_LIMIT + 10):
        identify(f"x.io/v{number}", "Kind")
    assert len(_IDENTIFIED) == _MEMO_LIMIT
    # Past the bound, answers are still worked out.
    assert identify("x.io/v1", "FooNetworkPolicy") == _identified("x.io/v1", "FooNetworkPolicy")
