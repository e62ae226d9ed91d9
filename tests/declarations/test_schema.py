"""Structural errors (pydantic) become declaration errors with a field path
and the right line, in our wording."""

from __future__ import annotations

import pytest

from tests.declarations.conftest import RefuseText, dedent

ENTRY = "sandboxes:\n  - template: t\n    egress: {policy: {kind: deny-all}}\n"

# (file text, field path, line, fragments the message must contain)
CASES: list[tuple[str, str, int, tuple[str, ...]]] = [
    (ENTRY, "version", 1, ("is required",)),
    ("version: 2\n" + ENTRY, "version", 1, ("must be 1", "found 2")),
    ("version: '1'\n" + ENTRY, "version", 1, ("must be 1",)),
    ("version: 1\nsandbox: []\n" + ENTRY, "sandbox", 2, ("not a known field", "'sandboxes'")),
    ("version: 1\ndefaultNamespace: ''\n" + ENTRY, "defaultNamespace", 2, ("must not be empty",)),
    ("version: 1\nsandboxes: []\n", "sandboxes", 2, ("must not be empty",)),
    ("version: 1\nsandboxes: {a: 1}\n", "sandboxes", 2, ("must be a list",)),
    ("version: 1\nsandboxes:\n  - egress: {}\n", "sandboxes[0].template", 3, ("is required",)),
    (
        "version: 1\nsandboxes:\n  - template: ''\n",
        "sandboxes[0].template",
        3,
        ("must not be empty",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: 5\n",
        "sandboxes[0].template",
        3,
        ("must be a string", "found 5"),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    namespace: 5\n",
        "sandboxes[0].namespace",
        4,
        ("must be a string",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    external: 'yes'\n",
        "sandboxes[0].external",
        4,
        ("must be true or false", 'found "yes"'),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    podLabels:\n      team: 5\n",
        "sandboxes[0].podLabels.team",
        5,
        ("must be a string",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    podLabels:\n      app.io/x: true\n",
        'sandboxes[0].podLabels["app.io/x"]',
        5,
        ("must be a string",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    podLabels: [a]\n",
        "sandboxes[0].podLabels",
        4,
        ("must be a mapping",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    paths:\n      - direct\n      - cold\n",
        "sandboxes[0].paths[1]",
        6,
        ("must be 'direct', 'pooled' or 'warm'", 'found "cold"'),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    paths: []\n",
        "sandboxes[0].paths",
        4,
        ("must not be empty",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: verified\n",
        "sandboxes[0].ingress",
        4,
        ("must be 'unverified' or a mapping",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: 5\n",
        "sandboxes[0].ingress",
        4,
        ("must be 'unverified' or a mapping",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress:\n      agentPort: 0\n",
        "sandboxes[0].ingress.agentPort",
        5,
        ("must be at least 1",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: {agentPort: 65536}\n",
        "sandboxes[0].ingress.agentPort",
        4,
        ("must be at most 65535",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: {agentPort: '1024'}\n",
        "sandboxes[0].ingress.agentPort",
        4,
        ("must be an integer",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: {agentPort: true}\n",
        "sandboxes[0].ingress.agentPort",
        4,
        ("must be an integer",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress: {engine: calico}\n",
        "sandboxes[0].ingress.engine",
        4,
        ("must be 'core' or 'cilium'",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    ingress:\n      agentport: 1\n",
        "sandboxes[0].ingress.agentport",
        5,
        ("not a known field", "'agentPort'"),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      engine: calico\n",
        "sandboxes[0].egress.engine",
        5,
        ("must be 'core' or 'cilium'",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      engine: null\n",
        "sandboxes[0].egress.engine",
        5,
        ("must be 'core' or 'cilium'",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      verify: true\n",
        "sandboxes[0].egress.verify",
        5,
        ("must be a string",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      networkPolicyName: 5\n",
        "sandboxes[0].egress.networkPolicyName",
        5,
        ("must be a string",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy: deny-all\n",
        "sandboxes[0].egress.policy",
        5,
        ("must be a mapping",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy:\n"
        "        allowedHosts: [a.com]\n",
        "sandboxes[0].egress.policy.kind",
        5,
        ("is required",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy:\n"
        "        kind: public-internet\n        exceptCIDRs: []\n",
        "sandboxes[0].egress.policy.exceptCIDRs",
        7,
        ("not a known field", "'exceptCidrs'"),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy:\n"
        "        kind: static\n        allowedHostsFile: ''\n",
        "sandboxes[0].egress.policy.allowedHostsFile",
        7,
        ("must not be empty",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy: {kind: static}\n"
        "      ciliumNarrowing:\n        dnsNames:\n          clusterdomain: x\n",
        "sandboxes[0].egress.ciliumNarrowing.dnsNames.clusterdomain",
        8,
        ("not a known field", "'clusterDomain'"),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy: {kind: static}\n"
        "      perSandbox:\n        narrowing:\n          port: [443]\n",
        "sandboxes[0].egress.perSandbox.narrowing.port",
        8,
        ("not a known field", "'ports'"),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      policy: {kind: static}\n"
        "      perSandbox: {admissionPolicy: x}\n",
        "sandboxes[0].egress.perSandbox.admissionPolicy",
        6,
        ("not a known field",),
    ),
    (
        "version: 1\nsandboxes:\n  - template: t\n    egress:\n      Profile: x\n",
        "sandboxes[0].egress.Profile",
        5,
        ("not a known field", "'profile'"),
    ),
    ("version: 1\ndefaults:\n  verify: 5\n" + ENTRY, "defaults.verify", 3, ("must be a string",)),
    ("- version: 1\n", "", 1, ("must be a mapping",)),
]


@pytest.mark.parametrize(("text", "path", "line", "fragments"), CASES)
def test_structural_error_names_path_and_line(
    refuse: RefuseText, text: str, path: str, line: int, fragments: tuple[str, ...]
) -> None:
    error = refuse(text)
    assert (error.path, error.line, error.file) == (path, line, ".egress-lint.yaml")
    for fragment in fragments:
        assert fragment in error.message
    assert error.excerpt == text.splitlines()[line - 1]
    assert "pydantic" not in str(error)
    assert "Input should" not in error.message


def test_the_error_reported_is_the_first_in_the_file(refuse: RefuseText) -> None:
    # pydantic checks `defaults` before `sandboxes`; the file has the
    # sandboxes problem first, and that is the one to fix first.
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: 5
        defaults:
          verify: 5
        """
    )
    assert (error.path, error.line) == ("sandboxes[0].template", 3)


def test_no_pydantic_exception_is_chained(refuse: RefuseText) -> None:
    error = refuse("version: 2\n" + ENTRY)
    assert error.__cause__ is None
    assert error.__suppress_context__


def test_string_form_is_file_line_path_message(refuse: RefuseText) -> None:
    error = refuse("version: 2\n" + ENTRY)
    assert str(error) == f".egress-lint.yaml:1: version: {error.message}"
    assert error.report().endswith("\n  1 | version: 2")


def test_an_empty_file_is_an_error_at_line_1(refuse: RefuseText) -> None:
    error = refuse("# nothing declared yet\n")
    assert (error.path, error.line) == ("", 1)
    assert "empty" in error.message
    assert str(error).startswith(".egress-lint.yaml:1: the declaration file is empty")


def test_a_duplicate_key_is_an_error(refuse: RefuseText) -> None:
    error = refuse(
        dedent(
            """
            version: 1
            sandboxes:
              - template: t
                template: u
            """
        )
    )
    assert error.line == 4
    assert "duplicate key" in error.message
