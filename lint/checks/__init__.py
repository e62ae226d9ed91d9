"""The checks of DESIGN §3, run per declared sandbox and acquisition path.

``runner`` runs one check from the front door (``lint.intake``) to the
report, suppressions included; ``egress`` and ``ingress`` judge one sandbox
on one path; ``judging`` keeps each namespace's judgements so sandboxes that
share them judge once; ``prerequisites`` are the deployment facts; ``shares``
cuts the sandboxes into shares for ``lint.parallel``.
"""
