"""Record the golden digests: ``python -m tests.golden.regenerate``.

Only run this when an output is meant to change: give the changed entry a
``why`` in ``digests.json`` (it is kept from then on) and say why in the
commit.
``--dump DIR`` also writes every output to DIR, to diff two runs by hand.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from tests.bench_tree import generate_tree
from tests.golden.cases import BENCH_SHAPE, DIGESTS, all_cases, base_roots, run_case


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    reasons = {
        key: entry["why"]
        for key, entry in json.loads(DIGESTS.read_text(encoding="utf-8")).items()
        if "why" in entry
    }
    with tempfile.TemporaryDirectory() as bench:
        generate_tree(Path(bench), **BENCH_SHAPE)
        roots = {**base_roots(), "bench": Path(bench)}
        digests = {}
        for number, case in enumerate(all_cases(roots)):
            outcome = run_case(case, roots)
            digests[case.key] = {"case": [case.root, case.cwd, *case.args], **outcome.digest()}
            if case.key in reasons:
                digests[case.key]["why"] = reasons[case.key]
            if args.dump is not None:
                args.dump.mkdir(parents=True, exist_ok=True)
                (args.dump / f"{number:04d}.out").write_text(
                    f"{case.key}\nexit {outcome.exit_code}\n{outcome.stdout}\n--- stderr\n"
                    f"{outcome.stderr}",
                    encoding="utf-8",
                )
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(digests)} cases written to {DIGESTS}")


if __name__ == "__main__":
    main()
