"""The egress-lint benchmark: one command, one table.

    python bench/run.py [--repeat N] [--sizes 4,8,16] [--no-corpus] [--no-check] [--jobs N]
                        [--cluster-policy-sizes 16] [--scale all] [--only-scale]

For generated trees of the given sizes (MB, made by ``bench/generate.py``
under ``bench/out/``) and for ``shared/corpus`` when it is present, it
measures:

- a bare parse of every file into Python objects with each parser that is
  installed: ``yaml_rs`` (a dependency of egress-lint), PyYAML's C loader,
  ruamel.yaml's safe C loader;
- ``lint.loading.load()`` in this process;
- ``egress-lint check <tree> --format json --config <tree>/.egress-lint.yaml``
  in a subprocess: wall time and peak RSS (``--jobs`` is passed on when
  given; by default the CLI uses one process per CPU).

With ``--scale`` it also runs the scale families of issue 18 (``--scale
all``, or some of ``one-namespace,dense,large``): one namespace with 250,
500, 1,000, 2,000, 4,000 and 8,000 templates each with a named policy
(and how time and peak RSS grow from 500 to 2,000 and from 2,000 to
8,000); one namespace with 20,000 NetworkPolicies and 500 templates; the 132 MB tree; each with its
wall time and peak RSS (a JSON report written whole, to /dev/null). The
start-up table (``python -c pass`` beside ``--version``, ``--help`` and
``check fixtures/demo``) ends every run that runs the CLI.

Times are the best of ``--repeat`` runs. The ratio columns divide by the
fastest bare parse. A failing or missing CLI leaves its columns as ``n/a``.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
CORPUS = REPO / ".." / "shared" / "corpus"
MB = 1_000_000
# Namespaces per requested size: each generated namespace is about 0.82 MB.
NAMESPACES_PER_MB = 20 / 16

try:
    import yaml_rs  # the optional `bench` extra
except ImportError:
    yaml_rs = None
try:
    from ruamel.yaml import YAML as RuamelYAML
except ImportError:
    RuamelYAML = None

sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from generate import TreeShape, generate  # noqa: E402

from lint.loading import load  # noqa: E402
from lint.loading.decode import decode  # noqa: E402
from lint.loading.split import split_stream  # noqa: E402


@dataclass
class Row:
    """One line of the table."""

    name: str
    megabytes: float
    documents: int
    parses: dict[str, float | None] = field(default_factory=dict)
    load: float = 0.0
    check: float | None = None
    check_rss_mb: float | None = None
    check_note: str = ""


def manifest_files(root: Path) -> list[Path]:
    suffixes = {".yaml", ".yml", ".json"}
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)


def read_texts(root: Path) -> list[str]:
    texts = []
    for path in manifest_files(root):
        text = decode(path.read_bytes())
        if isinstance(text, str):
            texts.append(text)
    return texts


def count_documents(texts: list[str]) -> int:
    return sum(1 for text in texts for chunk in split_stream(text) if chunk.content is not None)


def best_of(repeat: int, action: Callable[[], object]) -> float:
    """The fastest of ``repeat`` runs, with the collector paused as the
    loader pauses it, and results freed outside the timing."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        result = action()
        elapsed = time.perf_counter() - started
        gc.enable()
        del result
        best = min(best, elapsed)
    return best


def bare_parsers() -> Iterator[tuple[str, Callable[[str], object] | None]]:
    """(name, parse one text) for each parser; None when not installed."""
    yield "yaml_rs", None if yaml_rs is None else yaml_rs.loads
    yield "PyYAML C", lambda text: list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    if RuamelYAML is None:
        yield "ruamel C", None
    else:
        ruamel = RuamelYAML(typ="safe", pure=False)
        yield "ruamel C", lambda text: list(ruamel.load_all(text))


def parse_all(parse: Callable[[str], object], texts: list[str]) -> list[object]:
    results = []
    for text in texts:
        try:
            results.append(parse(text))
        except Exception as error:  # a parser's own errors count as parsed input
            results.append(error)
    return results


def run_check(root: Path, repeat: int, jobs: int | None) -> tuple[float | None, float | None, str]:
    """Best wall time and peak RSS (MB) of the CLI, or a note why not."""
    script = shutil.which("egress-lint") or str(Path(sys.executable).with_name("egress-lint"))
    command = [script, "check", str(root), "--format", "json"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    config = root / ".egress-lint.yaml"
    if config.is_file():
        command += ["--config", str(config)]
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        try:
            elapsed, rss, code, stderr = measured_process(command)
        except OSError as error:
            return None, None, f"cannot run {script}: {error.strerror}"
        if code not in (0, 1):
            first = stderr.decode(errors="replace").strip().splitlines()[:1]
            return None, None, f"exit {code}: {first[0] if first else 'no message'}"
        best = min(best, elapsed)
        peak = max(peak, rss)
    return best, peak, ""


# Started from this process, a command's peak RSS would count this
# process's own (Linux keeps the larger of the parent's pages at the fork
# and the command's after its exec), and this one holds every parsed tree.
# So a small interpreter starts the command and measures it.
_LAUNCHER = """
import os, sys, time
out, command = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.posix_spawn(command[0], command, os.environ)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
with open(out, "w") as measured:
    measured.write(f"{elapsed} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def measured_process(command: list[str]) -> tuple[float, float, int, bytes]:
    """Wall time, peak RSS (MB), exit code and standard error of one run of
    ``command`` (its first word an absolute path), its output to /dev/null,
    started by a small launcher (``_LAUNCHER``)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "measured"
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(out), *command],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        if not out.is_file():
            raise OSError(done.returncode, done.stderr.decode(errors="replace").strip())
        elapsed, rss, code = out.read_text().split()
    return float(elapsed), int(rss) / 1024, int(code), done.stderr  # kilobytes on Linux


def timed_process(command: list[str]) -> tuple[float, float, int]:
    """Wall time, peak RSS (MB) and exit code of one run of ``command``."""
    elapsed, rss, code, _ = measured_process(command)
    return elapsed, rss, code


STARTUP_COMMANDS = (
    ("python -c pass", ["-c", "pass"]),
    ("egress-lint --version", ["-m", "lint.console", "--version"]),
    ("egress-lint --help", ["-m", "lint.console", "--help"]),
    ("egress-lint check fixtures/demo", ["-m", "lint.console", "check", "fixtures/demo"]),
)


def measure_startup(repeat: int) -> str:
    """Start-up, the cost a pre-commit hook pays on every commit: the best
    wall time of each command (through ``lint.console``, the console
    script's module), its peak RSS, and its ratio to a bare interpreter."""
    lines = [
        "| start-up | best | / python -c pass | peak RSS |",
        "|---|---|---|---|",
    ]
    bare = None
    for name, arguments in STARTUP_COMMANDS:
        runs = [timed_process([sys.executable, *arguments]) for _ in range(max(repeat, 5))]
        best = min(wall for wall, _, _ in runs)
        peak = max(rss for _, rss, _ in runs)
        bare = bare or best
        codes = sorted({code for _, _, code in runs})
        note = "" if codes[-1] <= 1 else f" (exit {codes[-1]})"
        lines.append(
            f"| {name} | {best * 1000:.0f} ms{note} | {best / bare:.1f}x | {peak:.0f} MB |"
        )
    return "\n".join(lines)


def measure(name: str, root: Path, repeat: int, with_check: bool, jobs: int | None) -> Row:
    texts = read_texts(root)
    size = sum(len(t.encode()) for t in texts) / MB
    row = Row(name, size, count_documents(texts))
    for parser, parse in bare_parsers():
        row.parses[parser] = (
            None
            if parse is None
            else best_of(1 if parser == "ruamel C" else repeat, lambda p=parse: parse_all(p, texts))
        )
    row.load = best_of(repeat, lambda: load([str(root)]))
    if with_check:
        row.check, row.check_rss_mb, row.check_note = run_check(root, repeat, jobs)
    return row


def tree_for(megabytes: int, calico: int = 0, cluster_policies: int = 0) -> Path:
    """The generated tree of about this size, made once; with Calico and
    ClusterNetworkPolicy objects when asked (CLUSTER-POLICIES)."""
    namespaces = max(1, round(megabytes * NAMESPACES_PER_MB))
    suffix = f"-calico{calico}-cnp{cluster_policies}" if calico or cluster_policies else ""
    root = OUT / f"tree-{megabytes}mb{suffix}"
    stamp = root / ".shape"
    shape = TreeShape(namespaces=namespaces, calico=calico, cluster_policies=cluster_policies)
    if not stamp.is_file() or stamp.read_text() != repr(shape):
        shutil.rmtree(root, ignore_errors=True)
        generate(root, shape)
        stamp.write_text(repr(shape))
    return root


ONE_NAMESPACE_SIZES = (250, 500, 1000, 2000, 4000, 8000)
"""Templates in the one-namespace family, each with its own named policy."""
DENSE_POLICIES, DENSE_TEMPLATES = 20_000, 500
LARGE_MEGABYTES = 132
LARGE_NAMESPACES = 160
"""132.5 MB (126 MiB): the largest generated tree within the default 128 MiB
limit on all input, so that every file is read."""


def one_namespace_tree(templates: int) -> Path:
    """One namespace, ``templates`` SandboxTemplates each with a named
    policy (half NetworkPolicies under core, half CiliumNetworkPolicies
    under cilium), and nothing else (issue 18)."""
    half = templates // 2
    shape = TreeShape(
        namespaces=1, policies=half, cilium=templates - half, templates=templates, filler=0
    )
    return _made(OUT / f"one-namespace-{templates}", shape)


def dense_tree() -> Path:
    """One namespace with 20,000 NetworkPolicies and 500 templates."""
    shape = TreeShape(
        namespaces=1,
        policies=DENSE_POLICIES,
        cilium=DENSE_TEMPLATES // 2,
        templates=DENSE_TEMPLATES,
        filler=0,
    )
    return _made(OUT / f"dense-{DENSE_POLICIES}-policies-{DENSE_TEMPLATES}-templates", shape)


def large_tree() -> Path:
    """The generated tree of 160 namespaces, 132 MB."""
    return _made(OUT / f"large-{LARGE_MEGABYTES}mb", TreeShape(namespaces=LARGE_NAMESPACES))


def _made(root: Path, shape: TreeShape) -> Path:
    stamp = root / ".shape"
    if not stamp.is_file() or stamp.read_text() != repr(shape):
        shutil.rmtree(root, ignore_errors=True)
        generate(root, shape)
        stamp.write_text(repr(shape))
    return root


WHOLE_REPORT = "1024G"
"""``--max-report-bytes`` for the scale families' JSON runs: far past any
report, so the report is written whole (to /dev/null), never cut."""


def run_once(root: Path, fmt: str, jobs: int | None) -> tuple[float, float, int]:
    """One CLI run of ``check`` on ``root``: wall time, peak RSS (MB), exit
    code. The report goes to /dev/null: a pipe read into this process would
    add the report's size to what is measured, and a JSON report is written
    whole (``WHOLE_REPORT``), as the issue's targets ask."""
    script = shutil.which("egress-lint") or str(Path(sys.executable).with_name("egress-lint"))
    command = [
        script,
        "check",
        str(root),
        "--format",
        fmt,
        "--config",
        str(root / ".egress-lint.yaml"),
    ]
    if fmt == "json":
        command += ["--max-report-bytes", WHOLE_REPORT]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    return timed_process(command)


def measure_scale(repeat: int, jobs: int | None, families: set[str]) -> str:
    """The scale families of issue 18, each as a subprocess: one namespace
    with N templates and named policies (text), the 20,000-policy namespace
    (text and JSON) and the 132 MB tree (text and JSON). Time is the best of
    ``repeat`` runs, peak RSS the largest."""
    cases: list[tuple[str, Path, str]] = []
    if "one-namespace" in families:
        cases += [
            (f"one namespace, {n} templates", one_namespace_tree(n), "text")
            for n in ONE_NAMESPACE_SIZES
        ]
    if "dense" in families:
        root = dense_tree()
        cases += [
            (f"one namespace, {DENSE_POLICIES:,} policies", root, f) for f in ("text", "json")
        ]
    if "large" in families:
        root = large_tree()
        cases += [(f"generated {LARGE_MEGABYTES} MB", root, f) for f in ("text", "json")]
    lines = ["| scale | MB | format | best | peak RSS |", "|---|---|---|---|---|"]
    measured: dict[Path, tuple[float, float]] = {}
    for name, root, fmt in cases:
        runs = [run_once(root, fmt, jobs) for _ in range(repeat)]
        size = sum(p.stat().st_size for p in manifest_files(root)) / MB
        codes = sorted({code for _, _, code in runs})
        note = "" if codes[-1] <= 1 else f" (exit {codes[-1]})"
        best = min(wall for wall, _, _ in runs)
        peak = max(rss for _, rss, _ in runs)
        measured[root] = (best, peak)
        lines.append(f"| {name} | {size:.1f} | {fmt} | {best:.2f} s{note} | {peak:.0f} MB |")
        print(f"measured {root} ({fmt})", file=sys.stderr)
    if "one-namespace" in families:
        lines += ["", *_growth(measured)]
    return "\n".join(lines)


GROWTH_STEPS = ((500, 2000), (2000, 8000))
"""The one-namespace steps whose growth is printed: four times the
templates, so linear cost grows about four times."""


def _growth(measured: dict[Path, tuple[float, float]]) -> list[str]:
    """How time and peak RSS grow over each of ``GROWTH_STEPS``."""
    lines = []
    for small, large in GROWTH_STEPS:
        before = measured.get(OUT / f"one-namespace-{small}")
        after = measured.get(OUT / f"one-namespace-{large}")
        if before and after:
            lines.append(
                f"one namespace, {small:,} -> {large:,} templates: "
                f"time {after[0] / before[0]:.2f}x, peak RSS {after[1] / before[1]:.2f}x"
            )
    return lines


SCALE_FAMILIES = ("one-namespace", "dense", "large")


def render(rows: list[Row]) -> str:
    parsers = list(rows[0].parses) if rows else []
    header = [
        "input",
        "MB",
        "docs",
        *[f"{p} s" for p in parsers],
        "load() s",
        "load/fast",
        "check s",
        "check MB/s",
        "check/fast",
        "check RSS MB",
    ]
    lines = [header]
    for row in rows:
        known = [t for t in row.parses.values() if t is not None]
        fastest = min(known) if known else None
        lines.append(
            [
                row.name,
                f"{row.megabytes:.1f}",
                str(row.documents),
                *[_seconds(row.parses[p]) for p in parsers],
                _seconds(row.load),
                _ratio(row.load, fastest),
                _seconds(row.check),
                "n/a" if row.check is None else f"{row.megabytes / row.check:.1f}",
                _ratio(row.check, fastest),
                "n/a" if row.check_rss_mb is None else f"{row.check_rss_mb:.0f}",
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    table = [
        " | ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True))
        for line in lines
    ]
    table.insert(1, "-+-".join("-" * w for w in widths))
    notes = [f"{row.name}: check {row.check_note}" for row in rows if row.check_note]
    return "\n".join(table + notes)


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ratio(value: float | None, fastest: float | None) -> str:
    return "n/a" if value is None or not fastest else f"{value / fastest:.2f}x"


def compile_package() -> None:
    """Write the bytecode of ``lint`` once, as ``pip install`` does.

    An editable install keeps only sources; under PYTHONDONTWRITEBYTECODE
    (set on some CI images) every CLI run would then compile every module
    again, about 80 ms that no installed copy pays.
    """
    compileall.compile_dir(REPO / "lint", quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the egress-lint benchmarks.")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument("--sizes", default="4,8,16", help="generated tree sizes in MB")
    parser.add_argument("--no-corpus", action="store_true", help="skip shared/corpus")
    parser.add_argument("--no-check", action="store_true", help="skip the CLI runs")
    parser.add_argument(
        "--jobs", type=int, help="pass --jobs to the CLI (default: its own, one per CPU)"
    )
    parser.add_argument(
        "--cluster-policy-sizes",
        default="",
        help="also measure trees of these sizes with 200 Calico and 50 ClusterNetworkPolicy "
        "objects",
    )
    parser.add_argument(
        "--scale",
        default="",
        help="also run the scale families (issue 18), comma-separated: "
        + ", ".join(SCALE_FAMILIES)
        + ", or all",
    )
    parser.add_argument("--only-scale", action="store_true", help="skip the size table")
    args = parser.parse_args()
    families = (
        set(SCALE_FAMILIES) if args.scale == "all" else set(filter(None, args.scale.split(",")))
    )
    if families - set(SCALE_FAMILIES):
        parser.error(f"unknown scale family: {', '.join(sorted(families - set(SCALE_FAMILIES)))}")
    if not args.no_check or families:
        compile_package()
    if args.only_scale:
        print(measure_scale(args.repeat, args.jobs, families))
        return
    rows = []
    for size in (int(s) for s in args.sizes.split(",") if s):
        root = tree_for(size)
        rows.append(
            measure(f"generated {size} MB", root, args.repeat, not args.no_check, args.jobs)
        )
        print(f"measured {root}", file=sys.stderr)
    for size in (int(s) for s in args.cluster_policy_sizes.split(",") if s):
        root = tree_for(size, calico=200, cluster_policies=50)
        label = f"generated {size} MB + 200 Calico + 50 CNP"
        rows.append(measure(label, root, args.repeat, not args.no_check, args.jobs))
        print(f"measured {root}", file=sys.stderr)
    if CORPUS.is_dir() and not args.no_corpus:
        rows.append(
            measure("shared/corpus", CORPUS.resolve(), args.repeat, not args.no_check, args.jobs)
        )
    print(render(rows))
    if not args.no_check:
        print()
        print(measure_startup(args.repeat))
    if families:
        print()
        print(measure_scale(args.repeat, args.jobs, families))


if __name__ == "__main__":
    main()
