"""Record the golden outputs: ``python -m tests.golden.regenerate``.

Run it when an output is meant to change, and say why in the commit and in
``CHANGELOG.md``: the change itself shows in the diff of ``outputs/`` (the
fixture trees, as text) and of ``digests.json`` (the large trees).
``--dump DIR`` also writes every output of the large trees to DIR, to diff
two runs by hand.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from tests.bench_tree import generate_tree
from tests.golden.cases import (
    BENCH_SHAPE,
    DIGESTS,
    OUTPUTS,
    all_cases,
    base_roots,
    outputs_file,
    run_case,
    stored_text,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as bench:
        generate_tree(Path(bench), **BENCH_SHAPE)
        roots = {**base_roots(), "bench": Path(bench)}
        digests = {}
        texts: dict[Path, list[str]] = {}
        for number, case in enumerate(all_cases(roots)):
            outcome = run_case(case, roots)
            if case.root == "fixtures":
                texts.setdefault(outputs_file(case.cwd), []).append(stored_text(case, outcome))
                continue
            digests[case.key] = {"case": [case.root, case.cwd, *case.args], **outcome.digest()}
            if args.dump is not None:
                args.dump.mkdir(parents=True, exist_ok=True)
                (args.dump / f"{number:04d}.out").write_text(
                    f"{case.key}\nexit {outcome.exit_code}\n{outcome.stdout}\n--- stderr\n"
                    f"{outcome.stderr}",
                    encoding="utf-8",
                )
    OUTPUTS.mkdir(exist_ok=True)
    for stale in set(OUTPUTS.glob("*.txt")) - set(texts):
        stale.unlink()
    for path, sections in texts.items():
        path.write_text("".join(sections), encoding="utf-8")
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    cases = sum(map(len, texts.values()))
    print(f"{cases} fixture cases in {len(texts)} files, {len(digests)} digests written")


if __name__ == "__main__":
    main()
