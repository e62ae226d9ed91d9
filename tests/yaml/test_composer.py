"""The pure-Python composer (for a PyYAML built without libyaml) reads every
document exactly as libyaml's does."""

from __future__ import annotations

import pytest

from lint.yaml.composer import COMPOSER, PythonComposer
from lint.yaml.parse import ParseFailure, parse_yaml
from tests.yaml.test_parse import FAILURES, VALUES

MORE = [
    "---\n# Source: c/templates/np.yaml\nkind: NetworkPolicy\nspec:\n  egress:\n  - to: []\n",
    "a: 1\nb:\n  c: 1\n  c: 2\na: 3\n",
    "k: |\n  text\n\n# trailing\n",
    "é: ü\n",
]


def test_libyaml_is_in_use() -> None:
    assert COMPOSER is not PythonComposer


@pytest.mark.parametrize("text", [text for text, _ in VALUES] + MORE)
def test_same_values_lines_and_repeats(text: str) -> None:
    fast, slow = parse_yaml(text), parse_yaml(text, PythonComposer)
    assert (fast.value, fast.line, fast.duplicates) == (slow.value, slow.line, slow.duplicates)


@pytest.mark.parametrize(("text", "line"), [(text, line) for text, line, _ in FAILURES])
def test_same_refusals(text: str, line: int) -> None:
    for composer in (COMPOSER, PythonComposer):
        with pytest.raises(ParseFailure) as caught:
            parse_yaml(text, composer)
        assert caught.value.line == line
