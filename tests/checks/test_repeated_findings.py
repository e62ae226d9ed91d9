"""A run's findings are merged by culprit and sorted once; a finding found
twice is reported once, whether or not it has a culprit, and however often
and in whatever order the repeats come."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lint.checks.culprits import RENDER_NEEDED, merge_culprits
from lint.checks.sandbox_checks import _render_once
from lint.report.model import Culprit, Finding, Location, SandboxRef
from lint.report.ordering import finding_key


def _ref(template: str) -> SandboxRef:
    return SandboxRef("team", template, None, "direct")


def _culprit(name: str, lets_out: str) -> Culprit:
    return Culprit("NetworkPolicy", name, "team", "manifest", "widens egress", (lets_out,), name)


POOL = (
    Finding("egress-policy-widens", "error", "wide", Location("a.yaml", 3), _ref("t1"),
            culprit=_culprit("wide", "TCP 443")),
    Finding("egress-policy-widens", "error", "wide", Location("a.yaml", 3), _ref("t2"),
            culprit=_culprit("wide", "TCP 443")),
    Finding("egress-policy-widens", "error", "wide", Location("a.yaml", 3), _ref("t3"),
            culprit=_culprit("wide", "TCP 80")),
    Finding("egress-policy-widens", "error", "other", Location("b.yaml", 9), _ref("t1"),
            culprit=_culprit("other", "UDP 53")),
    Finding("unnamed-policy", "warning", "no name", Location("c.yaml", 1)),
    Finding("unnamed-policy", "warning", "no name", Location("c.yaml", 5)),
    Finding(RENDER_NEEDED, "error", "render me", Location("chart/Chart.yaml", 1)),
    Finding(RENDER_NEEDED, "error", "render me", Location("chart/Chart.yaml", 1), _ref("t2"),
            culprit=_culprit("chart", "everything")),
)  # fmt: skip


def _reference(findings: list[Finding]) -> tuple[Finding, ...]:
    """What the run reported when every repeat was dropped by a set first."""
    placed = {f.location for f in findings if f.rule_id == RENDER_NEEDED and f.culprit}
    kept = {f for f in findings if not (f.rule_id == RENDER_NEEDED and not f.culprit
                                        and f.location in placed)}  # fmt: skip
    return tuple(sorted(merge_culprits(kept), key=finding_key))


@given(st.lists(st.sampled_from(POOL), max_size=20))
def test_repeats_change_nothing(findings: list[Finding]) -> None:
    merged = tuple(sorted(merge_culprits(_render_once(findings)), key=finding_key))
    assert merged == _reference(findings)
    assert len(merged) == len(set(merged))


def test_one_culprit_found_on_three_paths_is_one_finding_listing_them() -> None:
    findings = [POOL[0], POOL[1], POOL[0], POOL[2], POOL[4], POOL[4]]
    merged = sorted(merge_culprits(_render_once(findings)), key=finding_key)
    widens = [f for f in merged if f.rule_id == "egress-policy-widens"]
    assert [f.affected for f in widens] == [(_ref("t1"), _ref("t2"), _ref("t3"))]
    assert widens[0].culprit is not None and widens[0].culprit.lets_out == ("TCP 443", "TCP 80")
    assert [f.location.line for f in merged if f.rule_id == "unnamed-policy"] == [1]
