"""docs/generate.md shows real output: its examples are run again here and
must print exactly what the page shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.generate.docs_support import REPO, demo_copy, documented_outputs, run_documented

PAGE = REPO / "docs" / "generate.md"


@pytest.fixture
def docroot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(demo_copy(tmp_path))
    return tmp_path


def test_the_demo_stream_is_what_the_page_shows(docroot: Path) -> None:
    command = "egress-lint generate fixtures/demo --stdout"
    (shown,) = documented_outputs(PAGE, command)
    assert run_documented(command) == shown


def test_the_first_out_run_is_what_the_page_shows(docroot: Path) -> None:
    command = "egress-lint generate fixtures/demo --out generated"
    created, unchanged, _refused = documented_outputs(PAGE, command)
    assert run_documented(command) == created
    assert run_documented(command) == unchanged


def test_the_per_sandbox_fence_is_what_the_page_shows(docroot: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    declaration = re.search(
        r"`per-sandbox/\.egress-lint\.yaml`\):\n\n```yaml\n(.*?)```", text, re.DOTALL
    )
    assert declaration is not None
    (docroot / "per-sandbox").mkdir()
    (docroot / "per-sandbox" / ".egress-lint.yaml").write_text(
        declaration.group(1), encoding="utf-8"
    )
    command = "egress-lint generate per-sandbox --out per-sandbox/generated"
    (listing,) = documented_outputs(PAGE, command)
    assert run_documented(command) == listing
    for path in sorted((docroot / "per-sandbox" / "generated").rglob("*.yaml")):
        shown = documented_outputs(PAGE, f"cat {path.relative_to(docroot)}")
        if shown:
            assert path.read_text(encoding="utf-8") == shown[0]
    fence = "per-sandbox/generated/_cluster/validatingadmissionpolicy-namzu-per-sandbox-egress.yaml"
    assert documented_outputs(PAGE, f"cat {fence}"), "the page shows the fence"
