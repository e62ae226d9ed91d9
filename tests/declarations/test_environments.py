"""Entries scoped to ``renders:`` environments, a namespace per environment,
and the one path rule of ``renders:`` (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.declarations import DeclarationError, load_declarations
from lint.render.spec import HelmRender, KustomizeRender
from tests.declarations.conftest import RefuseText, WriteFile, dedent

RENDERS = """
    version: 1
    renders:
      - name: dev
        kustomize: dev
      - name: prod
        kustomize: prod
      - name: staging
        kustomize: staging
"""


def _file(sandboxes: str) -> str:
    """The renders above, then ``sandboxes``, then (unless it writes its
    own) a default policy, last so the lines above stay where they are."""
    text = dedent(RENDERS) + dedent(sandboxes)
    return text if "defaults:" in text else text + "defaults: {policy: {kind: deny-all}}\n"


@pytest.fixture
def overlays(workdir: Path) -> Path:
    for name in ("dev", "prod", "staging"):
        (workdir / name).mkdir()
    return workdir


def _load(write: WriteFile, sandboxes: str, environment: str | None) -> list[tuple[str, str]]:
    path = write(".egress-lint.yaml", _file(sandboxes))
    declarations = load_declarations(path, namespace_override=None, environment=environment)
    return [(entry.template, entry.namespace) for entry in declarations.entries]


SCOPED = """
    sandboxes:
      - template: everywhere
      - template: only-prod
        environments: [prod]
      - template: split
        namespace: {prod: agents, staging: agents-staging}
"""


@pytest.mark.usefixtures("overlays")
@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ("dev", [("everywhere", "default"), ("split", "default")]),
        ("prod", [("everywhere", "default"), ("only-prod", "default"), ("split", "agents")]),
        ("staging", [("everywhere", "default"), ("split", "agents-staging")]),
        # No environment (PATHs checked): every entry, a mapping's fallback.
        (None, [("everywhere", "default"), ("only-prod", "default"), ("split", "default")]),
    ],
)
def test_entries_belong_to_their_environments_with_their_namespace_there(
    write: WriteFile, environment: str | None, expected: list[tuple[str, str]]
) -> None:
    assert _load(write, SCOPED, environment) == expected


@pytest.mark.usefixtures("overlays")
def test_defaults_environments_apply_unless_an_entry_names_its_own(write: WriteFile) -> None:
    sandboxes = """
    defaults:
      environments: [staging]
      policy: {kind: deny-all}
    sandboxes:
      - template: inherits
      - template: own
        environments: [dev, staging]
    """
    assert [t for t, _ in _load(write, sandboxes, "dev")] == ["own"]
    assert [t for t, _ in _load(write, sandboxes, "staging")] == ["inherits", "own"]
    assert [t for t, _ in _load(write, sandboxes, "prod")] == []


@pytest.mark.usefixtures("overlays")
def test_a_plain_namespace_is_used_in_every_environment(write: WriteFile) -> None:
    sandboxes = """
    defaultNamespace: fallback
    sandboxes:
      - template: t
        namespace: agents
      - template: u
        namespace: {staging: agents-staging}
    """
    assert _load(write, sandboxes, "staging") == [("t", "agents"), ("u", "agents-staging")]
    assert _load(write, sandboxes, "dev") == [("t", "agents"), ("u", "fallback")]


@pytest.mark.usefixtures("overlays")
@pytest.mark.parametrize(
    ("sandboxes", "path", "line"),
    [
        (
            """
            sandboxes:
              - template: t
                environments: [prod, qa]
            """,
            "sandboxes[0].environments[1]",
            11,
        ),
        (
            """
            defaults:
              environments:
                - prod
                - qa
              policy: {kind: deny-all}
            sandboxes:
              - template: t
                environments: [prod]
            """,
            "defaults.environments[1]",
            12,
        ),
        (
            """
            sandboxes:
              - template: t
                namespace:
                  prod: agents
                  qa: agents-qa
            """,
            "sandboxes[0].namespace.qa",
            13,
        ),
    ],
)
def test_an_unknown_environment_is_a_declaration_error_at_its_line(
    refuse: RefuseText, sandboxes: str, path: str, line: int
) -> None:
    error = refuse(_file(sandboxes))
    assert (error.path, error.line) == (path, line)
    assert "'qa' is not an environment of renders:" in error.message
    assert "dev, prod, staging" in error.message


def test_environments_without_renders_name_none(refuse: RefuseText) -> None:
    error = refuse(
        """
        version: 1
        sandboxes:
          - template: t
            environments: [prod]
        """
    )
    assert (error.path, error.line) == ("sandboxes[0].environments[0]", 4)
    assert "declares no renders: environments" in error.message


@pytest.mark.usefixtures("overlays")
def test_entries_of_different_environments_may_expect_the_same_object(write: WriteFile) -> None:
    sandboxes = """
    sandboxes:
      - template: t
        environments: [prod]
        egress: {policy: {kind: deny-all}}
      - template: t
        environments: [staging]
        egress: {policy: {kind: public-internet}}
    """
    assert _load(write, sandboxes, "prod") == [("t", "default")]
    assert _load(write, sandboxes, None) == [("t", "default"), ("t", "default")]


@pytest.mark.usefixtures("overlays")
def test_entries_sharing_an_environment_still_may_not(refuse: RefuseText) -> None:
    error = refuse(
        _file(
            """
            sandboxes:
              - template: t
                environments: [prod, staging]
                egress: {policy: {kind: deny-all}}
              - template: t
                environments: [staging]
                namespace: {staging: default}
                egress: {policy: {kind: deny-all}}
            """
        )
    )
    assert error.path == "sandboxes[1]"
    assert "expects the same NetworkPolicy" in error.message


# --- the path rule -----------------------------------------------------------------------


def _renders(write: WriteFile, entry: str) -> tuple[HelmRender | KustomizeRender, ...]:
    path = write(
        "repo/.egress-lint.yaml",
        f"version: 1\nrenders:\n{entry}sandboxes: [{{template: t, egress: {{policy: {{kind: deny-all}}}}}}]\n",
    )
    return tuple(r.spec for r in load_declarations(path, namespace_override=None).renders)


def test_every_path_is_read_next_to_the_declaration_file(write: WriteFile) -> None:
    write("repo/chart/Chart.yaml", "name: c\n")
    write("repo/values/prod.yaml", "a: 1\n")
    write("repo/overlay/kustomization.yaml", "resources: []\n")
    specs = _renders(
        write,
        "  - name: a\n    helm: chart\n    values: [values/prod.yaml]\n"
        "  - name: b\n    kustomize: overlay\n",
    )
    assert specs == (
        HelmRender(chart="repo/chart", values=("repo/values/prod.yaml",)),
        KustomizeRender("repo/overlay"),
    )


@pytest.mark.parametrize(
    ("entry", "path", "line", "named"),
    [
        ("  - name: a\n    helm: chart\n", "renders[0].helm", 4, "chart"),
        ("  - name: a\n    kustomize: overlays/staging\n", "renders[0].kustomize", 4, "overlays"),
        (
            "  - name: a\n    helm: oci://example.com/c\n    values:\n      - v.yaml\n      - w.yaml\n",
            "renders[0].values[1]",
            7,
            "w.yaml",
        ),
        # `charts/` is a directory here, so this is a path, not `repo/chart`.
        ("  - name: a\n    helm: charts/agents\n", "renders[0].helm", 4, "charts/agents"),
        # An archive is a path too, wherever it is.
        ("  - name: a\n    helm: dist/agents-0.1.0.tgz\n", "renders[0].helm", 4, "agents-0.1.0"),
    ],
)
def test_a_path_that_names_nothing_there_is_a_declaration_error(
    write: WriteFile, entry: str, path: str, line: int, named: str
) -> None:
    write("repo/v.yaml", "a: 1\n")
    (write("repo/charts/README", "x\n"))
    with pytest.raises(DeclarationError) as caught:
        _renders(write, entry)
    error = caught.value
    assert (error.path, error.line, error.file) == (path, line, "repo/.egress-lint.yaml")
    assert named in error.message
    assert "relative to the declaration file's directory" in error.message


def test_the_current_directory_is_never_where_a_path_is_read(write: WriteFile) -> None:
    """A chart beside the current directory is not the declaration's."""
    write("chart/Chart.yaml", "name: decoy\n")
    write("stable/agents/Chart.yaml", "name: decoy\n")
    with pytest.raises(DeclarationError) as caught:
        _renders(write, "  - name: a\n    helm: chart\n")
    assert caught.value.path == "renders[0].helm"
    with pytest.raises(DeclarationError) as caught:
        _renders(write, "  - name: a\n    helm: stable/agents\n")
    assert "but does in the current directory" in caught.value.message


def test_remote_chart_references_stay_as_written(write: WriteFile) -> None:
    specs = _renders(
        write,
        "  - name: a\n    helm: oci://registry.example/charts/agents\n"
        "  - name: b\n    helm: stable/agents\n"
        "  - name: c\n    helm: https://example.com/agents-0.1.0.tgz\n",
    )
    assert [s.target for s in specs] == [
        "oci://registry.example/charts/agents",
        "stable/agents",
        "https://example.com/agents-0.1.0.tgz",
    ]
