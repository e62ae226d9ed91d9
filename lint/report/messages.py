"""How a finding's message names where it applies, for the one-line
formats (SARIF, GitHub annotations): the sandbox path and the ``renders:``
environment after the rule's own message."""

from __future__ import annotations

from lint.report.bounded import bounded
from lint.report.model import Finding


def placed_message(finding: Finding) -> str:
    """The message, then the sandbox it is about and its environment."""
    text = bounded(finding.message)
    if finding.sandbox is not None:
        ref = finding.sandbox
        profile = f", profile {ref.profile}" if ref.profile else ""
        text += f" (sandbox {ref.namespace}/{ref.template}{profile}, {ref.path} path)"
    if finding.environment is not None:
        text += f" [environment {finding.environment}]"
    return text
