"""Field paths in text form and back, and the nearest-line lookup."""

from __future__ import annotations

import pytest

from lint.declarations.fieldpaths import Path, format_path, join_path, line_of, parse_path

ROUND_TRIPS: list[tuple[Path, str]] = [
    ((), ""),
    (("version",), "version"),
    (("sandboxes", 0, "egress", "policy", "exceptCidrs"), "sandboxes[0].egress.policy.exceptCidrs"),
    (("ciliumNarrowing", "hostPorts", "github.com"), 'ciliumNarrowing.hostPorts["github.com"]'),
    (("hostPorts", 'a"b'), 'hostPorts["a\\"b"]'),
    (("podLabels", "app.kubernetes.io/name"), 'podLabels["app.kubernetes.io/name"]'),
    (("policy", "allowedHosts", 2), "policy.allowedHosts[2]"),
    (("x", "", "y"), 'x[""].y'),
]


@pytest.mark.parametrize(("parts", "text"), ROUND_TRIPS)
def test_format_and_parse_are_inverse(parts: Path, text: str) -> None:
    assert format_path(parts) == text
    assert parse_path(text) == parts


@pytest.mark.parametrize(
    ("text", "readable_prefix"),
    [
        ("policy.allowedHosts[x]", ("policy", "allowedHosts")),
        ('hostPorts["unterminated', ("hostPorts",)),
        ("policy..kind", ("policy",)),
        ("[3]", (3,)),
    ],
)
def test_parse_keeps_the_readable_prefix_of_a_malformed_path(
    text: str, readable_prefix: Path
) -> None:
    assert parse_path(text) == readable_prefix


@pytest.mark.parametrize(
    ("prefix", "suffix", "joined"),
    [
        ("sandboxes[0].egress", "policy.kind", "sandboxes[0].egress.policy.kind"),
        ("sandboxes[0]", "[3]", "sandboxes[0][3]"),
        ("", "policy", "policy"),
        ("sandboxes[0].egress", "", "sandboxes[0].egress"),
    ],
)
def test_join_path(prefix: str, suffix: str, joined: str) -> None:
    assert join_path(prefix, suffix) == joined


def test_line_of_uses_the_deepest_existing_node() -> None:
    lines: dict[Path, int] = {(): 1, ("a",): 2, ("a", "b"): 3}
    assert line_of(lines, ("a", "b", "c", 4)) == 3
    assert line_of(lines, ("a", "x")) == 2
    assert line_of(lines, ("z",)) == 1
    assert line_of({}, ("z",)) == 1
