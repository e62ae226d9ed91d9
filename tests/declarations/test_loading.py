"""load_declarations: merging, namespaces, ingress, paths, notes, and the
host's own refusals (SEMANTICS.md §2) mapped to field path and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.declarations import (
    DeclarationError,
    IngressCheck,
    load_declarations,
)
from tests.declarations.conftest import LoadText, RefuseText

DESIGN_EXAMPLE = """
version: 1
defaultNamespace: namzu-sandboxes
defaults:                       # merged under every sandbox's egress
  engine: cilium
sandboxes:
  - template: namzu-task        # a SandboxTemplate in the manifests
    namespace: namzu-sandboxes  # optional; defaultNamespace otherwise
    egress:
      policy: {kind: static, allowedHosts: [api.github.com, .pypi.org]}
      ciliumNarrowing: {ports: [443], dnsNames: true}
    ingress: {agentPort: 1024}  # or: unverified
  - template: namzu-task
    egress:
      profile: internet
      policy: {kind: public-internet, exceptCidrs: [203.0.113.0/24]}
      engine: core
  - template: batch-runner      # a template kept in another repo
    external: true
    podLabels: {team: data}
    egress: {policy: {kind: no-network}}
"""


def test_the_design_example_loads(load_text: LoadText) -> None:
    declarations = load_text(DESIGN_EXAMPLE)
    assert declarations.file == ".egress-lint.yaml"
    assert declarations.default_namespace == "namzu-sandboxes"
    assert not declarations.defaults_applied
    assert declarations.notes == ()
    task, internet, batch = declarations.entries
    assert [e.index for e in declarations.entries] == [0, 1, 2]
    assert [e.line for e in declarations.entries] == [6, 12, 17]
    assert task.egress == {
        "engine": "cilium",
        "policy": {"kind": "static", "allowedHosts": ["api.github.com", ".pypi.org"]},
        "ciliumNarrowing": {"ports": [443], "dnsNames": True},
    }
    assert (task.translation.kind, task.translation.name) == (
        "CiliumNetworkPolicy",
        "namzu-task-egress",
    )
    assert task.ingress == IngressCheck(1024, None)
    assert task.ingress_engine == "cilium"
    assert internet.engine == "core"
    assert internet.profile == "internet"
    assert internet.translation.name == "namzu-task-internet-egress"
    assert internet.namespace == "namzu-sandboxes"
    assert batch.external
    assert batch.pod_labels == {"team": "data"}
    assert batch.translation.kind == "NetworkPolicy"
    assert batch.paths is None


# --- defaults -------------------------------------------------------------------


def test_entry_keys_win_over_defaults_key_by_key(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        defaults:
          engine: cilium
          verify: named-object-only
          ciliumNarrowing: {ports: [443], dnsNames: true}
        sandboxes:
          - template: t
            egress:
              policy: {kind: static, allowedHosts: [a.example.com]}
              ciliumNarrowing: {tlsServerNames: true}
        """
    )
    (entry,) = declarations.entries
    # The entry's ciliumNarrowing replaces the default one whole: no deep merge.
    assert entry.egress["ciliumNarrowing"] == {"tlsServerNames": True}
    assert entry.egress["engine"] == "cilium"
    assert not entry.union_verified
    assert entry.line_of("egress.engine") == 3
    assert entry.line_of("egress.verify") == 4
    assert entry.line_of("egress.ciliumNarrowing") == 10
    assert entry.line_of("egress.ciliumNarrowing.ports") == 10


def test_defaults_may_supply_the_whole_policy(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        defaults:
          policy: {kind: allow-all}
        sandboxes:
          - template: a
          - template: b
            egress: {policy: {kind: deny-all}}
        """
    )
    first, second = declarations.entries
    assert first.egress == {"policy": {"kind": "allow-all"}}
    assert first.line_of("egress.policy.kind") == 3
    assert second.egress == {"policy": {"kind": "deny-all"}}
    assert second.line_of("egress.policy.kind") == 7


def test_defaults_do_not_leak_between_entries(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        defaults: {engine: cilium}
        sandboxes:
          - template: a
            egress: {policy: {kind: deny-all}, engine: core}
          - template: b
            egress: {policy: {kind: deny-all}}
        """
    )
    assert [e.engine for e in declarations.entries] == ["core", "cilium"]


def test_absent_and_null_stay_distinct_in_the_egress(
    load_text: LoadText, refuse: RefuseText
) -> None:
    absent = load_text(
        "version: 1\nsandboxes:\n  - template: a\n    egress:\n      policy: {kind: deny-all}\n"
    )
    assert "networkPolicyName" not in absent.entries[0].egress
    assert absent.entries[0].translation.name == "a-egress"
    # A null is handed on as written, and the host's validation refuses it.
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: a
            egress:
              policy: {kind: deny-all}
              networkPolicyName: null
        """
    )
    assert (error.path, error.line) == ("sandboxes[0].egress.networkPolicyName", 6)


# --- namespaces -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry_namespace", "override", "default_namespace", "expected"),
    [
        ("entry", "flag", "file", "entry"),
        (None, "flag", "file", "flag"),
        (None, None, "file", "file"),
        (None, None, None, "default"),
        ("entry", None, None, "entry"),
    ],
)
def test_namespace_precedence(
    load_text: LoadText,
    entry_namespace: str | None,
    override: str | None,
    default_namespace: str | None,
    expected: str,
) -> None:
    lines = ["version: 1"]
    if default_namespace:
        lines.append(f"defaultNamespace: {default_namespace}")
    lines += ["sandboxes:", "  - template: t", "    egress: {policy: {kind: deny-all}}"]
    if entry_namespace:
        lines.append(f"    namespace: {entry_namespace}")
    declarations = load_text("\n".join(lines) + "\n", namespace_override=override)
    entry = declarations.entries[0]
    assert entry.namespace == expected
    assert entry.translation.namespace == expected
    assert declarations.object_namespace == (override or default_namespace or "default")


# --- ingress and paths ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("ingress", "egress_engine", "check", "engine"),
    [
        (None, "core", IngressCheck(1024, None), "core"),
        (None, "cilium", IngressCheck(1024, None), "cilium"),
        ("unverified", "cilium", None, None),
        ("{agentPort: 8080}", "core", IngressCheck(8080, None), "core"),
        ("{engine: cilium}", "core", IngressCheck(1024, "cilium"), "cilium"),
        ("{engine: core}", "cilium", IngressCheck(1024, "core"), "core"),
    ],
)
def test_ingress(
    load_text: LoadText,
    ingress: str | None,
    egress_engine: str,
    check: IngressCheck | None,
    engine: str | None,
) -> None:
    text = (
        "version: 1\nsandboxes:\n  - template: t\n"
        f"    egress: {{policy: {{kind: deny-all}}, engine: {egress_engine}}}\n"
    )
    if ingress is not None:
        text += f"    ingress: {ingress}\n"
    entry = load_text(text).entries[0]
    assert entry.ingress == check
    assert entry.ingress_engine == engine


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        ("[pooled]", ("pooled",)),
        ("[direct, pooled]", ("direct", "pooled")),
        ("[pooled, direct, pooled]", ("pooled", "direct")),
    ],
)
def test_paths(load_text: LoadText, paths: str, expected: tuple[str, ...]) -> None:
    text = (
        "version: 1\nsandboxes:\n  - template: t\n"
        f"    egress: {{policy: {{kind: deny-all}}}}\n    paths: {paths}\n"
    )
    assert load_text(text).entries[0].paths == expected


# --- the host's refusals -----------------------------------------------------------------

# (egress block under one entry starting at line 4, field path, line, error class)
REFUSALS: list[tuple[str, str, int, str]] = [
    # E1: static under core, with or without narrowing.
    (
        "      policy:\n        kind: static\n        allowedHosts: [a.example.com]\n",
        "policy.kind",
        6,
        "unenforceable-policy",
    ),
    (
        "      policy:\n        kind: resolver\n        allowedHosts: [a.example.com]\n"
        "      ciliumNarrowing: {ports: [443]}\n",
        "policy.kind",
        6,
        "unenforceable-policy",
    ),
    # E2: the first unreadable exceptCidrs entry.
    (
        "      policy:\n        kind: public-internet\n        exceptCidrs:\n"
        "          - 10.0.0.0/8\n          - not-a-cidr\n",
        "policy.exceptCidrs",
        7,
        "policy-config",
    ),
    # E3: narrowing on a core kind.
    (
        "      engine: cilium\n      policy: {kind: deny-all}\n      ciliumNarrowing:\n"
        "        ports: [443]\n",
        "ciliumNarrowing",
        7,
        "narrowing-unsupported",
    ),
    # N1 and N2.
    (
        "      engine: cilium\n      policy: {kind: static, allowedHosts: [a.b.c]}\n"
        "      ciliumNarrowing:\n        ports: []\n",
        "ciliumNarrowing.ports",
        8,
        "policy-config",
    ),
    (
        "      engine: cilium\n      policy: {kind: static, allowedHosts: [a.b.c]}\n"
        "      ciliumNarrowing:\n        ports: '443'\n",
        "ciliumNarrowing.ports",
        8,
        "policy-config",
    ),
    # N3: the hostPorts key, rendered as a JSON string.
    (
        "      engine: cilium\n      policy: {kind: static, allowedHosts: [github.com]}\n"
        "      ciliumNarrowing:\n        hostPorts:\n          api.example.com: [443]\n"
        "          github.com: [0]\n",
        'ciliumNarrowing.hostPorts["github.com"]',
        10,
        "policy-config",
    ),
    # P3 and P1.
    (
        "      policy: {kind: deny-all}\n      profile: Not_A_Label\n",
        "profile",
        6,
        "profile-config",
    ),
    (
        "      policy: {kind: deny-all}\n      profileLabelKey: a/b/c\n",
        "profileLabelKey",
        6,
        "profile-config",
    ),
    # S2: the missing name sits under perSandbox, which is the deepest line.
    (
        "      engine: cilium\n      policy: {kind: static, allowedHosts: [a.b.c]}\n"
        "      perSandbox:\n        engine: cilium\n",
        "perSandbox.admissionPolicyName",
        7,
        "per-sandbox-config",
    ),
    # H5 on the third host, each on its own line.
    (
        "      engine: cilium\n      policy:\n        kind: static\n        allowedHosts:\n"
        "          - a.example.com\n          - .example.org\n          - https://x.example\n",
        "policy.allowedHosts[2]",
        11,
        "host",
    ),
    # §2.8: a .domain entry with tlsServerNames.
    (
        "      engine: cilium\n      policy: {kind: static, allowedHosts: [.example.com]}\n"
        "      ciliumNarrowing:\n        tlsServerNames: true\n",
        "ciliumNarrowing.tlsServerNames",
        8,
        "host",
    ),
    # §2.9: unknown kind.
    ("      policy:\n        kind: open-everything\n", "policy.kind", 6, "policy-config"),
    # Policy missing: the egress key is the nearest line.
    ("      engine: core\n", "policy", 4, "policy-config"),
]


@pytest.mark.parametrize(("egress", "field", "line", "error_class"), REFUSALS)
def test_refusal_names_the_field_and_its_line(
    refuse: RefuseText, egress: str, field: str, line: int, error_class: str
) -> None:
    text = "version: 1\nsandboxes:\n  - template: t\n    egress:\n" + egress
    error = refuse(text)
    assert error.path == f"sandboxes[0].egress.{field}"
    assert (error.file, error.line) == (".egress-lint.yaml", line)
    assert error.error_class == error_class
    assert error.excerpt == text.splitlines()[line - 1]
    assert error.__cause__ is None


def test_an_entry_without_egress_is_refused_at_its_own_line(refuse: RefuseText) -> None:
    error = refuse(
        "version: 1\nsandboxes:\n  - template: ok\n    egress: {policy: {kind: deny-all}}\n"
        "  - template: t\n    external: true\n"
    )
    assert (error.path, error.line) == ("sandboxes[1].egress.policy", 5)


def test_a_refused_value_from_defaults_points_at_defaults(refuse: RefuseText) -> None:
    error = refuse(
        """
        version: 1
        defaults:
          policy:
            kind: static
            allowedHosts: [a.example.com]
        sandboxes:
          - template: t
        """
    )
    assert (error.path, error.line) == ("sandboxes[0].egress.policy.kind", 4)
    assert "inherited from `defaults`" in error.message


def test_the_refusal_of_a_later_entry_names_its_index(refuse: RefuseText) -> None:
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: a
            egress: {policy: {kind: deny-all}}
          - template: b
            egress: {policy: {kind: deny-all}, profile: BAD}
        """
    )
    assert (error.path, error.line) == ("sandboxes[1].egress.profile", 6)


def test_wrong_typed_contents_are_refused_by_the_translation(refuse: RefuseText) -> None:
    # Not a structural error: the host's own validation words it (§0.1).
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: t
            egress:
              policy: {kind: public-internet, exceptCidrs: 10.0.0.0/8}
        """
    )
    assert error.path == "sandboxes[0].egress.policy.exceptCidrs"
    assert error.error_class is not None


# --- accepted oddities and notes ---------------------------------------------------


def test_a_misspelt_verify_is_accepted_with_a_note(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        sandboxes:
          - template: t
            egress:
              policy: {kind: deny-all}
              verify: named-objects-only
        """
    )
    assert declarations.entries[0].union_verified
    (note,) = declarations.notes
    assert (note.path, note.line, note.file) == (
        "sandboxes[0].egress.verify",
        6,
        ".egress-lint.yaml",
    )
    assert "union check stays on" in note.message


@pytest.mark.parametrize("verify", ["union", "named-object-only"])
def test_known_verify_values_give_no_note(load_text: LoadText, verify: str) -> None:
    declarations = load_text(
        "version: 1\nsandboxes:\n  - template: t\n"
        f"    egress: {{policy: {{kind: deny-all}}, verify: {verify}}}\n"
    )
    assert declarations.notes == ()
    assert declarations.entries[0].union_verified == (verify == "union")


def test_an_inactive_malformed_narrowing_is_accepted_with_a_note(load_text: LoadText) -> None:
    # Quirk Q13: tlsPorts alone never activates the narrowing, so 99999 is
    # neither validated nor applied, and even a core kind accepts it.
    declarations = load_text(
        """
        version: 1
        sandboxes:
          - template: t
            egress:
              policy: {kind: deny-all}
              ciliumNarrowing: {tlsPorts: [99999], hostPorts: {}}
        """
    )
    (note,) = declarations.notes
    assert (note.path, note.line) == ("sandboxes[0].egress.ciliumNarrowing", 6)
    assert declarations.entries[0].translation.kind == "NetworkPolicy"


def test_two_entries_expecting_one_named_object_are_refused(refuse: RefuseText) -> None:
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: t
            egress: {policy: {kind: deny-all}}
          - template: t
            egress: {policy: {kind: allow-all}}
        """
    )
    assert (error.path, error.line) == ("sandboxes[1]", 5)
    assert "sandboxes[0] (line 3)" in error.message
    assert "'t-egress'" in error.message


def test_entries_told_apart_by_profile_or_namespace_are_fine(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        sandboxes:
          - template: t
            egress: {policy: {kind: deny-all}}
          - template: t
            egress: {policy: {kind: allow-all}, profile: open}
          - template: t
            namespace: other
            egress: {policy: {kind: allow-all}}
        """
    )
    assert [e.translation.name for e in declarations.entries] == [
        "t-egress",
        "t-open-egress",
        "t-egress",
    ]


# --- no file, unreadable file -----------------------------------------------------------


def test_no_file_applies_the_defaults() -> None:
    declarations = load_declarations(None, namespace_override="ns")
    assert declarations.defaults_applied
    assert declarations.entries == ()
    assert declarations.file is None
    assert declarations.object_namespace == "ns"


def test_an_explicit_missing_file_is_an_error(workdir: Path) -> None:
    with pytest.raises(DeclarationError) as caught:
        load_declarations(workdir / "missing.yaml", namespace_override=None)
    assert caught.value.file == "missing.yaml"
    assert "cannot read missing.yaml" in caught.value.message


def test_file_names_are_relative_to_the_current_directory(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = workdir / "repo" / ".egress-lint.yaml"
    (workdir / "repo" / "sub").mkdir(parents=True)
    config.write_text(
        "version: 1\nsandboxes:\n  - template: t\n    egress: {policy: {kind: deny-all}}\n"
    )
    monkeypatch.chdir(workdir / "repo" / "sub")
    declarations = load_declarations(config, namespace_override=None)
    assert declarations.file == "../.egress-lint.yaml"
    assert declarations.entries[0].file == "../.egress-lint.yaml"
    assert declarations.line_of("sandboxes[0].egress.policy") == 4


def test_an_empty_narrowing_drops_a_default_one_without_a_note(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        defaults:
          ciliumNarrowing: {ports: [443]}
        sandboxes:
          - template: t
            egress:
              policy: {kind: deny-all}
              ciliumNarrowing: {}
        """
    )
    assert declarations.notes == ()
    assert declarations.entries[0].egress["ciliumNarrowing"] == {}


def test_entries_do_not_share_inherited_values(load_text: LoadText) -> None:
    declarations = load_text(
        """
        version: 1
        defaults:
          policy: {kind: public-internet, exceptCidrs: [203.0.113.0/24]}
        sandboxes:
          - template: a
          - template: b
        """
    )
    first, second = declarations.entries
    assert first.egress == second.egress
    assert first.egress["policy"] is not second.egress["policy"]


# --- namespaces: (labels of namespaces managed elsewhere) -------------------------

NAMESPACE_LABELS = """
version: 1
namespaces:
  sbx:
    labels: {team: sandboxes}
  other: {}
sandboxes:
  - template: task
    egress: {policy: {kind: deny-all}}
"""


def test_the_namespaces_field_states_labels(load_text: LoadText) -> None:
    declarations = load_text(NAMESPACE_LABELS)
    assert declarations.namespaces == {"sbx": {"team": "sandboxes"}, "other": {}}


def test_namespace_labels_must_be_strings(refuse: RefuseText) -> None:
    error = refuse(NAMESPACE_LABELS.replace("{team: sandboxes}", "{team: 3}"))
    assert error.path.startswith("namespaces")
    assert error.line == 4


def test_a_namespace_entry_takes_only_labels(refuse: RefuseText) -> None:
    error = refuse(NAMESPACE_LABELS.replace("  other: {}", "  other: {annotations: {}}"))
    assert error.path.startswith("namespaces")
