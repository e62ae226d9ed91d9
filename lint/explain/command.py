"""``egress-lint explain``: one sandbox's effective egress (REPORT.md).

:func:`run_explain` does the work and is callable without click; this
module holds no click. The command line, its options and exit codes are in
``lint/cli/explain.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec
from msgspec.structs import replace

from lint.checks.controller import controller_setting
from lint.checks.runner import ReadCilium
from lint.checks.sandbox_checks import check_context
from lint.decision.allowance import build_allowance
from lint.declarations.entries import DeclaredSandbox
from lint.explain.allowance import judge_allowance
from lint.explain.destination import Destination, parse_destination
from lint.explain.places import places_of
from lint.explain.sandbox import Explanation, explain
from lint.explain.selection import SelectionError, choose
from lint.explain.tiers_answer import tier_answer
from lint.explain.verdict import Headline, ToVerdict, Verdict, judge_destination
from lint.intake import Intake, take_in
from lint.loading import DEFAULT_LIMITS, LoadLimits
from lint.sandboxes import Path as AcquisitionPath
from lint.sandboxes import target_object


class ExplainOptions(msgspec.Struct, frozen=True):
    template: str | None
    """``--template``: a SandboxTemplate, or a workload, by name."""
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
    workload: tuple[str, str] | None = None
    """``--workload KIND/NAME``: a declared workload (instead of ``template``)."""


class Environment(msgspec.Struct, frozen=True):
    """One ``renders:`` environment, rendered: its name, the rendered
    manifests, and the namespace objects that name none take."""

    name: str
    stdin: bytes
    namespace: str | None


Explained = tuple[Explanation, ToVerdict | None]

NO_MODEL = Headline(
    Verdict.UNKNOWN,
    "not judged: the declaration says verify: named-object-only, so check judges no "
    "reach for this path, and without it the cluster's tiers are not evaluated",
)
"""The headline of a path with no tier model: the cluster's verdict is not
guessed from the NetworkPolicies alone."""


def run_explain(options: ExplainOptions, stdin: bytes | None = None) -> Explained:
    """Explain one sandbox. Raises DeclarationError, SelectionError or
    DestinationError, all usage errors."""
    destination = parse_destination(options.to) if options.to is not None else None
    intake = take_in(options, stdin=stdin)
    chosen = _chosen(options, intake)
    return _explained(options, intake, chosen, destination)


def run_explain_environments(
    options: ExplainOptions, environments: Sequence[Environment]
) -> Explained:
    """Explain one sandbox in one of the declaration file's ``renders:``
    environments: the one given, else the one whose render holds the
    sandbox's template or workload. Raises as ``run_explain``, and
    SelectionError when it is in several and none is given."""
    destination = parse_destination(options.to) if options.to is not None else None
    found, refused = [], []
    for environment in environments:
        given = replace(options, paths=("-",), namespace=environment.namespace)
        intake = take_in(given, stdin=environment.stdin, environment=environment.name)
        try:
            chosen = _chosen(given, intake)
        except SelectionError as error:
            # Not declared in this environment (its entry names others).
            refused.append(error)
            continue
        present = target_object(chosen, intake.inventory.namespace(chosen.namespace))
        if present is not None or len(environments) == 1:
            found.append((environment.name, given, intake, chosen))
    if not found and refused and len(refused) == len(environments):
        if len(environments) == 1:
            raise SelectionError(
                f"{refused[0]} (in the renders: environment {environments[0].name})"
            )
        raise refused[0]
    if len(found) != 1:
        names = ", ".join(e.name for e in environments)
        where = ", ".join(name for name, *_ in found)
        target = _target_text(options)
        if found:
            raise SelectionError(
                f"{target} is in several renders: environments ({where}); "
                "pick one with --environment"
            )
        raise SelectionError(f"no renders: environment ({names}) renders {target}")
    name, given, intake, chosen = found[0]
    explanation, verdict = _explained(given, intake, chosen, destination)
    return replace(explanation, environment=name), verdict


def _target_text(options: ExplainOptions) -> str:
    if options.workload is not None:
        return f"{options.workload[0]} {options.workload[1]!r}"
    return f"template {options.template!r}"


def _chosen(options: ExplainOptions, intake: Intake) -> DeclaredSandbox:
    return choose(
        intake.declarations,
        intake.sandboxes,
        options.template,
        options.profile,
        options.namespace,
        workload=options.workload,
    )


def _explained(
    options: ExplainOptions,
    intake: Intake,
    chosen: DeclaredSandbox,
    destination: Destination | None,
) -> Explained:
    setting = controller_setting(options.controller_version, intake.declarations, intake.inventory)
    ctx = check_context(intake, options.read_cilium)
    explanation = explain(chosen, ctx, path=options.path, facts=setting.facts)
    verdict = None
    if destination is not None:
        verdict = judge_destination(explanation.cluster_policies, destination)
        host = None
        if chosen.host == "namzu":
            own = judge_destination(explanation.policies, destination)
            host = Headline(own.verdict, own.reason)
        if explanation.tiers is None:
            # `verify: named-object-only`: check judges no reach, so there is
            # no model of the cluster's tiers to ask.
            answer = judge_allowance(build_allowance(explanation.translation), verdict)
            verdict = replace(verdict, allowance=answer, cluster=NO_MODEL, host=host)
        else:
            # The headline, the allowance line and the exit status are the
            # exact tier model's, the one check's reach asks.
            places = places_of(ctx, explanation.tiers)
            model = tier_answer(explanation.tiers, destination, places)
            verdict = replace(
                verdict,
                allowance=model.allowance,
                cluster=model.headline,
                host=host,
                outside_verdict=model.outside_verdict,
                deciding=model.deciding,
                admits=model.admits,
            )
    return explanation, verdict


def let_out_beyond(verdict: ToVerdict | None) -> bool:
    """True when ``--to`` names a destination let out beyond the allowance,
    or that may be (an unknown route counts): ``explain`` then exits 1."""
    answer = None if verdict is None else verdict.allowance
    return answer is not None and answer.outside
