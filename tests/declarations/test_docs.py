"""Every marked example in docs/declarations.md behaves as the page says.

Markers are HTML comments just before a fenced block:
``<!-- example: ok -->`` (loads), ``<!-- example: refused PATH -->`` (refused
at that field path) and ``<!-- file: NAME -->`` (written next to the
declaration, for examples that name another file).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lint.declarations import DeclarationError, load_declarations

DOC = Path(__file__).resolve().parents[2] / "docs" / "declarations.md"
BLOCK = re.compile(r"<!-- (example|file): ?(.*?) -->\n```[a-z]*\n(.*?)```", re.DOTALL)


def _blocks() -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in BLOCK.finditer(DOC.read_text())]


EXAMPLES = [(arg, text) for kind, arg, text in _blocks() if kind == "example"]
FILES = {arg: text for kind, arg, text in _blocks() if kind == "file"}


def test_the_page_has_examples_of_both_kinds() -> None:
    outcomes = {arg.split()[0] for arg, _ in EXAMPLES}
    assert outcomes == {"ok", "refused"}
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(("expectation", "text"), EXAMPLES)
def test_documented_example(workdir: Path, expectation: str, text: str) -> None:
    for name, content in FILES.items():
        (workdir / name).write_text(content)
    path = workdir / ".egress-lint.yaml"
    path.write_text(text)
    if expectation == "ok":
        assert load_declarations(path, namespace_override=None).entries
        return
    with pytest.raises(DeclarationError) as caught:
        load_declarations(path, namespace_override=None)
    assert caught.value.path == expectation.removeprefix("refused ").strip()
