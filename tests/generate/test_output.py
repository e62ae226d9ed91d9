"""``--out DIR``: one file per object at DIR/<namespace>/<kind>-<name>.yaml,
never outside DIR whatever the names contain, and no silent overwrite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lint.declarations import DeclarationError
from lint.generate.command import GenerateOptions, run_generate
from lint.generate.output import MAX_COMPONENT_BYTES, OutputError, safe_component
from tests.generate.variants import HEAD, VARIANTS


@pytest.mark.parametrize(
    ("name", "component"),
    [
        ("namzu-task-egress", "namzu-task-egress"),
        ("..", "%2E."),
        (".", "%2E"),
        (".hidden", "%2Ehidden"),
        ("", "%"),
        ("../../etc/passwd", "%2E.%2F..%2Fetc%2Fpasswd"),
        ("/etc/passwd", "%2Fetc%2Fpasswd"),
        ("a\\b", "a%5Cb"),
        ("a b", "a%20b"),
        ("100%", "100%25"),
        ("é", "%C3%A9"),
        ("nul\x00", "nul%00"),
    ],
)
def test_a_name_becomes_one_harmless_component(name: str, component: str) -> None:
    assert safe_component(name) == component


def test_distinct_names_never_share_a_component() -> None:
    names = ["a/b", "a%2Fb", "a_b", "a.b", "..a", "%2E.a", "A", "a"]
    assert len({safe_component(n) for n in names}) == len(names)


def test_a_long_name_is_cut_with_a_digest() -> None:
    long_a, long_b = "x" * 300 + "a", "x" * 300 + "b"
    assert len(safe_component(long_a)) == MAX_COMPONENT_BYTES
    assert safe_component(long_a) != safe_component(long_b)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_files_are_laid_out_by_namespace_and_kind(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["per-sandbox"], encoding="utf-8")
    run_generate(GenerateOptions(out=Path("out")))
    assert _files(workdir / "out") == [
        "_cluster/clusterrole-namzu-sandbox-host-admission-fence-read.yaml",
        "_cluster/clusterrolebinding-namzu-sandbox-host-admission-fence-read.yaml",
        "_cluster/validatingadmissionpolicy-namzu-per-sandbox-egress.yaml",
        "_cluster/validatingadmissionpolicybinding-namzu-per-sandbox-egress-binding.yaml",
        "namzu-sandboxes/ciliumnetworkpolicy-namzu-task-egress.yaml",
        "namzu-sandboxes/networkpolicy-namzu-sandbox-baseline.yaml",
        "namzu-sandboxes/role-namzu-sandbox-host-per-sandbox-egress.yaml",
        "namzu-sandboxes/rolebinding-namzu-sandbox-host-per-sandbox-egress.yaml",
    ]


HOSTILE = HEAD + (
    "  - template: ../../../escape-template\n"
    "    namespace: ../../escape-namespace\n"
    "    external: true\n"
    "    egress: {policy: {kind: deny-all}}\n"
    "  - template: /abs/olute\n"
    "    namespace: /tmp\n"
    "    external: true\n"
    "    egress: {policy: {kind: deny-all}, networkPolicyName: ../../../../tmp/evil}\n"
    "  - template: sub/dir\n"
    "    external: true\n"
    "    egress:\n"
    "      profile: p1\n"
    "      engine: cilium\n"
    "      policy: {kind: static, allowedHosts: [a.example]}\n"
    "      perSandbox: {engine: cilium, admissionPolicyName: ../../fence/x}\n"
)


def test_hostile_names_stay_inside_the_directory(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(HOSTILE, encoding="utf-8")
    out = workdir / "nested" / "out"
    writes = run_generate(GenerateOptions(out=Path("nested/out")))
    assert writes
    for write in writes:
        assert write.path.resolve().is_relative_to(out.resolve())
        assert write.path.parent.parent == out.resolve()
    everything = sorted(str(p.relative_to(workdir)) for p in workdir.rglob("*") if p.is_file())
    assert all(path == ".egress-lint.yaml" or path.startswith("nested/out/") for path in everything)
    assert (
        "nested/out/%2E.%2F..%2Fescape-namespace/networkpolicy-..%2F..%2F..%2Fescape-template-egress.yaml"
        in everything
    )
    assert "nested/out/%2Ftmp/networkpolicy-..%2F..%2F..%2F..%2Ftmp%2Fevil.yaml" in everything


def test_a_symlink_inside_the_directory_is_not_followed_out(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    outside = workdir / "outside"
    outside.mkdir()
    (workdir / "out").mkdir()
    os.symlink(outside, workdir / "out" / "namzu-sandboxes")
    with pytest.raises(OutputError, match="outside"):
        run_generate(GenerateOptions(out=Path("out")))
    assert list(outside.iterdir()) == []


def test_a_file_symlink_is_refused_too(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    target = workdir / "target.yaml"
    target.write_text("keep me\n", encoding="utf-8")
    (workdir / "out" / "namzu-sandboxes").mkdir(parents=True)
    os.symlink(target, workdir / "out" / "namzu-sandboxes" / "networkpolicy-namzu-task-egress.yaml")
    with pytest.raises(OutputError):
        run_generate(GenerateOptions(out=Path("out")))
    assert target.read_text(encoding="utf-8") == "keep me\n"


def test_a_differing_file_is_never_overwritten_without_force(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    first = run_generate(GenerateOptions(out=Path("out")))
    assert [w.action for w in first] == ["created", "created"]
    edited = first[0].path
    edited.write_text("# edited by hand\n", encoding="utf-8")
    first[1].path.unlink()
    with pytest.raises(OutputError, match="--force") as refused:
        run_generate(GenerateOptions(out=Path("out")))
    assert str(Path("out") / "namzu-sandboxes" / edited.name) in str(refused.value)
    # Nothing at all was written: not even the file that was missing.
    assert edited.read_text(encoding="utf-8") == "# edited by hand\n"
    assert not first[1].path.exists()
    forced = run_generate(GenerateOptions(out=Path("out"), force=True))
    assert [w.action for w in forced] == ["updated", "created"]
    assert edited.read_text(encoding="utf-8") == first[0].text


def test_identical_files_are_left_alone(workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    run_generate(GenerateOptions(out=Path("out")))
    again = run_generate(GenerateOptions(out=Path("out")))
    assert [w.action for w in again] == ["unchanged", "unchanged"]
    assert not list((workdir / "out").rglob(".egress-lint-*"))


def test_a_profile_cannot_carry_a_path(workdir: Path) -> None:
    """A profile is a DNS-1123 label (SEMANTICS §2.4 P3), so the declaration
    is refused before any name reaches a path."""
    (workdir / ".egress-lint.yaml").write_text(
        HEAD
        + "  - {template: t, external: true, egress: {profile: ../x, policy: {kind: deny-all}}}\n",
        encoding="utf-8",
    )
    with pytest.raises(DeclarationError, match="profile"):
        run_generate(GenerateOptions(out=Path("out")))
    assert not (workdir / "out").exists()
