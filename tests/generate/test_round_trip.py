"""The round trip (issue 5, item 3): every generated manifest, read back,
equals the engine's value exactly, types and key order included, under
egress-lint's own loader and under YAML 1.1 and 1.2 readers; and checking
the generated files together with the declarations finds nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.declarations import load_declarations
from lint.generate.command import GenerateOptions, run_generate
from lint.generate.output import stream_text
from tests.generate.conftest import READERS, Generate, exact
from tests.generate.variants import VARIANTS

EGRESS_RULES = {
    "named-policy-missing",
    "named-policy-mismatch",
    "egress-policy-widens",
    "no-enforcing-egress-policy",
    "egress-not-evaluable",
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_manifest_reads_back_exactly(variant: str, reader: str, generate: Generate) -> None:
    rendered = generate(VARIANTS[variant])
    read: Callable[[str], list[Any]] = READERS[reader]
    for item in rendered:
        assert [exact(value) for value in read(item.text)] == [exact(item.obj.manifest)]
    values = read(stream_text(rendered))
    assert [exact(value) for value in values] == [exact(item.obj.manifest) for item in rendered]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_egress_policy_is_the_translation(variant: str, generate: Generate) -> None:
    rendered = generate(VARIANTS[variant])
    declarations = load_declarations(Path(".egress-lint.yaml"), namespace_override=None)
    by_key = {(r.obj.kind, r.obj.namespace, r.obj.name): r for r in rendered}
    for entry in declarations.entries:
        translation = entry.translation
        item = by_key[(translation.kind, translation.namespace, translation.name)]
        (value,) = READERS["egress-lint"](item.text)
        assert exact(value) == exact(translation.manifest)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_checking_the_generated_files_finds_nothing(variant: str, workdir: Path) -> None:
    (workdir / ".egress-lint.yaml").write_text(VARIANTS[variant], encoding="utf-8")
    run_generate(GenerateOptions(out=Path("out")))
    report = run_check(CheckOptions(paths=("out",), config=Path(".egress-lint.yaml")))
    assert [f for f in report.findings if f.rule_id in EGRESS_RULES] == []
    # The one finding a generated tree may carry: the advisory that the
    # public-internet allowance takes in the NAT64 prefixes (issue 15), a
    # warning about the intent itself, which the translation must copy.
    advisories = [f for f in report.findings if f.rule_id == "nat-prefix-reaches-private"]
    assert [f.level for f in advisories] == (["warning"] if variant == "public-internet" else [])
    rest = [(f.rule_id, f.message) for f in report.findings if f not in advisories]
    assert rest == []
    assert report.sandboxes, "the check examined no sandbox"
    for sandbox in report.sandboxes:
        assert sandbox.egress.named.result == "match"
        if sandbox.egress.union is not None:
            assert sandbox.egress.union.refusal is None
        if sandbox.ingress is not None:
            assert sandbox.ingress.decision.refusal is None


def test_checking_without_the_baseline_would_find_the_gap(workdir: Path) -> None:
    """The check above is not vacuous: the baseline is what closes the agent port."""
    (workdir / ".egress-lint.yaml").write_text(VARIANTS["deny-all"], encoding="utf-8")
    writes = run_generate(GenerateOptions(out=Path("out")))
    for write in writes:
        if write.path.name == "networkpolicy-namzu-sandbox-baseline.yaml":
            write.path.unlink()
    report = run_check(CheckOptions(paths=("out",), config=Path(".egress-lint.yaml")))
    assert {f.rule_id for f in report.findings} == {"no-ingress-covering-policy"}


def test_the_default_intent_round_trips_from_the_manifests(workdir: Path) -> None:
    """With no declaration file, every SandboxTemplate gets deny-all/core,
    and the generated files satisfy the same default check."""
    manifests = workdir / "manifests"
    manifests.mkdir()
    (manifests / "template.yaml").write_text(
        "apiVersion: extensions.agents.x-k8s.io/v1beta1\n"
        "kind: SandboxTemplate\n"
        "metadata: {name: namzu-task, namespace: namzu-sandboxes}\n"
        "spec:\n"
        "  networkPolicyManagement: Unmanaged\n"
        "  podTemplate: {spec: {containers: [{name: a, image: b}]}}\n",
        encoding="utf-8",
    )
    writes = run_generate(GenerateOptions(paths=("manifests",), out=Path("manifests/out")))
    # Issue 25: the default is `host: none`, so no namzu baseline, and the
    # policy selects the template's own pods (all of the namespace's here).
    assert sorted(w.path.name for w in writes) == ["networkpolicy-namzu-task-egress.yaml"]
    report = run_check(CheckOptions(paths=("manifests",)))
    assert report.defaults_applied
    # Only the note that each template was checked against the default intent.
    failing = [(f.rule_id, f.message) for f in report.findings if f.level != "note"]
    assert failing == []
    assert {(f.rule_id, f.level) for f in report.findings} <= {("template-undeclared", "note")}
