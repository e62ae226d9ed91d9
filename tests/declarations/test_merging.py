"""merge_egress: the merged egress of one entry and its complete line map."""

from __future__ import annotations

from lint.declarations.merging import merge_egress
from lint.declarations.reading import parse_yaml
from tests.declarations.conftest import dedent

DOCUMENT = dedent(
    """
    version: 1
    defaults:
      engine: cilium
      policy:
        kind: static
        allowedHosts:
          - a.example.com
          - b.example.com
      verify: strict
    sandboxes:
      - template: first
        egress:
          engine: core
          policy: {kind: deny-all}
      - template: second
      - template: third
        egress:
          ciliumNarrowing:
            ports: [443]
    """
)


def merged(index: int) -> tuple[object, frozenset[str], dict[tuple[str | int, ...], int]]:
    tree = parse_yaml(DOCUMENT, "f.yaml")
    assert isinstance(tree.value, dict)
    result = merge_egress(tree.value, tree.lines, index)
    return result.egress, result.inherited, result.lines


def test_entry_keys_win_and_every_line_follows_its_value() -> None:
    egress, inherited, lines = merged(0)
    assert egress == {"verify": "strict", "engine": "core", "policy": {"kind": "deny-all"}}
    assert inherited == {"verify"}
    assert lines == {
        (): 11,
        ("template",): 11,
        ("egress",): 12,
        ("egress", "engine"): 13,
        ("egress", "policy"): 14,
        ("egress", "policy", "kind"): 14,
        ("egress", "verify"): 9,
    }


def test_an_entry_without_egress_takes_every_default_with_its_lines() -> None:
    egress, inherited, lines = merged(1)
    assert inherited == {"engine", "policy", "verify"}
    assert egress == {
        "engine": "cilium",
        "policy": {"kind": "static", "allowedHosts": ["a.example.com", "b.example.com"]},
        "verify": "strict",
    }
    assert lines == {
        (): 15,
        ("template",): 15,
        ("egress", "engine"): 3,
        ("egress", "policy"): 4,
        ("egress", "policy", "kind"): 5,
        ("egress", "policy", "allowedHosts"): 6,
        ("egress", "policy", "allowedHosts", 0): 7,
        ("egress", "policy", "allowedHosts", 1): 8,
        ("egress", "verify"): 9,
    }


def test_an_entry_of_its_own_keeps_its_nested_lines() -> None:
    egress, inherited, lines = merged(2)
    assert inherited == {"engine", "policy", "verify"}
    assert egress["ciliumNarrowing"] == {"ports": [443]}  # type: ignore[index]
    assert lines[()] == 16
    assert lines[("egress", "ciliumNarrowing")] == 18
    assert lines[("egress", "ciliumNarrowing", "ports")] == 19
    assert lines[("egress", "ciliumNarrowing", "ports", 0)] == 19
    assert lines[("egress", "policy", "allowedHosts", 1)] == 8


def test_entries_get_their_own_copies_of_defaults() -> None:
    tree = parse_yaml(DOCUMENT, "f.yaml")
    assert isinstance(tree.value, dict)
    one = merge_egress(tree.value, tree.lines, 1).egress
    two = merge_egress(tree.value, tree.lines, 2).egress
    assert one["policy"] == two["policy"]
    assert one["policy"] is not two["policy"]
    assert one["policy"] is not tree.value["defaults"]["policy"]  # type: ignore[index]
    # All the way down: the hosts list is each entry's own too.
    hosts = one["policy"]["allowedHosts"]
    assert hosts == two["policy"]["allowedHosts"]
    assert hosts is not two["policy"]["allowedHosts"]


def test_merged_keys_and_aliases_take_the_lines_the_reader_gave_them() -> None:
    tree = parse_yaml(
        dedent(
            """
            defaults:
              policy: &p {kind: deny-all}
            base: &b
              engine: core
            sandboxes:
              - template: t
                egress:
                  <<: *b
                  policy: *p
            """
        ),
        "f.yaml",
    )
    assert isinstance(tree.value, dict)
    result = merge_egress(tree.value, tree.lines, 0)
    assert result.egress == {"policy": {"kind": "deny-all"}, "engine": "core"}
    assert result.inherited == frozenset()
    assert result.lines == {
        (): 6,
        ("template",): 6,
        ("egress",): 7,
        ("egress", "policy"): 9,
        ("egress", "policy", "kind"): 2,
        ("egress", "engine"): 7,
    }
