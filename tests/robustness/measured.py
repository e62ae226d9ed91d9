"""Run the command line and report what it cost: ``python -m
tests.robustness.measured RESULT_FILE egress-lint-arguments...``.

The run's exit status, wall time and peak resident memory (its own, not a
sibling's: ``getrusage`` of a child reports the largest child ever waited
for) are written to RESULT_FILE as JSON; standard output and error are the
command's own.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from lint.cli import run_cli


def main() -> None:
    result_file = Path(sys.argv[1])
    sys.argv = ["egress-lint", *sys.argv[2:]]
    started = time.perf_counter()
    code = run_cli()
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    result_file.write_text(json.dumps({"exit": code, "seconds": seconds, "max_rss_kib": peak}))


if __name__ == "__main__":
    main()
