"""docs/explain.md shows real output: its examples are run again here and
must print exactly what the page shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.generate.docs_support import REPO, demo_copy, documented_outputs, run_documented

PAGE = REPO / "docs" / "explain.md"
METADATA = "egress-lint explain fixtures/demo --template namzu-task --to 169.254.169.254:80/TCP"


@pytest.fixture
def docroot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(demo_copy(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "egress-lint explain fixtures/demo --template namzu-task",
        "egress-lint explain fixtures/demo --template namzu-build --path pooled",
        "egress-lint explain fixtures/demo --template namzu-build --to api.github.com:443",
        "egress-lint explain fixtures/demo --template namzu-build --to a.b.pypi.org:443",
        "egress-lint explain fixtures/demo --template namzu-build --to '[2001:db8::1]:443'",
        "egress-lint explain fixtures/demo --template namzu-task --to 10.0.0.0/8",
    ],
)
def test_each_example_prints_what_the_page_shows(docroot: Path, command: str) -> None:
    (shown,) = documented_outputs(PAGE, command)
    assert run_documented(command) == shown


def test_the_metadata_example_with_and_without_the_widening_policy(docroot: Path) -> None:
    allowed, denied = documented_outputs(PAGE, METADATA)
    assert run_documented(METADATA) == allowed
    (docroot / "fixtures" / "demo" / "widening-policy.yaml").unlink()
    assert run_documented(METADATA) == denied


def test_the_json_example_is_what_the_page_shows(docroot: Path) -> None:
    command = f"{METADATA} --format json"
    (shown,) = documented_outputs(PAGE, command)
    ran, documented = json.loads(run_documented(command)), json.loads(shown)
    # The version changes with releases; everything else must not.
    ran["tool"]["version"] = documented["tool"]["version"]
    assert ran == documented
