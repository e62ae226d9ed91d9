"""SARIF artifact URIs are RFC 3986 references (issue 13, item 6): names
with spaces, ``#``, ``%`` and non-ASCII letters are percent-encoded, and a
file outside the working directory is an absolute ``file://`` URI, never
``../``. The logs stay valid against the OASIS schema and GitHub's rules."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest

from lint.report.uris import artifact_uri, percent_encoded
from tests.checks.scenario_runner import DEMO
from tests.report.test_sarif import SCHEMA, assert_github_rules, sarif

# RFC 3986 §2: unreserved, percent escapes, and the path's "/" (":" only
# after a scheme).
_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})*")


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("fixtures/demo/policies.yaml", "fixtures/demo/policies.yaml"),
        ("my dir/a b.yaml", "my%20dir/a%20b.yaml"),
        ("x/#1.yaml", "x/%231.yaml"),
        ("x/100%.yaml", "x/100%25.yaml"),
        ("résumé/ü.yaml", "r%C3%A9sum%C3%A9/%C3%BC.yaml"),
        ("a:b.yaml", "a%3Ab.yaml"),
        ("<stdin>", "%3Cstdin%3E"),
        ("../../shared/c d.yaml", "file:///work/shared/c%20d.yaml"),
        ("../x.yaml", "file:///work/wt/x.yaml"),
        ("/abs/p#.yaml", "file:///abs/p%23.yaml"),
        ("C:/w/x y.yaml", "file:///C:/w/x%20y.yaml"),
    ],
)
def test_report_paths_become_uri_references(path: str, uri: str) -> None:
    assert artifact_uri(path, "/work/wt/checkout") == uri


def test_percent_encoding_round_trips() -> None:
    for path in ("a b/#c%d/é.yaml", "plain/x.yaml", "~user/a_b-c.d"):
        encoded = percent_encoded(path)
        assert _REFERENCE.fullmatch(encoded), encoded
        assert unquote(encoded) == path


def _odd_tree(root: Path) -> Path:
    """The demo with every file renamed to a name that needs encoding, in
    a directory whose name needs it too."""
    tree = root / "demo #1 50%"
    shutil.copytree(DEMO, tree)
    manifests = sorted(p for p in tree.glob("*.yaml") if p.name != ".egress-lint.yaml")
    for index, path in enumerate(manifests):
        path.rename(tree / f"{index} naïve #{index} 100%41.yaml")
    return tree


def _uris(log: dict[str, Any]) -> list[str]:
    return [
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in log["runs"][0]["results"]
        for location in result["locations"] + result.get("relatedLocations", [])
    ]


def test_odd_file_names_are_encoded_and_valid(tmp_path: Path) -> None:
    tree = _odd_tree(tmp_path)
    log = sarif([tree.name], tmp_path)
    jsonschema.validate(log, SCHEMA)
    assert_github_rules(log)
    uris = _uris(log)
    assert uris
    for uri in uris:
        assert _REFERENCE.fullmatch(uri), uri
        assert (tmp_path / unquote(uri)).is_file(), uri
    assert any("%20" in u for u in uris) and any("%23" in u for u in uris)
    assert any("%25" in u for u in uris) and any("%C3%AF" in u for u in uris)


def test_files_outside_the_working_directory_are_file_uris(tmp_path: Path) -> None:
    tree = _odd_tree(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    log = sarif([f"../../{tree.name}"], elsewhere)
    jsonschema.validate(log, SCHEMA)
    assert_github_rules(log)
    uris = _uris(log)
    assert uris
    for uri in uris:
        assert "../" not in uri and "/.." not in uri
        parts = urlsplit(uri)
        assert parts.scheme == "file" and parts.netloc == ""
        assert Path(unquote(parts.path)).is_file(), uri
