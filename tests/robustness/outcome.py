"""Running the check in-process on a tree, and reading each sandbox's outcome.

The check is ``run_check`` itself: loading (from standard input), inventory,
every decision and every finding. Only the declaration file is read once per
tree instead of once per run, because parsing it is half of the time of a
small check and the mutations never touch it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import lint.intake as intake
from lint.checks.runner import CheckOptions, run_check
from lint.declarations import Declarations, load_declarations
from lint.report.model import Report, SandboxRef
from tests.robustness.trees import Tree, stream

PASSES = None
"""A decision without a refusal."""


@dataclass(frozen=True)
class Verdicts:
    """One sandbox's outcome: each decision's refusal (None when it
    passes), the named comparison's result, and whether the run found an
    input problem (a parse-error finding)."""

    union: str | None
    named: str
    ingress: str | None
    reach: str | None = None
    ingress_reach: str | None = None

    def refusing(self) -> dict[str, bool]:
        return {
            "union": self.union is not None,
            "named": self.named != "match",
            "ingress": self.ingress is not None,
            "reach": self.reach is not None,
            "ingress_reach": self.ingress_reach is not None,
        }


def outcomes(report: Report) -> dict[SandboxRef, Verdicts]:
    result = {}
    for sandbox in report.sandboxes:
        union = sandbox.egress.union
        reach = sandbox.egress.reach
        ingress = sandbox.ingress
        ingress_reach = ingress.reach if ingress is not None else None
        result[sandbox.ref] = Verdicts(
            union=union.refusal if union is not None else PASSES,
            # `host: none` without `expect` compares no named object.
            named=sandbox.egress.named.result if sandbox.egress.named is not None else "match",
            ingress=ingress.decision.refusal if ingress is not None else PASSES,
            reach=reach.decision.refusal if reach is not None else PASSES,
            ingress_reach=ingress_reach.refusal if ingress_reach is not None else PASSES,
        )
    return result


class Checker:
    """Runs the check on variants of one tree."""

    def __init__(self, tree: Tree, workdir: Path) -> None:
        self.tree = tree
        config = None
        if tree.declaration is not None:
            config = workdir / ".egress-lint.yaml"
            config.write_text(tree.declaration, encoding="utf-8")
        self._declarations: Declarations = load_declarations(config, namespace_override=None)
        self._options = CheckOptions(paths=("-",), config=config)

    @contextmanager
    def running(self) -> Iterator[Checker]:
        # The declaration file is read once, not once per variant.
        with mock.patch.object(intake, "load_declarations", self._load_declarations):
            yield self

    def _load_declarations(
        self, path: Path | None, *, namespace_override: str | None, environment: str | None = None
    ) -> Declarations:
        return self._declarations

    def report(self, documents: Sequence[Any]) -> Report:
        return run_check(self._options, stdin=stream(list(documents)))

    def run(self, documents: Sequence[Any]) -> dict[SandboxRef, Verdicts]:
        return outcomes(self.report(documents))
