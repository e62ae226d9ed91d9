"""Snapshots of the generated output for every policy kind and narrowing
variant (the comment headers are what a reviewer reads, so they are part of
the reviewed output), and the rules the rendering itself must keep."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from lint.generate import render
from lint.generate.model import GeneratedObject, Source
from lint.generate.output import stream_text
from lint.generate.render import RenderError, render_object, templates_dir
from tests.generate.conftest import Generate
from tests.generate.variants import VARIANTS


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_generated_output(variant: str, generate: Generate, snapshot: SnapshotAssertion) -> None:
    assert stream_text(generate(VARIANTS[variant])) == snapshot


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_file_starts_with_its_header(variant: str, generate: Generate) -> None:
    for item in generate(VARIANTS[variant]):
        lines = item.text.splitlines()
        assert lines[0] == f"# {item.obj.kind} {item.obj.name}" + (
            f" in namespace {item.obj.namespace}" if item.obj.namespace else ""
        )
        header = lines[: lines.index("apiVersion: " + item.obj.manifest["apiVersion"])]
        assert all(line.startswith("#") for line in header)
        assert any(line.startswith("# Declared at .egress-lint.yaml:") for line in header)


def _text(
    generate: Generate, variant: str, kind: str, name: str, namespace: str = "namzu-sandboxes"
) -> str:
    found = [
        r.text
        for r in generate(VARIANTS[variant])
        if (r.obj.kind, r.obj.name, r.obj.namespace) == (kind, name, namespace)
    ]
    assert len(found) == 1
    return found[0]


def test_deny_all_header_says_why_dns_stays_open(generate: Generate) -> None:
    text = _text(generate, "deny-all", "NetworkPolicy", "namzu-task-egress")
    assert 'deny-all is not "no network": it keeps cluster DNS' in text


@pytest.mark.parametrize(
    "line",
    [
        "#   10.0.0.0/8: private network (RFC 1918)",
        "#   100.64.0.0/10: shared address space (RFC 6598)",
        "#   169.254.0.0/16: link-local: cloud instance metadata 169.254.169.254",
        "#   168.63.129.16/32: Azure WireServer",
        "#   ::1/128: IPv6 loopback",
        "#   203.0.113.0/24: added by this declaration's exceptCidrs",
        "#   2001:db8::/32: added by this declaration's exceptCidrs",
    ],
)
def test_public_internet_header_explains_each_excluded_range(generate: Generate, line: str) -> None:
    text = _text(generate, "public-internet", "NetworkPolicy", "namzu-task-egress")
    assert any(row.startswith(line) for row in text.splitlines())


@pytest.mark.parametrize(
    ("variant", "phrases"),
    [
        ("static", ["sends every lookup", "one rule admits every allowlisted host"]),
        ("narrowed-ports", ["ports: the TCP ports", "hostPorts: the TCP ports"]),
        ("narrowed-dns", ["answer only the allowlisted names", "dnsNames: the DNS rule"]),
        ("narrowed-tls", ["tlsServerNames: on TLS ports", "hostPorts:", "dnsNames:"]),
        ("resolver", ["runs no resolver code"]),
    ],
)
def test_cilium_header_explains_each_narrowing(
    generate: Generate, variant: str, phrases: list[str]
) -> None:
    name = "namzu-build-egress"
    text = _text(generate, variant, "CiliumNetworkPolicy", name)
    for phrase in phrases:
        assert phrase in text


def test_baseline_header_names_what_removed_dns(generate: Generate) -> None:
    text = _text(generate, "namespaces", "NetworkPolicy", "namzu-sandbox-baseline")
    assert "Egress: none. namzu-offline declares no-network" in text
    text = _text(generate, "narrowed-dns", "NetworkPolicy", "namzu-sandbox-baseline")
    assert "Egress: none. namzu-build narrows DNS names" in text


def _object(template: str, source_template: str) -> GeneratedObject:
    manifest = {"apiVersion": "v1", "kind": "Role", "metadata": {"name": "x", "namespace": "n"}}
    source = Source(where="decl.yaml:1 (sandboxes[0])", template=source_template, profile=None)
    return GeneratedObject(
        "Role", "x", "n", manifest, template, {"sandbox_namespace": "n"}, (source,)
    )


@pytest.mark.parametrize("hostile", ["a\nkind: Secret", "a\rb", "a\u2028b", "a\x85b", "tab\there"])
def test_a_line_break_in_a_name_cannot_leave_the_comment(hostile: str) -> None:
    text = render_object(_object("role-per-sandbox.yaml.j2", hostile))
    header = text[: text.index("apiVersion:")]
    assert all(line.startswith("#") for line in header.splitlines())
    assert "kind: Secret\n" not in header


def test_a_template_that_prints_structured_data_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "_header.j2").write_text("", encoding="utf-8")
    (tmp_path / "bad.yaml.j2").write_text("# {{ facts }}\n{{ body }}\n", encoding="utf-8")
    monkeypatch.setattr(render, "PACKAGED_TEMPLATES", tmp_path)
    render.environment.cache_clear()
    try:
        with pytest.raises(RenderError, match="print text only"):
            render_object(_object("bad.yaml.j2", "t"))
    finally:
        render.environment.cache_clear()


def test_an_undefined_fact_fails_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "_header.j2").write_text("", encoding="utf-8")
    (tmp_path / "bad.yaml.j2").write_text("# {{ facts.nope }}\n{{ body }}\n", encoding="utf-8")
    monkeypatch.setattr(render, "PACKAGED_TEMPLATES", tmp_path)
    render.environment.cache_clear()
    try:
        with pytest.raises(Exception, match="nope"):
            render_object(_object("bad.yaml.j2", "t"))
    finally:
        render.environment.cache_clear()


def test_output_that_does_not_read_back_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "_header.j2").write_text("", encoding="utf-8")
    (tmp_path / "bad.yaml.j2").write_text("{{ body }}\n  extra: 1\n", encoding="utf-8")
    monkeypatch.setattr(render, "PACKAGED_TEMPLATES", tmp_path)
    render.environment.cache_clear()
    try:
        with pytest.raises(RenderError):
            render_object(_object("bad.yaml.j2", "t"))
    finally:
        render.environment.cache_clear()


def test_templates_are_found_in_the_repository_for_an_editable_install() -> None:
    assert templates_dir() == Path(__file__).resolve().parents[2] / "templates"


def test_missing_templates_are_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render, "PACKAGED_TEMPLATES", tmp_path / "a")
    monkeypatch.setattr(render, "REPOSITORY_TEMPLATES", tmp_path / "b")
    with pytest.raises(RenderError, match="templates are missing"):
        templates_dir()


def test_a_wheel_reads_its_packaged_templates_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyproject force-includes templates/ as lint/_templates in the wheel."""
    (tmp_path / "_header.j2").write_text("", encoding="utf-8")
    monkeypatch.setattr(render, "PACKAGED_TEMPLATES", tmp_path)
    assert templates_dir() == tmp_path
