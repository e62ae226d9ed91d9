"""Robustness on real manifests (shared/corpus, never copied here): with no
declaration file, generate renders the default intent for every
SandboxTemplate of each agent-sandbox example, and each rendering is checked
to read back as its manifest. Skipped when the corpus is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.generate.command import GenerateOptions, render_all
from tests.generate.conftest import READERS, exact

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
SANDBOX = CORPUS / "kubernetes-sigs__agent-sandbox"
EXAMPLES = (
    sorted(p.name for p in (SANDBOX / "examples").iterdir() if p.is_dir())
    if SANDBOX.is_dir()
    else []
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX.is_dir(), reason="shared/corpus is not present"),
]


@pytest.mark.parametrize("example", EXAMPLES)
def test_default_intent_for_every_template(
    example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no declaration file up from here
    rendered = render_all(GenerateOptions(paths=(str(SANDBOX / "examples" / example),)))
    for item in rendered:
        (value,) = READERS["egress-lint"](item.text)
        assert exact(value) == exact(item.obj.manifest)
