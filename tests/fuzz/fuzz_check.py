"""Coverage-guided fuzzing of the loader and the check with atheris.

Not part of the test suite (pytest collects ``test_*.py`` only, and atheris
is not a dependency). To run it::

    pip install atheris
    python tests/fuzz/fuzz_check.py -max_total_time=600 [corpus_dir]

Each input is a manifest stream. It is loaded with small limits, so that the
limits are exercised too, and checked against one declared sandbox; any
exception that escapes is a crash atheris reports with the input. The
hypothesis suites in ``tests/robustness`` cover the same ground in CI;
``test_kube_differential.py`` there holds the loader against a port of
kubectl's reader: a policy kubectl reads is read, or fails closed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from lint.checks.runner import CheckOptions, run_check
    from lint.loading import LoadLimits, load
    from lint.report.json_report import render_json
    from lint.report.sarif_report import SarifOptions, render_sarif
    from lint.report.text_report import render_text

SMALL = LoadLimits(max_document_size=64 * 1024, max_depth=16, max_alias_expansion=10_000)
DECLARATION = (
    "version: 1\nsandboxes:\n  - template: task\n    namespace: sbx\n"
    "    egress: {engine: cilium, policy: {kind: static, allowedHosts: [api.example.com]}}\n"
)
TEMPLATE = (
    b"apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxTemplate\n"
    b"metadata: {name: task, namespace: sbx}\n"
    b"spec: {podTemplate: {metadata: {labels: {app: task}}}}\n---\n"
)
WORKDIR = Path(tempfile.mkdtemp(prefix="egress-lint-fuzz-"))
CONFIG = WORKDIR / ".egress-lint.yaml"
CONFIG.write_text(DECLARATION, encoding="utf-8")


def one_input(data: bytes) -> None:
    load(["-"], stdin=data, limits=SMALL)
    report = run_check(CheckOptions(paths=("-",), config=CONFIG), stdin=TEMPLATE + data)
    render_json(report)
    render_sarif(report, SarifOptions(None, "egress-lint"))
    render_text(report, colour=False, show_suppressed=True)


def main() -> None:
    os.chdir(WORKDIR)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
