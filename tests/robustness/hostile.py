"""A generated hostile corpus: every shape of input built to crash, hang or
exhaust a manifest reader, and what the check must say about each.

``write_hostile(root)`` writes it and returns, for each file, the text the
file's problem must contain (None for a file the check reads or skips
without a problem). Sizes are kept small enough for a test run by default;
``scale`` grows the ones whose cost grows with size.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Final

POLICY: Final = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
    "metadata: {{name: {name}, namespace: hostile}}\n"
    "spec:\n  podSelector: {{}}\n  policyTypes: [Egress]\n  egress:\n{rules}"
)
RULE: Final = "  - to: [{{ipBlock: {{cidr: 10.{a}.{b}.0/24}}}}]\n    ports: [{{port: {port}}}]\n"


def _policy(name: str, rules: int = 1) -> str:
    body = "".join(
        RULE.format(a=i // 250 % 250, b=i % 250, port=1 + i % 65000) for i in range(rules)
    )
    return POLICY.format(name=name, rules=body)


def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _deep_block(depth: int) -> str:
    return "".join(f"{' ' * level}k:\n" for level in range(depth)) + " " * depth + "v\n"


Entry = tuple[str, bytes, str | None]


def entries(scale: int = 1) -> list[Entry]:
    """(file name, bytes, text its problem must contain)."""
    rng = random.Random(7)
    head = "kind: NetworkPolicy\nmetadata: {namespace: hostile}\n"
    return [
        ("bomb-laughs.yaml", (head + _laughs(9)).encode(), "aliases expand to more than"),
        (
            "bomb-merge.yaml",
            (
                head
                + "base: &b {"
                + ", ".join(f"k{i}: {i}" for i in range(2000))
                + "}\n"
                + "".join(f"m{i}: {{<<: [*b, *b, *b]}}\n" for i in range(600))
            ).encode(),
            "aliases expand to more than",
        ),
        ("alias-cycle.yaml", (head + "a: &a [*a]\n").encode(), None),  # libyaml: unknown alias
        ("deep-flow.yaml", (head + "x: " + "[" * 200_000 * scale + "\n").encode(), "nested deeper"),
        ("deep-block.yaml", (head + "x:\n" + _deep_block(3_000)).encode(), "nested deeper"),
        (
            "deep-seq.yaml",
            (head + "x:\n" + "- " * 100_000 * scale + "v\n").encode(),
            "nested deeper",
        ),
        (
            "deep.json",
            (
                '{"kind": "NetworkPolicy", "x": '
                + "[" * 100_000 * scale
                + "]" * 100_000 * scale
                + "}"
            ).encode(),
            "nested deeper",
        ),
        (
            "huge-document.yaml",
            _policy("huge", rules=130_000 * scale).encode(),
            "limit on one document",
        ),
        ("wide-policy.yaml", _policy("wide", rules=50_000).encode(), None),
        (
            "huge-skipped.yaml",
            (
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata:\n  blob: "
                + "x" * 9_000_000 * scale
                + "\n"
            ).encode(),
            None,
        ),
        (
            "long-line.yaml",
            (head + "spec: {podSelector: {}, pad: '" + "y" * 5_000_000 + "'}\n").encode(),
            None,
        ),
        ("many-documents.yaml", ("---\n" * 200_000 * scale).encode(), None),
        (
            "many-keys.yaml",
            (
                "kind: Namespace\nmetadata: {name: keys}\ndata:\n"
                + "".join(f"  k{i}: {i}\n" for i in range(200_000))
            ).encode(),
            None,
        ),
        (
            "repeated-keys.yaml",
            (
                "kind: Namespace\nmetadata: {name: dup}\n" + "metadata: {name: dup}\n" * 5_000
            ).encode(),
            "repeated",
        ),
        (
            "tags.yaml",
            # go-yaml v2 ignores a sequence's tag: a plain list, never
            # constructed; the policy is read (and lacks a name).
            (head + "x: !!python/object/apply:os.system ['true']\n").encode(),
            "no usable metadata.name",
        ),
        ("binary.yaml", bytes(rng.getrandbits(8) for _ in range(200_000)), "cannot be decoded"),
        ("nul.yaml", (head + "x: a\x00b\n").encode(), "unacceptable character"),
        (
            "utf16-no-bom.yaml",
            _policy("utf16").encode("utf-16-le"),
            "UTF-16-LE without a byte order mark",
        ),
        ("utf8-broken.yaml", _policy("broken").encode() + b"\xc3\x28\n", "cannot be decoded"),
        ("lone-cr.yaml", _policy("cr", rules=2000).replace("\n", "\r").encode(), None),
        ("template.yaml", b"kind: NetworkPolicy\nmetadata: {{ .Values.meta }}\n", "unrendered"),
        (
            "kind-null.yaml",
            b"apiVersion: networking.k8s.io/v1\nkind: null\nmetadata: {namespace: hostile}\n",
            "no kind",
        ),
        ("items-not-list.yaml", b"kind: NetworkPolicyList\nitems: {a: 1}\n", "are not a list"),
        ("sniff-bait.yaml", ("kind: Service\n" + "metadata: {" * 50_000 + "\n").encode(), None),
        ("unterminated.yaml", (head + 'x: "' + "z" * 100_000 + "\n").encode(), None),
    ]


def write_hostile(root: Path, scale: int = 1) -> dict[str, str | None]:
    """Write the hostile corpus under ``root``; the expected problem text of
    each file by its name relative to ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    expected: dict[str, str | None] = {}
    for name, data, problem in entries(scale):
        (root / name).write_bytes(data)
        expected[name] = problem
    _special_files(root, expected)
    return expected


def _special_files(root: Path, expected: dict[str, str | None]) -> None:
    """Loops, pipes and an over-sized file, which cost nothing to make."""
    loop = root / "loop"
    loop.mkdir(exist_ok=True)
    _link(root, loop / "back")
    _link(root / "self.yaml", root / "self.yaml")
    expected["loop/back"] = "symbolic link loop"
    expected["self.yaml"] = "cannot read"
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe.yaml")
        expected["pipe.yaml"] = "not a regular file"
    with (root / "oversized.yaml").open("wb") as sparse:
        sparse.truncate(65 * 2**20)  # sparse: no disk space, never read
    expected["oversized.yaml"] = "limit on one file"


def _link(target: Path, link: Path) -> None:
    if not link.is_symlink():
        link.symlink_to(target)
