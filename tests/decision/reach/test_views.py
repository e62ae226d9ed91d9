"""C§2.3 label views built from Namespace and ServiceAccount manifests and
the declaration's `namespaces:` (C§11 Q3)."""

from __future__ import annotations

from typing import Any

from lint.decision.reach.model import UNKNOWN, ReachCandidate
from lint.decision.reach.views import (
    declared_disagrees,
    namespace_view,
    service_account_name,
    service_account_view,
)
from lint.decision.values import ABSENT


def namespace(
    name: str, labels: Any = ..., kind: str = "Namespace", api_version: str = "v1"
) -> ReachCandidate:
    metadata: dict[str, Any] = {"name": name}
    if labels is not ...:
        metadata["labels"] = labels
    return ReachCandidate(api_version, kind, {"metadata": metadata})


def test_one_readable_manifest_is_complete() -> None:
    view = namespace_view("sbx", [namespace("sbx", {"team": "ml"}), namespace("other", {"x": "y"})])
    assert view.lookup("team") == "ml" and view.lookup("x") is ABSENT
    assert view.lookup("kubernetes.io/metadata.name") == "sbx"
    assert namespace_view("sbx", [namespace("sbx")]).lookup("team") is ABSENT


def test_partial_views() -> None:
    for manifests in (
        [],
        [namespace("sbx", {"a": "b"}), namespace("sbx", {"a": "b"})],
        [namespace("sbx", {"a": 1})],
        [namespace("sbx", "labels")],
        [namespace("sbx", {"a": "b"}, api_version="v2")],
    ):
        view = namespace_view("sbx", manifests)
        assert view.lookup("a") is UNKNOWN
        assert view.lookup("kubernetes.io/metadata.name") == "sbx"


def test_the_manifest_wins_over_the_declaration() -> None:
    manifests = [namespace("sbx", {"team": "ml"})]
    assert namespace_view("sbx", manifests, {"team": "web"}).lookup("team") == "ml"
    assert namespace_view("sbx", [], {"team": "web"}).lookup("team") == "web"
    assert namespace_view("sbx", [], {"team": "web"}).lookup("x") is ABSENT
    assert declared_disagrees("sbx", manifests, {"team": "web"})
    assert not declared_disagrees("sbx", manifests, {"team": "ml"})
    assert not declared_disagrees(
        "sbx", manifests, {"team": "ml", "kubernetes.io/metadata.name": "x"}
    )
    assert not declared_disagrees("sbx", [], {"team": "web"})


def test_service_account() -> None:
    assert service_account_name({"spec": {"serviceAccountName": "a", "serviceAccount": "b"}}) == "a"
    assert service_account_name({"spec": {"serviceAccountName": "", "serviceAccount": "b"}}) == "b"
    assert service_account_name({"spec": {}}) == "default"
    assert service_account_name(None) == "default"
    accounts = [
        namespace("a", {"role": "agent"}, kind="ServiceAccount"),
        ReachCandidate("v1", "ServiceAccount", {"metadata": {"name": "a", "namespace": "other"}}),
    ]
    assert service_account_view("sbx", "a", accounts).lookup("role") == "agent"
    assert service_account_view("sbx", "b", accounts).lookup("role") is UNKNOWN
    assert service_account_view("sbx", "a", [*accounts, accounts[0]]).lookup("role") is UNKNOWN
