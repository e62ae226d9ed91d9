"""The declaration's top-level ``cluster: {enforces: [...]}``: which policy
kinds the cluster is declared to enforce (``lint.decision.tiers.credit``)."""

from __future__ import annotations

from tests.declarations.conftest import LoadText, RefuseText, dedent

ENTRY = """
sandboxes:
  - template: t
    egress: {policy: {kind: deny-all}}
"""


def test_the_listed_words_are_read(load_text: LoadText) -> None:
    text = "version: 1\ncluster:\n  enforces: [Calico, AdminNetworkPolicy, Calico]\n" + ENTRY
    declarations = load_text(dedent(text))
    assert declarations.enforces == frozenset({"Calico", "AdminNetworkPolicy"})


def test_every_word_is_taken(load_text: LoadText) -> None:
    words = "AdminNetworkPolicy, BaselineAdminNetworkPolicy, ClusterNetworkPolicy, Calico, Cilium"
    declarations = load_text(f"version: 1\ncluster: {{enforces: [{words}]}}\n" + ENTRY)
    assert declarations.enforces is not None
    assert len(declarations.enforces) == 5


def test_an_empty_list_declares_that_nothing_beyond_network_policy_is_enforced(
    load_text: LoadText,
) -> None:
    assert load_text("version: 1\ncluster: {enforces: []}\n" + ENTRY).enforces == frozenset()


def test_absent_means_not_declared(load_text: LoadText) -> None:
    assert load_text("version: 1\n" + ENTRY).enforces is None
    assert load_text("version: 1\ncluster: {}\n" + ENTRY).enforces is None


def test_an_unknown_word_is_refused_at_its_line(refuse: RefuseText) -> None:
    error = refuse("version: 1\ncluster:\n  enforces:\n    - Calico\n    - Cilum\n" + ENTRY)
    assert error.line == 5
    assert error.path == "cluster.enforces[1]"
    assert "Cilum" in str(error)


def test_an_unknown_key_and_a_non_list_are_refused(refuse: RefuseText) -> None:
    error = refuse("version: 1\ncluster:\n  enforce: [Calico]\n" + ENTRY)
    assert error.line == 3
    assert "enforce" in str(error)
    error = refuse("version: 1\ncluster:\n  enforces: Calico\n" + ENTRY)
    assert error.line == 3
