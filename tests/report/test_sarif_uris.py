"""SARIF artifact URIs are RFC 3986 references (issue 13, item 6): names
with spaces, ``#``, ``%`` and non-ASCII letters are percent-encoded. Every
location is relative to a ``uriBaseId`` the run defines (issue 27, item
10): ``%SRCROOT%`` for the working directory, ``INPUT1``, ``INPUT2``… for
each root outside it, themselves relative to ``%SRCROOT%``; no absolute
``file://`` URI, no path of the machine. The logs stay valid against the
OASIS schema and GitHub's rules."""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest

from lint.report.uris import SRCROOT, percent_encoded, uri_bases
from tests.checks.scenario_runner import DEMO, run_cli
from tests.report.test_sarif import SCHEMA, assert_github_rules, sarif

# RFC 3986 §2: unreserved, percent escapes, and the path's "/" (":" only
# after a scheme).
_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})*")

_CWD = "/work/wt/checkout"
_PLACED = [
    ("fixtures/demo/policies.yaml", "fixtures/demo/policies.yaml", SRCROOT),
    ("my dir/a b.yaml", "my%20dir/a%20b.yaml", SRCROOT),
    ("x/#1.yaml", "x/%231.yaml", SRCROOT),
    ("x/100%.yaml", "x/100%25.yaml", SRCROOT),
    ("résumé/ü.yaml", "r%C3%A9sum%C3%A9/%C3%BC.yaml", SRCROOT),
    ("a:b.yaml", "a%3Ab.yaml", SRCROOT),
    ("<stdin>", "%3Cstdin%3E", SRCROOT),
    # A POSIX path: a directory named "C:" in the working directory.
    ("C:/w/x y.yaml", "C%3A/w/x%20y.yaml", SRCROOT),
    ("/work/wt/checkout/sub/a b.yaml", "sub/a%20b.yaml", SRCROOT),
    ("../x.yaml", "x.yaml", "INPUT1"),
    ("/abs/p#.yaml", "p%23.yaml", "INPUT2"),
    ("/abs/deeper/q.yaml", "deeper/q.yaml", "INPUT2"),
    ("../../shared/c d.yaml", "c%20d.yaml", "INPUT3"),
    ("/work/shared/e.yaml", "e.yaml", "INPUT3"),
]
_INPUTS = {
    "INPUT1": {"uri": "../", "uriBaseId": SRCROOT},
    "INPUT2": {"uri": "../../../abs/", "uriBaseId": SRCROOT},
    "INPUT3": {"uri": "../../shared/", "uriBaseId": SRCROOT},
}
"""The outside roots, numbered in the sorted order of their references."""


@pytest.mark.parametrize("order", [1, -1], ids=["sorted", "reversed"])
def test_report_paths_become_references_to_a_base(order: int) -> None:
    bases = uri_bases([path for path, _, _ in _PLACED[::order]], _CWD)
    for path, uri, base in _PLACED:
        assert bases.location(path) == {"uri": uri, "uriBaseId": base}, path
    defined = bases.definitions()
    assert list(defined) == [SRCROOT, *_INPUTS]
    assert {k: v for k, v in defined.items() if k != SRCROOT} == _INPUTS
    # The working directory's value is left to the reader: no path of ours.
    assert "uri" not in defined[SRCROOT] and defined[SRCROOT]["description"]["text"]


def test_paths_inside_the_working_directory_need_no_other_base() -> None:
    bases = uri_bases(["a.yaml", "/work/wt/checkout/b/c.yaml"], _CWD)
    assert list(bases.definitions()) == [SRCROOT]


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


def _resolved(log: dict[str, Any], location: dict[str, str], cwd: Path) -> Path:
    """Where ``location`` points, read as a SARIF reader would: its ``uri``
    against its base, a base's against its own, down to ``%SRCROOT%``, the
    directory the check ran in (RFC 3986 §5.2: a reference joins a base
    that ends with ``/``)."""
    bases = log["runs"][0]["originalUriBaseIds"]
    uri, base = location["uri"], location["uriBaseId"]
    while base != SRCROOT:
        defined = bases[base]
        assert defined["uri"].endswith("/"), defined
        uri, base = defined["uri"] + uri, defined["uriBaseId"]
    assert "uri" not in bases[SRCROOT]
    return Path(posixpath.normpath(posixpath.join(cwd.as_posix(), unquote(uri))))


def _artifacts(log: dict[str, Any]) -> list[dict[str, str]]:
    return [
        location["physicalLocation"]["artifactLocation"]
        for result in log["runs"][0]["results"]
        for location in result["locations"] + result.get("relatedLocations", [])
    ]


def _check(args: list[str], cwd: Path) -> tuple[str, dict[str, Any]]:
    """The SARIF text of a check, and the log, valid and fit for GitHub."""
    outcome = run_cli(["check", *args, "--format", "sarif"], cwd)
    assert outcome.exit_code == 1, outcome.stderr
    log = sarif(args, cwd)
    jsonschema.validate(log, SCHEMA)
    assert_github_rules(log)
    return outcome.stdout, log


def _assert_placed_in(tree: Path, log: dict[str, Any], cwd: Path) -> set[str]:
    """Every location resolves to a file of ``tree``; the bases they use."""
    artifacts = _artifacts(log)
    assert artifacts
    for artifact in artifacts:
        assert _REFERENCE.fullmatch(artifact["uri"]), artifact
        target = _resolved(log, artifact, cwd)
        assert target.is_file() and target.parent.samefile(tree), artifact
    return {artifact["uriBaseId"] for artifact in artifacts}


@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_tree_outside_the_working_directory_has_its_own_base(
    tmp_path: Path, absolute: bool
) -> None:
    tree = _odd_tree(tmp_path)
    work = tmp_path / "elsewhere" / "deeper"
    work.mkdir(parents=True)
    text, log = _check([str(tree) if absolute else f"../../{tree.name}"], work)
    assert "file:" not in text and str(tmp_path) not in text
    assert _assert_placed_in(tree, log, work) == {"INPUT1"}
    assert log["runs"][0]["originalUriBaseIds"]["INPUT1"] == {
        "uri": percent_encoded(f"../../{tree.name}/"),
        "uriBaseId": SRCROOT,
    }


def test_an_absolute_path_inside_the_working_directory_is_relative_to_it(
    tmp_path: Path,
) -> None:
    tree = _odd_tree(tmp_path)
    text, log = _check([str(tree)], tmp_path)
    assert "file:" not in text and str(tmp_path) not in text
    assert _assert_placed_in(tree, log, tmp_path) == {SRCROOT}
    assert list(log["runs"][0]["originalUriBaseIds"]) == [SRCROOT]
    assert all(a["uri"].startswith(percent_encoded(tree.name)) for a in _artifacts(log))


def test_two_outside_trees_are_two_bases_numbered_in_order(tmp_path: Path) -> None:
    first = _odd_tree(tmp_path / "b")
    second = tmp_path / "a" / "z"
    shutil.copytree(DEMO, second)
    work = tmp_path / "work"
    work.mkdir()
    _, log = _check(
        [f"../b/{first.name}", "../a/z", "--config", str(second / ".egress-lint.yaml")], work
    )
    bases = log["runs"][0]["originalUriBaseIds"]
    assert bases["INPUT1"]["uri"] == "../a/" and bases["INPUT2"]["uri"] == "../b/"
    assert {artifact["uriBaseId"] for artifact in _artifacts(log)} == {"INPUT1", "INPUT2"}
    for artifact in _artifacts(log):
        target = _resolved(log, artifact, work)
        assert target.is_file() and (
            target.parent.samefile(first) or target.parent.samefile(second)
        )


def test_the_log_does_not_depend_on_where_the_checkout_lives(tmp_path: Path) -> None:
    texts = []
    for place in (tmp_path / "one", tmp_path / "two" / "deeper"):
        _odd_tree(place)
        (place / "work").mkdir()
        texts.append(_check(["../demo #1 50%"], place / "work")[0])
    assert texts[0] == texts[1]
