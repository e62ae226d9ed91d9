"""``egress-lint explain``: one sandbox's effective egress (REPORT.md).

:func:`run_explain` does the work and is callable without click; this
module holds no click. The command line, its options and exit codes are in
``lint/cli/explain.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from lint.checks.context import ReadCilium
from lint.checks.controller import controller_setting
from lint.checks.runner import check_context
from lint.decision.allowance import build_allowance
from lint.explain.allowance import judge_allowance
from lint.explain.destination import parse_destination
from lint.explain.reach_to import admin_admits
from lint.explain.sandbox import Explanation, explain
from lint.explain.selection import choose
from lint.explain.verdict import Headline, ToVerdict, cluster_headline, judge_destination
from lint.intake import take_in
from lint.loading import DEFAULT_LIMITS, LoadLimits
from lint.sandboxes import Path as AcquisitionPath


@dataclass(frozen=True)
class ExplainOptions:
    template: str
    paths: tuple[str, ...] = (".",)
    config: Path | None = None
    profile: str | None = None
    namespace: str | None = None
    path: AcquisitionPath | None = None
    to: str | None = None
    read_cilium: ReadCilium = "auto"
    limits: LoadLimits = DEFAULT_LIMITS
    jobs: int = 1
    """Processes to load the manifests on; 1 stays in this one."""
    controller_version: str | None = None
    """``--controller-version`` (DESIGN §12)."""


def run_explain(
    options: ExplainOptions, stdin: bytes | None = None
) -> tuple[Explanation, ToVerdict | None]:
    """Explain one sandbox. Raises DeclarationError, SelectionError or
    DestinationError, all usage errors."""
    destination = parse_destination(options.to) if options.to is not None else None
    intake = take_in(options, stdin=stdin)
    chosen = choose(
        intake.declarations, intake.sandboxes, options.template, options.profile, options.namespace
    )
    setting = controller_setting(options.controller_version, intake.declarations, intake.inventory)
    ctx = check_context(intake, options.read_cilium)
    explanation = explain(chosen, ctx, path=options.path, facts=setting.facts)
    verdict = None
    if destination is not None:
        verdict = judge_destination(explanation.cluster_policies, destination)
        examined = explanation.reach.decision.examined if explanation.reach else ()
        admits = admin_admits(explanation.reach_offered, examined, destination)
        explanation = dataclasses.replace(explanation, admin_admits=admits)
        answer = judge_allowance(build_allowance(explanation.translation), verdict, admits)
        host = None
        if chosen.host == "namzu":
            own = judge_destination(explanation.policies, destination)
            host = Headline(own.verdict, own.reason)
        verdict = dataclasses.replace(
            verdict, allowance=answer, cluster=cluster_headline(verdict, admits), host=host
        )
    return explanation, verdict


def let_out_beyond(verdict: ToVerdict | None) -> bool:
    """True when ``--to`` names a destination let out beyond the allowance,
    or that may be (an unknown route counts): ``explain`` then exits 1."""
    answer = None if verdict is None else verdict.allowance
    return answer is not None and answer.outside
