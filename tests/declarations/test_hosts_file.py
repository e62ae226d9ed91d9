"""policy.allowedHostsFile: the allowlist kept in its own file (§17.6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lint.declarations import load_declarations
from tests.declarations.conftest import LoadText, RefuseText, WriteFile

DECLARATION = """
version: 1
sandboxes:
  - template: t
    egress:
      engine: cilium
      policy:
        kind: resolver
        allowedHostsFile: {name}
"""


def declaration(name: str) -> str:
    return DECLARATION.replace("{name}", name)


def test_a_text_file_has_one_host_per_line_with_comments(
    write: WriteFile, load_text: LoadText
) -> None:
    write(
        "config/hosts.txt",
        """
        # the registry hosts
        api.github.com
          .pypi.org   # and every subdomain

        registry.npmjs.org
        """,
    )
    declarations = load_text(declaration("config/hosts.txt"))
    entry = declarations.entries[0]
    assert entry.egress["policy"] == {
        "kind": "resolver",
        "allowedHosts": ["api.github.com", ".pypi.org", "registry.npmjs.org"],
    }
    assert entry.translation.policy_kind == "resolver"
    # Hosts from the file are located at the key that names the file.
    assert entry.line_of("egress.policy.allowedHosts[1]") == 8


def test_the_path_is_relative_to_the_declaration_file(write: WriteFile) -> None:
    write("repo/lists/hosts.txt", "a.example.com\n")
    config = write("repo/.egress-lint.yaml", declaration("lists/hosts.txt"))
    declarations = load_declarations(config, namespace_override=None)
    assert declarations.entries[0].egress["policy"]["allowedHosts"] == ["a.example.com"]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("hosts.yaml", "- a.example.com\n- .example.org\n"),
        ("hosts.yml", "[a.example.com, .example.org]\n"),
        ("hosts.json", '["a.example.com", ".example.org"]\n'),
    ],
)
def test_structured_files_hold_one_list(
    write: WriteFile, load_text: LoadText, name: str, content: str
) -> None:
    write(name, content)
    entry = load_text(declaration(name)).entries[0]
    assert entry.egress["policy"]["allowedHosts"] == ["a.example.com", ".example.org"]


def test_a_missing_file_is_an_error_at_the_key(refuse: RefuseText) -> None:
    error = refuse(declaration("nowhere.txt"))
    assert (error.path, error.file, error.line) == (
        "sandboxes[0].egress.policy.allowedHostsFile",
        ".egress-lint.yaml",
        8,
    )
    assert "cannot read nowhere.txt" in error.message


def test_both_hosts_and_file_is_an_error(write: WriteFile, refuse: RefuseText) -> None:
    write("hosts.txt", "a.example.com\n")
    error = refuse(declaration("hosts.txt") + "        allowedHosts: [b.example.com]\n")
    assert (error.path, error.line) == ("sandboxes[0].egress.policy.allowedHostsFile", 8)
    assert "not both" in error.message


def test_a_bad_host_in_the_file_names_its_file_and_line(
    write: WriteFile, refuse: RefuseText
) -> None:
    write("hosts.txt", "a.example.com\n# comment\nexample.com:443\n")
    error = refuse(declaration("hosts.txt"))
    assert error.path == "sandboxes[0].egress.policy.allowedHosts[1]"
    assert (error.file, error.line) == (".egress-lint.yaml", 8)
    assert "hosts.txt:3" in error.message
    assert error.error_class == "host"


def test_a_non_string_item_in_a_yaml_file_meets_the_host_grammar(
    write: WriteFile, refuse: RefuseText
) -> None:
    write("hosts.yaml", "- a.example.com\n- 443\n")
    error = refuse(declaration("hosts.yaml"))
    assert error.path == "sandboxes[0].egress.policy.allowedHosts[1]"
    assert "hosts.yaml:2" in error.message


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        ("a.example.com: 1\n", 1, "one YAML or JSON list"),
        ("", 1, "one YAML or JSON list"),
        ("- a.example.com\n- [b\n", 3, "YAML syntax error"),
    ],
)
def test_a_malformed_structured_file_is_an_error_in_that_file(
    write: WriteFile, refuse: RefuseText, content: str, line: int, fragment: str
) -> None:
    write("hosts.yaml", content)
    error = refuse(declaration("hosts.yaml"))
    assert (error.path, error.file, error.line) == (
        "sandboxes[0].egress.policy.allowedHostsFile",
        "hosts.yaml",
        line,
    )
    assert fragment in error.message


def test_a_hosts_file_named_in_defaults_serves_every_entry(
    write: WriteFile, load_text: LoadText
) -> None:
    write("hosts.txt", "a.example.com\n")
    declarations = load_text(
        """
        version: 1
        defaults:
          engine: cilium
          policy: {kind: static, allowedHostsFile: hosts.txt}
        sandboxes:
          - template: a
          - template: b
        """
    )
    for entry in declarations.entries:
        assert entry.egress["policy"] == {"kind": "static", "allowedHosts": ["a.example.com"]}
        assert entry.line_of("egress.policy.allowedHosts[0]") == 4


@pytest.mark.parametrize(
    "name",
    ["/proc/self/environ", "/etc/passwd", "/dev/zero", "../outside.txt"],
)
def test_a_file_outside_the_tree_is_refused_unread(
    name: str, tmp_path: Path, refuse: RefuseText
) -> None:
    (tmp_path.parent / "outside.txt").write_text("SECRET=hunter2\n")
    error = refuse(declaration(name))
    assert (error.path, error.file, error.line) == (
        "sandboxes[0].egress.policy.allowedHostsFile",
        ".egress-lint.yaml",
        8,
    )
    assert "inside the declaration file's directory" in error.message
    assert "SECRET" not in str(error.report()) and "root:" not in str(error.report())


def test_a_symlink_that_leads_out_is_refused(
    write: WriteFile, tmp_path: Path, refuse: RefuseText
) -> None:
    (tmp_path / "hosts.txt").symlink_to("/etc/passwd")
    error = refuse(declaration("hosts.txt"))
    assert "inside the declaration file's directory" in error.message
    assert "root:" not in str(error.report())


def test_a_symlink_inside_the_tree_is_read(
    write: WriteFile, tmp_path: Path, load_text: LoadText
) -> None:
    write("lists/hosts.txt", "api.example.com\n")
    (tmp_path / "hosts.txt").symlink_to(tmp_path / "lists" / "hosts.txt")
    load_text(declaration("hosts.txt"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_inside_the_tree_is_refused_not_read(tmp_path: Path, refuse: RefuseText) -> None:
    os.mkfifo(tmp_path / "hosts.txt")  # reading it would block forever
    error = refuse(declaration("hosts.txt"))
    assert "not a regular file" in error.message


def test_a_file_past_the_limit_is_refused(
    tmp_path: Path, refuse: RefuseText, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lint.declarations.hosts_file.MAX_HOSTS_FILE_SIZE", 64)
    (tmp_path / "hosts.txt").write_text("a.example.com\n" * 10)
    error = refuse(declaration("hosts.txt"))
    assert "limit" in error.message
